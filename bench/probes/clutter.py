#!/usr/bin/env python3
"""Text-free frames (bench/tilt_and_clutter.py's 28 textures) and copies at a third of their size,
for legibled flag sets and levels: how many answer empty. Ad-hoc probe of stop 28.

    python3 bench/probes/clutter.py
"""
import os
import sys

import argparse

argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for folder in ("bench", "clients/python", "clients/python/tests", "scripts"):
    sys.path.insert(0, os.path.join(REPO, folder))
import tilt_and_clutter as tc, models as bm
from PIL import Image
# (flags, level): stop 28 ran these at FAST, and the larger ACCURATE input at ACCURATE.
RUNS = [([], 'fast'), (['--min-line-confidence', '0.35'], 'fast'), (['--min-line-confidence', '0.25'], 'fast'),
        (['--detector-max-side', '1280'], 'accurate')]
for flags, level in RUNS:
    level_value = tc.pb.LEVEL_ACCURATE if level == 'accurate' else tc.pb.LEVEL_FAST
    server = bm.Server(os.path.join(REPO, '.build/release/legibled'), *flags)
    try:
        frames = list(tc.clutter_frames())
        # also small versions of the clutter (upscaled by the detector now)
        extra = []
        for f in frames:
            img = f[1] if isinstance(f, tuple) else f
            extra.append(img.resize((img.width//3, img.height//3)))
        empty = 0; total = 0; texts = []
        for f in frames:
            img = f[1] if isinstance(f, tuple) else f
            r = tc.read(server, img, level_value); total += 1
            if not r.text.text.strip(): empty += 1
            else: texts.append(r.text.text[:30])
        sempty = 0
        for img in extra:
            r = tc.read(server, img, level_value)
            if not r.text.text.strip(): sempty += 1
            else: texts.append('small:' + r.text.text[:30])
        print(flags, level, 'text-free empty %d/%d, small (1/3 size) empty %d/%d' % (empty, total, sempty, len(extra)), texts[:6], flush=True)
    finally:
        server.stop()

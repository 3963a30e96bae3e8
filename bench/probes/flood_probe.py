#!/usr/bin/env python3
"""The server's own recognize time of the 640x480 label fixture (12 in one session) and of 16x16
GRAY8 frames, with and without --detector-min-side 0 (debug build). Ad-hoc probe of stop 28.

    python3 bench/probes/flood_probe.py
"""
import os
import sys

import argparse

argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for folder in ("bench", "clients/python", "clients/python/tests", "scripts"):
    sys.path.insert(0, os.path.join(REPO, folder))
import statistics
import models as bm
from legible_client import pb, build_image
label = open(os.path.join(REPO, 'Tests/Fixtures/label-640x480.jpg'), 'rb').read()
tiny = bytes(range(16)) * 16
for flags in ([], ['--detector-min-side','0']):
    server = bm.Server(os.path.join(REPO, '.build/debug/legibled'), *flags)
    try:
        s = server.session(recognize_unchanged=True)
        res = {'label': [], 'tiny': []}
        for i in range(1, 13):
            s.send(pb.ClientMessage(frame=pb.Frame(frame_id=i, image=pb.Image(encoding=pb.ENCODING_JPEG, data=label))))
            r = s.receive().result; res['label'].append((r.timing.recognize_us/1000, len(r.text.blocks)))
        for i in range(13, 40):
            s.send(pb.ClientMessage(frame=pb.Frame(frame_id=i, image=build_image(pb.ENCODING_GRAY8, tiny, 16, 16))))
            r = s.receive().result; res['tiny'].append((r.timing.recognize_us/1000, r.status, r.text.text))
        s.close()
        print(flags, 'label ms median %.1f' % statistics.median(x[0] for x in res['label'][2:]), 'tiny ms median %.1f' % statistics.median(x[0] for x in res['tiny'][2:]), res['tiny'][5])
    finally:
        server.stop()

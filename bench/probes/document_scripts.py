#!/usr/bin/env python3
"""Does the combined engine still pay where whole frames are read? The corpus's multi-script
images (tune part unless --part held-out), read in MODE_DOCUMENT (Tesseract's page layout) and by
`legibled --detector tesseract` in text mode (the whole-frame read, PSM 11), each by a session
naming every script (one engine holding all their models: `eng+Devanagari`) and by sessions
naming each script alone (one model); text mode's line-by-line reading (each line read by its
script's engine) beside them for contrast. FAST, one worker. CER as bench/models.py's.
Ad-hoc probe of stop 33.

    python3 bench/probes/document_scripts.py [--part tune|held-out]
"""
import argparse
import os
import statistics
import sys

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--part", default="tune", choices=["tune", "held-out"])
a = parser.parse_args()
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))
import corpus_accuracy as ca  # noqa: E402
import models as bm  # noqa: E402
from legible_client import pb  # noqa: E402

entries = [e for e in ca.load_corpus() if len(e.get("scripts") or []) > 1 and ca.part(e["id"]) == a.part]
binary = os.path.join(REPO, ".build/release/legibled")
server, page_server = bm.Server(binary), bm.Server(binary, "--detector", "tesseract")
columns = ["document: all named (combined)", "document: first alone", "document: second alone",
           "--detector tesseract: combined", "first alone", "second alone", "text: lines by script"]
table = {c: [] for c in columns}
try:
    for entry in entries:
        encoding, data, _ = ca.encoded(os.path.join(ca.CORPUS, entry["file"]))
        truth = entry["truth"]
        scripts = ca.scripts_of(entry)
        row = []
        for column, on, mode, named in (
                (columns[0], server, pb.MODE_DOCUMENT, scripts), (columns[1], server, pb.MODE_DOCUMENT, scripts[:1]),
                (columns[2], server, pb.MODE_DOCUMENT, scripts[1:2]), (columns[3], page_server, pb.MODE_TEXT, scripts),
                (columns[4], page_server, pb.MODE_TEXT, scripts[:1]), (columns[5], page_server, pb.MODE_TEXT, scripts[1:2]),
                (columns[6], server, pb.MODE_TEXT, scripts)):
            ca.MODE[0] = mode
            text, ms, _ = ca.legible_text(on, data, encoding, named, pb.LEVEL_FAST)
            cer = bm.cer(text, truth)
            table[column].append(cer)
            row.append("%.3f" % cer)
        print("%-34s %-22s %s" % (entry["id"], "+".join(scripts), "  ".join(row)), flush=True)
finally:
    server.stop()
    page_server.stop()
print("\n| %d images (%s part) | %s |" % (len(entries), a.part, " | ".join(columns)))
print("|---|%s" % ("---:|" * len(columns)))
print("| mean CER | %s |" % " | ".join("%.3f" % statistics.mean(table[c]) for c in columns))

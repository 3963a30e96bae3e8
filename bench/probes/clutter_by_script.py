#!/usr/bin/env python3
"""Text-free frames read in a session of one script, for several --min-line-confidence values:
how many answer empty. The frames: bench/tilt_and_clutter.py's 28 textures, copies at a third
of their size, and the corpus's text-free images of the tune part. Ad-hoc probe of stop 34
(does a lower line-confidence floor for a script invent text on clutter?).

    python3 bench/probes/clutter_by_script.py --script devanagari --floors "0.5 0.5,devanagari=0.15 0.5,devanagari=0"
"""
import os

from probe_setup import probe_parser  # sets sys.path for the imports below

parser = probe_parser(__doc__)
parser.add_argument("--script", default="devanagari")
parser.add_argument("--floors", default="0.5 0.5,devanagari=0.15 0.5,devanagari=0", help="--min-line-confidence values, space-separated")
parser.add_argument("--level", choices=("fast", "accurate"), default="fast")
parser.add_argument("--flags", default="", help="more legibled flags (space-separated)")
args = parser.parse_args()

import corpus_accuracy as ca  # noqa: E402
import models as bm  # noqa: E402
import tilt_and_clutter as tc  # noqa: E402
from legible_client import pb  # noqa: E402

frames = [(kind, image) for kind, image in tc.clutter_frames()]
frames += [(kind + "/3", image.resize((image.width // 3, image.height // 3))) for kind, image in tc.clutter_frames()]
corpus = [e for e in ca.load_corpus() if e["part"] == "tune" and not e["truth"].strip()]
level = pb.LEVEL_ACCURATE if args.level == "accurate" else pb.LEVEL_FAST
for floor in args.floors.split(" "):
    server = bm.Server(args.legibled, "--min-line-confidence", floor, *args.flags.split())
    try:
        invented = []
        for kind, image in frames:
            text, _, _ = ca.legible_text(server, tc.jpeg(image), pb.ENCODING_JPEG, [args.script], level)
            if text.strip():
                invented.append((kind, text.strip()))
        for entry in corpus:
            encoding, data, _ = ca.encoded(os.path.join(ca.CORPUS, entry["file"]))
            text, _, _ = ca.legible_text(server, data, encoding, [args.script], level)
            if text.strip():
                invented.append((entry["id"], text.strip()))
    finally:
        server.stop()
    total = len(frames) + len(corpus)
    print(f"{args.script} floor {floor}: {total - len(invented)} of {total} answered empty;"
          f" invented: {invented[:8]}", flush=True)

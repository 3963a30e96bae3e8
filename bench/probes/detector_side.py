#!/usr/bin/env python3
"""FAST's detector input (--detector-max-side) on generated camera frames, side by side: CER of
the hard Latin frames (seeds of cf.scene), of each script's scene at seeds 0-4 (the generator's
tune seeds, not make bench's), lines tilted -30..30 degrees (seeds 0-1) and the text-free
frames answered empty, plus the server's median recognize time per frame. Ad-hoc probe of
stop 29.

    python3 bench/probes/detector_side.py [--sides 960,736] [--legibled .build/release/legibled]
"""
import statistics

from probe_setup import probe_parser  # sets sys.path for the imports below

parser = probe_parser(__doc__)
parser.add_argument("--sides", default="960,736")
args = parser.parse_args()
import camera_frames as cf  # noqa: E402
import models as bm  # noqa: E402
import script_lines  # noqa: E402
import tilt_and_clutter as tc  # noqa: E402
from legible_client import pb  # noqa: E402


SCRIPTS = {"latin": pb.SCRIPT_LATIN, "chinese": pb.SCRIPT_CHINESE, "japanese": pb.SCRIPT_JAPANESE,
           "korean": pb.SCRIPT_KOREAN, "devanagari": pb.SCRIPT_DEVANAGARI}
frames = [("hard " + name, image, cf.truth_text(truth), {}) for name, (image, truth) in bm.hard_frames().items()]
for script, value in SCRIPTS.items():
    for seed in range(5):
        image, truth = cf.script_scene(script, seed=seed)
        frames.append((script, image, cf.truth_text(truth), {"scripts": [value]}))
for angle in (-30, -20, -10, 0, 10, 20, 30):
    for seed in range(2):
        image, truth = tc.tilted_frame(angle, seed)
        frames.append(("tilted", image, cf.truth_text(truth) if isinstance(truth, dict) else
                       "\n".join(line["text"] for line in truth), {}))
clutter = tc.clutter_frames()

for side in args.sides.split(","):
    server = bm.Server(args.legibled, "--detector-max-side", side, "--replicas-per-script", "1")
    try:
        cers, times = {}, []
        for kind, image, truth, options in frames:
            result = script_lines.read(server, image, **options)
            cers.setdefault(kind.split()[0], []).append(bm.cer(result.text.text, truth))
            times.append(result.timing.recognize_us / 1000)
        empty = sum(1 for _, image in clutter if not script_lines.read(server, image).text.text)
        summary = ", ".join("%s %.3f" % (kind, statistics.mean(values)) for kind, values in cers.items())
        print("side %s: %s; text-free empty %d/%d; median ms %.0f" % (
            side, summary, empty, len(clutter), statistics.median(times)), flush=True)
    finally:
        server.stop()

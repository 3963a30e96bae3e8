#!/usr/bin/env python3
"""Hard generated frames of each script (small, blurred, dim and uneven, light on dark; seeds
100-103, not make bench's), read at FAST and ACCURATE and with each level's second reading
off: CER per script and kind. A tune source for the levels' choices besides the corpus's tune
part (the corpus has 3 Devanagari images there). Ad-hoc probe of stop 34.

    python3 bench/probes/hard_scripts.py [--scripts devanagari,korean]
"""
import statistics

import numpy as np

from probe_setup import probe_parser  # sets sys.path for the imports below

parser = probe_parser(__doc__)
parser.add_argument("--scripts", default="latin,chinese,devanagari,japanese,korean")
parser.add_argument("--seeds", default="100,101,102,103")
args = parser.parse_args()
from PIL import Image  # noqa: E402

import camera_frames as cf  # noqa: E402
import models as bm  # noqa: E402
from legible_client import pb  # noqa: E402  (levels)

SCRIPTS = bm.PROTO_SCRIPT


def dim(frame):
    image, truth = frame
    pixels = np.asarray(image, np.float32) * np.linspace(0.25, 1.0, image.width)[None, :, None]
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)), truth


KINDS = {
    "small": lambda s, seed: cf.script_scene(s, seed=seed, size_scale=0.5, perspective=1.5, blur=0.5),
    "blurred": lambda s, seed: cf.script_scene(s, seed=seed, blur=1.8, noise=6),
    "dim": lambda s, seed: dim(cf.script_scene(s, seed=seed)),
    "inverted": lambda s, seed: cf.script_scene(s, seed=seed, inverted=True, blur=1.2),
}
SYSTEMS = {
    "fast": ([], pb.LEVEL_FAST),
    "fast, no second reading": (["--fast-second-opinion-below", "0"], pb.LEVEL_FAST),
    "accurate": ([], pb.LEVEL_ACCURATE),
    "accurate, no second reading": (["--second-opinion-below", "0"], pb.LEVEL_ACCURATE),
}
seeds = [int(s) for s in args.seeds.split(",")]
frames = {(script, kind, seed): make(script, seed) for script in args.scripts.split(",")
          for kind, make in KINDS.items() for seed in seeds}
results = {}
for name, (flags, level) in SYSTEMS.items():
    server = bm.Server(args.legibled, *flags)
    try:
        for (script, kind, seed), (image, truth) in frames.items():
            stream = server.session(scripts=[SCRIPTS[script]], level=level)
            result = bm.read(stream, image, 1)
            stream.close()
            results[(name, script, kind, seed)] = bm.cer(result.text.text, cf.truth_text(truth))
    finally:
        server.stop()
    print("done:", name, flush=True)
print("| script | kind | " + " | ".join(SYSTEMS) + " |")
print("|---|---|" + "---:|" * len(SYSTEMS))
for script in args.scripts.split(","):
    for kind in list(KINDS) + ["all"]:
        kinds = list(KINDS) if kind == "all" else [kind]
        cells = [statistics.mean(results[(n, script, k, s)] for k in kinds for s in seeds) for n in SYSTEMS]
        print(f"| {script} | {kind} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")

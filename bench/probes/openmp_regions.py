#!/usr/bin/env python3
"""Tesseract's OpenMP parallel regions inline (Sources/COpenMPRegions) against libgomp's own
(LEGIBLE_OPENMP_REGIONS=libgomp), side by side: legible-floor on the 720p fixture, the whole
frame and the detector + lines path, --rounds alternating rounds of --repeat recognitions each;
the median of the rounds' medians and CPU ms per frame, and (with strace installed) the futex
system calls of one recognition. Probe of stop 43.

    python3 bench/probes/openmp_regions.py [--rounds 3] [--repeat 10] [--floor .build/release/legible-floor]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FRAME = os.path.join(REPO, "Tests", "Fixtures", "camera-720p.jpg")
parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--repeat", type=int, default=10)
parser.add_argument("--floor", default=os.path.join(REPO, ".build", "release", "legible-floor"))
args = parser.parse_args()

VARIANTS = {"inline": {}, "libgomp": {"LEGIBLE_OPENMP_REGIONS": "libgomp"}}
PATHS = {"whole frame": [], "detector + lines": ["--detector"]}


def floor(flags, env, repeat, prefix=()):
    out = subprocess.run([*prefix, args.floor, "--repeat", str(repeat), "--warmup", "1", *flags, FRAME],
                         env={**os.environ, "OMP_THREAD_LIMIT": "1", **env}, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


results = {(p, v): [] for p in PATHS for v in VARIANTS}
for round_index in range(args.rounds):
    order = list(VARIANTS) if round_index % 2 == 0 else list(reversed(VARIANTS))
    for path, flags in PATHS.items():
        for variant in order:
            result = floor(flags, VARIANTS[variant], args.repeat)
            assert result["openmp_regions_inline"] == (variant == "inline"), result
            results[(path, variant)].append((result["median_ms"], result["cpu_ms"]))
for path in PATHS:
    row = {v: results[(path, v)] for v in VARIANTS}
    median = {v: statistics.median(m for m, _ in row[v]) for v in VARIANTS}
    cpu = {v: statistics.median(c for _, c in row[v]) for v in VARIANTS}
    print("%-17s median ms: inline %.1f, libgomp %.1f (%.3f); CPU ms: inline %.1f, libgomp %.1f (%.3f); rounds %s" % (
        path, median["inline"], median["libgomp"], median["inline"] / median["libgomp"], cpu["inline"], cpu["libgomp"],
        cpu["inline"] / cpu["libgomp"], {v: [m for m, _ in row[v]] for v in VARIANTS}))
if shutil.which("strace"):
    for variant, env in VARIANTS.items():
        with tempfile.NamedTemporaryFile() as summary:
            floor([], env, 1, prefix=("strace", "-f", "-c", "-o", summary.name))
            calls = [line.split() for line in open(summary.name) if line.rstrip().endswith(" futex")]
            print("futex calls, warm-up + one whole-frame recognition, %s: %s" % (variant, calls[0][3] if calls else 0))

#!/usr/bin/env python3
"""make bench's generated latin-multilingual row (seeds SEED, SEED+11, SEED+23; hints de, fr, es,
vi, so the `Latin` model) read at FAST and at ACCURATE: CER per seed and each line's text,
confidence and model. Ad-hoc probe of stop 29 (PP-OCRv6 leaving out the letters it has no class
for).

    python3 bench/probes/multilingual_levels.py [--legibled .build/release/legibled]
"""

from probe_setup import probe_parser  # sets sys.path for the imports below

parser = probe_parser(__doc__)
args = parser.parse_args()
import camera_frames as cf  # noqa: E402
import models as bm  # noqa: E402
from legible_client import pb  # noqa: E402

server = bm.Server(args.legibled, "--replicas-per-script", "1")
try:
    totals = {pb.LEVEL_FAST: [], pb.LEVEL_ACCURATE: []}
    for seed in (cf.SEED, cf.SEED + 11, cf.SEED + 23):
        image, truth = cf.script_scene("latin-multilingual", seed=seed)
        expected = cf.truth_text(truth)
        for level in totals:
            stream = server.session(language_hints=["de", "fr", "es", "vi"], level=level)
            stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=pb.Image(
                encoding=pb.ENCODING_JPEG, data=bm.jpeg(image)))))
            result = stream.receive().result
            stream.close()
            cer = bm.cer(result.text.text, expected)
            totals[level].append(cer)
            lines = [(line.text, round(line.confidence, 3), line.model)
                     for block in result.text.blocks for line in block.lines]
            print(seed, ("FAST" if level == pb.LEVEL_FAST else "ACCURATE"), "CER %.3f" % cer, lines, flush=True)
    for level, cers in totals.items():
        print(("FAST" if level == pb.LEVEL_FAST else "ACCURATE"), "mean CER %.3f" % (sum(cers) / len(cers)))
finally:
    server.stop()

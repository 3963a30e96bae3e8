#!/usr/bin/env python3
"""Does each script's recognizer write a Latin line in Latin letters? ScriptRouting settles a line
in a script when that script's reader writes its own letters for it (`readersWritingLatin`),
which is safe only for readers that write Latin lines as Latin. This reads the Latin lines of
generated two-script signs (scripts/camera_frames.py `mixed_scene`, seeds 0-4, as in
bench/script_lines.py) in a session that names only the other script, and the corpus's tune-part
images that have both, and counts in which letters the best-matching answered line is written.
FAST, one worker. Probe of stop 35.

    python3 bench/probes/latin_in_other_readers.py [--legibled .build/release/legibled]
"""
import os

from probe_setup import probe_parser  # sets sys.path for the imports below

parser = probe_parser(__doc__)
parser.add_argument("--seeds", default="0-4")
args = parser.parse_args()

import camera_frames as cf  # noqa: E402
import models as bm  # noqa: E402
from corpus_accuracy import encoded, legible_text  # noqa: E402
from corpus_parts import CORPUS, load_corpus  # noqa: E402
from legible_client import pb  # noqa: E402
from script_lines import read, seeds  # noqa: E402

OWN_LETTERS = {  # the letters each reader writes as its own (as WrittenScript.swift)
    "devanagari": [(0x900, 0x97F), (0xA8E0, 0xA8FF)],
    "chinese": [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF)],
    "japanese": [(0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF)],
    "korean": [(0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7AF)],
}
SCRIPTS = {"devanagari": pb.SCRIPT_DEVANAGARI, "chinese": pb.SCRIPT_CHINESE, "japanese": pb.SCRIPT_JAPANESE,
           "korean": pb.SCRIPT_KOREAN}
PAIRS = {"devanagari": ("latin", "devanagari"), "japanese": ("japanese", "latin"), "chinese": ("chinese", "latin"),
         "korean": ("korean", "latin")}


def letters(text, script):
    own = sum(any(a <= ord(c) <= b for a, b in OWN_LETTERS[script]) for c in text)
    latin = sum(c.isascii() and c.isalpha() for c in text)
    return own, latin


def tally(counts, script, answered, expected):
    """Counts the best-matching answered line of one Latin truth line by its letters."""
    if not answered:
        counts["missed"] += 1
        return
    error, text, confidence = min((bm.cer(t, expected), t, c) for t, c in answered)
    own, latin = letters(text, script)
    kind = "own letters" if own > latin else ("latin letters" if latin else "no letters")
    counts[kind] += 1
    if kind == "own letters":
        counts.setdefault("own at", []).append(round(confidence, 2))


server = bm.Server(args.legibled)
try:
    for script, option in SCRIPTS.items():
        generated = {"latin letters": 0, "own letters": 0, "no letters": 0, "missed": 0}
        for seed in seeds(args.seeds):
            image, truth = cf.mixed_scene(PAIRS[script], seed=seed)
            result = read(server, image, scripts=[option])
            answered = [(line.text, line.confidence) for block in result.text.blocks for line in block.lines]
            for line in truth["lines"]:
                if line["script"] == "latin":
                    tally(generated, script, answered, line["text"])
        corpus = {"latin letters": 0, "own letters": 0, "no letters": 0, "missed": 0}
        for entry in load_corpus():
            if entry["part"] != "tune" or script not in entry["scripts"] or "latin" not in entry["scripts"]:
                continue
            encoding, data, _ = encoded(os.path.join(CORPUS, entry["file"]))
            _, _, lines = legible_text(server, data, encoding, [script], pb.LEVEL_FAST)
            answered = [(text, confidence) for text, confidence, _, _ in lines]
            for expected in entry["truth"].splitlines():
                own, latin = letters(expected, script)
                if latin and not own:
                    tally(corpus, script, answered, expected)
        print(f"{script}: Latin lines of generated signs {generated}; of the tune part's photos {corpus}")
finally:
    server.stop()

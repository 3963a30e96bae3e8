"""The real-image corpus (bench/corpus) and its two parts, with no dependency beyond the
standard library (scripts/quantize-detector.py runs in a virtualenv of its own).

Tuning and reporting are kept apart: each image is in the "tune" or the "held-out" part by a
hash of its id (a third tune, two thirds held out); images looked at during development are in
the tune part whatever their hash.
"""
import hashlib
import json
import os

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# Images whose results were looked at while the line path was developed: they belong to the
# tune part whatever their hash (the page rule was written after reading this page's output).
SEEN_IN_DEVELOPMENT = {"latin-page-unlv-what-kids-need", "latin-page-unlv-dubrovnik"}


def part(image_id):
    if image_id in SEEN_IN_DEVELOPMENT:
        return "tune"
    return "tune" if int(hashlib.sha1(image_id.encode()).hexdigest(), 16) % 3 == 0 else "held-out"


def load_corpus():
    """The manifest's entries, each with its truth text and its part."""
    with open(os.path.join(CORPUS, "manifest.json")) as f:
        manifest = json.load(f)
    entries = manifest["images"] if isinstance(manifest, dict) else manifest
    for entry in entries:
        with open(os.path.join(CORPUS, "truth", entry["id"] + ".txt"), encoding="utf-8") as f:
            entry["truth"] = f.read()
        entry["part"] = part(entry["id"])
    return entries

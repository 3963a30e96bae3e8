#!/usr/bin/env python3
"""tesseract-cli: a peer for Legible's benchmarks, not part of the product.

What pytesseract does for each frame: write the image to a temporary file, run the
`tesseract` command on it, read the text it prints. Here:

    OMP_THREAD_LIMIT=1 tesseract in.jpg - -l eng --psm 11

PSM 11 (sparse text) is the segmentation Legible uses in its text mode, so both sides segment
alike; `--psm 3` (the CLI's own default) is available with --psm. OMP_THREAD_LIMIT=1 as for
Legible (Debian's Tesseract is built with OpenMP; without it one frame costs several times
more). The frame goes in as the stored JPEG a phone would send; the CLI knows nothing of the
frame's orientation (Leptonica does not apply an EXIF orientation tag either).

The wall time per frame counts the temporary file, the process start and model load, the
recognition and reading the text: what a caller waits for.

    python3 bench/peers/tesseract_cli.py [--lang eng] [--psm 11] FILE...   # ms and text per file
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ENV = dict(os.environ, OMP_THREAD_LIMIT="1")


def command(lang="eng", psm=11, path="in.jpg"):
    """The argv the peer runs for one frame."""
    return ["tesseract", path, "-", "-l", lang, "--psm", str(psm)]


def recognize(data, lang="eng", psm=11, suffix=".jpg"):
    """(text, wall milliseconds) for one encoded frame."""
    started = time.perf_counter()
    with tempfile.NamedTemporaryFile(suffix=suffix, prefix="tesseract-cli-") as f:
        f.write(data)
        f.flush()
        out = subprocess.run(command(lang, psm, f.name), env=ENV, capture_output=True, check=True)
    text = out.stdout.decode("utf-8", "replace")
    return text, (time.perf_counter() - started) * 1000


def version():
    out = subprocess.run(["tesseract", "--version"], capture_output=True, text=True)
    return (out.stdout or out.stderr).splitlines()[0]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lang", default="eng")
    p.add_argument("--psm", type=int, default=11)
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    for name in a.files:
        with open(name, "rb") as f:
            text, ms = recognize(f.read(), a.lang, a.psm, os.path.splitext(name)[1] or ".jpg")
        print("==> %s <== %.1f ms" % (name, ms))
        print(text.rstrip())


if __name__ == "__main__":
    sys.exit(main())

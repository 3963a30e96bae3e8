#!/usr/bin/env python3
"""How noisy Tesseract's thresholded image is, for text and for noise: the measure behind
`--max-noise` (NoiseGate.swift). Each image of 1 MP or more is sent in document mode to a
legibled started with `--max-noise 0`, which refuses every such image and says its share of
horizontally neighbouring pixels that differ; then, with the default `--max-noise`, how each is
answered and how long that takes.

Images: the corpus's images of 1 MP or more (bench/corpus), two generated 4000x3000 pages of
14 and 22 px print, and random black and white noise of 1000 to 3000 pixels a side.

    python3 bench/noise_share.py [--legibled .build/release/legibled] [--no-answers] [--answer-flags FLAGS]
"""
import argparse
import io
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
from legible_client import Stream, build_image, pb  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def page(width, height, size):
    from PIL import Image, ImageDraw, ImageFont
    rng = random.Random(size)
    image = Image.new("L", (width, height), 235)
    draw = ImageDraw.Draw(image)
    face = ImageFont.truetype(FONT, size)
    y = 20
    while y < height - size:
        draw.text((20, y), " ".join("word%d" % rng.randrange(1000) for _ in range(width // (size * 3))),
                  font=face, fill=20)
        y += int(size * 1.4)
    out = io.BytesIO()
    image.save(out, "PNG")
    return build_image(pb.ENCODING_PNG, out.getvalue())


def noise(side):
    raw = random.Random(7).randbytes(side * side).translate(bytes(0 if i < 128 else 255 for i in range(256)))
    return build_image(pb.ENCODING_GRAY8, raw, side, side, side)


def images():
    manifest = json.load(open(os.path.join(REPO, "bench", "corpus", "manifest.json")))
    for item in manifest:
        if item["width"] * item["height"] >= 1_000_000:
            data = open(os.path.join(REPO, "bench", "corpus", item["file"]), "rb").read()
            encoding = pb.ENCODING_JPEG if item["file"].endswith(".jpg") else pb.ENCODING_PNG
            yield "%s %s" % (item["kind"], item["id"]), build_image(encoding, data)
    for size in (22, 14):
        yield "generated page 4000x3000, %d px print" % size, page(4000, 3000, size)
    for side in (1000, 1500, 2000, 3000):
        yield "noise %dx%d" % (side, side), noise(side)


def answer(address, image):
    stream = Stream(address)
    stream.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(
        mode=pb.MODE_DOCUMENT, recognize_unchanged=True))))
    stream.receive()
    began = time.monotonic()
    stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=image)))
    while (message := stream.receive()).WhichOneof("message") != "result":
        pass
    stream.close()
    return message.result, time.monotonic() - began


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", default=os.path.join(REPO, ".build", "release", "legibled"))
    p.add_argument("--no-answers", action="store_true", help="only the shares, not the default server's answers")
    p.add_argument("--answer-flags", default="",
                   help="legibled flags for the answers, e.g. '--frame-deadline-ms 0' to time the dense pages whole")
    a = p.parse_args()
    rows = {}
    for flags in ["--max-noise 0"] + ([] if a.no_answers else [a.answer_flags or " "]):
        folder = tempfile.mkdtemp(prefix="legible-noise-share-")
        sock = os.path.join(folder, "s.sock")
        server = subprocess.Popen([a.legibled, "--listen", "unix:" + sock, "--max-pixels", "40000000"]
                                  + shlex.split(flags), stderr=subprocess.DEVNULL, env=dict(os.environ, OMP_THREAD_LIMIT="1"))
        try:
            while not os.path.exists(sock):
                time.sleep(0.1)
            for name, image in images():
                result, seconds = answer("unix:" + sock, image)
                row = rows.setdefault(name, {})
                if flags == "--max-noise 0":
                    found = re.search(r"\(([0-9.]+) % of neighbouring", result.error.message)
                    row["share"] = float(found.group(1)) / 100 if found else 0.0
                else:
                    row["answer"] = "%s in %.2f s" % (pb.FrameStatus.Name(result.status)[13:], seconds)
                print("%-50s %s" % (name, row), file=sys.stderr, flush=True)
        finally:
            server.terminate()
            server.wait()
    print("| image | share of neighbouring pixels that differ | answered on the default flags |")
    print("|---|---:|---|")
    for name, row in rows.items():
        print("| %s | %.3f | %s |" % (name, row["share"], row.get("answer", "")))


if __name__ == "__main__":
    main()

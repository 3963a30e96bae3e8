#!/usr/bin/env python3
"""Tilted lines and text-free frames, for the line detector (issue 15's goals), side by side
with Tesseract's own layout analysis, in one run:

1. Tilt: camera-like 1280x720 frames of 4 text lines on a textured, unevenly lit ground, the
   whole text turned by -30..30 degrees (5 seeds per angle). A truth line is "found" when one
   returned line's box (its corner points: rotated for the detector's lines, the frame for
   Tesseract's) overlaps the truth's rotated ink box by IoU >= 0.5, and "read" when that line's
   text has a CER under 0.2 against the truth line's. Also the whole frame's CER.
2. Clutter: text-free 1280x720 frames (noise, gradients, stripes, bricks, leaves-like blobs,
   tiles, a checkerboard, wood grain), 4 seeds each: the share answered with empty text.

Every number is from the real legibled (release build) over a unix socket, OMP_THREAD_LIMIT=1,
--workers 1, frames sent one at a time, FAST unless --level accurate.

    python3 bench/tilt_and_clutter.py --legibled .build/release/legibled [--json bench/out/tilt.json]
"""
import argparse
import io
import json
import math
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
from PIL import Image, ImageDraw, ImageFilter, ImageFont  # noqa: E402

import models as bm  # noqa: E402
from legible_client import pb  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
ANGLES = (-30, -20, -10, -5, 0, 5, 10, 20, 30)
SEEDS = range(5)
WORDS = ("fresh organic coffee beans best before march lot price per bag store cool dry place roasted "
         "portland oregon sale model aisle exit only keep door closed delivery schedule order ships monday "
         "return window closes days contact support extension fragile glass handle care").split()


# ------------------------------------------------------------------------------- geometry

def turn(point, degrees, center):
    radians = math.radians(degrees)
    x, y = point[0] - center[0], point[1] - center[1]
    return (center[0] + x * math.cos(radians) - y * math.sin(radians),
            center[1] + x * math.sin(radians) + y * math.cos(radians))


def clip(subject, edge_a, edge_b):
    """Sutherland-Hodgman: the part of polygon `subject` left of the directed edge a->b."""
    def inside(p):
        return (edge_b[0] - edge_a[0]) * (p[1] - edge_a[1]) - (edge_b[1] - edge_a[1]) * (p[0] - edge_a[0]) >= 0

    def cross_point(p, q):
        x1, y1, x2, y2 = p[0], p[1], q[0], q[1]
        x3, y3, x4, y4 = edge_a[0], edge_a[1], edge_b[0], edge_b[1]
        d = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
        if d == 0:
            return q
        t = ((x1 - x3) * (y3 - y4) - (y1 - y3) * (x3 - x4)) / d
        return (x1 + t * (x2 - x1), y1 + t * (y2 - y1))

    out = []
    for i, current in enumerate(subject):
        previous = subject[i - 1]
        if inside(current):
            if not inside(previous):
                out.append(cross_point(previous, current))
            out.append(current)
        elif inside(previous):
            out.append(cross_point(previous, current))
    return out


def area(polygon):
    return abs(sum(polygon[i][0] * polygon[(i + 1) % len(polygon)][1] -
                   polygon[(i + 1) % len(polygon)][0] * polygon[i][1] for i in range(len(polygon)))) / 2


def oriented(polygon):
    """The polygon counter-clockwise in y-up terms (clockwise on screen), as clip() expects."""
    signed = sum(polygon[i][0] * polygon[(i + 1) % len(polygon)][1] -
                 polygon[(i + 1) % len(polygon)][0] * polygon[i][1] for i in range(len(polygon)))
    return polygon if signed > 0 else polygon[::-1]


def iou(a, b):
    a, b = oriented(a), oriented(b)
    shared = a
    for i in range(len(b)):
        if not shared:
            break
        shared = clip(shared, b[i], b[(i + 1) % len(b)])
    inter = area(shared) if len(shared) >= 3 else 0
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0


# ------------------------------------------------------------------------------- frames

def ground(rng, size=(1280, 720)):
    """A light, unevenly lit, lightly textured ground."""
    width, height = size
    base = rng.uniform(190, 235)
    ys, xs = np.mgrid[0:height, 0:width]
    light = 1 - 0.25 * ((xs - rng.uniform(0, width)) ** 2 + (ys - rng.uniform(0, height)) ** 2) / (width ** 2)
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, 4, (height, width))
    return np.clip(base * light + noise, 0, 255)


def tilted_frame(angle, seed):
    """Four lines of dark text on a ground, the text turned by `angle` degrees (clockwise on
    screen) about the frame's centre; truth quads are the lines' ink boxes turned alike."""
    rng = random.Random(seed * 1000 + angle)
    background = ground(rng)
    size = rng.choice((30, 36, 44))
    font = ImageFont.truetype(FONT, size)
    center = (640, 360)
    layer = Image.new("L", (1280, 720), 0)
    draw = ImageDraw.Draw(layer)
    truth = []
    y = 360 - 2 * int(size * 1.6)
    for _ in range(4):
        words = rng.sample(WORDS, rng.randint(3, 5))
        text = " ".join(w.capitalize() if i == 0 else w for i, w in enumerate(words))
        x = rng.randint(260, 420)
        mask = Image.new("L", layer.size, 0)
        ImageDraw.Draw(mask).text((x, y), text, font=font, fill=255)
        left, top, right, bottom = mask.getbbox()
        draw.text((x, y), text, font=font, fill=255)
        corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
        truth.append({"text": text, "quad": [turn(c, angle, center) for c in corners]})
        y += int(size * 1.6)
    # PIL turns counter-clockwise for positive angles.
    alpha = np.array(layer.rotate(-angle, resample=Image.BICUBIC, center=center), dtype=np.float64) / 255
    frame = background * (1 - alpha) + rng.uniform(20, 60) * alpha
    return Image.fromarray(np.clip(frame, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.7)), truth


def clutter_frames():
    """Text-free frames: kinds of texture a camera meets, 4 seeds each."""
    frames = []
    for seed in range(4):
        rng = np.random.default_rng(seed)
        h, w = 720, 1280
        ys, xs = np.mgrid[0:h, 0:w]
        frames.append(("noise", rng.normal(128, 40, (h, w))))
        frames.append(("gradient", 60 + 150 * (xs / w) * (0.5 + 0.5 * ys / h)))
        frames.append(("stripes", 128 + 90 * np.sign(np.sin(xs / rng.uniform(4, 20) + ys / rng.uniform(8, 40)))))
        bricks = np.full((h, w), 170.0)
        for row in range(0, h, 40):
            bricks[row:row + 4, :] = 90
            offset = 0 if (row // 40) % 2 == 0 else 60
            for col in range(offset, w, 120):
                bricks[row:row + 40, col:col + 4] = 90
        frames.append(("bricks", bricks + rng.normal(0, 8, (h, w))))
        leaves = Image.new("L", (w, h), 90)
        draw = ImageDraw.Draw(leaves)
        for _ in range(400):
            x, y, r = rng.integers(0, w), rng.integers(0, h), rng.integers(6, 30)
            draw.ellipse((x - r, y - r // 2, x + r, y + r // 2), fill=int(rng.integers(30, 200)))
        frames.append(("leaves", np.array(leaves, dtype=np.float64)))
        tiles = 200 - 60 * (((xs // 64) + (ys // 64)) % 2) + rng.normal(0, 5, (h, w))
        frames.append(("tiles", tiles))
        frames.append(("wood", 140 + 40 * np.sin(xs / 7 + 3 * np.sin(ys / 50)) + rng.normal(0, 6, (h, w))))
    return [(kind, Image.fromarray(np.clip(p, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.6)))
            for kind, p in frames]


def jpeg(image):
    buffer = io.BytesIO()
    image.convert("L").save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def read(server, image, level):
    stream = server.session(level=level)
    try:
        stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=pb.Image(
            encoding=pb.ENCODING_JPEG, data=jpeg(image)))))
        return stream.receive().result
    finally:
        stream.close()


def measure(server, level, log):
    tilt = []
    for angle in ANGLES:
        for seed in SEEDS:
            image, truth = tilted_frame(angle, seed)
            result = read(server, image, level)
            lines = [l for b in result.text.blocks for l in b.lines]
            found = read_ok = 0
            for line in truth:
                best, best_line = 0, None
                for candidate in lines:
                    overlap = iou(line["quad"], [(p.x, p.y) for p in candidate.corner_points])
                    if overlap > best:
                        best, best_line = overlap, candidate
                if best >= 0.5:
                    found += 1
                    if bm.cer(best_line.text, line["text"]) < 0.2:
                        read_ok += 1
            want = "\n".join(l["text"] for l in truth)
            tilt.append({"angle": angle, "seed": seed, "lines": len(truth), "found": found, "read": read_ok,
                         "returned_lines": len(lines), "cer": bm.cer(result.text.text, want)})
        rows = [r for r in tilt if r["angle"] == angle]
        log("tilt %+3d: found %d/%d, read %d, CER %.3f" % (
            angle, sum(r["found"] for r in rows), sum(r["lines"] for r in rows), sum(r["read"] for r in rows),
            statistics.mean(r["cer"] for r in rows)))
    clutter = []
    for kind, image in clutter_frames():
        result = read(server, image, level)
        clutter.append({"kind": kind, "empty": not bm.normalise(result.text.text), "text": result.text.text})
    log("clutter: %d of %d empty" % (sum(c["empty"] for c in clutter), len(clutter)))
    return {"tilt": tilt, "clutter": clutter}


def report_lines(results):
    """Markdown: the tilt table and the text-free shares, from measure()'s results per server."""
    lines = ["| angle | lines | detector: one line, IoU >= 0.5 | detector: read | detector CER | "
             "tesseract: IoU >= 0.5 | tesseract CER |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for angle in ANGLES + ("all",):
        def rows(name):
            return [r for r in results[name]["tilt"] if angle == "all" or r["angle"] == angle]
        d, t = rows("detector"), rows("tesseract")
        total = sum(r["lines"] for r in d)
        lines.append("| %s | %d | %.0f %% | %.0f %% | %.3f | %.0f %% | %.3f |" % (
            angle, total, 100 * sum(r["found"] for r in d) / total, 100 * sum(r["read"] for r in d) / total,
            statistics.mean(r["cer"] for r in d), 100 * sum(r["found"] for r in t) / total,
            statistics.mean(r["cer"] for r in t)))
    lines.append("")
    for name in results:
        clutter = results[name]["clutter"]
        lines.append("%s: text-free frames answered empty: %d of %d (%.0f %%)  " % (
            name, sum(c["empty"] for c in clutter), len(clutter), 100 * sum(c["empty"] for c in clutter) / len(clutter)))
    return lines


def measure_both(binary, level, log, extra=()):
    """measure() against legibled with the detector and with --detector tesseract; `extra`:
    more legibled flags for both."""
    results = {}
    for name, flags in (("detector", ()), ("tesseract", ("--detector", "tesseract"))):
        server = bm.Server(binary, *flags, *extra)
        try:
            results[name] = measure(server, level, lambda line: log(name, line))
        finally:
            server.stop()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legibled", default=os.path.join(HERE, "..", ".build", "release", "legibled"))
    parser.add_argument("--level", choices=("fast", "accurate"), default="fast")
    parser.add_argument("--json")
    parser.add_argument("--flags", default="", help="more legibled flags, such as '--detector-max-side 960'")
    args = parser.parse_args()
    level = pb.LEVEL_FAST if args.level == "fast" else pb.LEVEL_ACCURATE
    results = measure_both(args.legibled, level, lambda *parts: print(*parts, file=sys.stderr, flush=True),
                           args.flags.split())
    print("\n".join(report_lines(results)))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

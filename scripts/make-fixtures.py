#!/usr/bin/env python3
"""Write the test images of Tests/Fixtures and their truth files.

Deterministic: a fixed seed drives the noise and the garbage file, so running it again gives the
same pixels (on the same Pillow/libjpeg). Needs Pillow and fonts-dejavu-core.

    python3 scripts/make-fixtures.py

Each `NAME.json` holds the true pixel boxes of what was drawn:
    {"width": W, "height": H,
     "lines": [{"text": "...", "box": [x, y, w, h],
                "words": [{"text": "...", "box": [x, y, w, h]}]}]}
A word's box is its ink box from `font.getbbox`; a line's box is the union of its words.
"""

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
OUT = Path(__file__).resolve().parent.parent / "Tests" / "Fixtures"
SEED = 20240611


def gradient(width, height, top, bottom, tint):
    """A soft vertical-and-horizontal gradient, light, slightly tinted (RGB)."""
    image = Image.new("RGB", (width, height))
    pixels = []
    for y in range(height):
        for x in range(width):
            v = top + (bottom - top) * (0.7 * y / height + 0.3 * x / width)
            pixels.append((int(v + tint[0]), int(v + tint[1]), int(v + tint[2])))
    image.putdata(pixels)
    return image


def draw_lines(image, lines, ink):
    """Draws each (text, size, x, y) word by word; returns the truth lines."""
    draw = ImageDraw.Draw(image)
    truth = []
    for text, size, x0, y0 in lines:
        font = ImageFont.truetype(FONT, size)
        space = font.getlength(" ")
        x = float(x0)
        words = []
        for word in text.split(" "):
            origin = (round(x), y0)
            draw.text(origin, word, font=font, fill=ink)
            left, top, right, bottom = font.getbbox(word)
            box = [origin[0] + left, origin[1] + top, right - left, bottom - top]
            words.append({"text": word, "box": box})
            x += font.getlength(word) + space
        left = min(w["box"][0] for w in words)
        top = min(w["box"][1] for w in words)
        right = max(w["box"][0] + w["box"][2] for w in words)
        bottom = max(w["box"][1] + w["box"][3] for w in words)
        truth.append({"text": text, "box": [left, top, right - left, bottom - top], "words": words})
    return truth


def camera_like(image, rng, blur, sigma):
    """Slight blur, then mild Gaussian sensor noise from the seeded generator."""
    image = image.filter(ImageFilter.GaussianBlur(blur))
    noisy = bytearray(image.tobytes())
    for i in range(len(noisy)):
        v = noisy[i] + rng.gauss(0.0, sigma)
        noisy[i] = 0 if v < 0 else 255 if v > 255 else int(v)
    return Image.frombytes(image.mode, image.size, bytes(noisy))


def truth_json(width, height, lines):
    """The truth as JSON with one word per line, so diffs stay readable."""
    out = [f'{{"width": {width}, "height": {height}, "lines": [']
    for i, line in enumerate(lines):
        out.append(f' {{"text": {json.dumps(line["text"])}, "box": {json.dumps(line["box"])}, "words": [')
        words = [f'  {json.dumps(w)}' for w in line["words"]]
        out.append(",\n".join(words))
        out.append(" ]}" + ("," if i + 1 < len(lines) else ""))
    out.append("]}")
    return "\n".join(out) + "\n"


def write(name, image, truth, quality=85):
    path = OUT / f"{name}.jpg"
    image.save(path, "JPEG", quality=quality, optimize=True)
    (OUT / f"{name}.json").write_text(truth_json(image.width, image.height, truth))
    print(f"{path.name}: {path.stat().st_size} bytes, {len(truth)} lines")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)

    # 1280x720 camera frame: DejaVu Sans's x-height is ~0.55 em, so 34-56 px sizes give
    # x-heights of ~19-31 px.
    camera = gradient(1280, 720, 232, 204, (4, 2, -3))
    truth = draw_lines(
        camera,
        [
            ("Fresh Organic Coffee Beans 500g", 56, 120, 90),
            ("Best before 12/2026 Lot 48213", 40, 120, 210),
            ("Price $14.99 per bag", 40, 120, 300),
            ("Store in a cool dry place", 34, 120, 400),
            ("Roasted in Portland, Oregon", 34, 120, 480),
        ],
        ink=(38, 34, 40),
    )
    write("camera-720p", camera_like(camera, rng, blur=0.9, sigma=3.0), truth)

    # 640x480 shelf label: fewer, larger lines (x-height ~35 px).
    label = gradient(640, 480, 238, 214, (0, 2, 5))
    truth = draw_lines(
        label,
        [
            ("SALE 30% OFF", 64, 60, 90),
            ("Model X200", 64, 60, 200),
            ("Aisle 7", 64, 60, 310),
        ],
        ink=(30, 30, 36),
    )
    write("label-640x480", camera_like(label, rng, blur=0.8, sigma=3.0), truth)

    # No text at all: uniform light gray.
    write("blank-320x240", Image.new("L", (320, 240), 200), [])

    # 200 bytes of garbage that is not a JPEG (a JPEG starts with FF D8).
    garbage = bytearray(rng.randbytes(200))
    garbage[0] = 0x42
    (OUT / "not-a-jpeg.jpg").write_bytes(bytes(garbage))
    print("not-a-jpeg.jpg: 200 bytes")
    png_fixtures()
    blank_fixtures()


def blank_fixtures():
    """Frames with no text for the regression of issue 14: Tesseract finds no word on them, and
    asking its choice iterator for candidates there aborted legibled. A white 640x480 JPEG and a
    64x64 white GRAY8 buffer (raw bytes, no header) are the two frames it was reported with."""
    Image.new("RGB", (640, 480), (255, 255, 255)).save(OUT / "blank-white-640x480.jpg", quality=90)
    (OUT / "blank-white-64x64.gray8").write_bytes(bytes([255]) * 64 * 64)
    print("blank-white-640x480.jpg, blank-white-64x64.gray8")


def png_fixtures():
    """13x7 PNGs of one asymmetric gray pattern, gray(x, y) = (7x + 31y) % 256, stored in each
    PNG pixel format a client may send (odd width: rows are not word-aligned)."""
    width, height = 13, 7
    values = [(7 * x + 31 * y) % 256 for y in range(height) for x in range(width)]
    gray = Image.new("L", (width, height))
    gray.putdata(values)
    gray.save(OUT / "pattern-gray8.png")
    gray.convert("RGB").save(OUT / "pattern-rgb.png")
    gray.convert("RGBA").save(OUT / "pattern-rgba.png")
    gray.convert("P").save(OUT / "pattern-palette.png")
    wide = Image.new("I;16", (width, height))
    wide.putdata([v * 257 for v in values])
    wide.save(OUT / "pattern-gray16.png")
    bits = Image.new("1", (width, height))
    bits.putdata([255 if (x + y) % 2 else 0 for y in range(height) for x in range(width)])
    bits.save(OUT / "checker-1bit.png")
    print("pattern-*.png, checker-1bit.png: 13x7")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Render the text detector's test images and their truth (Tests/Fixtures/detector/).

Deterministic: each image has its own fixed seed, so running it again gives the same pixels (on
the same Pillow and fonts). Needs Pillow, fonts-dejavu-core and fonts-noto-cjk.

    python3 scripts/make-detector-fixtures.py                 # the checked-in test fixtures
    python3 scripts/make-detector-fixtures.py --bench DIR     # + camera-like frames to measure on

Each `NAME.png` has a `NAME.json`:
    {"width": W, "height": H,
     "lines": [{"text": "...", "angle": DEGREES, "corners": [[x, y], [x, y], [x, y], [x, y]]}]}
(bench frames mark colour lines whose gray is within 20 of the background's "low_gray_contrast").
`corners` is the line's ink box (Pillow's `font.getbbox` of the whole line) turned with the
text, clockwise from the top-left of the text as read, in image pixels (x right, y down). A
positive angle turns the text counter-clockwise on screen (the line rises to the right).

The bench frames (`--bench`) are 1280x720 JPEGs in colour, as a phone sends them: lines of 14 to
60 px type at -30..30 degrees (most level), dark-on-light and light-on-dark, on gradients,
clutter and photos-like noise, blurred and noisy; a few text-free frames.
"""

import argparse
import json
import math
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DEJAVU_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
OUT = Path(__file__).resolve().parent.parent / "Tests" / "Fixtures" / "detector"

WORDS = (
    "open daily exit parking only entrance fresh bread coffee pharmacy station north platform "
    "delivery warning high voltage keep clear floor sale closed today menu tickets hotel museum "
    "Hopital Francais ferme rue de la gare bus stop line route city centre airport 24 7 10:30 "
    "No smoking push pull emergency lift stairs level 2 gate B12 price 4.99 EUR total"
).split()


def rotated_line(text, font, angle, ink, pad=6):
    """The line drawn on a transparent layer turned by `angle`; its ink corners on that layer."""
    left, top, right, bottom = font.getbbox(text)
    width, height = right - left + 2 * pad, bottom - top + 2 * pad
    layer = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    ImageDraw.Draw(layer).text((pad - left, pad - top), text, font=font, fill=ink)
    corners = [(pad, pad), (width - pad, pad), (width - pad, height - pad), (pad, height - pad)]
    if angle == 0:
        return layer, corners
    turned = layer.rotate(angle, resample=Image.BICUBIC, expand=True)
    # Pillow turns about the layer's centre; with expand the centre moves to the new one.
    cx, cy = width / 2, height / 2
    nx, ny = turned.width / 2, turned.height / 2
    a = math.radians(angle)
    moved = [
        (nx + (x - cx) * math.cos(a) + (y - cy) * math.sin(a), ny - (x - cx) * math.sin(a) + (y - cy) * math.cos(a))
        for x, y in corners
    ]
    return turned, moved


def overlaps(box, boxes, margin=6):
    x0, y0, x1, y1 = box
    return any(x0 < b[2] + margin and b[0] < x1 + margin and y0 < b[3] + margin and b[1] < y1 + margin for b in boxes)


def place_lines(image, rng, specs, tries=400):
    """Pastes each (text, font, angle, ink[, low_gray_contrast]) at a random free place; returns
    the truth lines."""
    placed, truth = [], []
    for text, font, angle, ink, *flags in specs:
        layer, corners = rotated_line(text, font, angle, ink)
        for _ in range(tries):
            x = rng.randint(4, max(4, image.width - layer.width - 4))
            y = rng.randint(4, max(4, image.height - layer.height - 4))
            box = (x, y, x + layer.width, y + layer.height)
            if box[2] <= image.width and box[3] <= image.height and not overlaps(box, placed):
                break
        else:
            continue  # no room: the line is left out (and out of the truth)
        image.paste(layer, (x, y), layer)
        placed.append(box)
        line = {"text": text, "angle": angle, "corners": [[round(x + cx, 1), round(y + cy, 1)] for cx, cy in corners]}
        if flags and flags[0]:
            # Colour text of nearly the background's gray: a gray detector cannot see it.
            line["low_gray_contrast"] = True
        truth.append(line)
    return truth


def gradient(width, height, top, bottom, tint=(0, 0, 0)):
    column = Image.linear_gradient("L").resize((width, height))
    base = Image.new("RGB", (width, height), tuple(int(top + t) for t in tint))
    far = Image.new("RGB", (width, height), tuple(int(bottom + t) for t in tint))
    return Image.composite(far, base, column)


def clutter(width, height, rng, shapes=160):
    """A busy background: gradients, rectangles, circles and strokes in many colours."""
    image = gradient(width, height, rng.randint(90, 200), rng.randint(60, 220), (rng.randint(-30, 30), 0, 0))
    draw = ImageDraw.Draw(image)
    for _ in range(shapes):
        colour = tuple(rng.randint(0, 255) for _ in range(3))
        x, y = rng.randint(-40, width), rng.randint(-40, height)
        w, h = rng.randint(10, 160), rng.randint(10, 160)
        kind = rng.random()
        if kind < 0.4:
            draw.rectangle((x, y, x + w, y + h), fill=colour)
        elif kind < 0.7:
            draw.ellipse((x, y, x + w, y + h), fill=colour)
        else:
            draw.line((x, y, x + w, y + h), fill=colour, width=rng.randint(1, 6))
    return image.filter(ImageFilter.GaussianBlur(1.2))


def texture(width, height, rng):
    """A text-free texture: wood-like grain of wavy bands and knots, noise on top."""
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    phase = [rng.uniform(0, 6.28) for _ in range(4)]
    for y in range(height):
        for x in range(width):
            v = math.sin(0.035 * y + 2.5 * math.sin(0.004 * x + phase[0]) + phase[1])
            v += 0.4 * math.sin(0.11 * y + 0.02 * x + phase[2])
            g = int(120 + 45 * v + rng.uniform(-12, 12))
            pixels[x, y] = (min(255, g + 40), g, max(0, g - 35))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y, r = rng.randint(0, width), rng.randint(0, height), rng.randint(8, 30)
        draw.ellipse((x - r, y - r // 2, x + r, y + r // 2), fill=(90, 60, 30))
    return image.filter(ImageFilter.GaussianBlur(0.8))


def camera_like(image, rng, blur=0.8, sigma=3.0):
    """Blur and sensor noise, as a phone's frame has (`sigma` 0: blur only)."""
    image = image.filter(ImageFilter.GaussianBlur(blur))
    if sigma == 0:
        return image
    noise = Image.effect_noise(image.size, sigma * 8).convert("RGB")
    return Image.blend(image, noise, 0.04 * rng.uniform(0.5, 1.5))


def luma(colour):
    return 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]


def isoluminant(background, rng):
    """A colour far from `background` in RGB whose gray (luma) is within 20 of its gray."""
    for _ in range(2000):
        ink = tuple(rng.randint(0, 255) for _ in range(3))
        distance = sum((a - b) ** 2 for a, b in zip(ink, background)) ** 0.5
        if abs(luma(ink) - luma(background)) < 20 and distance > 120:
            return ink
    return tuple(255 - c for c in background)


def sentence(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words))


def write(folder, name, image, truth, jpeg=False):
    folder.mkdir(parents=True, exist_ok=True)
    if jpeg:
        image.convert("RGB").save(folder / f"{name}.jpg", quality=90)
    else:
        # Gray, as the pipeline decodes every frame: a third of the bytes of an RGB PNG.
        image.convert("L").save(folder / f"{name}.png", optimize=True)
    document = {"width": image.width, "height": image.height, "lines": truth}
    (folder / f"{name}.json").write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")


def fixtures(folder):
    width, height = 960, 540

    def font(size, path=DEJAVU):
        return ImageFont.truetype(path, size)

    # Level lines, several sizes, and one Chinese line.
    rng = random.Random(101)
    image = gradient(width, height, 235, 205, (4, 2, -3))
    specs = [(sentence(rng, rng.randint(2, 4)), font(s), 0, (25, 25, 30)) for s in (22, 28, 34, 40, 48)]
    specs.append(("营业时间 上午九点", font(36, CJK), 0, (25, 25, 30)))
    truth = place_lines(image, rng, specs)
    write(folder, "level", camera_like(image, rng, sigma=0), truth)

    # The same kind of lines turned +20 and -20 degrees, and 90 (reading bottom to top).
    for name, angle, seed in (("tilt+20", 20, 102), ("tilt-20", -20, 103), ("turned90", 90, 104)):
        rng = random.Random(seed)
        image = gradient(width, height, 230, 200, (0, 3, 5))
        specs = [(sentence(rng, 3), font(s), angle, (20, 20, 20)) for s in (26, 32, 40)]
        truth = place_lines(image, rng, specs)
        write(folder, name, camera_like(image, rng, sigma=0), truth)

    # Light text on dark plates.
    rng = random.Random(105)
    image = gradient(width, height, 60, 30, (0, 0, 10))
    specs = [(sentence(rng, 3).upper(), font(s, DEJAVU_BOLD), 0, (240, 240, 235)) for s in (26, 34, 44)]
    specs.append((sentence(rng, 2), font(30), 8, (250, 220, 80)))
    truth = place_lines(image, rng, specs)
    write(folder, "light-on-dark", camera_like(image, rng, sigma=0), truth)

    # Dark and light lines on a cluttered background, each on a plate so that it is legible.
    rng = random.Random(106)
    image = clutter(width, height, rng)
    specs = []
    for size in (30, 36, 44):
        specs.append((sentence(rng, 3), font(size, DEJAVU_BOLD), rng.choice((0, 6, -6)), (15, 15, 15)))
    truth = []
    for text, f, angle, ink in specs:
        # A light plate under each line: the line's layer with its ink grown and filled.
        plate, _ = rotated_line(text, f, angle, (235, 235, 225), pad=14)
        mask = plate.split()[3].filter(ImageFilter.MaxFilter(21))
        layer, corners = rotated_line(text, f, angle, ink, pad=14)
        for _ in range(400):
            x, y = rng.randint(4, width - layer.width - 4), rng.randint(4, height - layer.height - 4)
            box = (x, y, x + layer.width, y + layer.height)
            if not overlaps(box, [t["box"] for t in truth]):
                break
        image.paste((235, 235, 225), (x, y), mask)
        image.paste(layer, (x, y), layer)
        truth.append({"box": box, "text": text, "angle": angle, "corners": [[round(x + cx, 1), round(y + cy, 1)] for cx, cy in corners]})
    for line in truth:
        del line["box"]
    write(folder, "cluttered", camera_like(image, rng, sigma=0), truth)

    # No text at all: a texture.
    rng = random.Random(107)
    write(folder, "texture", camera_like(texture(width, height, rng), rng, sigma=0), [])


def bench_frames(folder, count=24):
    """Camera-like 1280x720 colour frames with truth, and a few without text."""
    fonts = [DEJAVU, DEJAVU_BOLD, SERIF]
    for index in range(count):
        rng = random.Random(2000 + index)
        width, height = 1280, 720
        kind = index % 4
        if kind == 0:
            image = gradient(width, height, rng.randint(190, 240), rng.randint(150, 210), (rng.randint(-20, 20), 0, 5))
        elif kind == 1:
            image = clutter(width, height, rng, shapes=60)
        elif kind == 2:
            image = gradient(width, height, rng.randint(20, 70), rng.randint(30, 90), (0, 5, rng.randint(0, 30)))
        else:
            image = Image.new("RGB", (width, height), tuple(rng.randint(60, 200) for _ in range(3)))
        specs = []
        for _ in range(rng.randint(4, 9)):
            size = rng.choice((14, 16, 18, 20, 24, 28, 32, 40, 48, 60))
            angle = rng.choice((0, 0, 0, 0, 5, -5, 12, -12, 20, -20, 30, -30))
            background = image.getpixel((width // 2, height // 2))
            luminance = luma(background)
            low = rng.random() < 0.2
            if low:
                # Colour text whose gray differs little from the background's: what gray loses.
                ink = isoluminant(background, rng)
            elif luminance > 128:
                ink = tuple(rng.randint(0, 70) for _ in range(3))
            else:
                ink = tuple(rng.randint(190, 255) for _ in range(3))
            font = ImageFont.truetype(rng.choice(fonts), size)
            specs.append((sentence(rng, rng.randint(1, 5)), font, angle, ink, low))
        truth = place_lines(image, rng, specs)
        write(folder, f"frame-{index:02d}", camera_like(image, rng, blur=rng.uniform(0.5, 1.2)), truth, jpeg=True)
    for index in range(4):
        rng = random.Random(3000 + index)
        background = texture(1280, 720, rng) if index % 2 == 0 else clutter(1280, 720, rng)
        write(folder, f"empty-{index:02d}", camera_like(background, rng), [], jpeg=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, help="also write camera-like frames with truth into this folder")
    arguments = parser.parse_args()
    fixtures(OUT)
    print(f"wrote the detector fixtures in {OUT}")
    if arguments.bench:
        bench_frames(arguments.bench)
        print(f"wrote the bench frames in {arguments.bench}")


if __name__ == "__main__":
    main()

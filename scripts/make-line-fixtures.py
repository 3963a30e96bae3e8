#!/usr/bin/env python3
"""Write Tests/Fixtures/lines/: tilted text lines with the true rotated box of every line and
word, for the line reader's tests (rectification round trip, reading along a tilt, light text
on a dark ground).

Each text is drawn upright on a canvas word by word (a word's box is its ink box, from its pixels), then the
canvas is turned about its centre; the boxes' corners are turned with it, so each truth quad
is exactly where the word's ink went. Deterministic; needs Pillow and fonts-dejavu-core.

    python3 scripts/make-line-fixtures.py

NAME.json: {"width", "height", "lines": [{"text", "quad": [[x, y] x4], "words": [{"text", "quad"}]}]}
Quads run clockwise from the text's top-left, as corner_points do.
"""
import json
import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
OUT = Path(__file__).resolve().parent.parent / "Tests" / "Fixtures" / "lines"


def turn(point, degrees, center):
    """The point turned clockwise on screen (y down) by `degrees` about `center`."""
    radians = math.radians(degrees)
    x, y = point[0] - center[0], point[1] - center[1]
    return (center[0] + x * math.cos(radians) - y * math.sin(radians),
            center[1] + x * math.sin(radians) + y * math.cos(radians))


def quad(box, degrees, center):
    left, top, right, bottom = box
    corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
    return [[round(c, 1) for c in turn(p, degrees, center)] for p in corners]


def render(name, lines, degrees, size=(800, 600), paper=235, ink=30, font_size=36):
    font = ImageFont.truetype(FONT, font_size)
    canvas = Image.new("L", size, paper)
    draw = ImageDraw.Draw(canvas)
    center = (size[0] / 2, size[1] / 2)
    truth = []
    for text, x, y in lines:
        words = []
        cursor = x
        for word in text.split(" "):
            # The ink box, from the word's own pixels (textbbox includes side bearings).
            mask = Image.new("L", size, 0)
            ImageDraw.Draw(mask).text((cursor, y), word, font=font, fill=255)
            left, top, right, bottom = mask.getbbox()
            draw.text((cursor, y), word, font=font, fill=ink)
            words.append({"text": word, "box": (left, top, right, bottom)})
            cursor += draw.textlength(word + " ", font=font)
        line_box = (min(w["box"][0] for w in words), min(w["box"][1] for w in words),
                    max(w["box"][2] for w in words), max(w["box"][3] for w in words))
        truth.append({"text": text, "quad": quad(line_box, degrees, center),
                      "words": [{"text": w["text"], "quad": quad(w["box"], degrees, center)} for w in words]})
    # PIL's rotate turns counter-clockwise for positive angles: -degrees turns clockwise.
    turned = canvas.rotate(-degrees, resample=Image.BICUBIC, center=center, fillcolor=paper)
    turned.save(OUT / f"{name}.png")
    (OUT / f"{name}.json").write_text(json.dumps({"width": size[0], "height": size[1], "lines": truth}, indent=1,
                                                  ensure_ascii=False) + "\n")
    print(f"{name}.png: {len(truth)} lines at {degrees} degrees")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    label = [("Fresh Organic Coffee Beans", 180, 220), ("Best before March 2027", 180, 280),
             ("Roasted in Portland Oregon", 180, 340)]
    render("label-tilted-plus20", label, 20)
    render("label-tilted-minus20", label, -20)
    render("label-level", label, 0)
    render("sign-dark-minus12", [("EMERGENCY EXIT ONLY", 160, 260), ("Keep this door closed", 180, 330)], -12,
           paper=25, ink=225)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Write Tests/Fixtures/lines/: tilted text lines with the true rotated box of every line and
word, for the line reader's tests (rectification round trip, reading along a tilt, light text
on a dark ground).

Each text is drawn upright on a canvas word by word (a word's box is its ink box, from its pixels), then the
canvas is turned about its centre; the boxes' corners are turned with it, so each truth quad
is exactly where the word's ink went. Deterministic; needs Pillow, fonts-dejavu-core and fonts-noto-cjk.

    python3 scripts/make-line-fixtures.py

NAME.json: {"width", "height", "lines": [{"text", "quad": [[x, y] x4], "words": [{"text", "quad"}]}]}
Quads run clockwise from the text's top-left, as corner_points do.
"""
import json
import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
# Noto Sans CJK SC and JP (fonts-noto-cjk): faces 2 and 0 of the collection.
CJK_FONT = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2)
JP_FONT = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 0)
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


def render(name, lines, degrees, size=(800, 600), paper=235, ink=30, font_size=36, font=(FONT, 0)):
    font = ImageFont.truetype(font[0], font_size, index=font[1])
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


def render_columns(name, columns, size=(800, 600), paper=235, ink=30, font_size=40, font=CJK_FONT):
    """Columns of vertical text, each (text, x, y) drawn top to bottom; truth "box" is each
    column's ink box [left, top, right, bottom], columns listed right to left as they are read."""
    face = ImageFont.truetype(font[0], font_size, index=font[1])
    canvas = Image.new("L", size, paper)
    draw = ImageDraw.Draw(canvas)
    truth = []
    for text, x, y in columns:
        mask = Image.new("L", size, 0)
        for index, character in enumerate(text):
            position = (x, y + index * int(font_size * 1.15))
            ImageDraw.Draw(mask).text(position, character, font=face, fill=255)
            draw.text(position, character, font=face, fill=ink)
        truth.append({"text": text, "box": list(mask.getbbox())})
    canvas.save(OUT / f"{name}.png")
    (OUT / f"{name}.json").write_text(json.dumps({"width": size[0], "height": size[1], "columns": truth}, indent=1,
                                                  ensure_ascii=False) + "\n")
    print(f"{name}.png: {len(truth)} vertical columns")


def render_shop_sign(name, heading, columns, size=(700, 560), paper=235, ink=30, font_size=40, font=JP_FONT):
    """A Japanese shop sign with both orientations: a horizontal heading (text, x, y) above
    columns of vertical text (text, x, y), read heading first, then the columns right to left.
    Truth "lines": each with "text", "box" [left, top, right, bottom] and "vertical"."""
    face = ImageFont.truetype(font[0], font_size, index=font[1])
    canvas = Image.new("L", size, paper)
    draw = ImageDraw.Draw(canvas)
    text, x, y = heading
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).text((x, y), text, font=face, fill=255)
    draw.text((x, y), text, font=face, fill=ink)
    truth = [{"text": text, "box": list(mask.getbbox()), "vertical": False}]
    for text, x, y in columns:
        mask = Image.new("L", size, 0)
        for index, character in enumerate(text):
            position = (x, y + index * int(font_size * 1.15))
            ImageDraw.Draw(mask).text(position, character, font=face, fill=255)
            draw.text(position, character, font=face, fill=ink)
        truth.append({"text": text, "box": list(mask.getbbox()), "vertical": True})
    canvas.save(OUT / f"{name}.png")
    (OUT / f"{name}.json").write_text(json.dumps({"width": size[0], "height": size[1], "lines": truth}, indent=1,
                                                  ensure_ascii=False) + "\n")
    print(f"{name}.png: a horizontal heading and {len(columns)} vertical columns")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    label = [("Fresh Organic Coffee Beans", 180, 220), ("Best before March 2027", 180, 280),
             ("Roasted in Portland Oregon", 180, 340)]
    render("label-tilted-plus20", label, 20)
    render("label-tilted-minus20", label, -20)
    render("label-level", label, 0)
    render("sign-dark-minus12", [("EMERGENCY EXIT ONLY", 160, 260), ("Keep this door closed", 180, 330)], -12,
           paper=25, ink=225)
    # Chinese, for PP-OCR's line recognizer; the spaces only place the words (truth: no spaces).
    render("chinese-sign-plus15", [("欢迎光临 本店", 200, 230), ("营业时间 早上九点", 200, 300)], 15, font=CJK_FONT,
           font_size=40)
    # Vertical Chinese: the right column is read first, though the left one lies wholly below it.
    render_columns("chinese-columns", [("营业时间早上", 560, 30), ("欢迎光临本店", 420, 340)], size=(800, 700))
    render_columns("japanese-columns", [("本日のおすすめ", 520, 40), ("営業時間", 400, 120)], size=(700, 500),
                   font=JP_FONT)
    # Both orientations in one frame: each line read its own way.
    render_shop_sign("japanese-shop-sign", ("東京駅前店", 200, 40), [("本日のおすすめ", 460, 140), ("営業時間", 300, 140)])


if __name__ == "__main__":
    main()

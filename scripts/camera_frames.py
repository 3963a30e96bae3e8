#!/usr/bin/env python3
"""Deterministic camera frames for Legible's image-input tests and benchmarks.

Importable (clients/python/tests/test_frames_in.py and bench/imaging.py put this directory on
sys.path) and runnable:

    python3 scripts/camera_frames.py --out DIR      # the matrix of frames + truth JSON
    python3 scripts/camera_frames.py --self-check   # orientation and layout checks only

What it makes:

- `scene()`: an upright camera frame (default 1280x720 RGB) of a few lines of known English
  text in DejaVu Sans (word ink 25-37 px high), with a slight perspective warp (a few px per
  corner), uneven lighting (gradient and vignette), mild blur, sensor noise and one round of
  JPEG compression, all driven by a seed. Its truth is
      {"width", "height", "lines": [{"text", "box": [x, y, w, h],
                                     "words": [{"text", "box": [x, y, w, h]}]}]}
  where a word's box is the ink bounding box of that word *after* the perspective warp:
  the word is rendered alone into a mask, warped with the same coefficients, thresholded at
  50 % coverage, and its bounding box taken. A line's box is the union of its words' boxes.
  Boxes are in upright pixels, [x, y) half-open, as Legible's Rect.
- `page()`: a denser, page-like frame (10 lines) for Tesseract's orientation detection (OSD).
- `to_stored(upright, orientation)`: the stored (sensor) image that EXIF orientation
  `orientation` (1..8) turns back into `upright` (checked against PIL.ImageOps.exif_transpose).
- `encode(stored, encoding, ...)`: the bytes of one legible.v1 Image for each Encoding, laid out
  as legible.proto says (raw encodings get a padded stride with garbage in the padding).
- `jpeg_with_exif(stored, orientation)`: a JPEG carrying EXIF tag 0x0112.
- `quality_frames()`: the clean scene and the frames that should trigger each QualityHint.
"""

import argparse
import io
import json
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont, ImageOps

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
NOTO_DEVANAGARI = "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf"
# (font file, face index in a .ttc) per script: DejaVu for Latin (Debian's fonts-dejavu-core),
# Noto for the others (fonts-noto-cjk, fonts-noto-core).
SCRIPT_FONTS = {
    "latin": (FONT, 0),
    "chinese": (NOTO_CJK, 2),      # Noto Sans CJK SC
    "japanese": (NOTO_CJK, 0),     # Noto Sans CJK JP
    "korean": (NOTO_CJK, 1),       # Noto Sans CJK KR
    "devanagari": (NOTO_DEVANAGARI, 0),
}
SEED = 20250101

# Encoding numbers as in legible.proto (so this file does not need the generated protobuf code).
ENCODING_JPEG, ENCODING_PNG, ENCODING_GRAY8, ENCODING_RGBA8, ENCODING_BGRA8, ENCODING_NV12, ENCODING_I420 = range(1, 8)
ENCODINGS = {
    "JPEG": ENCODING_JPEG, "PNG": ENCODING_PNG, "GRAY8": ENCODING_GRAY8, "RGBA8": ENCODING_RGBA8,
    "BGRA8": ENCODING_BGRA8, "NV12": ENCODING_NV12, "I420": ENCODING_I420,
}
RAW_ENCODINGS = (ENCODING_GRAY8, ENCODING_RGBA8, ENCODING_BGRA8, ENCODING_NV12, ENCODING_I420)
ORIENTATIONS = {
    1: "UP", 2: "UP_MIRRORED", 3: "DOWN", 4: "DOWN_MIRRORED",
    5: "LEFT_MIRRORED", 6: "RIGHT", 7: "RIGHT_MIRRORED", 8: "LEFT",
}

# The scene's text: plain words Tesseract's eng model reads without ambiguity (no l/I/1, O/0
# look-alikes standing alone, no punctuation), with digits, ascenders and descenders.
SCENE_LINES = [
    ("Warehouse Delivery Schedule 2024", 40),
    ("Order 58213 ships Monday morning", 36),
    ("Fragile glass handle with care", 38),
    ("Return window closes in 30 days", 34),
    ("Contact support at extension 4471", 36),
]
# For odd-sized crops such as 641x479: shorter lines, same style.
SHORT_LINES = [
    ("Parcel 7325 ready", 36),
    ("Dock gate number 6", 34),
    ("Keep frozen below", 38),
    ("Weight 42 kg net", 34),
]
# Camera scenes per script: signs and labels as a phone would see them. Chinese and Japanese
# are written without spaces (as the language models read them); Korean and Hindi with.
SCRIPT_LINES = {
    "latin": SCENE_LINES,
    # The Latin script beyond English: German, French, Spanish, Vietnamese diacritics.
    "latin-multilingual": [
        ("Größe und Gewicht prüfen", 38),
        ("Fermé le dimanche à midi", 36),
        ("Señal de salida número 12", 36),
        ("Tiếng Việt có dấu rất đẹp", 36),
        ("Ausgang rechts über die Brücke", 34),
    ],
    "chinese": [
        ("欢迎光临北京火车站", 40),
        ("出口在左边请注意安全", 38),
        ("营业时间上午九点到晚上十点", 36),
        ("会员价格每公斤十二元", 38),
        ("禁止吸烟谢谢合作", 40),
    ],
    "japanese": [
        ("東京駅の出口は右側です", 40),
        ("営業時間は午前十時から", 38),
        ("お客様へのお知らせ", 40),
        ("本日のおすすめ料理", 38),
        ("駐車場は地下二階にあります", 36),
    ],
    "korean": [
        ("서울역 출구는 오른쪽입니다", 40),
        ("영업시간 오전 열시부터", 38),
        ("안전을 위해 손잡이를 잡으세요", 36),
        ("오늘의 추천 메뉴", 40),
        ("주차장은 지하 이층에 있습니다", 36),
    ],
    "devanagari": [
        ("नई दिल्ली रेलवे स्टेशन", 42),
        ("कृपया अपना टिकट दिखाएं", 40),
        ("यहाँ धूम्रपान करना मना है", 40),
        ("आज का विशेष भोजन", 42),
        ("दुकान सुबह दस बजे खुलती है", 38),
    ],
}

# A page of text, dense enough for OSD.
PAGE_LINES = [
    "The quarterly report shows steady growth in every region",
    "Sales rose by 12 percent while costs stayed nearly flat",
    "Our warehouse team shipped 48213 orders during March",
    "Customer surveys praise the faster delivery windows",
    "Next year we plan to open two more distribution centres",
    "Training for new staff begins on the first Monday",
    "Please send your budget requests before the deadline",
    "The board will review every proposal in September",
    "Questions about this report go to the finance office",
    "Thank you all for another strong and productive season",
]


# ------------------------------------------------------------------------------- geometry

def perspective_coefficients(width, height, shifts):
    """PIL PERSPECTIVE coefficients for a warp that moves the image corners by `shifts`.

    `shifts` are (dx, dy) for the corners top-left, top-right, bottom-right, bottom-left: the
    content at corner i of the input appears at corner i + shift i of the output. PIL wants the
    map from output to input pixels, so the equations are solved that way round.
    """
    src = [(0, 0), (width, 0), (width, height), (0, height)]
    dst = [(x + dx, y + dy) for (x, y), (dx, dy) in zip(src, shifts)]
    rows, rhs = [], []
    for (ox, oy), (ix, iy) in zip(dst, src):
        rows.append([ox, oy, 1, 0, 0, 0, -ix * ox, -ix * oy])
        rows.append([0, 0, 0, ox, oy, 1, -iy * ox, -iy * oy])
        rhs += [ix, iy]
    return tuple(np.linalg.solve(np.array(rows, float), np.array(rhs, float)))


def warp(image, coefficients, fill):
    return image.transform(image.size, Image.Transform.PERSPECTIVE, coefficients,
                           resample=Image.Resampling.BICUBIC, fillcolor=fill)


def ink_box(mask):
    """[x, y, w, h] of the pixels at or above 50 % coverage in an 'L' mask (None if none)."""
    box = mask.point(lambda v: 255 if v >= 128 else 0).getbbox()
    if box is None:
        return None
    left, top, right, bottom = box
    return [left, top, right - left, bottom - top]


def union(boxes):
    left = min(b[0] for b in boxes)
    top = min(b[1] for b in boxes)
    right = max(b[0] + b[2] for b in boxes)
    bottom = max(b[1] + b[3] for b in boxes)
    return [left, top, right - left, bottom - top]


# ------------------------------------------------------------------------------- scenes

def font_for(spec, size):
    """An ImageFont from a (file, face index) spec, or a plain file path."""
    path, index = spec if isinstance(spec, tuple) else (spec, 0)
    return ImageFont.truetype(path, size, index=index)


def layout(lines, width, height, rng, left_margin=None, font=FONT):
    """Places each (text, size) line: returns [(text, size, x, y)] spread down the frame."""
    fonts = [font_for(font, size) for _, size in lines]
    heights = [f.getbbox("Hg")[3] for f in fonts]
    gap = (height - sum(heights)) / (len(lines) + 1)
    placed, y = [], gap
    for (text, size), font, h in zip(lines, fonts, heights):
        w = font.getlength(text)
        margin = left_margin if left_margin is not None else 0.06 * width
        slack = max(0.0, width - 2 * margin - w)
        x = margin + rng.uniform(0, min(slack, 0.1 * width))
        assert x + w < width - 8, f"line does not fit: {text!r} at size {size} in width {width}"
        placed.append((text, size, int(round(x)), int(round(y))))
        y += h + gap
    return placed


def render(placed, width, height, shifts, paper, ink, font=FONT):
    """Draws the text on flat paper, warps it; returns (RGB image, truth lines)."""
    coefficients = perspective_coefficients(width, height, shifts)
    image = Image.new("RGB", (width, height), paper)
    draw = ImageDraw.Draw(image)
    truth = []
    for text, size, x0, y0 in placed:
        face = font_for(font, size)
        space = face.getlength(" ")
        x = float(x0)
        words = []
        for word in text.split(" "):
            origin = (round(x), y0)
            draw.text(origin, word, font=face, fill=ink)
            mask = Image.new("L", (width, height), 0)
            ImageDraw.Draw(mask).text(origin, word, font=face, fill=255)
            box = ink_box(warp(mask, coefficients, 0))
            assert box is not None, f"word {word!r} left the frame"
            words.append({"text": word, "box": box})
            x += face.getlength(word) + space
        truth.append({"text": text, "box": union([w["box"] for w in words]), "words": words})
    return warp(image, coefficients, paper), truth


def lighting(width, height, rng, strength=1.0):
    """A multiplicative light field: a tilted gradient and a vignette, roughly 0.72...1.04."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    gradient = (np.cos(angle) * x / width + np.sin(angle) * y / height)
    gradient = (gradient - gradient.min()) / max(1e-6, np.ptp(gradient))
    r2 = ((x - width / 2) / (width / 2)) ** 2 + ((y - height / 2) / (height / 2)) ** 2
    field = 1.04 - strength * (0.16 * gradient + 0.10 * r2 / 2)
    return field[..., None]


def degrade(image, rng, blur=0.7, noise=3.5, jpeg_quality=80, light=1.0):
    """Lighting, blur, noise, then one JPEG round trip (artifacts baked in)."""
    width, height = image.size
    pixels = np.asarray(image, np.float32) * lighting(width, height, rng, light)
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "RGB")
    if blur:
        image = image.filter(ImageFilter.GaussianBlur(blur))
    pixels = np.asarray(image, np.float32)
    pixels += rng.normal(0, noise, pixels.shape[:2])[..., None] + rng.normal(0, noise / 3, pixels.shape)
    image = Image.fromarray(np.clip(pixels + 0.5, 0, 255).astype(np.uint8), "RGB")
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=jpeg_quality)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def scene(width=1280, height=720, lines=None, seed=SEED, perspective=4.0, blur=0.7, noise=3.5,
          jpeg_quality=80, size_scale=1.0, font=FONT, inverted=False):
    """An upright RGB camera frame of known text and its truth (see the module doc).

    lines: [(text, font size)], default SCENE_LINES (SHORT_LINES suit frames ~640 wide).
    perspective: the largest corner shift in px. size_scale scales every font size (the
    "text too small" frame uses ~0.3). font: a file or (file, face index), see SCRIPT_FONTS.
    inverted: light text on a dark ground (a lit sign, a dark label).
    """
    rng = np.random.default_rng(seed)
    if lines is None:
        lines = SCENE_LINES if width >= 1000 else SHORT_LINES
    lines = [(text, max(6, int(round(size * size_scale)))) for text, size in lines]
    placed = layout(lines, width, height, rng, font=font)
    shifts = [tuple(rng.uniform(-perspective, perspective, 2)) for _ in range(4)]
    paper = tuple(int(v) for v in rng.integers(214, 232, 3))
    ink = tuple(int(v) for v in rng.integers(28, 48, 3))
    if inverted:
        paper, ink = ink, paper
    image, truth_lines = render(placed, width, height, shifts, paper, ink, font=font)
    image = degrade(image, rng, blur=blur, noise=noise, jpeg_quality=jpeg_quality)
    return image, {"width": width, "height": height, "lines": truth_lines}


def script_scene(script, seed=SEED, **options):
    """The camera scene of `script` (a SCRIPT_LINES key) in its font; options as scene()."""
    font = SCRIPT_FONTS["latin" if script.startswith("latin") else script]
    return scene(lines=SCRIPT_LINES[script], seed=seed, font=font, **options)


def mixed_scene(scripts=("latin", "devanagari"), seed=SEED, width=1280, height=720, **options):
    """One frame with a line from each script, alternating: the text a two-script session reads.

    Lines are drawn as separate scenes' renders would be, each in its own script's font; the
    truth lists them top to bottom with a "script" key.
    """
    rng = np.random.default_rng(seed)
    picks = []
    for index in range(4):
        script = scripts[index % len(scripts)]
        text, size = SCRIPT_LINES[script][index // len(scripts)]
        picks.append((script, text, size))
    # Lay the lines out with each one's own font: one layout per line, stacked.
    gap = height / (len(picks) + 1)
    canvas = Image.new("RGB", (width, height), (222, 222, 218))
    draw = ImageDraw.Draw(canvas)
    truth_lines = []
    ink = (36, 34, 40)
    for index, (script, text, size) in enumerate(picks):
        face = font_for(SCRIPT_FONTS[script], size)
        x = int(0.06 * width + rng.uniform(0, 0.08 * width))
        y = int(gap * (index + 0.6))
        words = []
        for word in text.split(" "):
            draw.text((x, y), word, font=face, fill=ink)
            mask = Image.new("L", (width, height), 0)
            ImageDraw.Draw(mask).text((x, y), word, font=face, fill=255)
            words.append({"text": word, "box": ink_box(mask)})
            x += int(round(face.getlength(word) + face.getlength(" ")))
        truth_lines.append({"text": text, "script": script, "box": union([w["box"] for w in words]),
                            "words": words})
    image = degrade(canvas, rng, **options)
    return image, {"width": width, "height": height, "lines": truth_lines}


# A page of three paragraphs for document mode; one line ends in a hyphenated word.
DOCUMENT_PARAGRAPHS = [
    ["Our warehouse team shipped every order", "before the end of the month and the"],
    ["Customers praised the faster delivery", "windows and the new tracking service", "on every order."],
    ["Next year we plan to open two more distri-", "bution centres in the north."],
]


def document_page(width=1280, height=720, seed=SEED + 2, size=28, paragraph_gap=2.2):
    """A page-like frame of three paragraphs (left-aligned lines; a blank of `paragraph_gap`
    line heights between paragraphs), mildly degraded. Truth: {"width", "height",
    "paragraphs": [[line text, ...], ...], "lines": [...]} with lines as scene() gives them."""
    rng = np.random.default_rng(seed)
    face = font_for(FONT, size)
    line_height = face.getbbox("Hg")[3] * 1.45
    total = sum(len(p) for p in DOCUMENT_PARAGRAPHS) * line_height + (len(DOCUMENT_PARAGRAPHS) - 1) * paragraph_gap * line_height * 0.6
    y = (height - total) / 2
    placed = []
    for paragraph in DOCUMENT_PARAGRAPHS:
        for text in paragraph:
            placed.append((text, size, 90, int(round(y))))
            y += line_height
        y += paragraph_gap * line_height * 0.6
    image, truth_lines = render(placed, width, height, [(0.0, 0.0)] * 4, (224, 222, 216), (34, 34, 40))
    image = degrade(image, rng, blur=0.5, noise=2.5)
    return image, {"width": width, "height": height, "paragraphs": DOCUMENT_PARAGRAPHS, "lines": truth_lines}


def page(width=1280, height=720, seed=SEED + 1, size=26):
    """A page-like frame of ten lines (for OSD), same degradations as scene()."""
    return scene(width, height, lines=[(text, size) for text in PAGE_LINES], seed=seed)


def truth_text(truth):
    """The lines' texts joined with newlines, as Legible's Text.text."""
    return "\n".join(line["text"] for line in truth["lines"])


# ------------------------------------------------------------------------------- orientation

# How PIL turns a stored image upright for EXIF orientation N (as ImageOps.exif_transpose).
_TO_UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
# The inverse of each: 6 and 8 swap, the others undo themselves.
_TO_STORED = {**_TO_UPRIGHT, 6: Image.Transpose.ROTATE_90, 8: Image.Transpose.ROTATE_270}


def to_stored(upright, orientation):
    """The stored (sensor) image that EXIF `orientation` (1..8) turns into `upright`."""
    if orientation == 1:
        return upright.copy()
    return upright.transpose(_TO_STORED[orientation])


def to_upright(stored, orientation):
    """Applies EXIF `orientation` (1..8) to a stored image."""
    if orientation == 1:
        return stored.copy()
    return stored.transpose(_TO_UPRIGHT[orientation])


def exif_bytes(orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif.tobytes()


def jpeg_with_exif(stored, orientation, quality=92):
    """A JPEG of `stored` whose EXIF orientation tag (0x0112) is `orientation`."""
    buffer = io.BytesIO()
    stored.save(buffer, "JPEG", quality=quality, exif=exif_bytes(orientation))
    return buffer.getvalue()


# ------------------------------------------------------------------------------- encodings

def padded_stride(row_bytes, align=64):
    """The row length rounded up past `row_bytes` to a multiple of `align`: always some padding."""
    return (row_bytes // align + 1) * align


def _rows(plane, stride, rng):
    """A 2-D uint8 plane written as rows of `stride` bytes, garbage in each row's padding."""
    h, w = plane.shape
    out = rng.integers(0, 256, (h, stride), dtype=np.uint8)
    out[:, :w] = plane
    return out.tobytes()


def chroma(stored_rgb):
    """Cb and Cr planes (Pillow's YCbCr), subsampled 2x2 by averaging; odd sizes round up."""
    ycbcr = np.asarray(stored_rgb.convert("YCbCr"), np.float32)
    h, w = ycbcr.shape[:2]
    ph, pw = (h + 1) // 2 * 2, (w + 1) // 2 * 2
    padded = np.pad(ycbcr, ((0, ph - h), (0, pw - w), (0, 0)), mode="edge")
    sub = padded.reshape(ph // 2, 2, pw // 2, 2, 3).mean(axis=(1, 3))
    sub = np.clip(sub + 0.5, 0, 255).astype(np.uint8)
    return sub[..., 1], sub[..., 2]


def encode(stored_rgb, encoding, stride_padding=True, seed=SEED, jpeg_quality=92):
    """(data, width, height, stride) of one legible.v1 Image of the stored RGB image.

    JPEG: colour JPEG at `jpeg_quality`, no EXIF. PNG: 8-bit RGB (so the server's own gray
    conversion runs). GRAY8: Pillow's 'L' luma. RGBA8/BGRA8: alpha is pseudo-random (the server
    must ignore it). NV12/I420: Y is Pillow's 'L' luma (the gray image the server reads); the
    chroma planes are real Cb/Cr averaged over 2x2 blocks. With `stride_padding` the raw
    encodings use a stride rounded up past the row to a multiple of 64 with garbage in the
    padding (for I420 the chroma planes use ceil(stride/2)); without it the stride is the
    minimum. stride is 0 for JPEG and PNG. The data is exactly the length the proto requires.
    """
    rng = np.random.default_rng(seed)
    width, height = stored_rgb.size
    if encoding == ENCODING_JPEG:
        buffer = io.BytesIO()
        stored_rgb.save(buffer, "JPEG", quality=jpeg_quality)
        return buffer.getvalue(), width, height, 0
    if encoding == ENCODING_PNG:
        buffer = io.BytesIO()
        stored_rgb.convert("RGB").save(buffer, "PNG", compress_level=1)
        return buffer.getvalue(), width, height, 0
    luma = np.asarray(stored_rgb.convert("L"))
    if encoding == ENCODING_GRAY8:
        stride = padded_stride(width) if stride_padding else width
        return _rows(luma, stride, rng), width, height, stride
    if encoding in (ENCODING_RGBA8, ENCODING_BGRA8):
        rgb = np.asarray(stored_rgb.convert("RGB"))
        alpha = rng.integers(0, 256, (height, width, 1), dtype=np.uint8)
        pixels = np.concatenate([rgb if encoding == ENCODING_RGBA8 else rgb[..., ::-1], alpha], axis=2)
        stride = padded_stride(4 * width) if stride_padding else 4 * width
        return _rows(pixels.reshape(height, 4 * width), stride, rng), width, height, stride
    cb, cr = chroma(stored_rgb)
    if encoding == ENCODING_NV12:
        even = (width + 1) // 2 * 2
        stride = padded_stride(even) if stride_padding else even
        interleaved = np.stack([cb, cr], axis=2).reshape(cb.shape[0], 2 * cb.shape[1])
        return _rows(luma, stride, rng) + _rows(interleaved, stride, rng), width, height, stride
    if encoding == ENCODING_I420:
        stride = padded_stride(width) if stride_padding else width
        cstride = (stride + 1) // 2
        return (_rows(luma, stride, rng) + _rows(cb, cstride, rng) + _rows(cr, cstride, rng),
                width, height, stride)
    raise ValueError(f"unknown encoding {encoding}")


def decode_raw(data, encoding, width, height, stride):
    """The gray image a correct server reads from a raw buffer (for self-checks)."""
    if encoding in (ENCODING_GRAY8, ENCODING_NV12, ENCODING_I420):
        y = np.frombuffer(data[:height * stride], np.uint8).reshape(height, stride)[:, :width]
        return Image.fromarray(y.copy(), "L")
    rows = np.frombuffer(data[:height * stride], np.uint8).reshape(height, stride)[:, :4 * width]
    pixels = rows.reshape(height, width, 4)
    rgb = pixels[..., :3] if encoding == ENCODING_RGBA8 else pixels[..., 2::-1]
    return Image.fromarray(rgb.copy(), "RGB").convert("L")


def required_length(encoding, width, height, stride):
    """The least data length legible.proto allows for a raw Image."""
    half = (height + 1) // 2
    if encoding == ENCODING_GRAY8:
        return height * (stride or width)
    if encoding in (ENCODING_RGBA8, ENCODING_BGRA8):
        return height * (stride or 4 * width)
    if encoding == ENCODING_NV12:
        s = stride or (width + 1) // 2 * 2
        return height * s + half * s
    if encoding == ENCODING_I420:
        s = stride or width
        return height * s + 2 * half * ((s + 1) // 2)
    raise ValueError(encoding)


# ------------------------------------------------------------------------------- quality

def quality_frames(seed=SEED):
    """{"clean", "blurry", "too_dark", "low_contrast", "text_too_small"} -> (upright RGB, truth)."""
    clean, truth = scene(seed=seed)
    frames = {"clean": (clean, truth)}
    frames["blurry"] = (clean.filter(ImageFilter.GaussianBlur(4.0)), truth)
    pixels = np.asarray(clean, np.float32)
    dark = pixels * (25.0 / pixels.mean())
    frames["too_dark"] = (Image.fromarray(np.clip(dark + 0.5, 0, 255).astype(np.uint8), "RGB"), truth)
    low, high = pixels.min(), pixels.max()
    squeezed = 118 + (pixels - low) * (24.0 / max(1.0, high - low))
    frames["low_contrast"] = (Image.fromarray(np.clip(squeezed + 0.5, 0, 255).astype(np.uint8), "RGB"), truth)
    frames["text_too_small"] = scene(seed=seed, size_scale=0.3, perspective=1.0, blur=0.4)
    return frames


# ------------------------------------------------------------------------------- checks

def self_check():
    """Orientation round trips (against PIL's exif_transpose), raw layouts, truth sanity."""
    upright, truth = scene(width=641, height=479)
    for orientation in range(1, 9):
        stored = to_stored(upright, orientation)
        back = ImageOps.exif_transpose(Image.open(io.BytesIO(
            _png_with_exif(stored, orientation))))
        assert back.size == upright.size and np.array_equal(np.asarray(back), np.asarray(upright)), orientation
        assert np.array_equal(np.asarray(to_upright(stored, orientation)), np.asarray(upright)), orientation
        jpeg = Image.open(io.BytesIO(jpeg_with_exif(stored, orientation)))
        assert jpeg.getexif().get(0x0112) == orientation
        assert ImageOps.exif_transpose(jpeg).size == upright.size
    luma = np.asarray(upright.convert("L"))
    for name, encoding in ENCODINGS.items():
        data, w, h, stride = encode(upright, encoding)
        if encoding in RAW_ENCODINGS:
            assert len(data) == required_length(encoding, w, h, stride), name
            assert stride > (4 * w if encoding in (ENCODING_RGBA8, ENCODING_BGRA8) else w), name
            got = np.asarray(decode_raw(data, encoding, w, h, stride), np.int16)
            assert np.abs(got - luma).max() <= 1, name
    for line in truth["lines"]:
        for word in line["words"]:
            x, y, w, h = word["box"]
            assert 0 <= x and 0 <= y and x + w <= truth["width"] and y + h <= truth["height"]
            assert 15 <= h <= 50, word
    return True


def _png_with_exif(image, orientation):
    buffer = io.BytesIO()
    image.save(buffer, "PNG", exif=exif_bytes(orientation))
    return buffer.getvalue()


# ------------------------------------------------------------------------------- CLI

def write_matrix(out, log=sys.stderr):
    """Writes scene truth, every orientation x encoding, EXIF JPEGs and quality frames to `out`."""
    os.makedirs(out, exist_ok=True)
    upright, truth = scene()
    index = {"scene": truth, "frames": []}
    total = 8 * len(ENCODINGS)
    done = 0
    for orientation in range(1, 9):
        stored = to_stored(upright, orientation)
        for name, encoding in ENCODINGS.items():
            data, w, h, stride = encode(stored, encoding)
            file = f"scene-o{orientation}-{name.lower()}.{ {'JPEG': 'jpg', 'PNG': 'png'}.get(name, 'raw') }"
            with open(os.path.join(out, file), "wb") as f:
                f.write(data)
            index["frames"].append({"file": file, "encoding": name, "orientation": orientation,
                                    "width": w, "height": h, "stride": stride})
            done += 1
            print(f"[{done}/{total}] {file}", file=log)
        file = f"scene-exif{orientation}.jpg"
        with open(os.path.join(out, file), "wb") as f:
            f.write(jpeg_with_exif(stored, orientation))
        index["frames"].append({"file": file, "encoding": "JPEG", "exif_orientation": orientation})
    for name, (image, frame_truth) in quality_frames().items():
        file = f"quality-{name}.jpg"
        image.save(os.path.join(out, file), "JPEG", quality=92)
        with open(os.path.join(out, f"quality-{name}.json"), "w") as f:
            json.dump(frame_truth, f, indent=1)
        print(f"quality {file}", file=log)
    page_image, page_truth = page()
    page_image.save(os.path.join(out, "page.jpg"), "JPEG", quality=92)
    with open(os.path.join(out, "page.json"), "w") as f:
        json.dump(page_truth, f, indent=1)
    with open(os.path.join(out, "scene.json"), "w") as f:
        json.dump(truth, f, indent=1)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"wrote {len(index['frames'])} frames and truth to {out}", file=log)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="directory for the frames, scene.json and index.json")
    p.add_argument("--self-check", action="store_true", help="run the orientation and layout checks")
    a = p.parse_args(argv)
    if not a.out and not a.self_check:
        p.error("give --out DIR and/or --self-check")
    if a.self_check:
        self_check()
        print("self-check passed", file=sys.stderr)
    if a.out:
        write_matrix(a.out)


if __name__ == "__main__":
    main()

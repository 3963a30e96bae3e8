#!/usr/bin/env python3
"""Write the seed corpus of fuzz/frame-path: one frame's options, then its image, 38 header bytes.

The header is what FramePathHarness reads (fuzz/Harness/FramePathHarness.swift), little-endian:
source (0..6 an encoding: jpeg png gray8 rgba8 bgra8 nv12 i420, the data follows; 7..12 a
generated image: blank noise lines tiny large checkerboard), option flags (document, accurate,
symbols, auto-orientation, entities, recognize unchanged, wait for steady, 1 ms deadline), max
candidates | region choice << 2 | scene << 4 | cancelled << 6, orientation (0..8), minimum text
height (/255), region x y w h (int32), width height stride (uint16), parameter, claimed text
height (uint16, quarter pixels), noise seed (uint64); then the image bytes.
One seed (or more) per option and per image source; the JPEGs are Tests/Fixtures/label-640x480.jpg
whole and small cuts of it. Needs Pillow.

    python3 fuzz/make-frame-path-seeds.py      (fuzz/make-seeds.sh runs it)
"""

import io
import struct
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests" / "Fixtures"
OUT = ROOT / "fuzz" / "frame-path" / "corpus"
SOURCES = ["jpeg", "png", "gray8", "rgba8", "bgra8", "nv12", "i420",
           "blank", "noise", "lines", "tiny", "large", "checkerboard"]
FLAGS = {"document": 1, "accurate": 2, "symbols": 4, "osd": 8, "entities": 16, "unchanged": 32, "steady": 64,
         "short-deadline": 128}
SCENES = {None: 0, "again": 1, "claimed": 2, "again-claimed-height": 3}
REGIONS = {None: 0, "session": 1, "frame": 2, "both": 3}


def seed(name, source, data=b"", flags=(), candidates=0, region_for=None, region=(0, 0, 0, 0), scene=None,
         cancelled=False, orientation=0, minimum_height=0, width=0, height=0, stride=0, parameter=0,
         claimed_height=0, noise_seed=0):
    header = struct.pack(
        "<BBBBBiiiiHHHBHQ", SOURCES.index(source), sum(FLAGS[flag] for flag in flags),
        candidates | REGIONS[region_for] << 2 | SCENES[scene] << 4 | (64 if cancelled else 0), orientation,
        minimum_height, *region, width, height, stride, parameter, claimed_height, noise_seed)
    assert len(header) == 38
    (OUT / name).write_bytes(header + data)


def jpeg(image, **options):
    out = io.BytesIO()
    image.save(out, "JPEG", **options)
    return out.getvalue()


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    label_bytes = (FIXTURES / "label-640x480.jpg").read_bytes()
    label = Image.open(FIXTURES / "label-640x480.jpg")
    half = label.resize((320, 240))  # its three lines, words 25 px high
    half_jpeg = jpeg(half, quality=50)
    strip = half.crop((20, 150, 150, 190))  # "Aisle 7", 130x40

    # Real JPEGs: the whole label (read twice: the second time decoded smaller for its large
    # words), then the label at half size with every option.
    seed("jpeg-label-again", "jpeg", label_bytes, flags=("unchanged",), scene="again")
    seed("jpeg-half-document-accurate-symbols-candidates-entities", "jpeg", half_jpeg,
         flags=("document", "accurate", "symbols", "entities"), candidates=3)
    seed("jpeg-half-accurate-symbols", "jpeg", half_jpeg, flags=("accurate", "symbols"), candidates=2)
    seed("jpeg-half-turned-osd", "jpeg", jpeg(half.rotate(90, expand=True), quality=50), flags=("osd",),
         candidates=1)
    seed("jpeg-half-again-claimed-height", "jpeg", half_jpeg, flags=("unchanged",), scene="again-claimed-height",
         claimed_height=4 * 100)
    seed("jpeg-half-session-region-minimum-height", "jpeg", half_jpeg, region_for="session",
         region=(20, 40, 260, 150), minimum_height=20, orientation=3)
    seed("jpeg-half-short-deadline-accurate", "jpeg", half_jpeg, flags=("short-deadline", "accurate"))
    seed("jpeg-not-a-jpeg", "jpeg", (FIXTURES / "not-a-jpeg.jpg").read_bytes())
    # PNG and raw buffers.
    seed("png-pattern-frame-region", "png", (FIXTURES / "pattern-rgb.png").read_bytes(), region_for="both",
         region=(1, 1, 5, 3), orientation=6)
    luma = strip.convert("L").tobytes()
    padded = b"".join(luma[y * 130:(y + 1) * 130] + bytes(6) for y in range(40))
    seed("raw-gray8-stride-document", "gray8", padded, flags=("document",), width=130, height=40, stride=136)
    rgb = strip.convert("RGB").tobytes()
    bgra = b"".join(bytes((rgb[i + 2], rgb[i + 1], rgb[i], 255)) for i in range(0, len(rgb), 3))
    seed("raw-bgra8-mirrored", "bgra8", bgra, orientation=2, width=130, height=40, candidates=2)
    seed("raw-nv12-symbols", "nv12", luma + bytes([128]) * (130 * 20), width=130, height=40, flags=("symbols",))
    seed("raw-i420-odd", "i420", bytes(range(7 * 5 + 2 * 4 * 3)), orientation=5, width=7, height=5)
    # Generated images.
    seed("generated-blank-unchanged-scene", "blank", width=319, height=239, parameter=200, scene="claimed")
    seed("generated-noise-moving", "noise", flags=("steady",), width=159, height=119, scene="claimed",
         parameter=0, noise_seed=0x1234_5678)
    seed("generated-lines-document", "lines", flags=("document", "accurate"), width=199, height=99, parameter=5)
    seed("generated-tiny", "tiny", width=2, height=4, noise_seed=7)
    seed("generated-large-at-the-limit", "large", flags=("document",), width=1999, height=1999, parameter=230)
    seed("generated-large-over-the-limit", "large", width=4095, height=4095, parameter=128)
    seed("generated-checkerboard-cancelled", "checkerboard", cancelled=True, width=99, height=99, parameter=3)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Write the seed corpus of fuzz/imaging: small JPEG, PNG and raw frames with a 26-byte header.

The header is what ImagingHarness reads (fuzz/Harness/ImagingHarness.swift), little-endian:
encoding index (0 jpeg, 1 png, 2 gray8, 3 rgba8, 4 bgra8, 5 nv12, 6 i420), orientation (0 =
unspecified, 1..8 EXIF), JPEG decode scale (0 full, 4k+1 fitting k*16 px, 4k+2 at least k/63),
flags (bit 0: a region; bit 1: a fresh imager), region x y w h (int32), raw width height stride
(uint16); then the image bytes.
The JPEGs are cut small from Tests/Fixtures so each seed stays a few KB. Needs Pillow.

    python3 fuzz/make-imaging-seeds.py      (fuzz/make-seeds.sh runs it)
"""

import io
import struct
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests" / "Fixtures"
OUT = ROOT / "fuzz" / "imaging" / "corpus"
ENCODINGS = ["jpeg", "png", "gray8", "rgba8", "bgra8", "nv12", "i420"]


def seed(name, encoding, data, orientation=0, scale=0, region=None, width=0, height=0, stride=0, fresh=False):
    header = struct.pack(
        "<BBBBiiiiHHH", ENCODINGS.index(encoding), orientation, scale, (1 if region else 0) | (2 if fresh else 0),
        *(region or (0, 0, 0, 0)), width, height, stride)
    assert len(header) == 26
    (OUT / name).write_bytes(header + data)


def jpeg(image, **options):
    out = io.BytesIO()
    image.save(out, "JPEG", **options)
    return out.getvalue()


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    label = Image.open(FIXTURES / "label-640x480.jpg")
    # A word or two of the label, in colour and gray, baseline and progressive.
    crop = label.crop((100, 180, 196, 228))
    seed("jpeg-label-crop", "jpeg", jpeg(crop, quality=60))
    seed("jpeg-label-crop-progressive-right", "jpeg", jpeg(crop.convert("L"), quality=50, progressive=True), orientation=6)
    seed("jpeg-label-crop-roi-left-mirrored", "jpeg", jpeg(crop, quality=40), orientation=5, region=(8, 4, 30, 60),
         fresh=True)
    odd = label.crop((101, 181, 200, 226))  # 99x45: sides that no scaling factor divides
    seed("jpeg-label-odd-crop", "jpeg", jpeg(odd, quality=40), orientation=2, region=(3, 2, 50, 40), fresh=True)
    seed("jpeg-label-crop-scaled", "jpeg", jpeg(crop, quality=40, subsampling=2), scale=4 * 3 + 1)
    seed("jpeg-label-crop-at-least-half", "jpeg", jpeg(crop, quality=40), scale=4 * 32 + 2, orientation=3)
    exif = Image.Exif()
    exif[0x0112] = 8
    seed("jpeg-exif-left", "jpeg", jpeg(crop.resize((32, 16)), quality=50, exif=exif.tobytes()))
    seed("jpeg-blank", "jpeg", (FIXTURES / "blank-320x240.jpg").read_bytes(), orientation=7)
    seed("jpeg-not-a-jpeg", "jpeg", (FIXTURES / "not-a-jpeg.jpg").read_bytes())
    for name in ["pattern-gray8", "pattern-gray16", "pattern-palette", "pattern-rgb", "pattern-rgba", "checker-1bit"]:
        seed(f"png-{name}", "png", (FIXTURES / f"{name}.png").read_bytes(), orientation=2, region=(1, 1, 5, 3))
    # Raw camera buffers, some with padded rows and odd sizes.
    gray = bytes((x * 16 + y * 8) & 0xFF for y in range(8) for x in range(16))
    seed("raw-gray8", "gray8", gray, orientation=4, width=16, height=8)
    rgba = bytes(v for y in range(8) for x in range(10) for v in (x * 20, y * 30, 128, 255))
    seed("raw-rgba8-stride", "rgba8", rgba, orientation=6, width=8, height=8, stride=40)
    seed("raw-bgra8", "bgra8", rgba[: 8 * 4 * 4], orientation=1, width=8, height=4, region=(2, 1, 4, 2))
    seed("raw-nv12", "nv12", bytes(range(8 * 6 + 8 * 3)), orientation=8, width=8, height=6, fresh=True)
    seed("raw-i420-odd", "i420", bytes(range(7 * 5 + 2 * 4 * 3)), orientation=5, width=7, height=5)


if __name__ == "__main__":
    main()

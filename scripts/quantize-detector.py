#!/usr/bin/env python3
"""Quantizes PP-OCRv4's text detector to 8-bit integers with NNCF (make quantize-detector).

Post-training quantization: NNCF runs the float model over calibration images, records the
range of every activation and writes an OpenVINO IR whose convolutions run in int8 (VNNI on
this machine's CPU), with the MIXED preset (symmetric weights, asymmetric activations).
Calibration images are the corpus's tune part (bench/corpus_parts.py) and the detector's test
fixtures, prepared as TextDetector prepares a frame (gray, long side scaled to at most 960 px or
up to 640 px, sides rounded to multiples of 32, three equal channels normalised with
ImageNet's mean and std). The held-out part is never seen here.

Its output, models/ch_PP-OCRv4_det_int8.{xml,bin}, is checked in (a fresh machine needs no
NNCF); scripts/install-openvino.sh copies it beside the float model, for legibled's
--detector-model (not the default: it reads worse, see models/README.md). Needs a virtualenv with the pinned packages, which `make
quantize-detector` makes:

    python3 scripts/quantize-detector.py --float-model /usr/local/share/legible/models/ch_PP-OCRv4_det_infer.onnx
"""
import argparse
import glob
import os
import sys

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import corpus_parts  # noqa: E402

MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)


def input_tensor(path, max_side=960, min_side=640, smallest=96, max_upscale=4.0):
    """The model input TextDetector makes of this image (TextDetector.inputSize)."""
    image = Image.open(path).convert("L")
    width, height = image.size
    long = max(width, height)
    if long > max_side:
        scale = max_side / long
    elif smallest <= long < min_side:
        scale = min(max_upscale, min_side / long)
    else:
        scale = 1.0

    def side(value):
        return min(max_side, max(32, int(round(value * scale / 32)) * 32))

    image = image.resize((side(width), side(height)), Image.BILINEAR)
    gray = np.asarray(image, np.float32)[None] / 255.0
    return ((np.repeat(gray, 3, 0) - MEAN) / STD)[None].astype(np.float32)


def calibration_images():
    tune = [os.path.join(corpus_parts.CORPUS, entry["file"]) for entry in corpus_parts.load_corpus()
            if entry["part"] == "tune"]
    fixtures = sorted(glob.glob(os.path.join(ROOT, "Tests", "Fixtures", "detector", "*.png")))
    fixtures += [os.path.join(ROOT, "Tests", "Fixtures", name) for name in ("camera-720p.jpg", "label-640x480.jpg")]
    return tune + fixtures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--float-model", default="/usr/local/share/legible/models/ch_PP-OCRv4_det_infer.onnx")
    parser.add_argument("--out", default=os.path.join(ROOT, "models", "ch_PP-OCRv4_det_int8.xml"),
                        help="the IR to write (its .bin beside it)")
    args = parser.parse_args()
    import nncf
    import openvino as ov

    paths = calibration_images()
    print("calibrating on %d images (the corpus's tune part and the detector fixtures)" % len(paths))
    model = ov.Core().read_model(args.float_model)
    data = [input_tensor(path) for path in paths]
    quantized = nncf.quantize(model, nncf.Dataset(data), preset=nncf.QuantizationPreset.MIXED,
                              subset_size=len(data))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    ov.save_model(quantized, args.out)
    print("wrote", args.out)


if __name__ == "__main__":
    main()

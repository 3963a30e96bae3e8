#!/usr/bin/env bash
# Regenerates the checked-in seed corpora of the fuzz targets (fuzz/*/corpus):
# client-message and framing from the codec test fixtures (a Swift test that writes them when
# LEGIBLE_WRITE_FUZZ_SEEDS is set), imaging from small cuts of Tests/Fixtures (Pillow),
# frame-path from the label fixture and generated-image headers (Pillow), http2 from raw
# HTTP/2 frames a gRPC client writes (fuzz/make-http2-seeds.py).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f fuzz/framing/corpus/* fuzz/client-message/corpus/* fuzz/imaging/corpus/* fuzz/http2/corpus/*
LEGIBLE_WRITE_FUZZ_SEEDS=1 swift test --filter 'FuzzSeeds' >/dev/null
python3 fuzz/make-imaging-seeds.py
python3 fuzz/make-frame-path-seeds.py
python3 fuzz/make-http2-seeds.py
for target in framing client-message imaging frame-path http2; do
  echo "$target: $(ls fuzz/$target/corpus | wc -l) seeds, $(du -sb fuzz/$target/corpus | cut -f1) bytes"
done

#!/usr/bin/env bash
# Where a frame's instructions go (make profile): the release legibled under callgrind (which
# counts instructions, so the figures repeat whatever else the machine is doing), 10 reads of one
# 1280x720 frame, then the inclusive cost of the server's own steps beside Tesseract's.
# valgrind 3.19 cannot read Swift 6's DWARF 5, so a copy without debug info is profiled (symbols
# stay). Writes bench/out/callgrind.out; prints the table, divide by 10 for one frame.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
dir=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$dir"' EXIT
cp .build/release/legibled "$dir/legibled"
strip --strip-debug "$dir/legibled"
OMP_THREAD_LIMIT=1 valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" \
  "$dir/legibled" --listen "unix:$dir/s.sock" 2>"$dir/valgrind.log" &
server=$!
for _ in $(seq 300); do [ -S "$dir/s.sock" ] && break; sleep 0.5; done
sleep 15   # the default engine loads (slowly, under valgrind)
python3 bench/profile_drive.py "unix:$dir/s.sock"
kill -INT "$server"
wait "$server" || true
callgrind_annotate --inclusive=yes --threshold=100 "$out/callgrind.out" 2>/dev/null | swift demangle --simplified \
  | grep -E "PROGRAM TOTALS|FramePipeline.process|TessBaseAPIRecognize \[|FrameImager.load|ImageQuality.measure|LumaThumbnail.init|TesseractEngine.walk|ProtobufCodec|EntityDetector" \
  | cut -c1-140

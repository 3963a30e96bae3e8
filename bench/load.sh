#!/usr/bin/env bash
# A real-Tesseract load run: release legibled on a temporary unix socket, then legible-load
# with the given flags (default: 8 sessions x 10 fps x 20 s). Reports go to bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$dir"' EXIT
.build/release/legibled --listen "unix:$dir/s.sock" 2>"$dir/log" &
server=$!
for _ in $(seq 100); do [ -S "$dir/s.sock" ] && break; sleep 0.1; done
[ -S "$dir/s.sock" ] || { cat "$dir/log"; exit 1; }
mkdir -p bench/out
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--sessions 8 --fps 10 --duration 20)
.build/release/legible-load --server "unix:$dir/s.sock" --json bench/out/load.json --html bench/out/load.html "${args[@]}"

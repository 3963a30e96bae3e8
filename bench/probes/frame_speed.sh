#!/bin/bash
# The server's median recognize time of the 720p camera fixture, sent 14 times in one session
# (the first two left out), for legibled flags. Ad-hoc probe of stop 28.
#   bench/probes/frame_speed.sh NAME [legibled flags...]     (LEVEL=accurate for ACCURATE)
set -euo pipefail
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
cd "$(dirname "$0")/../.."
name=$1; shift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
sock=$work/s.sock
OMP_THREAD_LIMIT=1 .build/release/legibled --listen "unix:$sock" --workers 1 --replicas-per-script 1 "$@" \
  >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.2; done
files=$(for _ in $(seq 14); do echo Tests/Fixtures/camera-720p.jpg; done)
# shellcheck disable=SC2086
.build/release/legible recognize --server "unix:$sock" --format json --recognize-unchanged $files \
  ${LEVEL:+--level $LEVEL} >"$work/out.json"
kill $pid; wait $pid 2>/dev/null || true
python3 - "$work/out.json" "$name" <<'PY'
import json, statistics, sys
times = [json.loads(line).get("timing", {}).get("recognize_us", 0) / 1000 for line in open(sys.argv[1])][2:]
print(sys.argv[2], "median ms %.1f" % statistics.median(times), "n", len(times))
PY

#!/usr/bin/env bash
# `make leak-check`: one short session through legibled under valgrind memcheck. The session is
# in document mode, which with `--detector tesseract` is Tesseract's page layout with its result
# and choice iterators (OpenVINO's JIT code is not for valgrind; make test-asan covers the detector).
# (--leak-check=full), reporting definite leaks and memory errors; exit 1 on any.
#
# The session (scripts/leak_session.py) sends FRAMES_PER_ENCODING (20) frames of each of the 7
# encodings in document mode with symbols, candidates and entities, then 5 failing frames of
# each bad kind (truncated JPEG, corrupt PNG, short raw buffer), ends the session, and the
# server is stopped with SIGTERM so that every engine, handle and buffer is torn down before
# memcheck counts what is left.
#
# legibled is built for this in .build/valgrind with DWARF 4 debug info: valgrind 3.19
# (Debian 12) cannot read the DWARF 5 that Swift 6.3 emits ("Possibly corrupted debuginfo
# file ... I can't recover"). OMP_THREAD_LIMIT is set so that legibled does not re-execute
# itself, and the engines run in its own process (--engine-isolation none), so that the frame
# path is under memcheck too. Suppressions (with the reason for each): scripts/sanitizers/valgrind.supp.
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${FRAMES_PER_ENCODING:-20}
swift build -c release --build-path .build/valgrind --product legibled \
  -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 2>&1 | grep -E "error|warning:|Compiling|complete" || true
work=$(mktemp -d /tmp/legible-leak-check-XXXXXX)
log=.build/valgrind/memcheck.log
start=$(date +%s)
OMP_THREAD_LIMIT=1 valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite \
  --errors-for-leak-kinds=definite --num-callers=40 --suppressions=scripts/sanitizers/valgrind.supp \
  --log-file="$log" .build/valgrind/release/legibled --listen "unix:$work/s.sock" --workers 1 --engine-isolation none \
  --detector tesseract 2>"$work/legibled.log" &
pid=$!
for _ in $(seq 1 300); do [ -S "$work/s.sock" ] && break; kill -0 $pid 2>/dev/null || break; sleep 1; done
session=0
python3 scripts/leak_session.py --server "unix:$work/s.sock" --frames-per-encoding "$frames" --bad-frames 5 \
  || session=$?
kill -TERM $pid
wait $pid || true
echo "valgrind run: $(($(date +%s) - start)) s; log: $log"
grep -E "ERROR SUMMARY|definitely lost:|indirectly lost:|possibly lost:|suppressed:" "$log" | sed 's/^==[0-9]*== *//'
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -1)
rm -rf "$work"
if [ "$session" -ne 0 ] || [ "${errors:-1}" -ne 0 ]; then
  echo "leak-check: FAILED (session exit $session, $errors memcheck errors; see $log)" >&2
  exit 1
fi
echo "leak-check: no definite leak and no memory error"

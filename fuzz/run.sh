#!/usr/bin/env bash
# Runs each libFuzzer target for FUZZ_SECONDS (default 60) and prints, per target, the
# executions, executions per second, corpus size and findings.
#
#   fuzz/run.sh [TARGET...]   targets: framing client-message imaging frame-path http2 (default: all)
#
# Each target starts from its checked-in seeds (fuzz/TARGET/corpus) plus what earlier runs
# added (.build/fuzz/corpus/TARGET, kept between runs); crashes, leaks, timeouts and OOMs land
# in .build/fuzz/findings/TARGET/. Memory and input size are bounded (-rss_limit_mb,
# -max_len) so that a claimed image size cannot take the machine down; it runs under
# `nice -n $FUZZ_NICE` (10) as the machine is shared. Exit status 1 when anything was found.
# Replay a finding: .build/fuzz/release/fuzz-TARGET FILE; keep it as a regression test by
# copying it to Tests/Fixtures/fuzz-regressions/TARGET/.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
nice_level=${FUZZ_NICE:-10}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(framing client-message imaging frame-path http2)

max_len() {
  case $1 in
    imaging | frame-path) echo 262144 ;;   # a few hundred KB: room for a real JPEG, and fast executions
    *) echo 65536 ;;
  esac
}

# Seconds one input may take before libFuzzer calls it a hang. frame-path runs Tesseract and the
# detector, twice for some inputs, under ASan, and each frame has a 5 s deadline, which
# Tesseract's layout analysis does not check: room for that, still far from a real hang.
time_limit() {
  case $1 in
    frame-path) echo 60 ;;
    *) echo 30 ;;
  esac
}

# Memory one run may take (FUZZ_RSS_MB overrides). frame-path holds Tesseract, the detector and
# PP-OCR's recognizer under ASan (~0.9 GB at the start, 256 MB of it ASan's quarantine) and
# grows with each new image size OpenVINO sees (a 300 s run peaked at 2.0 GB; one input
# repeated stays flat).
rss_limit() {
  case $1 in
    frame-path) echo "${FUZZ_RSS_MB:-4096}" ;;
    *) echo "${FUZZ_RSS_MB:-2048}" ;;
  esac
}

# Whether leaks are findings: not for frame-path. OpenVINO keeps memory LeakSanitizer cannot
# trace (pointers held by its JIT-compiled kernels, in mappings LSan does not scan, and by its
# CPU streams executor's tasks), reported as leaks of operator new in libopenvino or an unknown
# module as soon as the detector runs. Leaks per frame of the whole server are checked by
# clients/python/tests/test_leaks.py and `make leak-check` instead.
leak_check() {
  case $1 in
    frame-path) echo 0 ;;
    *) echo 1 ;;
  esac
}

# libFuzzer and ASan report crashes themselves; Swift's backtracer would hold the crash.
export SWIFT_BACKTRACE=enable=no
# oneTBB (OpenVINO's threads) dlopens libtbbbind with RTLD_DEEPBIND, which the sanitizer
# runtime refuses (it aborts the process); with this variable TBB leaves the flag out.
export TBB_ENABLE_SANITIZERS=1

status=0
printf '%-15s %8s %12s %8s %7s %s\n' target seconds executions exec/s corpus findings
for target in "${targets[@]}"; do
  binary=.build/fuzz/release/fuzz-$target
  [ -x "$binary" ] || { echo "no $binary: run fuzz/build.sh" >&2; exit 2; }
  corpus=.build/fuzz/corpus/$target
  findings=.build/fuzz/findings/$target
  log=.build/fuzz/logs/$target.log
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  before=$(ls "$findings" | wc -l)
  start=$(date +%s)
  asan_options=${ASAN_OPTIONS:-detect_leaks=$(leak_check "$target"):allocator_may_return_null=1}
  ASAN_OPTIONS=$asan_options nice -n "$nice_level" "$binary" "$corpus" "fuzz/$target/corpus" \
    -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout="$(time_limit "$target")" \
    -rss_limit_mb="$(rss_limit "$target")" -detect_leaks="$(leak_check "$target")" \
    -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  elapsed=$(($(date +%s) - start))
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  # libFuzzer's own count: the units it keeps for their coverage, seeds included.
  size=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  after=$(ls "$findings" | wc -l)
  new=$((after - before))
  printf '%-15s %8s %12s %8s %7s %s\n' "$target" "$elapsed" "${executions:-?}" "${rate:-?}" \
    "${size:-?}" "$([ "$new" -eq 0 ] && echo none || echo "$new in $findings")"
  if [ $rc -ne 0 ] || [ "$new" -ne 0 ]; then
    status=1
    grep -E 'ERROR|SUMMARY|Fatal error|fuzz invariant' "$log" | head -5 | sed 's/^/    /'
    echo "    log: $log"
  fi
done
exit $status

#!/usr/bin/env bash
# Fails when a sanitizer wrote a report into DIR: `make test-asan` and `make test-tsan` point
# ASAN_OPTIONS/TSAN_OPTIONS log_path there while the end-to-end suite runs, so that an error
# in legibled or the CLI counts even where no test looks at the process's stderr or exit code.
#   scripts/sanitizers/check-reports.sh DIR
set -uo pipefail
dir=$1
reports=$(grep -l -E "ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer" "$dir"/* 2>/dev/null)
if [ -n "$reports" ]; then
  for report in $reports; do
    echo "== $report"
    grep -m1 -A30 -E "ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer" "$report"
  done
  echo "sanitizer reports: $(wc -w <<<"$reports") file(s) in $dir" >&2
  exit 1
fi
echo "sanitizer reports: none ($(ls "$dir" | wc -l) log files, suppressions only)"

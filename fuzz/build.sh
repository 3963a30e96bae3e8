#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/framing, fuzz/client-message, fuzz/imaging,
# fuzz/frame-path, fuzz/http2) with AddressSanitizer into .build/fuzz/release/fuzz-*.
#
# How: Package.swift declares the four executables only when LEGIBLE_FUZZ is set. Every Swift
# module they depend on is compiled with -sanitize=fuzzer,address (coverage counters for
# libFuzzer + ASan), the package's C targets (protoc-c output, the Leptonica and libpng
# interposers) with -fsanitize=fuzzer,address, and the link
# brings libFuzzer's main from the toolchain (lib/clang/*/lib/linux/libclang_rt.fuzzer*.a).
# Its own build path keeps these objects apart from the ordinary debug/release builds.
#
# Why not SwiftPM's `--sanitize=fuzzer --sanitize=address` alone: SwiftPM passes them as two
# -sanitize= flags in no fixed order, and the Swift driver keeps only the last one, so a build
# got either coverage or ASan in its Swift code, never both. So `--sanitize=fuzzer` stays (it
# makes SwiftPM link libFuzzer's main instead of the module's own) and the combined flag comes
# after it through -Xswiftc, where it wins; the check below fails the build otherwise. Why not
# lld: it garbage-collects the coverage sections (start-stop-gc). gold warns once per ASan
# helper symbol it cannot export; those lines are filtered out.
set -euo pipefail
cd "$(dirname "$0")/.."
build=.build/fuzz
products=(fuzz-framing fuzz-client-message fuzz-imaging fuzz-frame-path fuzz-http2)
for product in "${products[@]}"; do
  LEGIBLE_FUZZ=1 swift build -c release --build-path "$build" --sanitize=fuzzer \
    -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address --product "$product" 2>&1 \
    | { grep -v "warning: Cannot export local symbol '__asan" || true; }
done
# Both instruments in every object the targets are made of, Swift and C alike: the package's
# own modules. The C libraries from Debian (Tesseract, Leptonica, libjpeg-turbo, libpng, nghttp2,
# libexif, protobuf-c) and OpenVINO's prebuilt runtime are linked as they are, uninstrumented:
# the fuzzer sees no coverage inside them, and ASan sees only their allocations and the libc
# calls it intercepts (memcpy, …), not their own loads and stores.
objects=$(find "$build"/release/{Legible{Core,Wire,WireProtobuf,Sessions,Imaging,FuzzHarness,ProtoC},fuzz_*}.build \
  "$build"/release/{Legible{Engine,Tesseract,Detection,Reading,Entities,Sockets,HTTP2},C{WordImages,PNGMessages}}.build \
  -name '*.o' | sort)
# An object of data only (protoc-c's service descriptors) has no code to count: ASan alone.
for object in $objects; do
  sections=$(objdump -h "$object")
  code=$(awk '$2 ~ /^\.text/ && $2 !~ /^\.text\.asan\./ && $3 != "00000000"' <<<"$sections")
  if { [ -n "$code" ] && ! grep -q __sancov_cntrs <<<"$sections"; } || ! grep -q asan <<<"$sections"; then
    echo "$object lacks coverage counters or ASan instrumentation" >&2
    exit 1
  fi
done
# Only the counters are read here: no leak check (see fuzz/run.sh for frame-path's), and oneTBB
# must not dlopen with RTLD_DEEPBIND under ASan (TBB_ENABLE_SANITIZERS, as in fuzz/run.sh).
for product in "${products[@]}"; do
  counters=$(SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 TBB_ENABLE_SANITIZERS=1 \
    "$build/release/$product" -runs=0 2>&1 \
    | sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p')
  echo "$product: ${counters:-?} coverage counters; $(wc -w <<<"$objects") objects with coverage and ASan"
done

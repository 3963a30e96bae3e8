#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/framing, fuzz/client-message, fuzz/imaging) with
# AddressSanitizer into .build/fuzz/release/fuzz-*.
#
# How: Package.swift declares the three executables only when LEGIBLE_FUZZ is set; SwiftPM's
# --sanitize=fuzzer --sanitize=address instruments every Swift and C target they depend on
# (coverage + ASan) and links libFuzzer's main from the toolchain
# (lib/clang/*/lib/linux/libclang_rt.fuzzer*.a). Its own build path keeps these objects apart
# from the ordinary debug/release builds. lld instead of gold: gold warns about each ASan
# helper symbol it cannot export.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in fuzz-framing fuzz-client-message fuzz-imaging; do
  LEGIBLE_FUZZ=1 swift build -c release --build-path .build/fuzz --sanitize=fuzzer --sanitize=address \
    -Xswiftc -use-ld=lld --product "$product"
done

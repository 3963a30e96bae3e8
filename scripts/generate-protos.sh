#!/usr/bin/env bash
# Regenerates the protobuf-c code in Sources/LegibleProtoC from Protos/.
#   scripts/generate-protos.sh          rewrite the checked-in files
#   scripts/generate-protos.sh --check  exit 1 when the checked-in files are stale
set -euo pipefail
cd "$(dirname "$0")/.."
proto=legible/v1/legible.proto
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
protoc-c --proto_path=Protos --c_out="$out" "$proto"
header=Sources/LegibleProtoC/include/legible/v1/legible.pb-c.h
source=Sources/LegibleProtoC/legible/v1/legible.pb-c.c
if [ "${1:-}" = "--check" ]; then
  if cmp -s "$out/legible/v1/legible.pb-c.h" "$header" && cmp -s "$out/legible/v1/legible.pb-c.c" "$source"; then
    echo "protobuf-c code is up to date"
    exit 0
  fi
  echo "protobuf-c code in Sources/LegibleProtoC is stale: run scripts/generate-protos.sh" >&2
  exit 1
fi
mkdir -p "$(dirname "$header")" "$(dirname "$source")"
cp "$out/legible/v1/legible.pb-c.h" "$header"
cp "$out/legible/v1/legible.pb-c.c" "$source"
echo "wrote $header and $source"

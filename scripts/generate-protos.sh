#!/usr/bin/env bash
# Regenerates the protobuf-c code in Sources/LegibleProtoC from Protos/: the wire contract
# (legible/v1/legible.proto) and the server's private views of it (internal/legible_views.proto).
#   scripts/generate-protos.sh          rewrite the checked-in files
#   scripts/generate-protos.sh --check  exit 1 when the checked-in files are stale
set -euo pipefail
cd "$(dirname "$0")/.."
protos=(legible/v1/legible.proto internal/legible_views.proto)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
protoc-c --proto_path=Protos --c_out="$out" "${protos[@]}"
stale=0
for proto in "${protos[@]}"; do
  base=${proto%.proto}
  header=Sources/LegibleProtoC/include/$base.pb-c.h
  source=Sources/LegibleProtoC/$base.pb-c.c
  if [ "${1:-}" = "--check" ]; then
    if ! cmp -s "$out/$base.pb-c.h" "$header" || ! cmp -s "$out/$base.pb-c.c" "$source"; then
      echo "protobuf-c code for $proto in Sources/LegibleProtoC is stale: run scripts/generate-protos.sh" >&2
      stale=1
    fi
    continue
  fi
  mkdir -p "$(dirname "$header")" "$(dirname "$source")"
  cp "$out/$base.pb-c.h" "$header"
  cp "$out/$base.pb-c.c" "$source"
  echo "wrote $header and $source"
done
if [ "${1:-}" = "--check" ]; then
  [ "$stale" = 0 ] && echo "protobuf-c code is up to date"
  exit "$stale"
fi

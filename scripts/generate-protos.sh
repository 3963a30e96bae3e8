#!/usr/bin/env bash
# Regenerates the protobuf-c code in Sources/LegibleProtoC from Protos/: the wire contract
# (legible/v1/legible.proto) and the server's private views of it (internal/legible_views.proto);
# from Debian's grpc-proto (/usr/share/grpc-proto), gRPC's health service and server reflection;
# and the table of descriptors reflection serves (service_descriptors.c, scripts/descriptor_table.py).
#   scripts/generate-protos.sh          rewrite the checked-in files
#   scripts/generate-protos.sh --check  exit 1 when the checked-in files are stale
set -euo pipefail
cd "$(dirname "$0")/.."
grpc_protos=/usr/share/grpc-proto
protos=(legible/v1/legible.proto internal/legible_views.proto grpc/health/v1/health.proto grpc/reflection/v1/reflection.proto)
# What reflection describes (v1alpha's messages are v1's, field for field: one codec serves both).
described=(legible/v1/legible.proto grpc/health/v1/health.proto grpc/reflection/v1/reflection.proto
  grpc/reflection/v1alpha/reflection.proto)
services=(legible.v1.Recognizer grpc.health.v1.Health grpc.reflection.v1.ServerReflection
  grpc.reflection.v1alpha.ServerReflection)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -d "$grpc_protos" ] || { echo "$grpc_protos is missing: apt-get install grpc-proto" >&2; exit 1; }
protoc-c --proto_path=Protos --proto_path="$grpc_protos" --c_out="$out" "${protos[@]}"
protoc --proto_path=Protos --proto_path="$grpc_protos" --descriptor_set_out="$out/described.pb" "${described[@]}"
python3 scripts/descriptor_table.py "$out/described.pb" "${services[@]}" > "$out/service_descriptors.c"
stale=0
table=Sources/LegibleProtoC/service_descriptors.c
if [ "${1:-}" = "--check" ]; then
  if ! cmp -s "$out/service_descriptors.c" "$table"; then
    echo "$table is stale: run scripts/generate-protos.sh" >&2
    stale=1
  fi
else
  cp "$out/service_descriptors.c" "$table"
  echo "wrote $table"
fi
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

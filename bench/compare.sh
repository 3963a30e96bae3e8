#!/usr/bin/env bash
# make bench-compare BEFORE=<commit>: builds legibled (release) of BEFORE in a worktree under
# bench/.cache and runs bench/side_by_side.py against this tree's release build.
set -euo pipefail
cd "$(dirname "$0")/.."
before=$(git rev-parse --short "${1:?usage: bench/compare.sh COMMIT}")
tree="bench/.cache/worktree-$before"
if [ ! -d "$tree" ]; then
  git worktree add --detach "$tree" "$before" >/dev/null
fi
echo "building legibled of $before (release) in $tree"
(cd "$tree" && swift build -c release --product legibled 2>&1 | tail -1)
mkdir -p bench/out
python3 bench/side_by_side.py --before "$tree/.build/release/legibled" --after .build/release/legibled \
  --json bench/out/side_by_side.json

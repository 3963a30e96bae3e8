#!/bin/bash
# Tesseract's OSD (`tesseract IMG - --psm 0`) on each script's generated 1280x720 scene (seed
# 100) and on a blank 64x64 image (the model's load time): the script it names, its confidence
# and the wall time. Ad-hoc probe of stop 29 (a first-script guess for automatic sessions).
#   bench/probes/osd_scene.sh
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
cd "$(dirname "$0")/../.."
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import sys
sys.path.insert(0, "scripts")
import camera_frames as cf
from PIL import Image
Image.new("L", (64, 64), 255).save(sys.argv[1] + "/blank.png")
for script in ("korean", "japanese", "devanagari", "latin", "chinese"):
    image, _ = cf.script_scene(script, seed=100)
    image.convert("L").save("%s/%s.png" % (sys.argv[1], script))
PY
for name in blank korean japanese devanagari latin chinese; do
  start=$(date +%s.%N)
  out=$(OMP_THREAD_LIMIT=1 tesseract "$work/$name.png" - --psm 0 2>&1 || true)
  end=$(date +%s.%N)
  script=$(echo "$out" | sed -n 's/^Script: //p'); confidence=$(echo "$out" | sed -n 's/^Script confidence: //p')
  printf '%-11s script %-9s confidence %-6s %.2f s\n' "$name" "${script:--}" "${confidence:--}" "$(echo "$end - $start" | bc)"
done

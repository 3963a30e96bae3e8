#!/usr/bin/env bash
# Set-up for the peers and the one-run benchmark (make bench calls it; idempotent: each step
# runs only when its check fails, so a second run does nothing but check).
#
#   apt:  tesseract-ocr (the CLI peer), libtesseract-dev + libleptonica-dev + g++ + pkg-config
#         (to compile tesserocr against Debian's Tesseract 5.3.0), the models the benchmark reads.
#   pip:  Cython (tesserocr's build; pip's isolated build fetches the version its pyproject.toml
#         asks for), matplotlib (the freshness chart), and tesserocr built from
#         its source distribution: the PyPI wheel bundles its own Tesseract (5.5.4), which would
#         not be a like-for-like peer. The sdist is kept in bench/.cache/ (its tests/eurotext.png
#         is one of the public images of the accuracy table).
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
TESSEROCR_VERSION=${TESSEROCR_VERSION:-2.13.0}
APT_PACKAGES=(tesseract-ocr libtesseract-dev libleptonica-dev g++ pkg-config
  tesseract-ocr-eng tesseract-ocr-script-latn tesseract-ocr-script-hans tesseract-ocr-script-deva
  tesseract-ocr-jpn tesseract-ocr-kor fonts-dejavu-core fonts-noto-core fonts-noto-cjk)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: apt-get install ${missing[*]}"
  # Other engineers share this machine: wait for their apt runs rather than fail on the lock.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}"
fi

"$PYTHON" -c 'import Cython' 2>/dev/null || "$PYTHON" -m pip install -q Cython
"$PYTHON" -c 'import matplotlib' 2>/dev/null || "$PYTHON" -m pip install -q matplotlib

system_version=$(tesseract --version 2>&1 | head -1 | awk '{print $2}')
mkdir -p bench/.cache
sdist=bench/.cache/tesserocr-$TESSEROCR_VERSION.tar.gz
if [ ! -f "$sdist" ]; then
  "$PYTHON" -m pip download -q --no-deps --no-binary :all: "tesserocr==$TESSEROCR_VERSION" -d bench/.cache
fi
if [ ! -f bench/.cache/eurotext.png ]; then
  tar -xzf "$sdist" -O "tesserocr-$TESSEROCR_VERSION/tests/eurotext.png" > bench/.cache/eurotext.png
fi
linked=$("$PYTHON" -c 'import tesserocr; print(tesserocr.tesseract_version().split()[1])' 2>/dev/null || true)
if [ "$linked" != "$system_version" ]; then
  echo "setup: building tesserocr $TESSEROCR_VERSION from source against Debian's libtesseract $system_version (was: ${linked:-none})"
  "$PYTHON" -m pip uninstall -q -y tesserocr 2>/dev/null || true
  # pip builds it in an isolated environment with the setuptools and Cython its pyproject.toml
  # names, against the system headers (pkg-config tesseract lept); --no-cache-dir so that no
  # cached wheel of another build is reused.
  "$PYTHON" -m pip install -q --no-binary tesserocr --no-cache-dir "$sdist"
  linked=$("$PYTHON" -c 'import tesserocr; print(tesserocr.tesseract_version().split()[1])')
fi
if [ "$linked" != "$system_version" ]; then
  echo "setup: tesserocr runs Tesseract $linked, the system has $system_version: not a like-for-like peer" >&2
  exit 1
fi
echo "setup: ok (tesseract $system_version; tesserocr $("$PYTHON" -c 'import tesserocr; print(tesserocr.__version__)') linked against it)"

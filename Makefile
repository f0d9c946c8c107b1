# Periphery — build, test and demo entry points. `make test` and `make demo` are the README's contract.

SWIFT ?= swift
# Tests run optimised: the network parity tests take minutes unoptimised. -enable-testing keeps
# @testable imports working in release.
RELEASE := -c release -Xswiftc -enable-testing
CONFORMANCE := Sources/PeripheryInference/Resources/Conformance
# Debian packages the build needs (C libraries come in through SwiftPM system-library targets).
DEB_PACKAGES := libopenblas-dev libpng-dev libjpeg-dev

.PHONY: test demo deps build check-cli clean

test: deps
	$(SWIFT) build $(RELEASE)
	$(SWIFT) test $(RELEASE)
	$(MAKE) check-cli BIN=.build/release/periphery

demo: deps
	$(SWIFT) build -c release
	.build/release/periphery selfcheck
	.build/release/periphery info
	.build/release/periphery bench --frames 10

# Installs whatever of DEB_PACKAGES is missing (CI machines start fresh).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && $$SUDO apt-get install -y $$missing; \
	fi

# End-to-end checks of the CLI against the conformance vectors.
check-cli:
	@test -x "$(BIN)" || { echo "build $(BIN) first"; exit 1; }
	$(BIN) selfcheck
	$(BIN) lut --calibration docs/calibration/comma-eon.json --out .build/selfcheck_lut.bin
	bash tools/check_lut.sh .build/selfcheck_lut.bin $(CONFORMANCE)/selfcheck_lut.bin
	$(BIN) decode --head $(CONFORMANCE)/selfcheck_head.safetensors > .build/selfcheck_detections.json
	python3 tools/compare_detections.py .build/selfcheck_detections.json $(CONFORMANCE)/selfcheck.json

clean:
	rm -rf .build

# --- Python tooling (tools/): reference network, weights, parity fixtures, ONNX export, peer benchmarks.
# Not needed by `make test`. `make venv` is idempotent: it reinstalls only when requirements change.
PYTHON ?= python3
VENV := tools/.venv

.PHONY: venv

venv: $(VENV)/.stamp

$(VENV)/.stamp: tools/requirements.txt
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --upgrade pip
	$(VENV)/bin/python -m pip install -r tools/requirements.txt
	touch $@

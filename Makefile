# Periphery — build, test and demo entry points. `make test` and `make demo` are the README's contract.

SWIFT ?= swift
# Tests run optimised: the network parity tests take minutes unoptimised. -enable-testing keeps
# @testable imports working in release.
RELEASE := -c release -Xswiftc -enable-testing
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
	mkdir -p out
	.build/release/periphery detect docs/sample/synthetic/frame.png --calibration docs/sample/synthetic/calibration.json \
		--json out/detections.json --overlay out/overlay.png --bev out/bev.png
	python3 tools/compare_with_labels.py out/detections.json docs/sample/synthetic/labels.json
	@echo "demo: detections in out/detections.json, pictures in out/overlay.png and out/bev.png"
	@echo "demo: the default weights were trained on synthetic scenes only (Weights/README.md)"

# Installs whatever of DEB_PACKAGES is missing (CI machines start fresh).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && $$SUDO apt-get install -y $$missing; \
	fi

# End-to-end checks of the CLI: goldens, then detect/run/track on the fixtures under Tests/cli.
check-cli:
	@test -x "$(BIN)" || { echo "build $(BIN) first"; exit 1; }
	bash tools/check_cli.sh $(BIN)

clean:
	rm -rf .build

# --- Python tooling (tools/): reference network, weights, parity fixtures, ONNX export, peer benchmarks.
# Not needed by `make test`. `make venv` is idempotent: it reinstalls only when requirements change.
PYTHON ?= python3
VENV := tools/.venv

.PHONY: venv test-tools

venv: $(VENV)/.stamp

# Tests of the Python tooling: the trainer (target coding, LUT camera fit, exact resume) and the
# weight converters (checkpoint and Core ML round trips through the Swift runtime, refusals).
# Needs the venv and the release CLI (built with the flags of `make test`, so that build is reused).
test-tools: venv deps
	$(SWIFT) build $(RELEASE)
	PERIPHERY=.build/release/periphery $(VENV)/bin/python tools/test_train_synthetic.py
	PERIPHERY=.build/release/periphery $(VENV)/bin/python tools/test_converters.py

$(VENV)/.stamp: tools/requirements.txt
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --upgrade pip
	$(VENV)/bin/python -m pip install -r tools/requirements.txt
	touch $@

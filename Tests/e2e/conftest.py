"""Fixtures of the end-to-end tests (Tests/e2e): the CLI under test, the C API's build, background
processes that are always stopped, and the synthetic clips and scripted drives several tests share.

    pytest Tests/e2e                                  # everything `make test` runs, and more
    pytest Tests/e2e -k live                          # the live sources and the live view alone
    pytest Tests/e2e/test_cli.py::test_track_confirms_one_track_over_four_frames

Options (or environment): --periphery BIN ($PERIPHERY; default .build/release/periphery), --build-dir
DIR (the folder of libPeripheryC.so; default the CLI's), --asan-build-dir DIR (an AddressSanitizer
build of libPeripheryC.so: `make test-asan`), --wheel-dir DIR (the built wheel; default dist),
--binding-k EXPR (which of the binding's own tests the wheel test runs; default all).
Markers: `wheel` (needs `make wheel`: run by `make test-python`), `tools` (needs `make venv-tools`
and Chromium: run by `make test-tools`); `make test` deselects both.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT, Processes, run


def pytest_addoption(parser):
    group = parser.getgroup("periphery", "Periphery's end-to-end tests")
    group.addoption("--periphery", default=os.environ.get("PERIPHERY", str(ROOT / ".build/release/periphery")),
                    help="the periphery CLI under test (default: $PERIPHERY or .build/release/periphery)")
    group.addoption("--build-dir", default=None, help="the folder of libPeripheryC.so (default: the CLI's folder)")
    group.addoption("--asan-build-dir", default=None, help="an AddressSanitizer build's folder of libPeripheryC.so")
    group.addoption("--wheel-dir", default=str(ROOT / "dist"), help="the folder of the built wheel (default: dist)")
    group.addoption("--binding-k", default=None,
                    help="a pytest -k expression for the binding's own tests run from the wheel (default: all of them); "
                         "make test-arm64 leaves out the slow and the timing ones under emulation")


def pytest_configure(config):
    config.addinivalue_line("markers", "wheel: needs the wheel that `make wheel` builds (make test-python)")
    config.addinivalue_line("markers", "tools: needs the tools' packages of `make venv-tools` and Chromium (make test-tools)")


@pytest.fixture(scope="session")
def periphery(request) -> Path:
    """The `periphery` CLI, as an absolute path; every test that needs it fails, saying so, without it."""
    path = Path(request.config.getoption("--periphery")).resolve()
    if not path.is_file():
        pytest.fail(f"no periphery CLI at {path}: build it (swift build -c release -Xswiftc -enable-testing) or pass --periphery")
    return path


@pytest.fixture(scope="session")
def build_dir(request, periphery) -> Path:
    """The folder of the release build's libPeripheryC.so."""
    folder = Path(request.config.getoption("--build-dir") or periphery.parent).resolve()
    if not (folder / "libPeripheryC.so").is_file():
        pytest.fail(f"no libPeripheryC.so in {folder}: build it (swift build -c release -Xswiftc -enable-testing) or pass --build-dir")
    return folder


@pytest.fixture
def processes():
    """Starts background commands (`processes.start(command, log, limit)`); every one of them is
    killed when the test ends, pass or fail."""
    started = Processes()
    try:
        yield started
    finally:
        started.stop_all()


@pytest.fixture(scope="session")
def sample_video(periphery, tmp_path_factory):
    """`sample_video(frames)`: tools/make_sample_video.sh's synthetic drive of FRAMES frames (640 × 400)
    and its clips (clip.mp4, clip-h265.mp4, clip-mjpeg.avi, clip-vfr.mkv) in OUT/video; made once
    per size and session. Returns OUT."""
    made = {}

    def make(frames: int) -> Path:
        if frames not in made:
            out = tmp_path_factory.mktemp(f"sample-{frames}") / "sample"
            run(["bash", "tools/make_sample_video.sh", periphery, out, frames])
            made[frames] = out
        return made[frames]

    return make


@pytest.fixture(scope="session")
def warning_drive(periphery, tmp_path_factory) -> dict:
    """A scripted drive that must give a forward-collision warning, and `periphery run` of it: NHTSA's
    LVM with the lead 40 m ahead (`periphery synth --sequence --scenario lvm --gap 40`, at most 40
    frames of 640 × 400, seed 1), run with the INT8 weights (`weights`) and `--mcap`. Returns the
    folder of the drive (`drive`), the run's folder with its sidecar and run.mcap (`run`), the weights
    and the CLI's standard error (`stderr`); made once per session."""
    root = tmp_path_factory.mktemp("warning-drive")
    weights = ROOT / "Weights/safety40-synthetic-int8.safetensors"
    run([periphery, "synth", "--sequence", "--scenario", "lvm", "--gap", "40", "--frames", "40", "--seed", "1", "--out", root / "drive"])
    done = run([periphery, "run", root / "drive", "--out", root / "run", "--mcap", root / "run/run.mcap", "--weights", weights])
    return {"drive": root / "drive", "run": root / "run", "weights": weights, "stderr": done.stderr}


@pytest.fixture(scope="session")
def media_cache() -> Path:
    """A folder kept between runs for clips that take long to render (.build/e2e-media)."""
    folder = ROOT / ".build" / "e2e-media"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def ffmpeg_encode():
    """`ffmpeg_encode(*arguments)`: ffmpeg, quiet, overwriting; fails the test with its message."""

    def encode(*arguments, timeout=300):
        done = subprocess.run(["ffmpeg", "-v", "error", "-y", *map(str, arguments)], capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"ffmpeg {' '.join(map(str, arguments))}: {done.stderr}"

    return encode

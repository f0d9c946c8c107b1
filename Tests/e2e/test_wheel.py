"""The wheel as a user gets it (`make test-python`; docs/guides/python.md): `make wheel`'s
dist/periphery-VERSION-*manylinux*_ARCH.whl installed by pip alone into a fresh venv, with pytest and
Pillow at the pins of python/requirements-dev.txt. Everything then runs with no toolchain on PATH or
LD_LIBRARY_PATH (and no PERIPHERY_LIBRARY or PYTHONPATH): the example python/examples/detect_frame.py
on the bundled frame, compared with `periphery detect --reject-implausible --json` (box fields equal as
doubles, scores as float32: detections.assert_equal_to_cli), once more with the toolchain's folder
hidden; `ldd` of every library in the installed package, which must resolve everything and nothing
inside the toolchain; and the binding's own tests, python/tests/test_binding*.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from detections import assert_equal_to_cli
from helpers import ROOT, run

pytestmark = pytest.mark.wheel

FRAME = ROOT / "docs/sample/synthetic/frame.png"
CALIBRATION = ROOT / "docs/sample/synthetic/calibration.json"
WEIGHTS = ROOT / "Weights/safety40-synthetic.safetensors"
EXAMPLE = ROOT / "python/examples/detect_frame.py"
CLEAN_ENV = ({k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "PERIPHERY_LIBRARY", "PYTHONPATH", "PYTHONHOME")}
             | {"PATH": "/usr/local/bin:/usr/bin:/bin"})


def version() -> str:
    for line in (ROOT / "python/pyproject.toml").read_text().splitlines():
        if line.startswith("version = "):
            return line.split('"')[1]
    raise AssertionError("python/pyproject.toml has no version")


def toolchain() -> Path:
    """The toolchain's usr folder: where `swift` is found, one level up."""
    swift = shutil.which(os.environ.get("SWIFT", "swift"))
    assert swift, "no swift on PATH"
    return Path(swift).parent.parent


def swift_runtime_dir(library) -> str:
    """The folder in which ldd finds LIBRARY's libswiftCore.so (tools/swift_runtime.sh)."""
    return run(["bash", "-c", 'source tools/swift_runtime.sh && swift_runtime_dir "$1"', "-", library]).stdout.strip()


@pytest.fixture(scope="module")
def wheel(request) -> Path:
    folder = Path(request.config.getoption("--wheel-dir")).resolve()
    found = sorted(folder.glob(f"periphery-{version()}-*manylinux*_{os.uname().machine}.whl"))
    if len(found) != 1:
        pytest.fail(f"expected one periphery {version()} wheel for {os.uname().machine} in {folder}, found {len(found)}: run make wheel")
    return found[0]


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel, pytest and Pillow, from `pip install` alone."""
    folder = tmp_path_factory.mktemp("wheel") / "venv"
    run([os.environ.get("PYTHON", "python3"), "-m", "venv", folder])  # the Python of the caller's PATH
    run([folder / "bin/python", "-m", "pip", "install", "--quiet", "--no-cache-dir", "--disable-pip-version-check",
         "-c", ROOT / "python/requirements-dev.txt", wheel, "pytest", "pillow"], env=CLEAN_ENV)
    return folder


@pytest.fixture(scope="module")
def cli_detections(periphery, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel-cli") / "cli.json"
    run([periphery, "detect", FRAME, "--calibration", CALIBRATION, "--weights", WEIGHTS, "--reject-implausible", "--json", out])
    return out


def test_wheel_example_detects_what_periphery_detect_does(venv, cli_detections, tmp_path):
    # The bundled frame, as the example does it, from outside the repository's python/ folder.
    done = run([venv / "bin/python", EXAMPLE, WEIGHTS, FRAME, CALIBRATION], cwd=tmp_path, env=CLEAN_ENV)
    (tmp_path / "python.json").write_text(done.stdout)
    assert_equal_to_cli(cli_detections, tmp_path / "python.json")


def test_wheel_example_detects_the_same_with_the_toolchain_hidden(venv, cli_detections, tmp_path):
    # An empty tmpfs over the toolchain in a mount namespace of its own (root only; the toolchain must
    # not hold the Python that runs the venv).
    hidden = toolchain()
    interpreter = (venv / "bin/python").resolve()
    if os.getuid() != 0 or hidden == Path("/usr") or interpreter.is_relative_to(hidden):
        pytest.skip(f"hiding {hidden} needs root, a toolchain outside /usr and a Python outside it")
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip(f"hiding {hidden} needs unshare -m")
    done = run(["unshare", "-m", "sh", "-c", 'mount -t tmpfs none "$1" && shift && exec "$@"', "sh", hidden,
                venv / "bin/python", EXAMPLE, WEIGHTS, FRAME, CALIBRATION], cwd=tmp_path, env=CLEAN_ENV)
    (tmp_path / "hidden.json").write_text(done.stdout)
    assert_equal_to_cli(cli_detections, tmp_path / "hidden.json")


def test_wheel_libraries_resolve_and_none_into_the_toolchain(periphery, venv):
    runtime = swift_runtime_dir(periphery)
    site = Path(run([venv / "bin/python", "-c", "import periphery, pathlib; print(pathlib.Path(periphery.__file__).parent.parent)"],
                    cwd="/", env=CLEAN_ENV).stdout.strip())
    libraries = sorted(site.glob("periphery/_lib/*.so")) + sorted(site.glob("periphery.libs/*.so*"))
    assert len(libraries) > 1, f"no libraries in {site}/periphery"
    for library in libraries:
        resolved = run(["ldd", library], env=CLEAN_ENV).stdout
        bad = [line for line in resolved.splitlines() if "not found" in line or f"{runtime}/" in line]
        assert not bad, f"{library} resolves into {runtime} or not at all: {bad}"


def test_wheel_binding_tests_pass(periphery, venv, request):
    selection = request.config.getoption("--binding-k")
    done = subprocess.run([venv / "bin/python", "-m", "pytest", "-p", "no:cacheprovider", "-v", "-rs",
                           "python/tests/test_binding.py", "python/tests/test_binding_sources.py"]
                          + (["-k", selection] if selection else []),
                          cwd=ROOT, env=CLEAN_ENV | {"PERIPHERY": str(periphery)}, capture_output=True, text=True, timeout=1800)
    sys.stdout.write(done.stdout[-20000:])
    assert done.returncode == 0, f"the binding's tests failed in the wheel's venv:\n{done.stdout[-8000:]}\n{done.stderr[-2000:]}"

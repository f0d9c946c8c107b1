"""The C API against `make install`'s output alone (docs/guides/c-api.md): tools/install_c_api.sh into a
fresh prefix, the C test (Tests/c/test_periphery.c) and the C++ example (Examples/cpp/detect.cpp)
built with pkg-config, run with the toolchain off PATH and LD_LIBRARY_PATH, and their detections of
the bundled frame compared with `periphery detect --json --reject-implausible` (the engine's decode
settings), field by field (detections.assert_equal_to_cli); the C test's safety events of a scripted
drive that warns (conftest's warning_drive) equal those of `periphery run`'s sidecar, frame by
frame, every figure as the same double. With --asan-build-dir (`make test-asan`), the C test is
built and run under AddressSanitizer against that build."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from detections import assert_equal_to_cli
from helpers import ROOT, finished_sidecar, json_lines, run

WEIGHTS = "Weights/safety40-synthetic.safetensors"
FRAME = "docs/sample/synthetic/frame.png"
CALIBRATION = "docs/sample/synthetic/calibration.json"
# The programs run as a user's would: no toolchain on any path.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"} | {"PATH": "/usr/local/bin:/usr/bin:/bin"}


def version() -> str:
    for line in (ROOT / "Sources/CPeriphery/include/periphery.h").read_text().splitlines():
        if line.startswith("#define PERIPHERY_VERSION_STRING"):
            return line.split('"')[1]
    raise AssertionError("periphery.h has no PERIPHERY_VERSION_STRING")


def swift_runtime_dir(library) -> str:
    """The folder in which ldd finds LIBRARY's libswiftCore.so (tools/swift_runtime.sh)."""
    return run(["bash", "-c", 'source tools/swift_runtime.sh && swift_runtime_dir "$1"', "-", library]).stdout.strip()


def install(built: Path, prefix: Path) -> list[str]:
    """The C API of BUILT installed under PREFIX; pkg-config's flags for it."""
    run(["bash", "tools/install_c_api.sh", built, prefix, version()])
    return run(["pkg-config", "--cflags", "--libs", "periphery"], env=os.environ | {"PKG_CONFIG_PATH": str(prefix / "lib/pkgconfig")}).stdout.split()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """The bundled frame as raw RGB, the test drive (copied: the programs write into it) and the CLI's detections."""
    work = tmp_path_factory.mktemp("c-api-inputs")
    run(["ffmpeg", "-v", "error", "-i", FRAME, "-f", "rawvideo", "-pix_fmt", "rgb24", work / "frame.rgb"])
    shutil.copytree(ROOT / "Tests/cli/drive", work / "drive")
    return work


@pytest.fixture(scope="module")
def cli_detections(periphery, inputs) -> Path:
    run([periphery, "detect", FRAME, "--calibration", CALIBRATION, "--weights", WEIGHTS, "--reject-implausible", "--json",
         inputs / "cli.json"])
    return inputs / "cli.json"


@pytest.fixture(scope="module")
def installed(build_dir, tmp_path_factory) -> tuple[Path, list[str]]:
    """`make install`'s tree of the release build in a fresh prefix, and pkg-config's flags for it."""
    prefix = tmp_path_factory.mktemp("c-api") / "prefix"
    return prefix, install(build_dir, prefix)


def build(compiler, source, flags, prefix, out, *extra) -> Path:
    run([*compiler, source, *flags, f"-Wl,-rpath,{prefix}/lib", *extra, "-o", out])
    return out


def run_program(program, inputs, out, env=CLEAN_ENV) -> subprocess.CompletedProcess:
    done = run([program, WEIGHTS, CALIBRATION, inputs / "frame.rgb", inputs / "drive"], env=env)
    out.write_text(done.stdout)
    return done


def test_installed_c_api_resolves_nothing_inside_the_toolchain(build_dir, installed, tmp_path):
    prefix, flags = installed
    program = build(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"], "Tests/c/test_periphery.c", flags, prefix,
                    tmp_path / "test_periphery", "-lm")
    toolchain = swift_runtime_dir(build_dir / "libPeripheryC.so") + "/"
    for library in [program, *sorted((prefix / "lib/periphery").glob("*.so"))]:
        resolved = run(["ldd", library]).stdout
        assert toolchain not in resolved, f"{library} resolves into the toolchain ({toolchain}):\n{resolved}"


def test_c_test_detections_equal_periphery_detect(installed, inputs, cli_detections, tmp_path):
    prefix, flags = installed
    program = build(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"], "Tests/c/test_periphery.c", flags, prefix,
                    tmp_path / "test_periphery", "-lm")
    run_program(program, inputs, tmp_path / "c.json")
    assert_equal_to_cli(cli_detections, tmp_path / "c.json")


def test_c_test_events_of_a_scripted_drive_equal_the_sidecars(installed, inputs, warning_drive, tmp_path):
    prefix, flags = installed
    program = build(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"], "Tests/c/test_periphery.c", flags, prefix,
                    tmp_path / "test_periphery", "-lm")
    out = tmp_path / "events.jsonl"
    run([program, WEIGHTS, CALIBRATION, inputs / "frame.rgb", inputs / "drive", warning_drive["drive"], warning_drive["weights"], out],
        env=CLEAN_ENV)
    _, lines = finished_sidecar(warning_drive["run"])
    got = json_lines(out)
    assert [g["index"] for g in got] == [line["index"] for line in lines]
    for line, mine in zip(lines, got):
        assert mine["events"] == line.get("events", []), f"frame {line['index']}: {mine['events']} against {line.get('events')}"
    assert sum(len(g["events"]) for g in got) > 0, "no events: the comparison would prove little"


def test_cpp_example_detections_equal_periphery_detect(installed, inputs, cli_detections, tmp_path):
    prefix, flags = installed
    program = build(["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror"], "Examples/cpp/detect.cpp", flags, prefix, tmp_path / "detect")
    done = run_program(program, inputs, tmp_path / "cpp.json")
    assert_equal_to_cli(cli_detections, tmp_path / "cpp.json")
    assert "000005.png" in done.stderr


@pytest.fixture(scope="module")
def asan_build_dir(request) -> Path:
    folder = request.config.getoption("--asan-build-dir")
    if not folder:
        pytest.skip("no --asan-build-dir: `make test-asan` runs this test against its AddressSanitizer build")
    return Path(folder).resolve()


def test_c_test_under_address_sanitizer_equals_periphery_detect(asan_build_dir, inputs, cli_detections, tmp_path):
    prefix = tmp_path / "prefix"
    flags = install(asan_build_dir, prefix)
    # The sanitizer runtime of the toolchain that built the library.
    clang = Path(shutil.which("swift")).parent / "clang"
    program = build([clang, "-std=c99", "-Wall", "-Wextra", "-Werror", "-g", "-fsanitize=address", "-shared-libasan"],
                    "Tests/c/test_periphery.c", flags, prefix, tmp_path / "test_periphery", "-lm")
    # Named for this machine's architecture (libclang_rt.asan-aarch64.so on ARM).
    name = f"libclang_rt.asan-{os.uname().machine}.so"
    runtime = Path(run([clang, f"-print-file-name={name}"]).stdout.strip())
    if not runtime.is_file():
        runtime = Path(run([clang, "-print-libgcc-file-name"]).stdout.strip()).parent / name
    env = CLEAN_ENV | {"LD_PRELOAD": str(runtime), "ASAN_OPTIONS": "detect_leaks=1",
                       "LSAN_OPTIONS": f"suppressions={ROOT}/Tests/lsan.supp", "SWIFT_BACKTRACE": "enable=no"}
    run_program(program, inputs, tmp_path / "c.json", env=env)
    assert_equal_to_cli(cli_detections, tmp_path / "c.json")

"""The Python binding's engine against the CLI: detections of the bundled frame and of 20 synthetic
frames equal `periphery detect --reject-implausible`'s (binding_support.py states the rule); every
pixel layout NumPy can express gives the same result; bad arguments raise TypeError or ValueError
naming the argument, library failures their typed PeripheryError; the GIL is released while a
frame is processed.
"""

from __future__ import annotations

import ctypes.util
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import periphery
from periphery import _library
from binding_support import CALIBRATION, FRAME, WEIGHTS, cli_detect, detection_differences, read_rgb, run_cli


@pytest.fixture(scope="module")
def engine():
    with periphery.Engine(WEIGHTS) as made:
        yield made


@pytest.fixture(scope="module")
def calibration():
    return periphery.Calibration.load(CALIBRATION)


@pytest.fixture(scope="module")
def rgb():
    return read_rgb(FRAME)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return cli_detect(FRAME, CALIBRATION, tmp_path_factory.mktemp("cli") / "frame.json")


def detect(engine, image, calibration, **kwargs):
    engine.reset()
    return engine.process(image, calibration, 0.0, **kwargs)


# ---- Results against the CLI ----------------------------------------------------------------------


def test_bundled_frame_gives_periphery_detect_detections(engine, calibration, rgb, reference):
    result = detect(engine, rgb, calibration)
    assert reference, "periphery detect found nothing on the bundled frame"
    assert detection_differences(reference, result.detections) == []
    assert isinstance(result, periphery.Result) and not isinstance(result, periphery.Frame)
    assert result.timestamp == 0.0 and result.tracker_reset  # a first frame starts the tracker
    t = result.timings
    assert t.inference_ms > 0 and t.total_ms >= t.inference_ms
    assert [d.class_name for d in result.detections] == [d["class"] for d in reference]


def test_twenty_synthetic_frames_equal_the_cli(engine, tmp_path):
    """20 frames of `periphery synth`, each with its own camera and mount; each frame goes in in
    another layout (RGB, BGR, BGRA, RGBA, padded rows, a flipped view, Fortran order), all of which
    must give the CLI's detections of the PNG."""
    run_cli("synth", "--frames", "20", "--seed", "20261204", "--out", str(tmp_path))
    found = 0
    for i in range(20):
        png = tmp_path / "images" / f"{i:06d}.png"
        json_path = tmp_path / "calibration" / f"{i:06d}.json"
        expected = cli_detect(png, json_path, tmp_path / f"{i:06d}.cli.json")
        image = read_rgb(png)
        kind = i % 7
        if kind == 0:
            args = (image, {})
        elif kind == 1:
            args = (np.ascontiguousarray(image[:, :, ::-1]), {"order": "bgr"})
        elif kind == 2:
            bgra = np.dstack([image[:, :, ::-1], np.full(image.shape[:2], 7, np.uint8)])
            args = (bgra, {"order": "bgr"})
        elif kind == 3:
            args = (np.dstack([image, np.zeros(image.shape[:2], np.uint8)]), {})
        elif kind == 4:
            wide = np.zeros((image.shape[0], image.shape[1] + 13, 3), np.uint8)
            wide[:, 5 : 5 + image.shape[1]] = image
            args = (wide[:, 5 : 5 + image.shape[1]], {})
        elif kind == 5:
            args = (image[::-1, ::-1].copy()[::-1, ::-1], {})
        else:
            args = (np.asfortranarray(image), {})
        result = detect(engine, args[0], periphery.Calibration.load(json_path), **args[1])
        assert detection_differences(expected, result.detections) == [], f"frame {i} (layout {kind})"
        found += len(expected)
    assert found >= 20, f"only {found} detections in 20 frames: the comparison would prove little"


def test_every_layout_gives_the_same_detections(engine, calibration, rgb, reference):
    h, w, _ = rgb.shape
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])
    padded = np.zeros((h, w * 4 + 40), np.uint8)  # BGRA rows with 40 bytes of padding
    view = padded[:, : w * 4].reshape(h, w, 4)
    view[:, :, :3], view[:, :, 3] = bgr, 0x5A
    planar = np.ascontiguousarray(rgb.transpose(2, 0, 1))
    layouts = {
        "rgb": (rgb, "rgb"),
        "bgr view of rgb": (rgb[:, :, ::-1], "bgr"),
        "bgr": (bgr, "bgr"),
        "bgra padded": (view, "bgr"),
        "rgba": (np.dstack([rgb, np.full((h, w), 255, np.uint8)]), "rgb"),
        "rgb of a wider rgba": (np.dstack([rgb, np.zeros((h, w), np.uint8)])[:, :, :3], "rgb"),
        "negative strides": (rgb[::-1, ::-1].copy()[::-1, ::-1], "rgb"),
        "negative row stride": (rgb[::-1].copy()[::-1], "rgb"),
        "fortran": (np.asfortranarray(rgb), "rgb"),
        "planar transposed": (planar.transpose(1, 2, 0), "rgb"),
        "read-only": (np.frombuffer(rgb.tobytes(), np.uint8).reshape(h, w, 3), "rgb"),
    }
    for name, (image, order) in layouts.items():
        result = detect(engine, image, calibration, order=order)
        assert detection_differences(reference, result.detections) == [], name
    # A zero-stride (broadcast) view: the same as its copy.
    smeared = np.broadcast_to(rgb[200:201], rgb.shape)
    a, b = detect(engine, smeared, calibration), detect(engine, smeared.copy(), calibration)
    assert a.detections == b.detections


def test_calibration_from_values_equals_the_file(engine, calibration, rgb, reference):
    data = json.loads(CALIBRATION.read_text())
    made = periphery.Calibration(**data)
    assert made.size == (640, 400)
    # Python's JSON reader and the library's may round a decimal to neighbouring doubles (1 ulp).
    for name in ("fx", "fy", "cx", "cy"):
        assert getattr(made.intrinsics, name) == pytest.approx(getattr(calibration.intrinsics, name), rel=1e-15)
    assert detection_differences(reference, detect(engine, rgb, made).detections) == []
    # The values read back give the very same calibration.
    again = periphery.Calibration(intrinsics=calibration.intrinsics, mount=calibration.mount)
    assert again.intrinsics == calibration.intrinsics and again.mount == calibration.mount
    assert detection_differences(reference, detect(engine, rgb, again).detections) == []


def test_tracks_appear_over_frames(engine, calibration, rgb):
    engine.reset()
    results = [
        engine.process(rgb, calibration, 0.1 * i, ego=periphery.EgoMotion(0.0, 0.0, 0.0, 0.1) if i else None)
        for i in range(4)
    ]
    assert [r.tracker_reset for r in results] == [True, False, False, False]
    assert results[0].tracks == () and results[-1].tracks
    track = results[-1].tracks[0]
    assert track.id >= 1 and track.hits >= 3 and track.observed and track.state in periphery.types.TRACK_STATES
    assert track.class_name == "light_vehicle" and track.age_s == pytest.approx(0.3)
    # A mapping works as ego motion too.
    assert engine.process(rgb, calibration, 0.4, ego={"dx": 0, "dy": 0, "dyaw": 0, "dt": 0.1}).tracks


# ---- Bad input ------------------------------------------------------------------------------------


def raises(kind, argument, call, *args, **kwargs):
    with pytest.raises(kind) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert message.startswith(argument) or argument in message, f"{message!r} does not name {argument!r}"
    return caught.value


def test_bad_images_name_the_argument(engine, calibration, rgb):
    p = engine.process
    raises(TypeError, "image", p, rgb.tolist(), calibration, 0.0)
    raises(TypeError, "image.dtype", p, rgb.astype(np.float32), calibration, 0.0)
    raises(TypeError, "image.dtype", p, rgb.astype(np.uint16), calibration, 0.0)
    raises(TypeError, "image.dtype", p, rgb.astype(np.int8), calibration, 0.0)
    raises(ValueError, "image.shape", p, rgb[:, :, 0], calibration, 0.0)
    raises(ValueError, "image.shape", p, rgb[:, :, :2], calibration, 0.0)
    raises(ValueError, "image.shape", p, rgb[None], calibration, 0.0)
    # Channels first: the message says how to make it channels last.
    error = raises(ValueError, "image.shape", p, np.ascontiguousarray(rgb.transpose(2, 0, 1)), calibration, 0.0)
    assert "transpose(1, 2, 0)" in str(error)
    # Not the calibration's size: refused by Python before the library sees it.
    raises(ValueError, "image.shape", p, rgb[:-1], calibration, 0.0)
    raises(ValueError, "image.shape", p, rgb[:, :-2], calibration, 0.0)
    raises(ValueError, "image.shape", p, np.zeros((0, 640, 3), np.uint8), calibration, 0.0)


def test_bad_channel_order_names_the_argument(engine, calibration, rgb):
    p = engine.process
    raises(ValueError, "order", p, rgb, calibration, 0.0, order="rgba")
    raises(ValueError, "order", p, rgb, calibration, 0.0, order="BGR")
    raises(TypeError, "order", p, rgb, calibration, 0.0, order=1)


def test_bad_arguments_name_the_argument(engine, calibration, rgb):
    p = engine.process
    raises(TypeError, "calibration", p, rgb, str(CALIBRATION), 0.0)
    raises(TypeError, "timestamp", p, rgb, calibration, "0.0")
    raises(TypeError, "timestamp", p, rgb, calibration, True)
    raises(ValueError, "timestamp", p, rgb, calibration, float("nan"))
    raises(TypeError, "ego", p, rgb, calibration, 0.0, ego="fast")
    raises(TypeError, "ego", p, rgb, calibration, 0.0, ego={"dx": 1.0})
    raises(ValueError, "ego", p, rgb, calibration, 0.0, ego={"dx": 1, "dy": 0, "dyaw": 0, "dt": 0.1, "speed": 3})
    raises(ValueError, "ego.dyaw", p, rgb, calibration, 0.0, ego=periphery.EgoMotion(0.5, 0, float("nan"), 0.1))
    raises(ValueError, "ego.dt", p, rgb, calibration, 0.0, ego=periphery.EgoMotion(0.5, 0, 0, -0.1))
    raises(TypeError, "ego.dx", p, rgb, calibration, 0.0, ego=periphery.EgoMotion("1", 0, 0, 0.1))


def test_bad_engines_and_calibrations(tmp_path):
    error = raises(periphery.WeightsError, "/nonexistent/w.safetensors", periphery.Engine, "/nonexistent/w.safetensors")
    assert error.status == -2 and isinstance(error, OSError) and isinstance(error, periphery.PeripheryError)
    not_weights = tmp_path / "w.safetensors"
    not_weights.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ")
    assert raises(periphery.WeightsError, str(not_weights), periphery.Engine, not_weights).status == -2
    raises(TypeError, "weights", periphery.Engine, 3)
    raises(ValueError, "threads", periphery.Engine, WEIGHTS, threads=0)
    raises(TypeError, "threads", periphery.Engine, WEIGHTS, threads="2")
    raises(ValueError, "precision", periphery.Engine, WEIGHTS, precision="FP32")
    raises(TypeError, "precision", periphery.Engine, WEIGHTS, precision=None)

    data = json.loads(CALIBRATION.read_text())
    k, m = data["intrinsics"], data["mount"]
    error = raises(periphery.CalibrationError, "fx", periphery.Calibration, {**k, "fx": -1.0}, m)
    assert error.status == -3 and isinstance(error, ValueError)
    raises(periphery.CalibrationError, "height_m", periphery.Calibration, k, {**m, "height_m": 9.0})
    raises(TypeError, "intrinsics.width", periphery.Calibration, {**k, "width": 640.5}, m)
    raises(TypeError, "intrinsics", periphery.Calibration, {"fx": 1.0}, m)
    raises(ValueError, "mount", periphery.Calibration, k, {**m, "pitch": 1.0})
    raises(TypeError, "mount", periphery.Calibration, k, [1, 2])
    raises(periphery.CalibrationError, "/nonexistent/c.json", periphery.Calibration.load, "/nonexistent/c.json")
    broken = tmp_path / "c.json"
    broken.write_text('{"intrinsics": {')
    raises(periphery.CalibrationError, str(broken), periphery.Calibration.load, broken)
    raises(TypeError, "path", periphery.Calibration.load, 42)


def test_closed_and_busy_engines(calibration, rgb):
    engine = periphery.Engine(WEIGHTS, threads=1)
    assert engine.threads == 1 and engine.precision == "fp32" and "fp32" in repr(engine)
    # A second thread on a busy engine is refused, not queued.
    started = threading.Event()
    worker = threading.Thread(target=lambda: (started.set(), engine.process(rgb, calibration, 0.0)))
    worker.start()
    started.wait()
    deadline = time.monotonic() + 10
    while not engine._lock.locked() and worker.is_alive() and time.monotonic() < deadline:
        time.sleep(0.001)
    if engine._lock.locked():
        error = raises(periphery.BusyError, "engine", engine.process, rgb, calibration, 0.1)
        assert error.status == -7
    worker.join()
    engine.close()
    engine.close()
    assert engine.closed and repr(engine) == "Engine(closed)"
    raises(ValueError, "engine", engine.process, rgb, calibration, 0.2)
    raises(ValueError, "engine", engine.reset)


# ---- The library ----------------------------------------------------------------------------------


def test_the_library_refuses_another_api_version(monkeypatch):
    path = _library.library_path()
    version = _library.API_VERSION
    monkeypatch.setattr(_library, "API_VERSION", version + 1)
    error = raises(periphery.LibraryError, str(path), _library._open, path)
    assert f"version {version}," in str(error) and isinstance(error, ImportError)
    libz = ctypes.util.find_library("z")
    if libz:
        raises(periphery.LibraryError, "not libperiphery.so", _library._open, Path("/lib", f"{platform.machine()}-linux-gnu", libz))


def test_a_missing_library_is_a_clear_error(tmp_path):
    code = "import periphery\ntry:\n    periphery.Engine('w')\nexcept periphery.LibraryError as e:\n    print('refused:', e)\n"
    env = {**os.environ, "PERIPHERY_LIBRARY": str(tmp_path / "nothing.so")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "refused: libperiphery.so not found" in done.stdout and "nothing.so" in done.stdout
    assert periphery.library_version() == "0.1.0"


def test_the_installed_package_needs_no_toolchain():
    """Without PERIPHERY_LIBRARY the library is the package's own, and `ldd` of every library in the
    installed package resolves everything, nothing inside a Swift toolchain."""
    if os.environ.get("PERIPHERY_LIBRARY"):
        pytest.skip("PERIPHERY_LIBRARY points at a build: this checks an installed wheel (make test-python)")
    package = Path(periphery.__file__).resolve().parent
    assert _library.library_path() == package / "_lib" / "libperiphery.so"
    libraries = sorted(package.rglob("*.so*")) + sorted((package.parent / "periphery.libs").glob("*.so*"))
    assert any("swiftCore" in p.name for p in libraries), "the Swift runtime is not in the package"
    toolchains = {"/opt/swift"}
    swift = shutil.which("swift")
    if swift:
        toolchains.add(str(Path(swift).resolve().parents[1]))
    for path in libraries:
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env).stdout
        assert "not found" not in out, f"{path}: {out}"
        inside = [line for line in out.splitlines() if any(t in line for t in toolchains)]
        assert not inside, f"{path} resolves into the toolchain: {inside}"


# ---- The GIL --------------------------------------------------------------------------------------


def test_python_runs_while_a_frame_is_processed(calibration, rgb):
    """While one thread is inside engine.process, another thread keeps running Python code."""
    engine = periphery.Engine(WEIGHTS, threads=1)
    engine.process(rgb, calibration, 0.0)
    inside = threading.Event()
    done = threading.Event()

    def work():
        inside.set()
        for i in range(3):
            engine.process(rgb, calibration, 0.1 * (i + 1))
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    inside.wait()
    steps = 0
    while not done.is_set():
        steps += 1
    worker.join()
    engine.close()
    assert steps > 10_000, f"the main thread ran only {steps} steps while 3 frames were processed"


def thread_times() -> tuple[float, float] | None:
    """The calling thread's seconds on a CPU and seconds runnable but waiting for one (schedstat)."""
    try:
        on_cpu, waiting, _ = Path("/proc/thread-self/schedstat").read_text().split()
    except (OSError, ValueError):
        return None
    return int(on_cpu) / 1e9, int(waiting) / 1e9


def test_two_engines_on_two_threads_run_together(calibration, rgb):
    """Two engines (threads=1 each) on two Python threads, 4 frames each, take less than 1.6 times
    the wall time of one engine doing its 4 frames (2.0 would be one after the other: a held GIL).

    Bounded: at most 5 tries of about 3 s; the first under 1.6 passes. On a machine that other
    processes keep busy no try can pass: each thread's scheduler statistics then show it runnable
    all along (never blocked: not on the GIL, not on a lock) but waiting for a CPU although allowed on
    two, and the test is skipped with those numbers. A thread that was blocked fails it."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip(f"this process may use {len(os.sched_getaffinity(0))} CPU: two threads cannot run at once")
    engines = [periphery.Engine(WEIGHTS, threads=1) for _ in range(2)]
    frames = 4
    stats: dict[int, tuple[float, float, float]] = {}
    cpus: list[int] = []

    def run(engine):
        before, start = thread_times(), time.perf_counter()
        for i in range(frames):
            engine.process(rgb, calibration, 0.1 * i)
        after = thread_times()
        cpus.append(len(os.sched_getaffinity(0)))  # this thread's CPUs: one pinned to one CPU cannot run in parallel
        if before and after:
            stats[threading.get_ident()] = (after[0] - before[0], after[1] - before[1], time.perf_counter() - start)

    for engine in engines:  # warm up: buffers, OpenBLAS
        engine.process(rgb, calibration, 0.0)
    tries = []
    for _ in range(5):
        start = time.perf_counter()
        run(engines[0])
        one = time.perf_counter() - start
        stats.clear()
        threads = [threading.Thread(target=run, args=(e,)) for e in engines]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        two = time.perf_counter() - start
        # Per thread: the share of its time it was runnable (on a CPU or waiting for one), and waiting.
        runnable = [(cpu + wait) / wall for cpu, wait, wall in stats.values()]
        waiting = [wait / wall for cpu, wait, wall in stats.values()]
        tries.append((two / one, runnable, waiting))
        print(f"one engine {one:.2f} s, two engines on two threads {two:.2f} s: ratio {two / one:.2f}; "
              f"threads runnable {[f'{r:.0%}' for r in runnable]} of their time, waiting for a CPU {[f'{w:.0%}' for w in waiting]}")
        if two / one < 1.6:
            break
    for engine in engines:
        engine.close()
    ratio, runnable, waiting = min(tries, key=lambda t: t[0])
    if ratio < 1.6:
        return
    report = f"ratios {[round(t[0], 2) for t in tries]}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    if len(runnable) == 2 and min(runnable) >= 0.9 and min(waiting) >= 0.25 and min(cpus) >= 2:
        pytest.skip(f"the machine is busy with other processes ({report}): the two threads were runnable "
                    f"{[f'{r:.0%}' for r in runnable]} of the time (neither blocked on the GIL) but waited "
                    f"{[f'{w:.0%}' for w in waiting]} for a CPU")
    pytest.fail(f"two engines on two threads are not parallel: {report}; threads runnable {runnable}, waiting {waiting}, "
                f"CPUs allowed {sorted(set(cpus))}")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))

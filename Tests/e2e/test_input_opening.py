"""One input opener, three ways in (issue 42): the same inputs opened through `periphery run`, through
the C API (periphery_source_open over ctypes, declared here from periphery.h, not through the
binding) and through Python's `periphery.open` must end the same way: the same frames (count,
timestamps, detection and track counts per frame) or the same failure with the same message. The
fleet's input check (`periphery.fleet.expand_inputs`, which asks the library through the binding)
must refuse the same bad inputs with that message too, and take the good ones as what they are.

The cases: the drive of the CLI checks (Tests/cli/drive); a video made here by ffmpeg from that
drive's frames, with its calibration beside it, without one, and without one but given one; a
stream URL without a calibration (a free UDP port: the missing calibration is refused before anything
listens or is read); a path that does not exist; a folder without frames; a video of another size
than the calibration given; and two options that do not suit their input (--realtime on a drive,
--auto-pitch on a video).

The CLI and libPeripheryC.so are conftest's `periphery` and `build_dir`. The Python column runs in a
child process with python/ on PYTHONPATH and PERIPHERY_LIBRARY at that library (the binding's own way
of finding a build: python/periphery/_library.py), so that no sys.path is edited and all three run
the same build. Needs ffmpeg.

    pytest Tests/e2e/test_input_opening.py
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, SIDECAR

DRIVE = ROOT / "Tests" / "cli" / "drive"
# INT8: a quarter of FP32's time, and the frames' results are compared between the three ways only.
WEIGHTS = ROOT / "Weights" / "safety40-synthetic-int8.safetensors"
# 640x400: another size than the drive's 320x200 frames.
OTHER_CALIBRATION = ROOT / "docs" / "sample" / "synthetic" / "calibration.json"
THREADS = 2
# periphery.h's status codes, and the binding's exception class for each (python/periphery/errors.py).
ERROR_CLASSES = {-1: "InvalidArgumentError", -2: "WeightsError", -3: "CalibrationError", -4: "FrameError",
                 -5: "SourceError", -6: "UnsupportedError", -7: "BusyError", -100: "InternalError"}
OK, END = 0, 1


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    """The inputs of the table by name, as absolute paths (and the URL)."""
    if shutil.which("ffmpeg") is None:
        pytest.fail("ffmpeg is needed to make the test's video")
    work = tmp_path_factory.mktemp("inputs")
    with_calibration, without = work / "with", work / "without"
    with_calibration.mkdir()
    without.mkdir()
    clip = with_calibration / "clip.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-framerate", "10", "-i", str(DRIVE / "%06d.png"), "-c:v", "libx264",
                    "-pix_fmt", "yuv420p", str(clip)], check=True)
    shutil.copy(DRIVE / "calibration.json", with_calibration / "calibration.json")
    shutil.copy(clip, without / "clip.mp4")
    (work / "empty").mkdir()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return {"drive": str(DRIVE), "video": str(clip), "bare video": str(without / "clip.mp4"),
            "stream": f"udp://127.0.0.1:{port}", "missing": str(work / "no-such-drive"), "empty": str(work / "empty")}


# name, input, options (keys: calibration, realtime, auto_pitch), and the expected outcome: a frame
# count, or a status and the message with {input} and {folder} filled in. The messages are the
# library's (Sources/PeripheryRun/Input/FrameInputError.swift), restated here.
CASES = [
    ("drive", "drive", {}, 6),
    ("video with its calibration beside it", "video", {}, 6),
    ("video without a calibration", "bare video", {}, (-3, "{input}: a video file needs a calibration: none given, and there is no "
                                                          "{folder}/calibration.json")),
    ("video given a calibration", "bare video", {"calibration": str(DRIVE / "calibration.json")}, 6),
    ("stream without a calibration", "stream", {}, (-3, "{input}: a stream needs a calibration: none given")),
    ("missing path", "missing", {}, (-5, "{input}: no such file or directory")),
    ("folder without frames", "empty", {}, (-5, "{input}: no PNG or JPEG frames (at its top level or in images/)")),
    ("size mismatch", "video", {"calibration": str(OTHER_CALIBRATION)}, (-5, "{input}: frames are 320x200, the calibration's 640x400")),
    ("realtime drive", "drive", {"realtime": True}, (-1, "{input}: realtime is for a video file, not a drive directory")),
    ("auto-pitch video", "video", {"auto_pitch": True}, (-1, "{input}: auto-pitch is for a drive directory, not a video file")),
]

# Faults found only once the video is opened: the fleet's input check decodes nothing, so it takes the
# input (as a video), and the task's `periphery run` fails on it later.
FOUND_WHEN_OPENED = {"size mismatch"}


def through_cli(cli: Path, source: str, options: dict, out: Path) -> dict:
    command = [str(cli), "run", source, "--out", str(out), "--weights", str(WEIGHTS), "--threads", str(THREADS)]
    if "calibration" in options:
        command += ["--calibration", options["calibration"]]
    command += ["--realtime"] * options.get("realtime", False) + ["--auto-pitch"] * options.get("auto_pitch", False)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    errors = [line[len("error: "):] for line in done.stderr.splitlines() if line.startswith("error: ")]
    if done.returncode != 0:
        assert done.returncode == 1 and len(errors) == 1, done.stderr
        return {"error": errors[0]}
    lines = [json.loads(line) for line in (out / SIDECAR).read_text().splitlines()[1:-1]]
    return {"frames": [[line["pts"], line["raw_count"], line["track_count"]] for line in lines]}


class _SourceOptions(ctypes.Structure):
    """periphery.h's periphery_source_options."""

    _fields_ = [("calibration", ctypes.c_void_p), ("fps", ctypes.c_double), ("max_frames", ctypes.c_int64),
                ("realtime", ctypes.c_int32), ("auto_pitch", ctypes.c_int32), ("keep_corrupt", ctypes.c_int32),
                ("listen", ctypes.c_int32), ("start_s", ctypes.c_double), ("duration_s", ctypes.c_double),
                ("every", ctypes.c_int64), ("read_timeout_s", ctypes.c_double), ("reconnect_timeout_s", ctypes.c_double),
                ("rtsp_transport", ctypes.c_int32), ("video_size", ctypes.c_char_p), ("framerate", ctypes.c_double),
                ("input_format", ctypes.c_char_p)]


def _c_library(path: Path) -> ctypes.CDLL:
    lib = ctypes.CDLL(str(path))
    vp, out = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    signatures = {
        "periphery_api_version": (ctypes.c_int32, []),
        "periphery_last_error": (ctypes.c_char_p, []),
        "periphery_engine_create": (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32, out]),
        "periphery_engine_destroy": (None, [vp]),
        "periphery_calibration_load": (ctypes.c_int32, [ctypes.c_char_p, out]),
        "periphery_calibration_destroy": (None, [vp]),
        "periphery_source_open": (ctypes.c_int32, [vp, ctypes.c_char_p, ctypes.POINTER(_SourceOptions), out]),
        "periphery_source_next": (ctypes.c_int32, [vp, out]),
        "periphery_source_destroy": (None, [vp]),
        "periphery_result_timestamp": (ctypes.c_double, [vp]),
        "periphery_result_detections": (vp, [vp, ctypes.POINTER(ctypes.c_size_t)]),
        "periphery_result_tracks": (vp, [vp, ctypes.POINTER(ctypes.c_size_t)]),
        "periphery_result_destroy": (None, [vp]),
    }
    for name, (restype, argtypes) in signatures.items():
        getattr(lib, name).restype, getattr(lib, name).argtypes = restype, argtypes
    assert lib.periphery_api_version() == 2, "this test declares periphery.h's API version 2"
    return lib


def through_c(lib: ctypes.CDLL, source: str, options: dict) -> dict:
    def failure(status: int) -> dict:
        return {"error": lib.periphery_last_error().decode(), "status": status}

    engine, calibration, handle = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    status = lib.periphery_engine_create(str(WEIGHTS).encode(), THREADS, 0, ctypes.byref(engine))
    assert status == OK, lib.periphery_last_error()
    try:
        settings = _SourceOptions(realtime=int(options.get("realtime", False)), auto_pitch=int(options.get("auto_pitch", False)))
        if "calibration" in options:
            status = lib.periphery_calibration_load(options["calibration"].encode(), ctypes.byref(calibration))
            assert status == OK, lib.periphery_last_error()
            settings.calibration = calibration.value
        status = lib.periphery_source_open(engine, source.encode(), ctypes.byref(settings), ctypes.byref(handle))
        if status != OK:
            return failure(status)
        frames = []
        try:
            result = ctypes.c_void_p()
            while (status := lib.periphery_source_next(handle, ctypes.byref(result))) == OK:
                detections, tracks = ctypes.c_size_t(), ctypes.c_size_t()
                lib.periphery_result_detections(result, ctypes.byref(detections))
                lib.periphery_result_tracks(result, ctypes.byref(tracks))
                frames.append([lib.periphery_result_timestamp(result), detections.value, tracks.value])
                lib.periphery_result_destroy(result)
            return {"frames": frames} if status == END else failure(status)
        finally:
            lib.periphery_source_destroy(handle)
    finally:
        lib.periphery_calibration_destroy(calibration)
        lib.periphery_engine_destroy(engine)


# The Python column, run in a child process: one JSON line, the frames or the failure, and what the
# fleet's input check made of the input (for the options a fleet has: a calibration).
PYTHON_CHILD = """
import json, sys
import periphery
from periphery.fleet import InputError, expand_inputs
source, weights, threads, options = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
try:
    with periphery.open(source, weights=weights, threads=threads, **options) as frames:
        found = {"frames": [[f.timestamp, len(f.detections), len(f.tracks)] for f in frames]}
except periphery.PeripheryError as error:
    found = {"error": str(error), "status": error.status, "class": type(error).__name__}
if set(options) <= {"calibration"}:
    try:
        found["fleet"] = expand_inputs([source], options.get("calibration"))[0].kind
    except InputError as error:
        found["fleet"] = str(error)
print(json.dumps(found))
"""


def through_python(library: Path, source: str, options: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "PERIPHERY_LIBRARY": str(library)}
    done = subprocess.run([sys.executable, "-c", PYTHON_CHILD, source, str(WEIGHTS), str(THREADS), json.dumps(options)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("case, key, options, expected", CASES, ids=[case[0] for case in CASES])
def test_the_cli_the_c_api_and_python_open_an_input_alike(periphery, build_dir, inputs, tmp_path, case, key, options, expected):
    source, cli, library = inputs[key], periphery, build_dir / "libPeripheryC.so"
    by_cli = through_cli(cli, source, options, tmp_path / "cli")
    by_c = through_c(_c_library(library), source, options)
    by_python = through_python(library, source, options)
    fleet = by_python.pop("fleet", None)
    if isinstance(expected, int):
        assert "frames" in by_cli, by_cli
        assert len(by_cli["frames"]) == expected
        # The three run the same library code on the same pixels: equal, not close.
        assert by_c == by_cli and by_python == by_cli, (by_cli, by_c, by_python)
        assert fleet in (None, "drive" if os.path.isdir(source) else "video")
        return
    status, message = expected
    message = message.format(input=source, folder=os.path.dirname(source))
    assert by_cli == {"error": message}
    assert by_c == {"error": message, "status": status}
    assert by_python == {"error": message, "status": status, "class": ERROR_CLASSES[status]}
    # The fleet adds its own advice for a folder: that a glob runs the videos in it.
    hint = "; to run the videos in a folder, give a glob such as DIR/*.mp4" if os.path.isdir(source) else ""
    assert fleet in (None, "video" if case in FOUND_WHEN_OPENED else message + hint)

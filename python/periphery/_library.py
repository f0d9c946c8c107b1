"""Loading libperiphery.so and declaring its functions (periphery.h) for ctypes.

The library is found, in order:
1. ``PERIPHERY_LIBRARY``: a path to ``libperiphery.so`` (or to a SwiftPM build's ``libPeripheryC.so``),
   or a folder holding either; for development against a build tree.
2. ``periphery/_lib/libperiphery.so`` inside this package: where the wheel puts it.
3. When the package runs from a checkout (``pip install -e python``), that checkout's release build,
   ``.build/release/libPeripheryC.so`` (what ``swift build -c release`` makes), so that the tools of a
   checkout (``periphery-fleet``'s input check) find the library of the CLI beside it.

It is loaded on first use, not on ``import periphery``, so that the pure-Python parts of the
package import without it. Its ``periphery_api_version()`` must equal ``API_VERSION``; any other
library is refused with a ``LibraryError``.

ctypes releases the GIL around every foreign call, so frames processed on several Python threads
(one engine per thread) run in parallel.
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

from .errors import LibraryError, error_for_status

#: The PERIPHERY_API_VERSION of the periphery.h these declarations follow.
API_VERSION = 2

#: Debian's packages of the system libraries libperiphery.so needs (python/README.md).
SYSTEM_PACKAGES = "libopenblas0 libpng16-16 libjpeg62-turbo libavformat59 libavcodec59 libavutil57 libswscale6"

status_t = ctypes.c_int32


class Image(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.POINTER(ctypes.c_uint8)),
        ("width", ctypes.c_int32),
        ("height", ctypes.c_int32),
        ("row_stride", ctypes.c_int64),
        ("format", ctypes.c_int32),
    ]


class Intrinsics(ctypes.Structure):
    _fields_ = [
        ("fx", ctypes.c_double),
        ("fy", ctypes.c_double),
        ("cx", ctypes.c_double),
        ("cy", ctypes.c_double),
        ("width", ctypes.c_int32),
        ("height", ctypes.c_int32),
    ]


class Mount(ctypes.Structure):
    _fields_ = [
        ("pitch_deg", ctypes.c_double),
        ("roll_deg", ctypes.c_double),
        ("yaw_deg", ctypes.c_double),
        ("height_m", ctypes.c_double),
        ("forward_of_origin_m", ctypes.c_double),
        ("lateral_offset_m", ctypes.c_double),
    ]


class EgoMotion(ctypes.Structure):
    _fields_ = [("dx", ctypes.c_double), ("dy", ctypes.c_double), ("dyaw", ctypes.c_double), ("dt", ctypes.c_double)]


class Box(ctypes.Structure):
    _fields_ = [(name, ctypes.c_double) for name in ("x", "y", "z", "length", "width", "height", "yaw")]


class Detection(ctypes.Structure):
    _fields_ = [("score", ctypes.c_float), ("label", ctypes.c_int32), ("box", Box)]


class Track(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_int64),
        ("label", ctypes.c_int32),
        ("state", ctypes.c_int32),
        ("box", Box),
        ("score", ctypes.c_double),
        ("vx", ctypes.c_double),
        ("vy", ctypes.c_double),
        ("has_velocity", ctypes.c_int32),
        ("observed", ctypes.c_int32),
        ("hits", ctypes.c_int32),
        ("age_s", ctypes.c_double),
    ]


class Timings(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_double) for name in ("calibrate_ms", "preprocess_ms", "inference_ms", "track_ms", "total_ms")
    ]


class SourceOptions(ctypes.Structure):
    _fields_ = [
        ("calibration", ctypes.c_void_p),
        ("fps", ctypes.c_double),
        ("max_frames", ctypes.c_int64),
        ("realtime", ctypes.c_int32),
        ("auto_pitch", ctypes.c_int32),
        ("keep_corrupt", ctypes.c_int32),
        ("listen", ctypes.c_int32),
        ("start_s", ctypes.c_double),
        ("duration_s", ctypes.c_double),
        ("every", ctypes.c_int64),
        ("read_timeout_s", ctypes.c_double),
        ("reconnect_timeout_s", ctypes.c_double),
        ("rtsp_transport", ctypes.c_int32),
        ("video_size", ctypes.c_char_p),
        ("framerate", ctypes.c_double),
        ("input_format", ctypes.c_char_p),
    ]


class InputInfo(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("has_calibration", ctypes.c_int32), ("size_bytes", ctypes.c_int64)]


# Status codes.
OK = 0
END = 1
ERROR_INVALID_ARGUMENT = -1
ERROR_WEIGHTS = -2
ERROR_CALIBRATION = -3
ERROR_FRAME = -4
ERROR_SOURCE = -5
ERROR_UNSUPPORTED = -6
ERROR_BUSY = -7
ERROR_INTERNAL = -100

# Input kinds (periphery_input_kind), by the names periphery.InputInfo gives them.
INPUT_KINDS = ("drive", "video", "realtime-video", "camera", "stream")

# RTSP transports (periphery_rtsp_transport).
RTSP_TRANSPORTS = {None: 0, "tcp": 1, "udp": 2}

# Pixel formats.
PIXEL_RGB8 = 0
PIXEL_BGR8 = 1
PIXEL_BGRA8 = 2

_vp = ctypes.c_void_p
_out = ctypes.POINTER(ctypes.c_void_p)
_size_out = ctypes.POINTER(ctypes.c_size_t)

# name: (restype, argtypes)
_FUNCTIONS = {
    "periphery_api_version": (ctypes.c_int32, []),
    "periphery_version": (ctypes.c_char_p, []),
    "periphery_last_error": (ctypes.c_char_p, []),
    "periphery_engine_create": (status_t, [ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32, _out]),
    "periphery_engine_destroy": (None, [_vp]),
    "periphery_engine_precision": (ctypes.c_int32, [_vp]),
    "periphery_engine_threads": (ctypes.c_int32, [_vp]),
    "periphery_engine_reset": (status_t, [_vp]),
    "periphery_calibration_load": (status_t, [ctypes.c_char_p, _out]),
    "periphery_calibration_create": (status_t, [ctypes.POINTER(Intrinsics), ctypes.POINTER(Mount), _out]),
    "periphery_calibration_get": (status_t, [_vp, ctypes.POINTER(Intrinsics), ctypes.POINTER(Mount)]),
    "periphery_calibration_destroy": (None, [_vp]),
    "periphery_engine_process": (
        status_t,
        [_vp, ctypes.POINTER(Image), _vp, ctypes.c_double, ctypes.POINTER(EgoMotion), _out],
    ),
    "periphery_result_detections": (ctypes.POINTER(Detection), [_vp, _size_out]),
    "periphery_result_tracks": (ctypes.POINTER(Track), [_vp, _size_out]),
    "periphery_result_timings": (Timings, [_vp]),
    "periphery_result_timestamp": (ctypes.c_double, [_vp]),
    "periphery_result_index": (ctypes.c_int64, [_vp]),
    "periphery_result_tracker_reset": (ctypes.c_int32, [_vp]),
    "periphery_result_image": (Image, [_vp]),
    "periphery_result_name": (ctypes.c_char_p, [_vp]),
    "periphery_result_destroy": (None, [_vp]),
    "periphery_input_check": (status_t, [ctypes.c_char_p, ctypes.POINTER(SourceOptions), ctypes.POINTER(InputInfo)]),
    "periphery_source_open": (status_t, [_vp, ctypes.c_char_p, ctypes.POINTER(SourceOptions), _out]),
    "periphery_source_warning": (ctypes.c_char_p, [_vp, ctypes.c_size_t]),
    "periphery_source_next": (status_t, [_vp, _out]),
    "periphery_source_destroy": (None, [_vp]),
}

_lock = threading.Lock()
_library: ctypes.CDLL | None = None
_path: Path | None = None


def candidates() -> list[Path]:
    """Where the library is looked for, in order (see the module's docstring)."""
    found: list[Path] = []
    override = os.environ.get("PERIPHERY_LIBRARY")
    if override:
        path = Path(override)
        if path.is_dir():
            found += [path / "libperiphery.so", path / "libPeripheryC.so"]
        else:
            found.append(path)
        return found
    package = Path(__file__).resolve().parent
    found.append(package / "_lib" / "libperiphery.so")
    checkout = package.parent.parent
    if (checkout / "Package.swift").is_file():
        found.append(checkout / ".build" / "release" / "libPeripheryC.so")
    return found


def _open(path: Path) -> ctypes.CDLL:
    try:
        library = ctypes.CDLL(str(path))
    except OSError as error:
        raise LibraryError(
            f"{path}: cannot be loaded ({error}). libperiphery.so needs the system's OpenBLAS, FFmpeg, "
            f"libpng and libjpeg; on Debian 12: apt-get install {SYSTEM_PACKAGES}"
        ) from None
    missing = [name for name in _FUNCTIONS if not hasattr(library, name)]
    if missing:
        raise LibraryError(f"{path}: not libperiphery.so (no {', '.join(missing[:3])})")
    for name, (restype, argtypes) in _FUNCTIONS.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes
    version = library.periphery_api_version()
    if version != API_VERSION:
        raise LibraryError(
            f"{path}: C API version {version}, this package is written for version {API_VERSION}; "
            "install the package and the library of one release"
        )
    return library


def library() -> ctypes.CDLL:
    """The loaded library (loaded on first call). Raises LibraryError when there is none."""
    global _library, _path
    if _library is not None:
        return _library
    with _lock:
        if _library is None:
            paths = candidates()
            path = next((p for p in paths if p.is_file()), None)
            if path is None:
                where = ", ".join(str(p) for p in paths)
                hint = (
                    "PERIPHERY_LIBRARY names no library"
                    if os.environ.get("PERIPHERY_LIBRARY")
                    else "the package has no library: install the wheel (make wheel), build the checkout (swift build "
                    "-c release), or set PERIPHERY_LIBRARY to a build's libPeripheryC.so"
                )
                raise LibraryError(f"libperiphery.so not found (looked at {where}): {hint}")
            _library = _open(path)
            _path = path
    return _library


def library_path() -> Path:
    """The file the library was loaded from (loading it if needed)."""
    library()
    assert _path is not None
    return _path


def last_error() -> str:
    """The calling thread's last library message."""
    message = library().periphery_last_error()
    return message.decode("utf-8", "replace") if message else ""


def check(status: int) -> int:
    """Raises the PeripheryError of a failed call (with the thread's message); returns OK or END."""
    if status >= 0:
        return status
    raise error_for_status(status, last_error())

"""The engine and the calibration: periphery.h's periphery_engine and periphery_calibration.

One frame goes in as a NumPy array; a ``Result`` comes out. The GIL is released while the library
processes the frame (ctypes releases it around every foreign call), so engines on several threads
run in parallel. An engine is for one thread at a time: a second thread calling an engine that is
busy gets a ``BusyError`` rather than waiting (use one engine per thread).
"""

from __future__ import annotations

import ctypes
import math
import numbers
import os
import threading
import weakref
from collections.abc import Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from . import _library as native
from .errors import BusyError
from .types import (
    CLASS_NAMES,
    EVENT_PHASES,
    EVENT_TYPES,
    TRACK_STATES,
    Box,
    Detection,
    EgoMotion,
    Frame,
    Intrinsics,
    Mount,
    Result,
    SafetyEventReport,
    Timings,
    Track,
)

if TYPE_CHECKING:
    from .source import Source

PathLike = Union[str, "os.PathLike[str]"]

_PRECISIONS = {"auto": 0, "fp32": 1, "int8": 2}
_PRECISION_NAMES = {v: k for k, v in _PRECISIONS.items()}


def _path(value: Any, argument: str) -> bytes:
    """A str or os.PathLike argument as the library's path bytes."""
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str):
            if "\0" in path:
                raise ValueError(f"{argument}: contains a NUL character")
            return os.fsencode(path)
    raise TypeError(f"{argument}: expected a path (str or os.PathLike), got {type(value).__name__}")


def _number(value: Any, argument: str) -> float:
    """A real number argument (bool refused) as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{argument}: expected a number, got {type(value).__name__}")
    return float(value)


def _integer(value: Any, argument: str) -> int:
    """An integer argument (bool refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{argument}: expected an int, got {type(value).__name__}")
    return int(value)


def _record(value: Any, cls: type, argument: str) -> Any:
    """A dataclass argument given as itself or as a mapping of its fields."""
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"{argument}: expected a periphery.{cls.__name__} or a mapping, got {type(value).__name__}")
    names = [f.name for f in fields(cls)]
    unknown = [k for k in value if k not in names]
    if unknown:
        raise ValueError(f"{argument}: unknown field(s) {', '.join(map(repr, unknown))}; the fields are {', '.join(names)}")
    try:
        return cls(**value)
    except TypeError as error:  # a required field is missing
        raise TypeError(f"{argument}: {error}") from None


class Calibration:
    """A camera's intrinsics and mount: immutable, shareable between engines and threads.

    ``Calibration(intrinsics=..., mount=...)`` takes ``periphery.Intrinsics`` and ``periphery.Mount``
    or mappings of their fields (the calibration JSON's ``intrinsics`` and ``mount`` objects), and
    checks them for plausibility; ``Calibration.load(path)`` reads the CLI's calibration JSON file.
    """

    __slots__ = ("_handle", "_intrinsics", "_mount", "__weakref__")

    def __init__(self, intrinsics: Intrinsics | Mapping[str, Any], mount: Mount | Mapping[str, Any]) -> None:
        self._handle: int | None = None
        k = _record(intrinsics, Intrinsics, "intrinsics")
        m = _record(mount, Mount, "mount")
        c_k = native.Intrinsics(
            *(_number(getattr(k, n), f"intrinsics.{n}") for n in ("fx", "fy", "cx", "cy")),
            *(_integer(getattr(k, n), f"intrinsics.{n}") for n in ("width", "height")),
        )
        for n in ("width", "height"):
            if not 1 <= getattr(k, n) <= 2**31 - 1:
                raise ValueError(f"intrinsics.{n}: {getattr(k, n)} is not a frame size")
        c_m = native.Mount(*(_number(getattr(m, n), f"mount.{n}") for n, *_ in native.Mount._fields_))
        lib = native.library()
        out = ctypes.c_void_p()
        native.check(lib.periphery_calibration_create(ctypes.byref(c_k), ctypes.byref(c_m), ctypes.byref(out)))
        self._adopt(out.value)

    @classmethod
    def load(cls, path: PathLike) -> Calibration:
        """Reads a calibration JSON file (the CLI's ``--calibration`` format)."""
        encoded = _path(path, "path")
        lib = native.library()
        out = ctypes.c_void_p()
        native.check(lib.periphery_calibration_load(encoded, ctypes.byref(out)))
        self = cls.__new__(cls)
        self._handle = None
        self._adopt(out.value)
        return self

    def _adopt(self, handle: int | None) -> None:
        assert handle
        self._handle = handle
        lib = native.library()
        k, m = native.Intrinsics(), native.Mount()
        native.check(lib.periphery_calibration_get(handle, ctypes.byref(k), ctypes.byref(m)))
        self._intrinsics = Intrinsics(k.fx, k.fy, k.cx, k.cy, k.width, k.height)
        self._mount = Mount(
            pitch_deg=m.pitch_deg, height_m=m.height_m, forward_of_origin_m=m.forward_of_origin_m,
            roll_deg=m.roll_deg, yaw_deg=m.yaw_deg, lateral_offset_m=m.lateral_offset_m,
        )

    @property
    def intrinsics(self) -> Intrinsics:
        """The camera's intrinsics as the library holds them."""
        return self._intrinsics

    @property
    def mount(self) -> Mount:
        """The mount as the library holds it (degrees and metres)."""
        return self._mount

    @property
    def size(self) -> tuple[int, int]:
        """The frames' (width, height), pixels."""
        return self._intrinsics.width, self._intrinsics.height

    def __repr__(self) -> str:
        return f"Calibration(intrinsics={self._intrinsics!r}, mount={self._mount!r})"

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            try:
                native.library().periphery_calibration_destroy(handle)
            except Exception:  # interpreter shutdown
                pass


def _calibration(value: Any, argument: str) -> Calibration:
    if isinstance(value, Calibration):
        return value
    if isinstance(value, (str, os.PathLike)):
        return Calibration.load(value)
    raise TypeError(f"{argument}: expected a periphery.Calibration or a path to a calibration JSON, got {type(value).__name__}")


def _image(image: Any, order: Any, calibration: Calibration) -> tuple[native.Image, np.ndarray]:
    """The periphery_image of a NumPy frame, and the array whose memory it borrows.

    H×W×3 is RGB (order "rgb") or BGR (order "bgr"); H×W×4 is BGRA for order "bgr" (passed as it is,
    alpha ignored) and RGBA for order "rgb" (its RGB channels copied: the C API has no RGBA format).
    Rows that are contiguous in their pixel layout are passed with their row stride, any other
    layout (negative, channel or pixel strides) is copied first.
    """
    if not isinstance(order, str):
        raise TypeError(f"order: expected 'rgb' or 'bgr', got {type(order).__name__}")
    if order not in ("rgb", "bgr"):
        raise ValueError(f"order: {order!r}, expected 'rgb' or 'bgr' (OpenCV's order)")
    if not isinstance(image, np.ndarray):
        raise TypeError(f"image: expected a numpy.ndarray of uint8 (H×W×3 or H×W×4), got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise TypeError(f"image.dtype: {image.dtype}, expected uint8 (8 bits per sample)")
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        hint = ""
        if image.ndim == 3 and image.shape[0] in (3, 4) and image.shape[2] not in (3, 4):
            hint = "; a channels-first (planar) array needs image.transpose(1, 2, 0)"
        elif image.ndim == 2:
            hint = "; a grey frame needs numpy.repeat(image[..., None], 3, axis=2)"
        raise ValueError(f"image.shape: {image.shape}, expected (height, width, 3) or (height, width, 4), channels last{hint}")
    height, width, channels = image.shape
    if (width, height) != calibration.size:
        w, h = calibration.size
        raise ValueError(f"image.shape: {image.shape} is a {width}x{height} frame, the calibration's frames are {w}x{h}")
    if channels == 4 and order == "rgb":
        image = np.ascontiguousarray(image[:, :, :3])
        channels = 3
    fmt = {("rgb", 3): native.PIXEL_RGB8, ("bgr", 3): native.PIXEL_BGR8, ("bgr", 4): native.PIXEL_BGRA8}[(order, channels)]
    row = width * channels
    stride = image.strides[0] if height > 1 else row
    if not (image.strides[2] == 1 and image.strides[1] == channels and row <= stride <= 2**31 - 1):
        image = np.ascontiguousarray(image)
        stride = row
    data = ctypes.cast(ctypes.c_void_p(image.ctypes.data), ctypes.POINTER(ctypes.c_uint8))
    return native.Image(data, width, height, stride, fmt), image


def _ego(ego: Any) -> native.EgoMotion | None:
    if ego is None:
        return None
    e = _record(ego, EgoMotion, "ego")
    values = {n: _number(getattr(e, n), f"ego.{n}") for n in ("dx", "dy", "dyaw", "dt")}
    for n, v in values.items():
        if not math.isfinite(v):
            raise ValueError(f"ego.{n}: {v} is not finite")
    if values["dt"] < 0:
        raise ValueError(f"ego.dt: {values['dt']} is negative")
    return native.EgoMotion(**values)


def _box(b: native.Box) -> Box:
    return Box(b.x, b.y, b.z, b.length, b.width, b.height, b.yaw)


def _known(value: float) -> float | None:
    """A figure of the C API, where NaN stands for unknown, as None."""
    return None if math.isnan(value) else value


def read_result(handle: int, source: bool = False) -> Result:
    """A periphery_result's contents as Python values (the handle stays the caller's to destroy)."""
    lib = native.library()
    count = ctypes.c_size_t()
    pointer = lib.periphery_result_detections(handle, ctypes.byref(count))
    detections = tuple(Detection(d.score, d.label, _box(d.box)) for d in (pointer[i] for i in range(count.value)))
    pointer = lib.periphery_result_tracks(handle, ctypes.byref(count))
    tracks = tuple(
        Track(
            id=t.id,
            label=t.label,
            state=TRACK_STATES[t.state] if 0 <= t.state < len(TRACK_STATES) else f"state {t.state}",
            box=_box(t.box),
            score=t.score,
            velocity=(t.vx, t.vy) if t.has_velocity else None,
            observed=bool(t.observed),
            hits=t.hits,
            age_s=t.age_s,
        )
        for t in (pointer[i] for i in range(count.value))
    )
    pointer = lib.periphery_result_events(handle, ctypes.byref(count))
    events = tuple(
        SafetyEventReport(
            type=EVENT_TYPES[e.type] if 0 <= e.type < len(EVENT_TYPES) else f"type {e.type}",
            phase=EVENT_PHASES[e.phase] if 0 <= e.phase < len(EVENT_PHASES) else f"phase {e.phase}",
            track=e.track,
            ttc_s=_known(e.ttc_s),
            headway_s=_known(e.headway_s),
            range_m=_known(e.range_m),
        )
        for e in (pointer[i] for i in range(count.value))
    )
    t = lib.periphery_result_timings(handle)
    timings = Timings(t.calibrate_ms, t.preprocess_ms, t.inference_ms, t.track_ms, t.total_ms)
    timestamp = lib.periphery_result_timestamp(handle)
    reset = bool(lib.periphery_result_tracker_reset(handle))
    if not source:
        return Result(timestamp, detections, tracks, timings, reset, events)
    picture = lib.periphery_result_image(handle)
    if picture.data and picture.width > 0 and picture.height > 0:
        rows = np.ctypeslib.as_array(picture.data, shape=(picture.height, picture.row_stride))
        image = rows[:, : picture.width * 3].reshape(picture.height, picture.width, 3).copy()
    else:
        image = np.zeros((0, 0, 3), np.uint8)
    name = (lib.periphery_result_name(handle) or b"").decode("utf-8", "replace")
    return Frame(
        timestamp, detections, tracks, timings, reset, events, name=name, index=lib.periphery_result_index(handle), image=image
    )


class Engine:
    """Safety40 weights loaded into an engine: preprocessing, network, decode and tracker.

    ``Engine(weights, threads=None, precision="auto")``: weights is a Safety40 ``.safetensors``
    file; threads the worker threads per layer (None: all cores); precision ``"auto"`` (the weights
    file's own), ``"fp32"`` or ``"int8"``. The decode settings are the reference's live ones
    (``periphery detect --reject-implausible``).

    One thread at a time per engine; use one engine per thread (engines run in parallel, the GIL
    released). While a source (``periphery.open``) runs on an engine, the engine is the source's.
    """

    def __init__(self, weights: PathLike, threads: int | None = None, precision: str = "auto") -> None:
        self._handle: int | None = None
        self._lock = threading.Lock()
        self._source: weakref.ref[Source] | None = None
        path = _path(weights, "weights")
        if threads is None:
            count = 0
        else:
            count = _integer(threads, "threads")
            if not 1 <= count <= 1024:
                raise ValueError(f"threads: {count} is outside 1 ... 1024 (None for all cores)")
        if not isinstance(precision, str):
            raise TypeError(f"precision: expected one of {', '.join(_PRECISIONS)}, got {type(precision).__name__}")
        if precision not in _PRECISIONS:
            raise ValueError(f"precision: {precision!r}, expected one of {', '.join(map(repr, _PRECISIONS))}")
        lib = native.library()
        out = ctypes.c_void_p()
        native.check(lib.periphery_engine_create(path, count, _PRECISIONS[precision], ctypes.byref(out)))
        self._handle = out.value

    @property
    def precision(self) -> str:
        """The precision the engine runs in: ``"fp32"`` or ``"int8"``."""
        value = native.library().periphery_engine_precision(self._live())
        return _PRECISION_NAMES.get(value, str(value))

    @property
    def threads(self) -> int:
        """Worker threads per layer."""
        return int(native.library().periphery_engine_threads(self._live()))

    @property
    def closed(self) -> bool:
        return self._handle is None

    def _live(self) -> int:
        handle = self._handle
        if handle is None:
            raise ValueError("engine: closed")
        return handle

    def _hold(self) -> None:
        if not self._lock.acquire(blocking=False):
            raise BusyError("engine: in use by another thread (use one engine per thread)")

    def process(
        self,
        image: np.ndarray,
        calibration: Calibration,
        timestamp: float,
        ego: EgoMotion | Mapping[str, float] | None = None,
        *,
        order: str = "rgb",
    ) -> Result:
        """Runs one frame: preprocessing, network, decode, tracker. The GIL is released meanwhile.

        image: H×W×3 or H×W×4 uint8, channels last, any strides, of the calibration's size;
        ``order="rgb"`` (default) or ``"bgr"`` (OpenCV's; with 4 channels, BGRA).
        timestamp: capture time, seconds, any monotonic clock. ego: the vehicle's motion since the
        previous frame (``periphery.EgoMotion`` or a mapping of dx, dy, dyaw, dt), or None to take the
        vehicle as stationary.
        """
        if not isinstance(calibration, Calibration):
            raise TypeError(f"calibration: expected a periphery.Calibration, got {type(calibration).__name__}")
        picture, keep = _image(image, order, calibration)
        seconds = _number(timestamp, "timestamp")
        if not math.isfinite(seconds):
            raise ValueError(f"timestamp: {seconds} is not finite")
        motion = _ego(ego)
        lib = native.library()
        self._hold()
        try:
            handle = self._live()
            out = ctypes.c_void_p()
            status = lib.periphery_engine_process(
                handle, ctypes.byref(picture), calibration._handle, seconds,
                ctypes.byref(motion) if motion is not None else None, ctypes.byref(out),
            )
            native.check(status)
        finally:
            self._lock.release()
        del keep  # the pixels were borrowed for the call only
        result = out.value
        assert result is not None
        try:
            return read_result(result)
        finally:
            lib.periphery_result_destroy(result)

    def reset(self) -> None:
        """Forgets all tracks and the previous frame: the next frame is processed as by a fresh engine."""
        self._hold()
        try:
            native.check(native.library().periphery_engine_reset(self._live()))
        finally:
            self._lock.release()

    def close(self) -> None:
        """Frees the engine (stopping a source open on it first). Idempotent."""
        source = self._source() if self._source is not None else None
        if source is not None:
            source.close()
        with self._lock:
            handle, self._handle = self._handle, None
        if handle:
            native.library().periphery_engine_destroy(handle)

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._handle is None:
            return "Engine(closed)"
        return f"Engine(precision={self.precision!r}, threads={self.threads})"

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            try:
                native.library().periphery_engine_destroy(handle)
            except Exception:  # interpreter shutdown
                pass


__all__ = ["Calibration", "Engine", "CLASS_NAMES"]

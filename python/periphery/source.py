"""Sources: a drive, a video file, a V4L2 camera or a stream, stepped through by the library exactly
as ``periphery run`` steps through it (periphery.h's periphery_source).

``periphery.open(...)`` returns a ``Source``: an iterator of ``Frame``s (each a ``Result`` with the
frame's name, index and pixels) and a context manager. The library reads and processes the frames
on a thread of its own, one frame ahead at most; waiting for the next one releases the GIL.
"""

from __future__ import annotations

import ctypes
import math
import threading
import weakref
from . import _library as native
from .engine import Calibration, Engine, PathLike, _calibration, _integer, _number, _path, read_result
from .errors import BusyError
from .types import Frame


class Source:
    """An open source: iterate over it for its ``Frame``s; ``close()`` (or ``with``) stops it.

    The engine belongs to the source until it is closed or exhausted (``Engine.process`` on it
    raises ``BusyError`` meanwhile). An engine the source made itself is freed with it. A failure of
    the input mid-way is raised (``SourceError``) after every frame before it was yielded.
    """

    def __init__(self, engine: Engine, owns_engine: bool, input: bytes, options: native.SourceOptions,
                 calibration: Calibration | None) -> None:
        self._handle: int | None = None
        self._lock = threading.Lock()
        self._engine = engine
        self._owns_engine = owns_engine
        self._calibration = calibration  # kept alive while the library may read it
        lib = native.library()
        out = ctypes.c_void_p()
        engine._hold()
        try:
            if engine._source is not None and engine._source() is not None:
                raise BusyError("engine: in use by an open source")
            native.check(lib.periphery_source_open(engine._live(), input, ctypes.byref(options), ctypes.byref(out)))
            self._handle = out.value
            engine._source = weakref.ref(self)
        finally:
            engine._lock.release()

    @property
    def engine(self) -> Engine:
        """The engine the frames run through."""
        return self._engine

    @property
    def closed(self) -> bool:
        return self._handle is None

    def __iter__(self) -> Source:
        return self

    def __next__(self) -> Frame:
        lib = native.library()
        with self._lock:
            if self._handle is None:
                raise StopIteration
            out = ctypes.c_void_p()
            status = lib.periphery_source_next(self._handle, ctypes.byref(out))
            if status == native.END:
                self._close_locked()
                raise StopIteration
            native.check(status)
        result = out.value
        assert result is not None
        try:
            frame = read_result(result, source=True)
        finally:
            lib.periphery_result_destroy(result)
        assert isinstance(frame, Frame)
        return frame

    def _close_locked(self) -> None:
        handle, self._handle = self._handle, None
        if handle:
            engine = self._engine
            with engine._lock:
                native.library().periphery_source_destroy(handle)
                engine._source = None
            if self._owns_engine:
                engine.close()

    def close(self) -> None:
        """Stops the source after the frame in flight and frees the engine (an engine it made is
        freed too). Idempotent."""
        with self._lock:
            self._close_locked()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


def open(
    source: PathLike,
    *,
    engine: Engine | None = None,
    weights: PathLike | None = None,
    calibration: Calibration | PathLike | None = None,
    fps: float | None = None,
    max_frames: int | None = None,
    threads: int | None = None,
    precision: str = "auto",
) -> Source:
    """Opens a drive directory, a video file, a V4L2 camera (``/dev/videoN``) or a stream URL
    (rtsp://, udp://, srt://, tcp://, http(s)://) and runs it as ``periphery run`` does: the same
    frames, ego motion, tracker resets and live rules, and so the same results.

    engine: an engine to run on (reset first; the source's until closed), or None for a new one
    from ``weights`` with ``threads`` and ``precision`` (as ``Engine``). calibration: a
    ``Calibration`` or a path to one, for frames that carry none (None: the drive's
    calibration.json, or the one beside the video; a camera or stream needs one). fps: the frame
    rate of a drive without frames.csv (None: 10). max_frames: stop after this many frames (None: all).
    """
    input = _path(source, "source")
    if engine is not None:
        if not isinstance(engine, Engine):
            raise TypeError(f"engine: expected a periphery.Engine, got {type(engine).__name__}")
        given = [n for n, v in (("weights", weights), ("threads", threads)) if v is not None]
        if precision != "auto":
            given.append("precision")
        if given:
            raise ValueError(f"{', '.join(given)}: given with engine; they apply only to the engine open() makes")
        engine._live()
    elif weights is None:
        raise TypeError("weights: required when no engine is given")
    options = native.SourceOptions()
    chosen: Calibration | None = None
    if calibration is not None:
        chosen = _calibration(calibration, "calibration")
        options.calibration = chosen._handle
    if fps is not None:
        rate = _number(fps, "fps")
        if not (math.isfinite(rate) and 0.1 <= rate <= 1000):
            raise ValueError(f"fps: {rate} is outside 0.1 ... 1000 (None for 10)")
        options.fps = rate
    if max_frames is not None:
        count = _integer(max_frames, "max_frames")
        if count < 1:
            raise ValueError(f"max_frames: {count}, expected at least 1 (None for all)")
        options.max_frames = count
    owns = engine is None
    if engine is None:
        assert weights is not None
        engine = Engine(weights, threads=threads, precision=precision)
    try:
        return Source(engine, owns, input, options, chosen)
    except BaseException:
        if owns:
            engine.close()
        raise

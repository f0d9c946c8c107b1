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
from collections.abc import Mapping

from . import _library as native
from .engine import Calibration, Engine, PathLike, _calibration, _integer, _number, _path, read_result
from .errors import BusyError
from .types import Frame, InputInfo


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

    @property
    def warnings(self) -> list[str]:
        """What the source had to say so far (periphery_source_warning): rows of a drive's or a
        video's motion tables that were skipped, a stream lost and back. Empty once closed."""
        with self._lock:
            if self._handle is None:
                return []
            lib = native.library()
            found = []
            while (line := lib.periphery_source_warning(self._handle, len(found))) is not None:
                found.append(line.decode("utf-8", "replace"))
            return found

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


def _flag(value: object, argument: str) -> int:
    if not isinstance(value, bool):
        raise TypeError(f"{argument}: expected a bool, got {type(value).__name__}")
    return int(value)


def _text(value: object, argument: str) -> bytes | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{argument}: expected a str, got {type(value).__name__}")
    if not value or "\0" in value:
        raise ValueError(f"{argument}: expected a non-empty str without NUL characters")
    return value.encode()


def _positive(value: object, argument: str, at_least: float = 0.0, open_: bool = True) -> float:
    number = _number(value, argument)
    if not math.isfinite(number) or number < at_least or (open_ and number == at_least):
        raise ValueError(f"{argument}: {number}, expected a number {'>' if open_ else '≥'} {at_least:g} (None for the default)")
    return number


def _options(
    calibration: Calibration | PathLike | None,
    fps: float | None,
    max_frames: int | None,
    input: Mapping[str, object],
) -> tuple[native.SourceOptions, Calibration | None]:
    """periphery_source_options from open()'s arguments, and the Calibration it points at (to keep
    alive while the library may read it). Types and the ranges of options whose 0 means "default"
    are checked here; whether an option suits the input is the library's to say."""
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
    unknown = set(input) - set(_INPUT_OPTIONS)
    if unknown:
        raise TypeError(f"unexpected option(s) {', '.join(sorted(unknown))}; the options are {', '.join(_INPUT_OPTIONS)}")
    get = {**_INPUT_OPTIONS, **input}.get
    options.realtime = _flag(get("realtime"), "realtime")
    options.auto_pitch = _flag(get("auto_pitch"), "auto_pitch")
    options.keep_corrupt = _flag(get("keep_corrupt"), "keep_corrupt")
    options.listen = _flag(get("listen"), "listen")
    if get("start") is not None:
        options.start_s = _positive(get("start"), "start", open_=False)
    if get("duration") is not None:
        options.duration_s = _positive(get("duration"), "duration")
    if get("every") is not None:
        every = _integer(get("every"), "every")
        if every < 1:
            raise ValueError(f"every: {every}, expected at least 1 (None for every frame)")
        options.every = every
    if get("timeout") is not None:
        options.read_timeout_s = _positive(get("timeout"), "timeout")
    if get("reconnect_timeout") is not None:
        # periphery.h: 0 is the default there, a negative value no reconnecting.
        options.reconnect_timeout_s = _positive(get("reconnect_timeout"), "reconnect_timeout", open_=False) or -1.0
    transport = get("rtsp_transport")
    if transport not in native.RTSP_TRANSPORTS:
        raise ValueError(f"rtsp_transport: {transport!r}, expected 'tcp', 'udp' or None")
    options.rtsp_transport = native.RTSP_TRANSPORTS[transport]
    options.video_size = _text(get("video_size"), "video_size")
    if get("framerate") is not None:
        options.framerate = _positive(get("framerate"), "framerate")
    options.input_format = _text(get("input_format"), "input_format")
    return options, chosen


#: The options of open() and check_input() that say how the input is opened, with their defaults.
_INPUT_OPTIONS: dict[str, object] = {
    "realtime": False,
    "auto_pitch": False,
    "keep_corrupt": False,
    "start": None,
    "duration": None,
    "every": None,
    "timeout": None,
    "reconnect_timeout": None,
    "rtsp_transport": None,
    "listen": False,
    "video_size": None,
    "framerate": None,
    "input_format": None,
}


def check_input(
    source: PathLike,
    *,
    calibration: Calibration | PathLike | None = None,
    fps: float | None = None,
    **options: object,
) -> InputInfo:
    """Checks ``source`` as ``open`` would open it, without opening it (periphery_input_check): what
    it is, whether it has a calibration, how many bytes its files hold. Reads directory listings
    and the calibration, no frame. Raises what ``open`` raises for the same fault, with the same
    message; ``options`` are ``open``'s (``realtime``, ``auto_pitch``, ``start``, ...)."""
    path = _path(source, "source")
    # `_kept`: the Calibration the options point at, alive until the library has returned.
    native_options, _kept = _options(calibration, fps, None, options)
    info = native.InputInfo()
    native.check(native.library().periphery_input_check(path, ctypes.byref(native_options), ctypes.byref(info)))
    return InputInfo(kind=native.INPUT_KINDS[info.kind], has_calibration=bool(info.has_calibration), size_bytes=info.size_bytes)


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
    **options: object,
) -> Source:
    """Opens a drive directory, a video file, a V4L2 camera (``/dev/videoN``) or a stream URL
    (rtsp://, udp://, srt://, tcp://, http(s)://) and runs it as ``periphery run`` does: the same
    frames, ego motion, tracker resets and live rules, and so the same results. The input is opened
    by the library's rules: the same inputs fail with the same messages as ``periphery run``.

    engine: an engine to run on (reset first; the source's until closed), or None for a new one
    from ``weights`` with ``threads`` and ``precision`` (as ``Engine``). calibration: a
    ``Calibration`` or a path to one, for frames that carry none (None: the one in the drive, or
    the one beside the video; a video, a camera and a stream need one). fps: the frame rate of a
    drive without frames.csv (None: 10). max_frames: stop after this many frames (None: all).

    options, as ``periphery run``'s of the same names: realtime (play a video file at its own
    rate, live), auto_pitch (estimate a drive's mount pitch while running), keep_corrupt, start,
    duration (seconds of a video; wall-clock seconds of a live source), every, timeout,
    reconnect_timeout, rtsp_transport ('tcp' or 'udp'), listen, and a camera's video_size ('WxH'),
    framerate and input_format. An option that does not suit the input raises ``InvalidArgumentError``.
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
    native_options, chosen = _options(calibration, fps, max_frames, options)
    owns = engine is None
    if engine is None:
        assert weights is not None
        engine = Engine(weights, threads=threads, precision=precision)
    try:
        return Source(engine, owns, input, native_options, chosen)
    except BaseException:
        if owns:
            engine.close()
        raise

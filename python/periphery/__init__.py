"""Periphery: monocular bird's-eye-view vehicle detection from one windshield camera.

The engine through libperiphery's C API (ctypes: installing needs no compiler)::

    import numpy as np, periphery
    engine = periphery.Engine("safety40-synthetic.safetensors", threads=None)
    calibration = periphery.Calibration.load("calibration.json")
    result = engine.process(image, calibration, timestamp=0.0)   # image: H×W×3 uint8 RGB
    for d in result.detections:
        print(d.class_name, d.score, d.box.x, d.box.y)

    for frame in periphery.open("drive/", weights="safety40-synthetic.safetensors"):
        print(frame.index, frame.name, len(frame.tracks))

The GIL is released while a frame is processed; use one engine per thread. The library is the
wheel's own ``periphery/_lib/libperiphery.so``, or the one ``PERIPHERY_LIBRARY`` names (a build's
``libPeripheryC.so``); it is loaded on first use. python/README.md has the details.
"""

from .engine import Calibration, Engine
from .errors import (
    BusyError,
    CalibrationError,
    FrameError,
    InternalError,
    InvalidArgumentError,
    LibraryError,
    PeripheryError,
    SourceError,
    UnsupportedError,
    WeightsError,
)
from .source import Source, check_input, open
from .types import CLASS_NAMES, Box, Detection, EgoMotion, Frame, InputInfo, Intrinsics, Mount, Result, Timings, Track

__version__ = "0.1.0"


def library_version() -> str:
    """The loaded libperiphery's release (``periphery_version()``), loading it if needed."""
    from . import _library

    return str(_library.library().periphery_version().decode())


__all__ = [
    "BusyError",
    "Box",
    "CLASS_NAMES",
    "Calibration",
    "CalibrationError",
    "Detection",
    "EgoMotion",
    "Engine",
    "Frame",
    "FrameError",
    "InputInfo",
    "InternalError",
    "InvalidArgumentError",
    "Intrinsics",
    "LibraryError",
    "Mount",
    "PeripheryError",
    "Result",
    "Source",
    "SourceError",
    "Timings",
    "Track",
    "UnsupportedError",
    "WeightsError",
    "check_input",
    "library_version",
    "open",
]

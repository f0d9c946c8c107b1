"""The errors of the package.

Failures of the library are ``PeripheryError``s: ``.status`` is the periphery.h status code and
``.message`` the library's message (``periphery_last_error()``), which names the argument, file,
frame or field at fault. Each status code has its subclass, and each subclass also derives from the
built-in exception a Python caller would catch for it:

==========================  ======================================  =====================
class                       status                                  also a
==========================  ======================================  =====================
``InvalidArgumentError``    ``PERIPHERY_ERROR_INVALID_ARGUMENT``    ``ValueError``
``WeightsError``            ``PERIPHERY_ERROR_WEIGHTS``             ``OSError``
``CalibrationError``        ``PERIPHERY_ERROR_CALIBRATION``         ``ValueError``
``FrameError``              ``PERIPHERY_ERROR_FRAME``               ``ValueError``
``SourceError``             ``PERIPHERY_ERROR_SOURCE``              ``OSError``
``UnsupportedError``        ``PERIPHERY_ERROR_UNSUPPORTED``         ``RuntimeError``
``BusyError``               ``PERIPHERY_ERROR_BUSY``                ``RuntimeError``
``InternalError``           ``PERIPHERY_ERROR_INTERNAL``            ``RuntimeError``
``LibraryError``            (no library, or of another API version) ``ImportError``
==========================  ======================================  =====================

Arguments that Python can check itself (an array's type, dtype, shape; an option's type or range)
raise plain ``TypeError`` or ``ValueError`` before the library is called, their message starting
with the argument's name (``image.dtype: ...``).
"""

from __future__ import annotations


class PeripheryError(Exception):
    """A failure reported by libperiphery: ``status`` (periphery.h's code) and ``message``."""

    #: periphery.h's status code of this class.
    code: int = 0

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = self.code if status is None else status

    def __str__(self) -> str:
        return self.message


class InvalidArgumentError(PeripheryError, ValueError):
    """A NULL pointer, an unknown enum value, or a size, stride or number out of range."""

    code = -1


class WeightsError(PeripheryError, OSError):
    """The weights file cannot be read or is not Safety40 weights."""

    code = -2


class CalibrationError(PeripheryError, ValueError):
    """A calibration file or value is invalid."""

    code = -3


class FrameError(PeripheryError, ValueError):
    """A frame was refused (its size differs from its calibration's)."""

    code = -4


class SourceError(PeripheryError, OSError):
    """A source (video, stream, drive) cannot be opened or failed while read."""

    code = -5


class UnsupportedError(PeripheryError, RuntimeError):
    """This CPU or build cannot do what was asked (INT8 kernels, OpenBLAS missing)."""

    code = -6


class BusyError(PeripheryError, RuntimeError):
    """The engine is in use: by an open source, or by another thread."""

    code = -7


class InternalError(PeripheryError, RuntimeError):
    """A failure inside the library that is not the caller's: please report it."""

    code = -100


class LibraryError(PeripheryError, ImportError):
    """libperiphery.so is missing, cannot be loaded, or is of another API version."""

    code = 0


_BY_STATUS: dict[int, type[PeripheryError]] = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        WeightsError,
        CalibrationError,
        FrameError,
        SourceError,
        UnsupportedError,
        BusyError,
        InternalError,
    )
}


def error_for_status(status: int, message: str) -> PeripheryError:
    """The exception for a failed call's status and the library's message."""
    cls = _BY_STATUS.get(status, InternalError)
    return cls(message or f"periphery status {status}", status)

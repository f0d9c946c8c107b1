"""The plain values the engine takes and gives: calibration parts, ego motion, detections, tracks,
timings and results.

Coordinates are the vehicle frame of ISO 8855: x forward, y left, z up, metres, origin on the road
below the vehicle origin; yaw in radians, counter-clockwise seen from above, 0 along +x.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Safety40's class names by label (detections are never pedestrians: the decoder drops them).
CLASS_NAMES = ("light_vehicle", "large_vehicle", "two_wheeler", "pedestrian")

#: Track motion states by periphery_track_state.
TRACK_STATES = ("unknown", "parked", "moving")


@dataclass(frozen=True, slots=True)
class Intrinsics:
    """Pinhole intrinsics of the source camera, pixels; width and height are the frames' size."""

    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Mount:
    """How the camera sits in the vehicle (angles in degrees, distances in metres).

    pitch_deg: nose-up rotation against the direction of travel; roll_deg: clockwise seen from
    behind; yaw_deg: leftward; height_m: camera height above the road (0.3 to 3);
    forward_of_origin_m: camera position forward of the vehicle origin; lateral_offset_m: offset
    from the centreline, positive left.
    """

    pitch_deg: float
    height_m: float
    forward_of_origin_m: float
    roll_deg: float = 0.0
    yaw_deg: float = 0.0
    lateral_offset_m: float = 0.0


@dataclass(frozen=True, slots=True)
class EgoMotion:
    """The vehicle's own motion since the previous frame, in the previous frame's vehicle frame:
    translation dx, dy (metres), rotation dyaw (radians, counter-clockwise), interval dt (seconds)."""

    dx: float
    dy: float
    dyaw: float
    dt: float


@dataclass(frozen=True, slots=True)
class Box:
    """A 3-D box in the vehicle frame: centre x, y, z, size length, width, height (metres), yaw (radians)."""

    x: float
    y: float
    z: float
    length: float
    width: float
    height: float
    yaw: float


@dataclass(frozen=True, slots=True)
class Detection:
    """One detection of one frame: the sigmoid class score (a float32 value), Safety40's label and the box."""

    score: float
    label: int
    box: Box

    @property
    def class_name(self) -> str:
        """``light_vehicle``, ``large_vehicle``, ``two_wheeler`` or ``pedestrian``."""
        return CLASS_NAMES[self.label] if 0 <= self.label < len(CLASS_NAMES) else f"label {self.label}"


@dataclass(frozen=True, slots=True)
class Track:
    """One confirmed track after a frame.

    id: stable across frames, from 1; state: ``unknown``, ``parked`` or ``moving``; box: the smoothed
    box, its yaw the displayed heading; score: the detector score of the latest match; velocity:
    over-ground (vx, vy) in m/s in the vehicle frame, or None while unknown; observed: a detection
    matched the track in this frame; hits: frames matched so far; age_s: seconds since its birth.
    """

    id: int
    label: int
    state: str
    box: Box
    score: float
    velocity: tuple[float, float] | None
    observed: bool
    hits: int
    age_s: float

    @property
    def class_name(self) -> str:
        """``light_vehicle``, ``large_vehicle``, ``two_wheeler`` or ``pedestrian``."""
        return CLASS_NAMES[self.label] if 0 <= self.label < len(CLASS_NAMES) else f"label {self.label}"


@dataclass(frozen=True, slots=True)
class Timings:
    """Milliseconds per stage of one frame; inference is the network and the decode."""

    calibrate_ms: float
    preprocess_ms: float
    inference_ms: float
    track_ms: float
    total_ms: float


@dataclass(frozen=True)
class Result:
    """What one frame gave: its detections (descending score), the confirmed tracks after it, the
    per-stage timings, its timestamp (seconds) and whether the tracker was reset before it."""

    timestamp: float
    detections: tuple[Detection, ...]
    tracks: tuple[Track, ...]
    timings: Timings
    tracker_reset: bool


@dataclass(frozen=True)
class Frame(Result):
    """A frame of a source (``periphery.open``) and its result: also the frame's name (the drive's
    file name or the video's frame label), its index among the processed frames (from 0) and its
    pixels, an H×W×3 uint8 RGB array of the frame's own."""

    name: str
    index: int
    image: np.ndarray = field(repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class InputInfo:
    """What ``periphery.check_input`` found: ``kind`` ("drive", "video", "realtime-video", "camera"
    or "stream"), whether the input has a calibration (given, or found in the drive or beside the
    video), and the bytes of its files (a drive's frames, a video file; 0 for a live source)."""

    kind: str
    has_calibration: bool
    size_bytes: int

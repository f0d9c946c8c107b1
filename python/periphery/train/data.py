"""Dataset frames as the trainer reads them: every frame reaches the network exactly as the Swift
engine feeds it. ``DIR/network/NNNNNN.bin`` holds the engine's own focal-matched crop, Lanczos-3
resize and letterbox (8-bit pixels, normalised here with the contract's mean/std, padding 0) and the
frame's ProjectionLUT, so the per-frame calibration is the one `periphery eval` will use. Labels come
from ``DIR/labels/NNNNNN.json``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from periphery.reference import safety40 as ref
from periphery.train.projection import vehicle_pixels
from periphery.train.targets import encode_targets, in_view

RECORD_BYTES = 16 + 3 * 256 * 512 + 5 * ref.VOXELS
MEAN = np.array(ref.PIXEL_MEAN, dtype=np.float32)
STD = np.array(ref.PIXEL_STD, dtype=np.float32)


class Frame:
    """One dataset frame in memory: 8-bit pixels, letterbox, LUT and anchor targets."""

    __slots__ = ("name", "pixels", "letterbox", "lut_index", "lut_visibility", "labels", "codes", "dirs", "boxes", "mask",
                 "radii", "fit")

    def __init__(self, directory: Path, stem: str, pos_radius: float, ignore_radius: float) -> None:
        path = directory / "network" / f"{stem}.bin"
        raw = path.read_bytes()
        if len(raw) != RECORD_BYTES:
            raise ValueError(f"{path}: a network input record is {RECORD_BYTES} bytes, this one is {len(raw)}")
        self.name = f"{directory.name}/{stem}"
        self.letterbox = tuple(int(v) for v in np.frombuffer(raw[:16], dtype="<i4"))
        x, y, w, h = self.letterbox
        if not (0 <= x and 0 <= y and w > 0 and h > 0 and x + w <= 512 and y + h <= 256):
            raise ValueError(f"{path}: letterbox {self.letterbox} is not inside 512×256")
        self.pixels = np.frombuffer(raw[16 : 16 + 3 * 256 * 512], dtype=np.uint8).reshape(3, 256, 512)
        lut = raw[16 + 3 * 256 * 512 :]
        self.lut_index = np.frombuffer(lut[: 4 * ref.VOXELS], dtype="<i4").astype(np.int64)
        self.lut_visibility = np.frombuffer(lut[4 * ref.VOXELS :], dtype=np.uint8).astype(np.float32)
        if self.lut_index.min() < 0 or self.lut_index.max() >= ref.FEATURE_H * ref.FEATURE_W:
            raise ValueError(f"{path}: LUT index out of [0, 8192)")
        label_path = directory / "labels" / f"{stem}.json"
        try:
            self.boxes = json.loads(label_path.read_text())["vehicles"]
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"{label_path}: not a labels object with a 'vehicles' array ({error})") from error
        self.radii = (pos_radius, ignore_radius)
        self.fit = None  # the camera fitted to the LUT, once geometric augmentation needs it
        self.labels, self.codes, self.dirs, _ = encode_targets(self.boxes, pos_radius, ignore_radius)
        self.mask = vehicle_pixels(self.boxes, self.lut_index, self.lut_visibility)

    def derived(self, pixels: np.ndarray, letterbox: Tuple[int, int, int, int], lut_index: np.ndarray,
                lut_visibility: np.ndarray, boxes: List[Dict[str, float]], suffix: str,
                camera: Optional[np.ndarray] = None) -> "Frame":
        """A new sample of the same frame (an augmentation) with its own targets and vehicle mask."""
        out = Frame.__new__(Frame)
        out.name, out.pixels, out.letterbox, out.boxes, out.radii = self.name + suffix, pixels, letterbox, boxes, self.radii
        out.lut_index, out.lut_visibility, out.fit = lut_index, lut_visibility, camera
        out.labels, out.codes, out.dirs, _ = encode_targets(boxes, *self.radii)
        out.mask = vehicle_pixels(boxes, lut_index, lut_visibility)
        return out


def has_near_two_wheeler(frame: Frame, radius: float = 12.0) -> bool:
    """Whether the frame holds a two-wheeler in the network's view within `radius` metres."""
    return any(int(b["label"]) == 2 and in_view(b) and math.hypot(b["x"], b["y"]) <= radius for b in frame.boxes)


def load_frames(directories: List[Path], pos_radius: float, ignore_radius: float,
                known: Optional[Dict[str, Frame]] = None) -> Dict[str, Frame]:
    """Every frame with a network record in the (native) directories (already loaded ones are kept)."""
    frames = dict(known or {})
    for directory in directories:
        net = directory / "network"
        if not net.is_dir():
            raise ValueError(f"{directory}: no network/ folder (make it with `periphery synth --network-inputs` "
                             "or `periphery prepare`)")
        for entry in sorted(net.iterdir()):
            if entry.suffix != ".bin" or entry.name.startswith("."):
                continue
            key = f"{directory.name}/{entry.stem}"
            if key not in frames and (directory / "labels" / f"{entry.stem}.json").exists():
                frames[key] = Frame(directory, entry.stem, pos_radius, ignore_radius)
    return frames


def normalise(pixels: np.ndarray, letterbox: Tuple[int, int, int, int]) -> np.ndarray:
    """8-bit planar RGB → the engine's normalised input, 0 outside the letterbox."""
    x, y, w, h = letterbox
    out = np.zeros((3, 256, 512), dtype=np.float32)
    region = pixels[:, y : y + h, x : x + w].astype(np.float32)
    out[:, y : y + h, x : x + w] = (region - MEAN[:, None, None]) / STD[:, None, None]
    return out

"""Augmentation of a training sample.

Photometric augmentation (brightness, contrast, per-channel gain, noise) is applied to the 8-bit
pixels inside the letterbox (``--photometric``, on by default, bit for bit as before). Geometric
augmentation, off by default, changes image, LUT and labels together (``flip_sample``,
``zoom_sample``): ``--flip P`` mirrors the 512-wide input and the LUT so that the result is what the
mirrored world would give (vehicle y → −y, yaw → −yaw); ``--zoom P --zoom-extent E`` zooms the
letterboxed image by s in [1−E, 1+E] about a point near its centre and applies the same similarity
to the LUT's image coordinates.
"""
from __future__ import annotations

import math
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from periphery.reference import safety40 as ref
from periphery.train.data import Frame
from periphery.train.projection import VOXEL_POINTS, contract_projection, lut_from_projection, round_half_away
from periphery.train.targets import ANCHORS, in_view


def augment(pixels: np.ndarray, letterbox: Tuple[int, int, int, int], rng: np.random.Generator) -> np.ndarray:
    """Photometric jitter of the letterbox pixels (geometry untouched, so the LUT stays exact)."""
    x, y, w, h = letterbox
    region = pixels[:, y : y + h, x : x + w].astype(np.float32)
    mean = region.mean()
    contrast = rng.uniform(0.75, 1.3)
    gain = rng.uniform(0.7, 1.3) * rng.uniform(0.9, 1.1, size=(3, 1, 1))
    region = (mean + (region - mean) * contrast) * gain + rng.uniform(-20, 20)
    region += rng.normal(0, rng.uniform(0, 6), size=region.shape)
    out = np.zeros_like(pixels)
    out[:, y : y + h, x : x + w] = np.clip(np.rint(region), 0, 255).astype(np.uint8)
    return out


# Image coordinates use the edge convention: pixel i of the 512-wide input spans [i, i + 1), so the
# contract's network principal point cx = 256 (`docs/reference/contract.md#44-network-intrinsics-and-projection`) is
# the canvas centre. Feature coordinates are image coordinates / 4 with no half-pixel shift (same
# section), and the LUT stores u = round(X/Z), v = round(Y/Z) of those (`docs/reference/contract.md#5-projectionlut`).

# The voxel grid is exactly symmetric in lateral position: grid x = −10 + 0.5·ix, ix = 0…40, so the
# mirror y → −y sends voxel column ix to 40 − ix; likewise head cell ix (of 21) goes to 20 − ix.
MIRROR_VOXEL = np.arange(ref.VOXELS).reshape(ref.GRID_X, ref.GRID_Y, ref.GRID_Z)[::-1].reshape(-1)
MIRROR_ANCHOR = np.arange(ANCHORS.shape[0]).reshape(ref.HEAD_X, -1)[::-1].reshape(-1)


def mirror_boxes(boxes: List[Dict[str, float]]) -> List[Dict[str, float]]:
    """Labels of the world mirrored in the vehicle's x–z plane: y → −y, yaw → −yaw (other fields kept)."""
    return [{**b, "y": -b["y"], "yaw": -b["yaw"]} for b in boxes]


def camera(frame: Frame) -> np.ndarray:
    """The frame's camera in contract coordinates: fitted once (``contract_projection``) and kept;
    an augmented sample carries its own, derived exactly from its source's."""
    if frame.fit is None:
        frame.fit = contract_projection(frame.lut_index, frame.lut_visibility)
    return frame.fit


MIRROR_IMAGE = np.array([[-1.0, 0, ref.FEATURE_W], [0, 1, 0], [0, 0, 1]])  # feature u → 128 − u
MIRROR_WORLD = np.diag([1.0, -1.0, 1.0, 1.0])  # vehicle y → −y


def flip_lut(lut_index: np.ndarray, lut_visibility: np.ndarray, P: Optional[np.ndarray] = None
             ) -> Tuple[np.ndarray, np.ndarray]:
    """The LUT of the mirrored world seen through the mirrored image.

    The image mirror i → 511 − i is x → 512 − x, so feature u → 128 − u; rounding half away from zero
    commutes with it except at exact ties. Voxel ix of the mirrored world is voxel 40 − ix of the
    original. Hence index column c → 128 − c and row kept; column 0 leaves the plane (128). The one
    thing the stored LUT cannot say is which invisible voxels lay in column 128, just right of the
    plane (indices are clamped to 127): those come in at column 0 and are taken from the camera
    fitted to the LUT (``feature_projection``), which decides only that boundary column.
    """
    index, visibility = lut_index[MIRROR_VOXEL], lut_visibility[MIRROR_VOXEL]
    row, col = index // ref.FEATURE_W, index % ref.FEATURE_W
    visible = (visibility > 0) & (col >= 1)
    new_col = np.clip(ref.FEATURE_W - col, 0, ref.FEATURE_W - 1)
    candidates = (visibility == 0) & (col == ref.FEATURE_W - 1)
    if candidates.any() and int(lut_visibility.sum()) >= 12:
        P = contract_projection(lut_index, lut_visibility) if P is None else P
        points = VOXEL_POINTS[MIRROR_VOXEL][candidates]  # the original voxels
        h = np.concatenate([points, np.ones((len(points), 1))], 1) @ P.T
        depth = h[:, 2]
        safe = np.where(depth > 0, depth, 1.0)
        u, v = round_half_away(h[:, 0] / safe), round_half_away(h[:, 1] / safe)
        enter = (depth > 0) & (u == ref.FEATURE_W) & (v >= 0) & (v < ref.FEATURE_H)
        where = np.flatnonzero(candidates)[enter]
        visible[where] = True
        new_col[where] = 0
        row = row.copy()
        row[where] = v[enter].astype(np.int64)
    return row * ref.FEATURE_W + new_col, visible.astype(np.float32)


def flip_sample(frame: Frame) -> Frame:
    """``frame`` mirrored: image (the whole 512-wide input, so the image inside its letterbox and the
    letterbox itself), LUT (``flip_lut``) and labels (``mirror_boxes``); targets recomputed."""
    x, y, w, h = frame.letterbox
    pixels = np.ascontiguousarray(frame.pixels[:, :, ::-1])
    P = camera(frame) if int(frame.lut_visibility.sum()) >= 12 else None
    index, visibility = flip_lut(frame.lut_index, frame.lut_visibility, P)
    return frame.derived(pixels, (512 - x - w, y, w, h), index, visibility, mirror_boxes(frame.boxes), "@flip",
                         None if P is None else MIRROR_IMAGE @ P @ MIRROR_WORLD)


def zoom_sample(frame: Frame, s: float, cx: float, cy: float) -> Frame:
    """``frame`` zoomed by ``s`` about the image point (cx, cy): x' = s·(x − cx) + cx, same for y.

    Pixels are resampled bilinearly from inside the old letterbox; the new letterbox is the old one's
    image under the similarity, cut to the canvas (zoom-out leaves padding, as the engine's letterbox
    does). The LUT is rebuilt by the contract's rule from A·P, with A the same similarity in feature
    pixels and P the camera fitted to the stored LUT: the LUT stores rounded pixels, not P, so this is
    exact up to that fit (the test measures the agreement at s = 1). The image's effective focal
    becomes s·565.6 px and the LUT carries exactly that focal, so the lifting stays consistent; with
    a small s the network sees the scale range of a slightly miscalibrated focal. A vehicle that was
    in view and whose centre leaves the new letterbox becomes don't-care (``in_view`` false)."""
    lx, ly, lw, lh = frame.letterbox
    x0, x1 = s * (lx - cx) + cx, s * (lx + lw - cx) + cx
    y0, y1 = s * (ly - cy) + cy, s * (ly + lh - cy) + cy
    nx0, ny0 = max(0, math.ceil(x0 - 1e-9)), max(0, math.ceil(y0 - 1e-9))
    nx1, ny1 = min(512, math.floor(x1 + 1e-9)), min(256, math.floor(y1 + 1e-9))
    letterbox = (nx0, ny0, max(nx1 - nx0, 1), max(ny1 - ny0, 1))

    def taps(start: int, stop: int, c: float, lo: int, n: int):
        pos = (np.arange(start, stop) + 0.5 - c) / s + c - 0.5  # source index coordinate
        pos = np.clip(pos, lo, lo + n - 1)
        i0 = np.floor(pos).astype(np.int64)
        i1 = np.minimum(i0 + 1, lo + n - 1)
        return i0, i1, (pos - i0).astype(np.float32)

    xi0, xi1, xw = taps(nx0, nx0 + letterbox[2], cx, lx, lw)
    yi0, yi1, yw = taps(ny0, ny0 + letterbox[3], cy, ly, lh)
    src = frame.pixels.astype(np.float32)
    rows = src[:, yi0, :] * (1 - yw)[None, :, None] + src[:, yi1, :] * yw[None, :, None]
    region = rows[:, :, xi0] * (1 - xw) + rows[:, :, xi1] * xw
    pixels = np.zeros_like(frame.pixels)
    pixels[:, ny0 : ny0 + letterbox[3], nx0 : nx0 + letterbox[2]] = np.clip(np.rint(region), 0, 255).astype(np.uint8)
    P = camera(frame)
    A = np.array([[s, 0, (1 - s) * cx / 4], [0, s, (1 - s) * cy / 4], [0, 0, 1.0]])
    index, visibility = lut_from_projection(A @ P)
    boxes = []
    for b in frame.boxes:
        if in_view(b):
            h = (A @ P) @ np.array([b["x"], b["y"], b["z"], 1.0])
            u, v = (4 * h[0] / h[2], 4 * h[1] / h[2]) if h[2] > 1e-6 else (-1.0, -1.0)
            if not (nx0 <= u <= nx0 + letterbox[2] and ny0 <= v <= ny0 + letterbox[3]):
                b = {**b, "in_view": False}
        boxes.append(b)
    return frame.derived(pixels, letterbox, index, visibility, boxes, f"@zoom{s:.3f}", A @ P)


class Augmentation(NamedTuple):
    """Per-sample augmentation probabilities (``--photometric``, ``--flip``, ``--zoom``) and the zoom extent."""

    photometric: float = 1.0
    flip: float = 0.0
    zoom: float = 0.0
    zoom_extent: float = 0.1


def augment_frame(frame: Frame, aug: Augmentation, rng: np.random.Generator) -> Tuple[Frame, np.ndarray]:
    """One training sample of ``frame``: geometric augmentations (each drawn only when enabled), then
    the photometric one. With flip and zoom off and photometric at probability 1 the RNG draws are
    those of the trainer before geometric augmentation existed, so old runs reproduce bit for bit."""
    if aug.flip > 0 and rng.random() < aug.flip:
        frame = flip_sample(frame)
    if aug.zoom > 0 and rng.random() < aug.zoom:
        s = rng.uniform(1 - aug.zoom_extent, 1 + aug.zoom_extent)
        x, y, w, h = frame.letterbox
        cx, cy = x + w * rng.uniform(0.25, 0.75), y + h * rng.uniform(0.25, 0.75)
        frame = zoom_sample(frame, s, cx, cy)
    pixels = frame.pixels
    if aug.photometric >= 1 or (aug.photometric > 0 and rng.random() < aug.photometric):
        pixels = augment(frame.pixels, frame.letterbox, rng)
    return frame, pixels

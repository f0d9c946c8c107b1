"""The camera behind a frame's ProjectionLUT (`docs/reference/contract.md#5-projectionlut`), fitted to
its voxel → pixel pairs, and what it projects: the contract's LUT rule and the vehicles' silhouettes
(the auxiliary head's dense target: the box silhouettes through the camera fitted to the frame's LUT).
"""
from __future__ import annotations

import math
from typing import Dict, List, Tuple

import numpy as np

from periphery.reference import safety40 as ref
from periphery.train.targets import GRID_X_OFFSET, GRID_Z_OFFSET, VEHICLE_LABELS

# Vehicle-frame centres of every voxel, [6560, 3] (`docs/reference/contract.md#21-voxel-centres` in grid metres → vehicle frame).
_IX, _IY, _K = np.meshgrid(np.arange(ref.GRID_X), np.arange(ref.GRID_Y), np.arange(ref.GRID_Z), indexing="ij")
VOXEL_POINTS = np.stack([(-0.5 + 0.5 * _IY).ravel() + GRID_X_OFFSET, -(-10.0 + 0.5 * _IX).ravel(),
                         (1.5 * (_K + 1) - 4.0).ravel() + GRID_Z_OFFSET], 1)


def feature_projection(lut_index: np.ndarray, lut_visibility: np.ndarray) -> np.ndarray:
    """The 3×4 camera matrix from vehicle points to feature pixels, fitted (DLT, least squares) to the
    voxel → pixel pairs of a frame's LUT. Pixel centres are at +0.5; residuals are the LUT's rounding."""
    vis = lut_visibility > 0
    X = VOXEL_POINTS[vis]
    u = (lut_index[vis] % ref.FEATURE_W) + 0.5
    v = (lut_index[vis] // ref.FEATURE_W) + 0.5
    h = np.concatenate([X, np.ones((len(X), 1))], 1)
    zero = np.zeros_like(h)
    a = np.concatenate([np.concatenate([h, zero, -u[:, None] * h], 1), np.concatenate([zero, h, -v[:, None] * h], 1)])
    P = np.linalg.svd(a, full_matrices=False)[2][-1].reshape(3, 4)
    # The null vector's sign is arbitrary: visible points must lie in front of the camera.
    return P if (h @ P[2]).mean() > 0 else -P


def vehicle_pixels(boxes: List[Dict[str, float]], lut_index: np.ndarray, lut_visibility: np.ndarray) -> np.ndarray:
    """Feature pixels [64·128] (0/1) covered by a vehicle's box silhouette, through the camera fitted to
    the frame's LUT: the dense target of the auxiliary image head."""
    from PIL import Image, ImageDraw

    canvas = Image.new("L", (ref.FEATURE_W, ref.FEATURE_H), 0)
    draw = ImageDraw.Draw(canvas)
    if int(lut_visibility.sum()) < 12:
        return np.zeros(ref.FEATURE_H * ref.FEATURE_W, dtype=np.float32)
    P = feature_projection(lut_index, lut_visibility)
    faces = ((0, 1, 3, 2), (4, 5, 7, 6), (0, 1, 5, 4), (2, 3, 7, 6), (0, 2, 6, 4), (1, 3, 7, 5))
    for box in boxes:
        if int(box["label"]) not in VEHICLE_LABELS:
            continue
        c, s = math.cos(box["yaw"]), math.sin(box["yaw"])
        corners = []
        for k in range(8):
            l = (0.5 if k & 1 else -0.5) * box["length"]
            w = (0.5 if k & 2 else -0.5) * box["width"]
            z = box["z"] + (0.5 if k & 4 else -0.5) * box["height"]
            corners.append((box["x"] + c * l - s * w, box["y"] + s * l + c * w, z, 1.0))
        h = np.array(corners) @ P.T
        if (h[:, 2] <= 1e-6).any():
            continue
        uv = h[:, :2] / h[:, 2:3]
        for face in faces:
            draw.polygon([tuple(uv[i]) for i in face], fill=1)
    return np.asarray(canvas, dtype=np.float32).reshape(-1)


def round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def contract_projection(lut_index: np.ndarray, lut_visibility: np.ndarray) -> np.ndarray:
    """The camera (3×4, vehicle points → feature pixels in the contract's coordinates, index u ↔ u =
    round(X/Z)) fitted to a LUT's visible voxels: a normalised DLT, Gauss–Newton on the reprojection
    error, then a hinge refinement that pulls every residual inside the ±0.5 rounding interval. On
    synthetic frames the LUT it rebuilds agrees with the engine's on about 99.7 % of the visible
    voxels (``feature_projection``, kept for the auxiliary masks, is the plain DLT with +0.5 centres)."""
    vis = lut_visibility > 0
    X = VOXEL_POINTS[vis]
    u = (lut_index[vis] % ref.FEATURE_W).astype(np.float64)
    v = (lut_index[vis] // ref.FEATURE_W).astype(np.float64)
    n = len(X)
    mx, sx = X.mean(0), X.std()
    Xn = np.concatenate([(X - mx) / sx, np.ones((n, 1))], 1)
    mu, su = np.array([u.mean(), v.mean()]), np.hypot(u.std(), v.std())
    un, vn = (u - mu[0]) / su, (v - mu[1]) / su
    zero = np.zeros_like(Xn)
    a = np.concatenate([np.concatenate([Xn, zero, -un[:, None] * Xn], 1), np.concatenate([zero, Xn, -vn[:, None] * Xn], 1)])
    Pn = np.linalg.svd(a, full_matrices=False)[2][-1].reshape(3, 4)
    S = np.eye(4)
    S[:3, :3] /= sx
    S[:3, 3] = -mx / sx
    P = np.array([[su, 0, mu[0]], [0, su, mu[1]], [0, 0, 1.0]]) @ Pn @ S
    H = np.concatenate([X, np.ones((n, 1))], 1)
    if (H @ P[2]).mean() < 0:
        P = -P
    for k in range(38):
        h = H @ P.T
        w = h[:, 2]
        r = np.concatenate([h[:, 0] / w - u, h[:, 1] / w - v])
        J = np.zeros((2 * n, 12))
        J[:n, 0:4] = H / w[:, None]
        J[:n, 8:12] = -(h[:, 0] / w**2)[:, None] * H
        J[n:, 4:8] = H / w[:, None]
        J[n:, 8:12] = -(h[:, 1] / w**2)[:, None] * H
        if k < 8:  # least squares
            step = np.linalg.lstsq(J, -r, rcond=None)[0]
        else:  # only the excess over the rounding interval, anchored weakly to the current fit
            out = np.abs(r) > 0.45
            if not out.any():
                break
            excess = np.sign(r[out]) * (np.abs(r[out]) - 0.45)
            step = np.linalg.lstsq(np.concatenate([J[out], 1e-2 * J]), np.concatenate([-excess, np.zeros(2 * n)]),
                                   rcond=None)[0]
        P = P + step.reshape(3, 4)
        P /= np.linalg.norm(P)
    return P


def lut_from_projection(P: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The contract's LUT rule (`docs/reference/contract.md#5-projectionlut`) for a 3×4 camera from vehicle points to
    feature pixels (``feature_projection``'s form): indices int64 and visibility float32."""
    h = np.concatenate([VOXEL_POINTS, np.ones((ref.VOXELS, 1))], 1) @ P.T
    depth = h[:, 2]
    safe = np.where(depth > 0, depth, 1.0)
    u = np.clip(round_half_away(h[:, 0] / safe), -1, ref.FEATURE_W)
    v = np.clip(round_half_away(h[:, 1] / safe), -1, ref.FEATURE_H)
    visible = (depth > 0) & (u >= 0) & (u < ref.FEATURE_W) & (v >= 0) & (v < ref.FEATURE_H)
    index = np.clip(v, 0, ref.FEATURE_H - 1) * ref.FEATURE_W + np.clip(u, 0, ref.FEATURE_W - 1)
    return index.astype(np.int64), visible.astype(np.float32)

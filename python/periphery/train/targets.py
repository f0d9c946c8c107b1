"""Anchor targets of a frame (`docs/reference/contract.md#24-anchors`, `#3-decode`): the contract's
anchors, the DeltaXYZWLHR coder in the grid frame, and which labels are truth.

For each vehicle, every anchor (all sizes and both rotations) of the head cells whose centre lies
within ``pos_radius`` metres of the box centre is positive (the nearest cell always is); other
anchors of cells within ``ignore_radius`` are ignored; the rest are background. Direction bins as
mmdet3d (offset 0.7854). Labels with ``"label": -1`` (a class that is not a Safety40 class) or
``"in_view": false`` are never positives: their anchors are ignored, as are their surroundings.
"""
from __future__ import annotations

import math
from typing import Dict, List, Tuple

import numpy as np

from periphery.reference import safety40 as ref

VEHICLE_LABELS = (0, 1, 2)
ANCHOR_SIZES = ((0.866, 2.5981, 1.0), (0.5774, 1.7321, 1.0), (1.0, 1.0, 1.0), (0.4, 0.4, 1.0))
ANCHOR_ROTATIONS = (0.0, 1.57)
DIR_OFFSET = 0.7854
GRID_X_OFFSET = 0.944  # vehicle x = grid y + 0.944
GRID_Z_OFFSET = 1.840  # vehicle z = grid z + 1.840


def make_anchors() -> np.ndarray:
    """The 6720 contract anchors [x, y, z_bottom, w, l, h, yaw] in grid metres, ix → iy → size → rotation."""
    rows = []
    for ix in range(ref.HEAD_X):
        x = -10.0 + 20.0 * (ix + 0.5) / ref.HEAD_X
        for iy in range(ref.HEAD_Y):
            y = -0.5 + 39.5 * (iy + 0.5) / ref.HEAD_Y
            for w, l, h in ANCHOR_SIZES:
                for r in ANCHOR_ROTATIONS:
                    rows.append((x, y, -1.8, w, l, h, r))
    return np.array(rows, dtype=np.float64)


ANCHORS = make_anchors()
CELL_CENTRES = ANCHORS[:: ref.ANCHORS, :2]  # [840, 2], one per head cell


def limit_period(v: np.ndarray, offset: float, period: float) -> np.ndarray:
    return v - np.floor(v / period + offset) * period


def vehicle_to_grid(box: Dict[str, float]) -> Tuple[float, ...]:
    """A label box (vehicle frame, z = centre) → grid (x, y, z_bottom, w, l, h, yaw); inverse of §3 step 5."""
    return (-box["y"], box["x"] - GRID_X_OFFSET, box["z"] - box["height"] / 2 - GRID_Z_OFFSET,
            box["width"], box["length"], box["height"], -box["yaw"] - math.pi)


def in_view(box: Dict[str, float]) -> bool:
    """Whether a label counts as visible to the network (its `in_view`; older labels lack it)."""
    return bool(box.get("in_view", True))


def dont_care(box: Dict[str, float]) -> bool:
    """A label that is neither truth nor background: out of the network's view, or of a class that is
    not a Safety40 class (``"label": -1`` from `periphery prepare`)."""
    return int(box["label"]) < 0 or not in_view(box)


def encode_targets(boxes: List[Dict[str, float]], pos_radius: float, ignore_radius: float
                   ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Anchor targets of one frame.

    Returns (labels [6720] int64: class, 4 = background, −1 = ignored; codes [6720, 9] float32;
    direction bins [6720] int64; positive mask [6720] bool).
    """
    n = ANCHORS.shape[0]
    labels = np.full(n, ref.CLASSES, dtype=np.int64)
    codes = np.zeros((n, ref.CODE_SIZE), dtype=np.float32)
    dirs = np.zeros(n, dtype=np.int64)
    best = np.full(n, np.inf)  # distance of the GT each positive anchor belongs to
    ignore = np.zeros(n, dtype=bool)
    for box in boxes:
        label = int(box["label"])
        if label not in VEHICLE_LABELS and label >= 0:
            continue  # pedestrians: background for the vehicle detector, as always
        g = vehicle_to_grid(box)
        dist = np.hypot(CELL_CENTRES[:, 0] - g[0], CELL_CENTRES[:, 1] - g[1])
        cells = dist < pos_radius
        cells[np.argmin(dist)] = True
        near = np.repeat(dist < ignore_radius, ref.ANCHORS)
        ignore |= near
        # Outside the network's crop (or mostly so) the vehicle cannot be seen, and an object of an
        # unknown class (label -1) is no truth: teach neither "vehicle" nor "background" there.
        if dont_care(box):
            continue
        cell_dist = np.repeat(dist, ref.ANCHORS)
        take = np.repeat(cells, ref.ANCHORS) & (cell_dist < best)
        if not take.any():
            continue
        a = ANCHORS[take]
        d = np.hypot(a[:, 3], a[:, 4])
        zg_c = g[2] + g[5] / 2
        za_c = a[:, 2] + a[:, 5] / 2
        codes[take, 0] = (g[0] - a[:, 0]) / d
        codes[take, 1] = (g[1] - a[:, 1]) / d
        codes[take, 2] = (zg_c - za_c) / a[:, 5]
        codes[take, 3] = np.log(g[3] / a[:, 3])
        codes[take, 4] = np.log(g[4] / a[:, 4])
        codes[take, 5] = np.log(g[5] / a[:, 5])
        codes[take, 6] = g[6] - a[:, 6]
        dirs[take] = np.clip(np.floor(limit_period(np.array(g[6]) - DIR_OFFSET, 0, 2 * math.pi) / math.pi), 0, 1)
        labels[take] = label
        best[take] = cell_dist[take]
    positive = labels < ref.CLASSES
    labels[ignore & ~positive] = -1
    return labels, codes, dirs, positive

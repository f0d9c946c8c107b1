"""The trainer's decode (``periphery.train.evaluation.decode``) against the library's
(``DetectionDecoder`` through ``periphery decode``) on the same head tensors.

The trainer scores its validation and calibrates its exported scores with its own decode, which its
other tests check only against its own encoder. Here both decoders read the same float32 tensors
(written with the ``safetensors`` package) and must give the same detections, in the same order.

Settings, the same on both sides:

* score threshold 0.5 and 0.3 (``decode(..., threshold)``; ``--threshold``), score ≥ threshold kept;
* vehicle labels only (0, 1, 2: pedestrians are dropped by both);
* region 0 ≤ x ≤ 40 m, −10 ≤ y ≤ 10 m (both, always);
* plausibility filter ON: the trainer always applies it, the library with ``--reject-implausible``
  (off by default there, so the flag is passed);
* circular NMS, radius 2.0 m (the trainer's is fixed; ``--nms-radius 2``), greedy by score
  descending, ties in candidate order, a candidate exactly at the radius survives.

Arithmetic: the trainer works in float64 throughout; the library takes the sigmoid in float32 and the
box decode in double. Tolerances: score 1e-6 (float32 rounding of a sigmoid is ≤ 6e-8), centre and
size 1e-6 m, yaw 1e-6 rad (taken modulo 2π); both decode the boxes in double from the same float32
codes, so they agree to ~1e-12. The data are random but realistic (a few dozen strong candidates in
clusters, plausible and implausible sizes, both direction bins, a few out of the region, some
pedestrians, everything else far below threshold). So that float32-vs-float64 rounding cannot flip a
decision, the test first checks (through the library, NMS off) that no strong candidate's score lies
within 1e-5 of a threshold or of another's, and no pair's distance within 1e-6 m of the radius; it
also checks that the data make the threshold, the filter and NMS each drop candidates.
"""
from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Dict, List

import numpy as np
import pytest
from safetensors.numpy import save_file

from periphery.train.evaluation import PLAUSIBLE, decode
from periphery.train.targets import ANCHORS, GRID_Z_OFFSET

THRESHOLDS = (0.5, 0.3)
NMS_RADIUS = 2.0  # the trainer's fixed radius
SCORE_TOLERANCE = 1e-6
METRE_TOLERANCE = 1e-6
YAW_TOLERANCE = 1e-6


def candidate(ix: int, iy: int, size: int, rotation: int) -> int:
    """Candidate index of anchor (ix, iy, size, rotation): ix outer, then iy, size, rotation."""
    return ((ix * 40 + iy) * 4 + size) * 2 + rotation


def head_tensors(seed: int = 2026) -> Dict[str, np.ndarray]:
    """Classes [6720, 4], boxes [6720, 9] and directions [6720, 2], float32.

    Background: logits around −7 (scores ≤ 0.01). Strong candidates: 26 clusters of 1–4 candidates in
    one head cell or its neighbours (so NMS has work), each with a best-class logit in [−1.2, 4]
    (scores 0.23–0.98) and codes that decode to a box of its class's plausible size (one in five
    deliberately implausible: too long, too tall or floating), base within ±0.5 m of the road,
    centre within 0.5 m of its anchor, any yaw, either direction bin. Four candidates decode
    outside the region (beside it and behind the camera)."""
    rng = np.random.default_rng(seed)
    classes = rng.normal(-7.0, 1.0, (6720, 4))
    boxes = rng.normal(0.0, 0.1, (6720, 9))
    directions = rng.normal(0.0, 1.0, (6720, 2))
    used = set()

    def strong(n: int, label: int, implausible: bool, offset=None) -> None:
        a = ANCHORS[n]  # grid x, y, z_bottom, w, l, h, yaw
        (l0, l1), (w0, w1), (h0, h1) = PLAUSIBLE[label]
        # Sizes 10 % of each range inside it, and length ≥ width (the filter needs ≥ 0.9 · width).
        l0, l1, w0, w1 = l0 + 0.1 * (l1 - l0), l1 - 0.1 * (l1 - l0), w0 + 0.1 * (w1 - w0), w1 - 0.1 * (w1 - w0)
        w = rng.uniform(w0, min(w1, l1))
        length = rng.uniform(max(l0, w), l1)
        h = rng.uniform(h0 + 0.1 * (h1 - h0), h1 - 0.1 * (h1 - h0))
        base = rng.uniform(-0.5, 0.5)
        if implausible:
            kind = rng.integers(3)
            length, h, base = (1.5 * l1, h, base) if kind == 0 else (length, 1.5 * h1, base) if kind == 1 else (length, h, 2.0)
        diag = math.hypot(a[3], a[4])
        dx, dy = offset if offset is not None else rng.uniform(-0.5, 0.5, 2)
        z_centre = base + h / 2 - GRID_Z_OFFSET  # grid frame
        boxes[n, :7] = (dx / diag, dy / diag, (z_centre - (a[2] + a[5] / 2)) / a[5],
                        math.log(w / a[3]), math.log(length / a[4]), math.log(h / a[5]), rng.uniform(-math.pi, math.pi))
        best = rng.uniform(-1.2, 4.0)
        classes[n] = best - rng.uniform(0.5, 3.0, 4)
        classes[n, label] = best
        directions[n] = rng.normal(0.0, 1.0, 2)
        used.add(n)

    def fresh(ix: int, iy: int) -> int:
        while True:
            n = candidate(ix, iy, int(rng.integers(4)), int(rng.integers(2)))
            if n not in used:
                return n

    for _ in range(26):
        ix, iy = int(rng.integers(2, 19)), int(rng.integers(2, 38))
        for _ in range(int(rng.integers(1, 5))):
            n = fresh(ix + int(rng.integers(-1, 2)), iy + int(rng.integers(-1, 2)))
            strong(n, int(rng.choice(4, p=[0.45, 0.2, 0.2, 0.15])), rng.random() < 0.2)
    # Outside the region: beside it (vehicle y > 10 and < −10) and behind the camera (x < 0).
    for ix, iy, offset in ((0, 12, (-0.8, 0.0)), (20, 25, (0.8, 0.0)), (10, 0, (0.0, -1.3)), (5, 0, (0.0, -1.4))):
        strong(fresh(ix, iy), 0, False, offset)
    return {"classes": classes.astype(np.float32), "boxes": boxes.astype(np.float32),
            "directions": directions.astype(np.float32)}


@pytest.fixture(scope="module")
def head(tmp_path_factory) -> Dict[str, object]:
    tensors = head_tensors()
    path = tmp_path_factory.mktemp("decode") / "head.safetensors"
    save_file(tensors, str(path))
    return {"path": path, **tensors}


def library(periphery_cli: Path, head_file: Path, threshold: float, radius: float, implausible: bool) -> List[dict]:
    """`periphery decode` → its detections (dicts of score, label, class, x, y, z, length, width, height, yaw)."""
    command = [str(periphery_cli), "decode", "--head", str(head_file), "--threshold", str(threshold),
               "--nms-radius", str(radius)] + (["--reject-implausible"] if implausible else [])
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_data_are_unambiguous_and_exercise_every_rule(periphery_cli: Path, head) -> None:
    """Preconditions of the comparison: decisions that rounding cannot flip, and work for each rule."""
    low = min(THRESHOLDS) - 0.05
    every = library(periphery_cli, head["path"], low, 0.0, False)  # no NMS, no filter: all in-region vehicles
    scores = np.array([d["score"] for d in every])
    for threshold in THRESHOLDS:
        assert np.abs(scores - threshold).min() > 1e-5, threshold
        assert (scores >= threshold).sum() > 5, threshold
    assert np.diff(np.sort(scores)).min() > 1e-5
    centres = np.array([(d["x"], d["y"]) for d in every])
    distances = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    assert np.abs(distances[np.triu_indices(len(every), 1)] - NMS_RADIUS).min() > 1e-6
    # Each rule drops something: the threshold, the plausibility filter, NMS; and pedestrians and the
    # region drop candidates that would otherwise pass.
    filtered = library(periphery_cli, head["path"], low, 0.0, True)
    kept = library(periphery_cli, head["path"], low, NMS_RADIUS, True)
    assert len(every) > len(filtered) > len(kept) > 0
    assert len(library(periphery_cli, head["path"], 0.5, NMS_RADIUS, True)) < len(kept)
    scores_all = 1 / (1 + np.exp(-head["classes"].astype(np.float64)))
    strong = scores_all.max(1) >= low
    assert (strong & (scores_all.argmax(1) == 3)).sum() > 0
    vehicles = int((strong & (scores_all.argmax(1) < 3)).sum())
    assert vehicles > len(every)  # the out-of-region candidates


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_trainer_decode_matches_the_library(periphery_cli: Path, head, threshold: float) -> None:
    ours = decode(head["classes"], head["boxes"], head["directions"], threshold)
    theirs = library(periphery_cli, head["path"], threshold, NMS_RADIUS, True)
    assert len(ours) == len(theirs) > 5
    worst = {"score": 0.0, "metres": 0.0, "yaw": 0.0}
    for mine, lib in zip(ours, theirs):
        score, label, x, y, z, length, width, height, yaw = mine
        assert label == lib["label"], (mine, lib)
        assert label in (0, 1, 2)
        worst["score"] = max(worst["score"], abs(score - lib["score"]))
        worst["metres"] = max(worst["metres"], *(abs(a - lib[k]) for a, k in (
            (x, "x"), (y, "y"), (z, "z"), (length, "length"), (width, "width"), (height, "height"))))
        worst["yaw"] = max(worst["yaw"], abs((yaw - lib["yaw"] + math.pi) % (2 * math.pi) - math.pi))
    print(f"\n  threshold {threshold}: {len(ours)} detections, worst differences {worst}")
    assert worst["score"] <= SCORE_TOLERANCE, worst
    assert worst["metres"] <= METRE_TOLERANCE, worst
    assert worst["yaw"] <= YAW_TOLERANCE, worst

"""Decode and evaluation as the library does them (`docs/reference/contract.md#3-decode`,
`docs/guides/evaluation.md`): precision, recall, F1 and centre error at a threshold on held-out
frames (python/tests/test_decode.py holds ``decode`` equal to the library's).
"""
from __future__ import annotations

import math
from typing import Dict, List, Tuple

import numpy as np
import torch

from periphery.reference import safety40 as ref
from periphery.train.batches import batch
from periphery.train.data import Frame
from periphery.train.model import forward
from periphery.train.targets import ANCHORS, DIR_OFFSET, GRID_X_OFFSET, GRID_Z_OFFSET, VEHICLE_LABELS, dont_care, in_view

PLAUSIBLE = {1: ((4.0, 20.0), (1.8, 3.2), (1.8, 4.5)), 2: ((1.0, 3.2), (0.3, 1.4), (0.8, 2.2)),
             3: ((0.2, 1.2), (0.2, 1.2), (1.0, 2.2)), 0: ((2.5, 7.0), (1.3, 2.6), (1.0, 2.6))}


def decode(classes: np.ndarray, boxes: np.ndarray, dirs: np.ndarray, threshold: float) -> List[Tuple[float, ...]]:
    """Detections (score, label, x, y, z, length, width, height, yaw) in the vehicle frame, after NMS."""
    scores_all = 1.0 / (1.0 + np.exp(-classes.astype(np.float64)))
    label = scores_all.argmax(1)
    score = scores_all.max(1)
    keep = (score >= threshold) & (label < 3)
    a, d, s = ANCHORS[keep], boxes[keep].astype(np.float64), score[keep]
    diag = np.hypot(a[:, 3], a[:, 4])
    x = d[:, 0] * diag + a[:, 0]
    y = d[:, 1] * diag + a[:, 1]
    zc = d[:, 2] * a[:, 5] + a[:, 2] + a[:, 5] / 2
    w, l, h = np.exp(d[:, 3]) * a[:, 3], np.exp(d[:, 4]) * a[:, 4], np.exp(d[:, 5]) * a[:, 5]
    rot = d[:, 6] + a[:, 6]
    bins = (dirs[keep, 1] > dirs[keep, 0]).astype(np.float64)
    v = rot - DIR_OFFSET
    v = v - np.floor(v / math.pi) * math.pi
    yaw = -(v + DIR_OFFSET + math.pi * bins) - math.pi
    yaw -= np.floor((yaw + math.pi) / (2 * math.pi)) * 2 * math.pi
    X, Y, Z = y + GRID_X_OFFSET, -x, zc + GRID_Z_OFFSET
    dets = []
    for i in np.argsort(-s, kind="stable"):
        lab = int(label[keep][i])
        if not (0 <= X[i] <= 40 and -10 <= Y[i] <= 10):
            continue
        (l0, l1), (w0, w1), (h0, h1) = PLAUSIBLE[lab]
        base = Z[i] - h[i] / 2
        if not (l0 <= l[i] <= l1 and w0 <= w[i] <= w1 and h0 <= h[i] <= h1 and -1.5 < base < 1.5 and l[i] >= 0.9 * w[i]):
            continue
        dets.append((float(s[i]), lab, X[i], Y[i], Z[i], l[i], w[i], h[i], yaw[i]))
    kept: List[Tuple[float, ...]] = []
    for det in dets:
        if all((det[2] - k[2]) ** 2 + (det[3] - k[3]) ** 2 >= 4.0 for k in kept):
            kept.append(det)
    return kept


def match(dets: List[Tuple[float, ...]], truth: List[Dict[str, float]], threshold: float,
          max_range: float = math.inf) -> Dict[str, list]:
    """`docs/guides/evaluation.md` matching of one frame → counts and TP errors; labels not in view or of an
    unknown class (label −1) are don't care.

    ``max_range`` restricts both sides to hypot(x, y) ≤ it (10 for the "inside 10 m" figures)."""
    inside = lambda x, y: 0 <= x <= 40 and -10 <= y <= 10 and math.hypot(x, y) <= max_range  # noqa: E731
    gts = [t for t in truth if int(t["label"]) in VEHICLE_LABELS and inside(t["x"], t["y"]) and in_view(t)]
    ignored = [t for t in truth if dont_care(t)]
    preds = [d for d in dets if d[0] >= threshold and d[1] in VEHICLE_LABELS and inside(d[2], d[3])]
    used = [False] * len(gts)
    tp, centre, yaw, unmatched = 0, [], [], []
    for d in preds:
        best, best_dist = -1, 2.0
        for j, g in enumerate(gts):
            dist = math.hypot(d[2] - g["x"], d[3] - g["y"])
            if not used[j] and dist < best_dist:
                best, best_dist = j, dist
        if best >= 0:
            used[best] = True
            tp += 1
            centre.append(best_dist)
            e = abs((d[8] - gts[best]["yaw"] + math.pi) % (2 * math.pi) - math.pi)
            yaw.append(math.degrees(e))
        else:
            unmatched.append(d)
    # Unmatched predictions near a don't-care vehicle are neither true nor false positives.
    fp = sum(1 for d in unmatched if all(math.hypot(d[2] - t["x"], d[3] - t["y"]) >= 2.0 for t in ignored))
    return {"tp": [tp], "fp": [fp], "fn": [len(gts) - tp], "centre": centre, "yaw": yaw}


@torch.no_grad()
def predict(model: ref.Safety40, frames: List[Frame], device: torch.device) -> List[Tuple[np.ndarray, ...]]:
    """Head outputs (classes, boxes, directions) of every frame, in eval mode."""
    model.eval()
    out = []
    for start in range(0, len(frames), 4):
        chunk = frames[start : start + 4]
        images, idx, vis, *_ = batch(chunk, None, device)
        cls, reg, dirs = (t.float().cpu().numpy() for t in forward(model, images, idx, vis))
        out += [(cls[i], reg[i], dirs[i]) for i in range(len(chunk))]
    model.train()
    return out


def score(outputs: List[Tuple[np.ndarray, ...]], frames: List[Frame], threshold: float = 0.6) -> Dict[str, float]:
    """The `docs/guides/evaluation.md` report of predictions at one threshold (with precision/recall inside 10 m)."""
    total = {"tp": [], "fp": [], "fn": [], "centre": [], "yaw": []}
    near = {"tp": [], "fp": [], "fn": []}
    for (cls, reg, dirs), frame in zip(outputs, frames):
        dets = decode(cls, reg, dirs, min(threshold, 0.5))
        for k, v in match(dets, frame.boxes, threshold).items():
            total[k] += v
        for k, v in match(dets, frame.boxes, threshold, max_range=10.0).items():
            if k in near:
                near[k] += v
    ratio = lambda a, b: a / b if b else 0.0  # noqa: E731
    tp, fp, fn = sum(total["tp"]), sum(total["fp"]), sum(total["fn"])
    p, r = ratio(tp, tp + fp), ratio(tp, tp + fn)
    ntp, nfp, nfn = sum(near["tp"]), sum(near["fp"]), sum(near["fn"])
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "median_centre_error_m": float(np.median(total["centre"])) if total["centre"] else float("nan"),
            "median_yaw_error_deg": float(np.median(total["yaw"])) if total["yaw"] else float("nan"),
            "precision_10m": ratio(ntp, ntp + nfp), "recall_10m": ratio(ntp, ntp + nfn),
            "frames": len(frames)}


def evaluate(model: ref.Safety40, frames: List[Frame], device: torch.device, threshold: float = 0.6) -> Dict[str, float]:
    return score(predict(model, frames, device), frames, threshold)

#!/usr/bin/env python3
"""Trains the Safety40 network on frames of the synthetic world (`periphery synth --network-inputs`).

Every frame reaches the network exactly as the Swift engine feeds it: `DIR/network/NNNNNN.bin` holds
the engine's own focal-matched crop, Lanczos-3 resize and letterbox (8-bit pixels, normalised here
with the contract's mean/std, padding 0) and the frame's ProjectionLUT, so the per-frame calibration
is the one `periphery eval` will use. Labels come from `DIR/labels/NNNNNN.json`.

Recipe (`docs/training.md`, "Anchor3DHead" with remedy 3 for the contract's small anchors):

* targets: for each vehicle, every anchor (all sizes and both rotations) of the head cells whose
  centre lies within ``--pos-radius`` metres of the box centre is positive (the nearest cell always
  is); other anchors of cells within ``--ignore-radius`` are ignored; the rest are background.
  Regression targets use the DeltaXYZWLHR coder of `docs/contract.md#3-decode` against the contract anchors,
  in the grid frame; direction bins as mmdet3d (offset 0.7854).
* losses: sigmoid focal loss (γ 2, α 0.25) on classes, smooth-L1 (β 1/9) on the 7 box codes with
  sin-difference on yaw (velocity codes weighted 0: Safety40 never reads them), softmax CE on the
  direction bins; each divided by the number of positives. ``--two-wheeler-weight W`` weighs
  two-wheeler positives W times in the class loss, ``--oversample-near-two-wheelers N`` repeats the
  frames with a two-wheeler in view within 12 m N times per epoch (the rare, weak case);
  ``--near-box-weight W`` weighs the box codes of positives in head cells within
  ``--near-box-range`` metres W times (range accuracy near the 10 m boundary of `docs/evaluation.md`);
* an auxiliary, training-only head on the stride-4 features learns which pixels show a vehicle (the
  box silhouettes through the camera fitted to the frame's LUT; sigmoid focal loss): dense 2-D
  supervision that a from-scratch backbone needs to learn vehicle features in hours rather than days.
  It is not part of the exported network;
* AdamW (0.9/0.999, weight decay 0.01), linear warm-up then cosine decay, global-norm clip 35;
  BN in training mode (from scratch); photometric augmentation (brightness, contrast, per-channel
  gain, noise) applied to the 8-bit pixels inside the letterbox.

Checkpoints (``--out``/checkpoint.pt, written atomically every ``--checkpoint-every`` iterations)
hold the model, the optimiser, the iteration, the epoch's frame order and every RNG state, so a
stopped run resumes exactly where it was (``--resume``). ``train.log`` gets one JSON line per
logged iteration (losses, lr, images/s) and per validation (precision, recall, F1 and centre error at
0.60 on the held-out frames of ``--val``, matched by `docs/evaluation.md`).

Uses CUDA when present. ``--export`` writes the F16 weights with provenance metadata; with
``--calibrate-scores DIR`` the class logits are first shifted so that the operating point on DIR's
frames sits at 0.60 (``calibrate_scores``; ``--calibration-near-recall R`` puts recall inside 10 m
up to R before F1).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import safety40_torch as ref  # noqa: E402

RECORD_BYTES = 16 + 3 * 256 * 512 + 5 * ref.VOXELS
MEAN = np.array(ref.PIXEL_MEAN, dtype=np.float32)
STD = np.array(ref.PIXEL_STD, dtype=np.float32)
VEHICLE_LABELS = (0, 1, 2)

# --- contract: anchors and coder (`docs/contract.md#24-anchors`, `#3-decode`) -------------------------------------
ANCHOR_SIZES = ((0.866, 2.5981, 1.0), (0.5774, 1.7321, 1.0), (1.0, 1.0, 1.0), (0.4, 0.4, 1.0))
ANCHOR_ROTATIONS = (0.0, 1.57)
DIR_OFFSET = 0.7854
GRID_X_OFFSET = 0.944  # vehicle x = grid y + 0.944
GRID_Z_OFFSET = 1.840  # vehicle z = grid z + 1.840
CODE_WEIGHTS = torch.tensor([1, 1, 1, 1, 1, 1, 1, 0, 0], dtype=torch.float32)


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
# Vehicle-frame range of each anchor's cell centre (vehicle x = grid y + offset, vehicle y = −grid x).
ANCHOR_RANGE = torch.from_numpy(np.hypot(ANCHORS[:, 1] + GRID_X_OFFSET, ANCHORS[:, 0])).float()  # [6720]


def limit_period(v: np.ndarray, offset: float, period: float) -> np.ndarray:
    return v - np.floor(v / period + offset) * period


def vehicle_to_grid(box: Dict[str, float]) -> Tuple[float, ...]:
    """A label box (vehicle frame, z = centre) → grid (x, y, z_bottom, w, l, h, yaw); inverse of §3 step 5."""
    return (-box["y"], box["x"] - GRID_X_OFFSET, box["z"] - box["height"] / 2 - GRID_Z_OFFSET,
            box["width"], box["length"], box["height"], -box["yaw"] - math.pi)


def has_near_two_wheeler(frame: "Frame", radius: float = 12.0) -> bool:
    """Whether the frame holds a two-wheeler in the network's view within `radius` metres."""
    return any(int(b["label"]) == 2 and in_view(b) and math.hypot(b["x"], b["y"]) <= radius for b in frame.boxes)


def in_view(box: Dict[str, float]) -> bool:
    """Whether a label counts as visible to the network (its `in_view`; older labels lack it)."""
    return bool(box.get("in_view", True))


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
        if label not in VEHICLE_LABELS:
            continue
        g = vehicle_to_grid(box)
        dist = np.hypot(CELL_CENTRES[:, 0] - g[0], CELL_CENTRES[:, 1] - g[1])
        cells = dist < pos_radius
        cells[np.argmin(dist)] = True
        near = np.repeat(dist < ignore_radius, ref.ANCHORS)
        ignore |= near
        # Outside the network's crop (or mostly so) the vehicle cannot be seen: teach neither
        # "vehicle" nor "background" there.
        if not in_view(box):
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


# Vehicle-frame centres of every voxel, [6560, 3] (`docs/contract.md#21-voxel-centres` in grid metres → vehicle frame).
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


# --- data ------------------------------------------------------------------------------------
class Frame:
    """One dataset frame in memory: 8-bit pixels, letterbox, LUT and anchor targets."""

    __slots__ = ("name", "pixels", "letterbox", "lut_index", "lut_visibility", "labels", "codes", "dirs", "boxes", "mask")

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
        self.labels, self.codes, self.dirs, _ = encode_targets(self.boxes, pos_radius, ignore_radius)
        self.mask = vehicle_pixels(self.boxes, self.lut_index, self.lut_visibility)


def load_frames(directories: List[Path], pos_radius: float, ignore_radius: float,
                known: Optional[Dict[str, Frame]] = None) -> Dict[str, Frame]:
    """Every frame with a network record in the directories (already loaded ones are kept)."""
    frames = dict(known or {})
    for directory in directories:
        net = directory / "network"
        if not net.is_dir():
            raise ValueError(f"{directory}: no network/ folder (make it with `periphery synth --network-inputs`)")
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


def batch(frames: List[Frame], rng: Optional[np.random.Generator], device: torch.device):
    images = np.stack([normalise(augment(f.pixels, f.letterbox, rng) if rng is not None else f.pixels, f.letterbox)
                       for f in frames])
    to = lambda a: torch.from_numpy(np.stack(a)).to(device)  # noqa: E731
    return (torch.from_numpy(images).to(device).contiguous(memory_format=torch.channels_last), to([f.lut_index for f in frames]), to([f.lut_visibility for f in frames]),
            to([f.labels for f in frames]), to([f.codes for f in frames]), to([f.dirs for f in frames]),
            to([f.mask for f in frames]))


# --- network with per-frame LUTs -----------------------------------------------------------
def forward(model: ref.Safety40, images: torch.Tensor, lut_index: torch.Tensor, lut_vis: torch.Tensor, aux=None):
    """Batched Safety40 forward with one LUT per frame → (classes [B,6720,4], boxes [B,6720,9], dirs [B,6720,2]),
    plus the auxiliary head's vehicle logits [B, 64·128] on the features when ``aux`` is given."""
    feats = model.features(images)
    aux_logits = aux(feats).reshape(feats.shape[0], -1) if aux is not None else None
    b = feats.shape[0]
    flat = feats.reshape(b, ref.FEATURE_C, ref.FEATURE_H * ref.FEATURE_W)
    vol = torch.gather(flat, 2, lut_index[:, None, :].expand(b, ref.FEATURE_C, ref.VOXELS)) * lut_vis[:, None, :]
    vol = vol.reshape(b, ref.FEATURE_C, ref.GRID_X, ref.GRID_Y, ref.GRID_Z)
    bev = model.neck_3d(vol)
    cls, reg, dirs = model.bbox_head(bev)
    per = lambda t, c: t.permute(0, 2, 3, 1).reshape(b, -1, c)  # noqa: E731
    outputs = (per(cls, ref.CLASSES), per(reg, ref.CODE_SIZE), per(dirs, 2))
    return outputs if aux is None else (*outputs, aux_logits)


def losses(outputs, labels, codes, dirs, box_weight: float, dir_weight: float,
           two_wheeler_weight: float = 1.0, near_box_weight: float = 1.0,
           near_box_range: float = 14.0) -> Dict[str, torch.Tensor]:
    cls, reg, dir_logits = outputs
    positive = (labels >= 0) & (labels < ref.CLASSES)
    valid = labels >= 0
    num_pos = max(float(positive.sum().item()), 1.0)
    onehot = F.one_hot(labels.clamp(min=0), ref.CLASSES + 1)[..., : ref.CLASSES].to(cls.dtype)
    p = torch.sigmoid(cls)
    ce = F.binary_cross_entropy_with_logits(cls, onehot, reduction="none")
    p_t = p * onehot + (1 - p) * (1 - onehot)
    alpha_t = 0.25 * onehot + 0.75 * (1 - onehot)
    focal = (alpha_t * (1 - p_t) ** 2 * ce).sum(-1)
    # Two-wheeler positives can weigh more: they are few and were scored below the threshold.
    weight = 1.0 + (two_wheeler_weight - 1.0) * (labels == 2).to(cls.dtype)
    loss_cls = (focal * valid * weight).sum() / num_pos
    pred = reg[positive]
    target = codes[positive]
    if pred.numel():
        # sin-difference on the yaw code: sin(p)cos(t) vs cos(p)sin(t)
        p_yaw, t_yaw = pred[:, 6:7], target[:, 6:7]
        pred = torch.cat([pred[:, :6], torch.sin(p_yaw) * torch.cos(t_yaw), pred[:, 7:]], 1)
        target = torch.cat([target[:, :6], torch.cos(p_yaw) * torch.sin(t_yaw), target[:, 7:]], 1)
        diff = (pred - target).abs()
        beta = 1.0 / 9.0
        sl1 = torch.where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta)
        # A positive's cell lies within pos_radius of its truth, so the cell's range stands for it.
        near = (ANCHOR_RANGE.to(reg.device) <= near_box_range).expand_as(positive)[positive]
        row_weight = 1.0 + (near_box_weight - 1.0) * near.to(sl1.dtype)
        loss_box = (sl1 * CODE_WEIGHTS.to(sl1.device) * row_weight[:, None]).sum() / num_pos
        loss_dir = F.cross_entropy(dir_logits[positive], dirs[positive], reduction="sum") / num_pos
    else:
        loss_box = reg.sum() * 0
        loss_dir = dir_logits.sum() * 0
    return {"cls": loss_cls, "box": box_weight * loss_box, "dir": dir_weight * loss_dir}


def aux_loss(logits: torch.Tensor, mask: torch.Tensor, weight: float) -> torch.Tensor:
    """Sigmoid focal loss of the auxiliary vehicle-pixel head, per positive pixel."""
    target = F.max_pool2d(mask.reshape(-1, 1, ref.FEATURE_H, ref.FEATURE_W), 3, 1, 1).reshape(mask.shape)
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
    p_t = p * target + (1 - p) * (1 - target)
    focal = (0.25 * target + 0.75 * (1 - target)) * (1 - p_t) ** 2 * ce
    return weight * focal.sum() / target.sum().clamp(min=1.0)


class AuxiliaryHead(torch.nn.Module):
    """Training-only head on the stride-4 features: which pixels show a vehicle. Dense 2-D
    supervision teaches the from-scratch backbone vehicle features far faster than the sparse BEV
    targets alone; it is not part of the exported network."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(ref.FEATURE_C, 64, 3, 1, 1)
        self.out = torch.nn.Conv2d(64, 1, 1)
        torch.nn.init.normal_(self.out.weight, 0, 0.01)
        torch.nn.init.constant_(self.out.bias, -math.log(0.99 / 0.01))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(F.relu(self.conv(x)))


# --- decode and evaluation (`docs/contract.md#3-decode`, `docs/evaluation.md`) ----------------------------------
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
    """`docs/evaluation.md` matching of one frame → counts and TP errors; labels not in view are don't care.

    ``max_range`` restricts both sides to hypot(x, y) ≤ it (10 for the "inside 10 m" figures)."""
    inside = lambda x, y: 0 <= x <= 40 and -10 <= y <= 10 and math.hypot(x, y) <= max_range  # noqa: E731
    gts = [t for t in truth if int(t["label"]) in VEHICLE_LABELS and inside(t["x"], t["y"]) and in_view(t)]
    dont_care = [t for t in truth if not in_view(t)]
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
    fp = sum(1 for d in unmatched if all(math.hypot(d[2] - t["x"], d[3] - t["y"]) >= 2.0 for t in dont_care))
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
    """The `docs/evaluation.md` report of predictions at one threshold (with precision/recall inside 10 m)."""
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


def shifted(outputs: List[Tuple[np.ndarray, ...]], shifts: np.ndarray) -> List[Tuple[np.ndarray, ...]]:
    """Head outputs with `shifts[k]` added to every class-k logit."""
    return [(cls + shifts[None, :].astype(cls.dtype), reg, dirs) for cls, reg, dirs in outputs]


def calibrate_scores(model: ref.Safety40, frames: List[Frame], device: torch.device, near_recall: float = 0.0
                     ) -> Tuple[List[float], float, Dict[str, float]]:
    """Per-class logit shifts that put the F1-best operating point on `frames` at score 0.60.

    First one shift for all classes, which moves the F1-best threshold to 0.60 and changes no
    ranking, argmax or NMS order; then each vehicle class's shift is refined in turn (two rounds of
    coordinate ascent over ±1.5 in steps of 0.125) for the F1 at 0.60, because the classes are not
    equally confident (near two-wheelers scored 0.3–0.5 where cars score 0.9). With
    ``near_recall`` > 0 the refinement ranks a trial first by min(recall inside 10 m,
    ``near_recall``) and then by F1: the operating point meets the near-range recall target on
    ``frames`` where it can, at the least cost in F1. Returns the shifts (class order of
    `docs/contract.md`; pedestrians keep the common one), the common threshold before, and the F1 by
    common threshold."""
    outputs = predict(model, frames, device)
    table = {f"{t:.3f}": score(outputs, frames, float(t))["f1"] for t in np.arange(0.10, 0.61, 0.025)}
    best = float(max(table, key=lambda k: (table[k], -abs(float(k) - 0.6))))
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    shifts = np.full(ref.CLASSES, logit(0.6) - logit(best))
    def key(report: Dict[str, float]) -> Tuple[float, float]:
        return (min(report["recall_10m"], near_recall), report["f1"])

    best_key = key(score(shifted(outputs, shifts), frames))
    for _ in range(2):
        for k in sorted(VEHICLE_LABELS):
            chosen = shifts
            for delta in np.arange(-1.5, 1.501, 0.125):
                trial = shifts.copy()
                trial[k] += delta
                value = key(score(shifted(outputs, trial), frames))
                if value > (best_key[0], best_key[1] + 1e-9):
                    best_key, chosen = value, trial
            shifts = chosen
    final = score(shifted(outputs, shifts), frames)
    table["per_class_f1_at_0.60"] = final["f1"]
    table["recall_10m_at_0.60"] = final["recall_10m"]
    return [float(v) for v in shifts], best, table


# --- training loop ---------------------------------------------------------------------------
def init_head(model: ref.Safety40) -> None:
    for conv in (model.bbox_head.conv_cls, model.bbox_head.conv_reg, model.bbox_head.conv_dir_cls):
        torch.nn.init.normal_(conv.weight, 0, 0.01)
        torch.nn.init.zeros_(conv.bias)
    torch.nn.init.constant_(model.bbox_head.conv_cls.bias, -math.log(0.99 / 0.01))


def learning_rate(it: int, args) -> float:
    if it < args.warmup:
        return args.lr * (0.001 + 0.999 * it / args.warmup)
    t = (it - args.warmup) / max(args.iterations - args.warmup, 1)
    return args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(t, 1.0))))


def rng_state(np_rng: np.random.Generator) -> dict:
    return {"python": random.getstate(), "numpy": np_rng.bit_generator.state, "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}


def save_checkpoint(path: Path, payload: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)


def export(model: ref.Safety40, path: Path, metadata: Dict[str, str]) -> None:
    state = {k: v.detach().float().cpu().numpy().astype(np.float16) for k, v in model.state_dict().items()
             if not k.endswith("num_batches_tracked")}
    ref.write_safetensors(path, state, metadata)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, nargs="+", required=True, help="dataset directories made by `periphery synth --network-inputs`")
    ap.add_argument("--val", type=Path, help="held-out dataset directory for the F1 in the log")
    ap.add_argument("--out", type=Path, required=True, help="run directory (checkpoint.pt, train.log)")
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--warmup", type=int, default=300)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--box-weight", type=float, default=2.0)
    ap.add_argument("--dir-weight", type=float, default=0.8)
    ap.add_argument("--pos-radius", type=float, default=0.8, help="metres: head cells this close to a box centre are positive")
    ap.add_argument("--ignore-radius", type=float, default=1.6, help="metres: other anchors this close are ignored")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--val-every", type=int, default=500)
    ap.add_argument("--checkpoint-every", type=int, default=100)
    ap.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    ap.add_argument("--export", type=Path, help="write the F16 weights here when training ends")
    ap.add_argument("--data-seed", default="", help="provenance: the synth seeds of --data (metadata only)")
    ap.add_argument("--evaluation", type=Path,
                    help="a `periphery eval --json` result to record in the exported metadata (key `evaluation`)")
    ap.add_argument("--training-hours", default="", help="provenance: wall-clock hours and machine (metadata only)")
    ap.add_argument("--aux-weight", type=float, default=1.0, help="weight of the auxiliary vehicle-pixel loss (0: off)")
    ap.add_argument("--init-from", type=Path, help="start from this checkpoint's network weights (not its optimiser)")
    ap.add_argument("--calibrate-scores", type=Path, nargs="+", metavar="DIR",
                    help="before export, shift the class logits so that the F1-best threshold on these held-out "
                         "datasets becomes 0.60 (Platt-style bias, folded into bbox_head.conv_cls.bias)")
    ap.add_argument("--oversample-near-two-wheelers", type=int, default=1, metavar="TIMES",
                    help="frames with an in-view two-wheeler within 12 m appear this many times per epoch")
    ap.add_argument("--calibration-near-recall", type=float, default=0.0, metavar="R",
                    help="score calibration meets recall inside 10 m >= R on its frames first, then maximises F1")
    ap.add_argument("--two-wheeler-weight", type=float, default=1.0,
                    help="weight of two-wheeler positives in the class loss (1: as every class)")
    ap.add_argument("--near-box-weight", type=float, default=1.0,
                    help="weight of the box codes of positives within --near-box-range metres (1: as every range)")
    ap.add_argument("--near-box-range", type=float, default=14.0, metavar="M",
                    help="metres: range of the head cells whose positives --near-box-weight weighs")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop (after a checkpoint) when this much time has passed")
    args = ap.parse_args(argv)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt_path = args.out / "checkpoint.pt"
    log = open(args.out / "train.log", "a", buffering=1)

    random.seed(args.seed)
    np_rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    # channels-last convolutions run about twice as fast on CPU (oneDNN), measured here.
    model = ref.Safety40().to(device, memory_format=torch.channels_last)
    init_head(model)
    aux = AuxiliaryHead().to(device, memory_format=torch.channels_last) if args.aux_weight > 0 else None
    if args.init_from:
        init = torch.load(args.init_from, map_location=device, weights_only=False)
        model.load_state_dict(init["model"])
        if aux is not None and init.get("aux"):
            aux.load_state_dict(init["aux"])
        print(f"initialised from {args.init_from} (iteration {init['iteration']}, {init['images_seen']} images)", flush=True)
    model.train()
    decay, no_decay = [], []
    params = list(model.named_parameters()) + (list(aux.named_parameters()) if aux is not None else [])
    for name, p in params:
        (no_decay if p.ndim == 1 else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
    it, epoch, order, position, images_seen = 0, 0, [], 0, 0
    if args.resume and ckpt_path.exists():
        ck = torch.load(ckpt_path, map_location=device, weights_only=False)
        model.load_state_dict(ck["model"])
        if aux is not None:
            aux.load_state_dict(ck["aux"])
        opt.load_state_dict(ck["optimizer"])
        it, epoch, order, position, images_seen = ck["iteration"], ck["epoch"], ck["order"], ck["position"], ck["images_seen"]
        random.setstate(ck["rng"]["python"])
        np_rng.bit_generator.state = ck["rng"]["numpy"]
        torch.set_rng_state(ck["rng"]["torch"])
        if ck["rng"]["cuda"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(ck["rng"]["cuda"])
        print(f"resumed at iteration {it} (epoch {epoch}, {images_seen} images seen)", flush=True)

    frames = load_frames(args.data, args.pos_radius, args.ignore_radius)
    val = list(load_frames([args.val], args.pos_radius, args.ignore_radius).values()) if args.val else []
    print(f"{len(frames)} training frames, {len(val)} held-out frames, device {device}, "
          f"threads {torch.get_num_threads()}", flush=True)
    missing = [k for k in order if k not in frames]
    if missing:
        raise SystemExit(f"checkpoint's epoch order names frames that are gone: {missing[:4]}")

    start = time.time()
    window = time.time()
    sums: Dict[str, float] = {}
    while it < args.iterations:
        if position + args.batch > len(order):
            # A new epoch picks up frames written since the last one (synth may still be running).
            frames = load_frames(args.data, args.pos_radius, args.ignore_radius, frames)
            order = sorted(frames)
            # Near two-wheelers are rare (7 % of frames) and were the detector's weakest case.
            order += [k for k in sorted(frames) if has_near_two_wheeler(frames[k])] * (args.oversample_near_two_wheelers - 1)
            random.Random(args.seed * 1000 + epoch).shuffle(order)
            epoch, position = epoch + 1, 0
        chunk = [frames[k] for k in order[position : position + args.batch]]
        position += args.batch
        for group in opt.param_groups:
            group["lr"] = learning_rate(it, args)
        images, idx, vis, labels, codes, dirs, masks = batch(chunk, np_rng, device)
        outputs = forward(model, images, idx, vis, aux)
        parts = losses(outputs[:3], labels, codes, dirs, args.box_weight, args.dir_weight, args.two_wheeler_weight,
                       args.near_box_weight, args.near_box_range)
        if aux is not None:
            parts["aux"] = aux_loss(outputs[3], masks, args.aux_weight)
        total = sum(parts.values())
        opt.zero_grad(set_to_none=True)
        total.backward()
        norm = torch.nn.utils.clip_grad_norm_([p for _, p in params], 35.0)
        opt.step()
        it += 1
        images_seen += len(chunk)
        for k, v in parts.items():
            sums[k] = sums.get(k, 0.0) + float(v.detach())
        sums["n"] = sums.get("n", 0) + 1
        if it % args.log_every == 0:
            rate = args.log_every * args.batch / (time.time() - window)
            window = time.time()
            entry = {"iteration": it, "epoch": epoch, "images_seen": images_seen, "lr": learning_rate(it - 1, args),
                     **{k: sums[k] / sums["n"] for k in parts}, "grad_norm": float(norm), "images_per_s": rate}
            log.write(json.dumps(entry) + "\n")
            print(" ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in entry.items()), flush=True)
            sums = {}
        if val and (it % args.val_every == 0 or it == args.iterations):
            result = {"iteration": it, "validation": evaluate(model, val, device)}
            log.write(json.dumps(result) + "\n")
            print(json.dumps(result), flush=True)
        out_of_time = args.max_minutes > 0 and time.time() - start > 60 * args.max_minutes
        if it % args.checkpoint_every == 0 or it == args.iterations or out_of_time:
            save_checkpoint(ckpt_path, {"model": model.state_dict(), "aux": aux.state_dict() if aux is not None else None,
                                        "optimizer": opt.state_dict(), "iteration": it,
                                        "epoch": epoch, "order": order, "position": position, "images_seen": images_seen,
                                        "rng": rng_state(np_rng), "args": vars(args) | {"data": [str(d) for d in args.data],
                                        "val": str(args.val), "out": str(args.out), "export": str(args.export)}})
        if out_of_time:
            print(f"stopping at iteration {it} after {args.max_minutes} minutes; --resume continues", flush=True)
            log.close()
            return 0
    if args.export:
        metadata = {
            **ref.WEIGHTS_METADATA, "bn_folded": "false", "trained_focal_px": "565.6",
            "parameter_count": str(sum(p.numel() for p in model.parameters())), "trained": "true",
            "training_data": "synthetic",
            "provenance": "trained from scratch by tools/train_synthetic.py on frames of Periphery's synthetic world "
                          "(periphery synth); synthetic scenes only - real cameras need the real Safety40 checkpoint",
            "data_seed": args.data_seed, "frames": str(len(frames)), "iterations": str(it),
            "images_seen": str(images_seen), "batch": str(args.batch), "device": str(device),
            "trainer_settings": json.dumps({k: v for k, v in sorted(vars(args).items())
                                            if k in ("lr", "warmup", "weight_decay", "box_weight", "dir_weight",
                                                     "pos_radius", "ignore_radius", "seed", "iterations", "batch",
                                                     "aux_weight", "oversample_near_two_wheelers", "two_wheeler_weight",
                                                     "near_box_weight", "near_box_range")} | {"init_from": str(args.init_from)}),
        }
        if args.calibrate_scores:
            held_out = list(load_frames(args.calibrate_scores, args.pos_radius, args.ignore_radius).values())
            shift, best, table = calibrate_scores(model, held_out, device, args.calibration_near_recall)
            with torch.no_grad():
                # conv_cls channel a·4 + k holds class k of anchor a (safety40_torch.candidate_major).
                model.bbox_head.conv_cls.bias += torch.tensor(shift, dtype=model.bbox_head.conv_cls.bias.dtype,
                                                              device=device).repeat(ref.ANCHORS)
            metadata["score_calibration"] = json.dumps({
                "logit_shift": shift, "threshold_before": best, "fitted_on": [str(d) for d in args.calibrate_scores],
                "near_recall_target": args.calibration_near_recall,
                "frames": len(held_out), "f1_by_threshold": table}, sort_keys=True)
            print(f"score calibration: F1-best threshold {best:.2f} on {len(held_out)} frames → logit shifts "
                  + ", ".join(f"{v:+.4f}" for v in shift) + f" (F1 at 0.60: {table['per_class_f1_at_0.60']:.4f}, "
                  f"recall inside 10 m {table['recall_10m_at_0.60']:.4f})", flush=True)
        if val:
            metadata["validation"] = json.dumps(evaluate(model, val, device), sort_keys=True)
        if args.evaluation:
            metadata["evaluation"] = json.dumps(json.loads(args.evaluation.read_text()), sort_keys=True)
        if args.training_hours:
            metadata["training_time"] = args.training_hours
        export(model, args.export, metadata)
        print(f"wrote {args.export}", flush=True)
    log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

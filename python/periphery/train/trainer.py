"""Trains the Safety40 network on dataset frames of any layout the engine reads (synthetic, KITTI object, Cityscapes 3D).

Every frame reaches the network exactly as the Swift engine feeds it: `DIR/network/NNNNNN.bin` holds
the engine's own focal-matched crop, Lanczos-3 resize and letterbox (8-bit pixels, normalised here
with the contract's mean/std, padding 0) and the frame's ProjectionLUT, so the per-frame calibration
is the one `periphery eval` will use. Labels come from `DIR/labels/NNNNNN.json`.

Dataset layouts (`docs/guides/training.md` §6): a ``--data`` directory that holds ``network/`` and
``labels/`` (`periphery synth --network-inputs`, or a cache made as below) is read as it is. Any
other directory (a KITTI object root, a Cityscapes 3D root, a synthetic directory without network
inputs) is first converted by ``$PERIPHERY prepare --data DIR --out CACHE`` (binary from the
environment variable PERIPHERY, default .build/release/periphery; ``--split``, ``--mount-height``,
``--mount-pitch``, ``--layout`` and ``--strict`` are passed through). The cache is
``--cache``/<dir name>-<8 hex of the SHA-1 of DIR's absolute path>[-<split>] (``--cache`` defaults to
OUT/prepared) and is reused when it holds the ``complete`` marker of a successful prepare and
was made with the same options (CACHE/prepare.json). Labels with ``"label": -1`` (a class that is not a Safety40 class)
or ``"in_view": false`` are never positives: their anchors are ignored, as are their surroundings.

Recipe (`docs/guides/training.md`, "Anchor3DHead" with remedy 3 for the contract's small anchors):

* targets: for each vehicle, every anchor (all sizes and both rotations) of the head cells whose
  centre lies within ``--pos-radius`` metres of the box centre is positive (the nearest cell always
  is); other anchors of cells within ``--ignore-radius`` are ignored; the rest are background.
  Regression targets use the DeltaXYZWLHR coder of `docs/reference/contract.md#3-decode` against the contract anchors,
  in the grid frame; direction bins as mmdet3d (offset 0.7854).
* losses: sigmoid focal loss (γ 2, α 0.25) on classes, smooth-L1 (β 1/9) on the 7 box codes with
  sin-difference on yaw (velocity codes weighted 0: Safety40 never reads them), softmax CE on the
  direction bins; each divided by the number of positives. ``--two-wheeler-weight W`` weighs
  two-wheeler positives W times in the class loss, ``--oversample-near-two-wheelers N`` repeats the
  frames with a two-wheeler in view within 12 m N times per epoch (the rare, weak case);
  ``--near-box-weight W`` weighs the box codes of positives in head cells within
  ``--near-box-range`` metres W times (range accuracy near the 10 m boundary of `docs/guides/evaluation.md`);
* an auxiliary, training-only head on the stride-4 features learns which pixels show a vehicle (the
  box silhouettes through the camera fitted to the frame's LUT; sigmoid focal loss): dense 2-D
  supervision that a from-scratch backbone needs to learn vehicle features in hours rather than days.
  It is not part of the exported network;
* AdamW (0.9/0.999, weight decay 0.01), linear warm-up then cosine decay, global-norm clip 35;
  BN in training mode (from scratch); photometric augmentation (brightness, contrast, per-channel
  gain, noise) applied to the 8-bit pixels inside the letterbox (``--photometric``, on by default,
  bit for bit as before). Geometric augmentation, off by default, changes image, LUT and labels
  together (``flip_sample``, ``zoom_sample``): ``--flip P`` mirrors the 512-wide input and the
  LUT so that the result is what the mirrored world would give (vehicle y → −y, yaw → −yaw);
  ``--zoom P --zoom-extent E`` zooms the letterboxed image by s in [1−E, 1+E] about a point near
  its centre and applies the same similarity to the LUT's image coordinates.

Distributed: under ``torchrun --nproc-per-node N`` (environment RANK, WORLD_SIZE, LOCAL_RANK) the
model runs in DistributedDataParallel (NCCL on CUDA, Gloo on CPU). ``--batch`` is the batch *per
rank* (global batch = batch × world size); every rank draws the same shuffled epoch order and rank r
takes positions r, r + W, … of each global batch; rank r augments with seed + rank. Only rank 0
writes train.log, checkpoints and the export; the checkpoint holds every rank's RNG states, so a
resumed run of the same world size continues exactly. On CUDA the forward pass and the losses run
under ``torch.autocast(dtype=bfloat16)`` (``--amp``/``--no-amp``; the CPU path is float32 and
unchanged). ``--init-from`` takes a checkpoint.pt of this trainer or a Safety40 safetensors file
(fine-tuning from our exported weights).

Checkpoints (``--out``/checkpoint.pt, written atomically every ``--checkpoint-every`` iterations)
hold the model, the optimiser, the iteration, the epoch's frame order and every RNG state, so a
stopped run resumes exactly where it was (``--resume``). ``train.log`` gets one JSON line per
logged iteration (losses, lr, images/s) and per validation (precision, recall, F1 and centre error at
0.60 on the held-out frames of ``--val``, matched by `docs/guides/evaluation.md`).

Uses CUDA when present (``--debug-record DIR`` writes, per rank and iteration, the frame names and the
synchronised gradients: what the DDP test compares). ``--export`` writes the F16 weights with provenance metadata; with
``--calibrate-scores DIR`` the class logits are first shifted so that the operating point on DIR's
frames sits at 0.60 (``calibrate_scores``; ``--calibration-near-recall R`` puts recall inside 10 m
up to R before F1).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

from periphery import _checkout
from periphery.reference import safety40 as ref

RECORD_BYTES = 16 + 3 * 256 * 512 + 5 * ref.VOXELS
MEAN = np.array(ref.PIXEL_MEAN, dtype=np.float32)
STD = np.array(ref.PIXEL_STD, dtype=np.float32)
VEHICLE_LABELS = (0, 1, 2)

# --- contract: anchors and coder (`docs/reference/contract.md#24-anchors`, `#3-decode`) -------------------------------------
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


# --- data ------------------------------------------------------------------------------------
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


def is_native(directory: Path) -> bool:
    """A directory the trainer reads as it is: network inputs and labels (synth --network-inputs, or a prepared cache)."""
    return (directory / "network").is_dir() and (directory / "labels").is_dir()


def layout(directory: Path) -> str:
    """The dataset layout of a --data directory, for the provenance metadata (`docs/guides/training.md` §6)."""
    if is_native(directory):
        return "prepared" if (directory / "sources.csv").exists() else "synthetic"
    if (directory / "gtBbox3d").is_dir():
        return "cityscapes3d"
    if any((directory / sub / "label_2").is_dir() for sub in ("", "training")):
        return "kitti"
    if (directory / "images").is_dir() and (directory / "labels").is_dir():
        return "synthetic"
    return "unknown"


def periphery_binary() -> Path:
    return Path(os.environ.get("PERIPHERY", _checkout.DEFAULT_BINARY))


def prepare_options(args, split: Optional[str]) -> List[str]:
    options: List[str] = []
    if args.layout:
        options += ["--layout", args.layout]
    if split:
        options += ["--split", split]
    if args.mount_height is not None:
        options += ["--mount-height", repr(args.mount_height)]
    if args.mount_pitch is not None:
        options += ["--mount-pitch", repr(args.mount_pitch)]
    if args.strict:
        options += ["--strict"]
    return options


def cache_path(directory: Path, args, split: Optional[str]) -> Path:
    """OUT/prepared (or --cache)/<dir name>-<8 hex of sha1(absolute path)>[-<split>]."""
    absolute = directory.resolve()
    base = args.cache if args.cache is not None else args.out / "prepared"
    digest = hashlib.sha1(str(absolute).encode("utf-8")).hexdigest()[:8]
    return base / (f"{absolute.name}-{digest}" + (f"-{split}" if split else ""))


def prepared_ready(cache: Path, options: List[str]) -> bool:
    """A finished cache (`prepare` writes ``complete`` last) made with these options (``prepare.json``)."""
    try:
        return (is_native(cache) and (cache / "complete").exists()
                and json.loads((cache / "prepare.json").read_text()).get("options") == options)
    except (OSError, ValueError, AttributeError):
        return False


def prepare(directory: Path, args, split: Optional[str], run: bool) -> Path:
    """The native directory to read for ``directory``: itself, or its `periphery prepare` cache.

    With ``run`` false (ranks other than each node's local rank 0) only the finished cache is looked
    up. The cache is written under a temporary name and renamed; it is used only with `prepare`'s
    ``complete`` marker and a ``prepare.json`` naming the same options, so a half-written cache or
    one of other options is never used."""
    if is_native(directory):
        return directory
    if not directory.is_dir():
        raise SystemExit(f"{directory}: no such dataset directory")
    options = prepare_options(args, split)
    cache = cache_path(directory, args, split)
    if prepared_ready(cache, options) or not run:
        return cache
    binary = periphery_binary()
    partial = cache.with_name(f"{cache.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    command = [str(binary), "prepare", "--data", str(directory.resolve()), "--out", str(partial), *options]
    print("preparing: " + " ".join(command), flush=True)
    try:
        result = subprocess.run(command)
    except OSError as error:
        raise SystemExit(f"{directory}: cannot run {binary} prepare ({error}); set PERIPHERY to the CLI binary") from error
    if result.returncode != 0 or not is_native(partial):
        shutil.rmtree(partial, ignore_errors=True)
        raise SystemExit(f"{directory}: `{' '.join(command)}` failed (exit {result.returncode}); "
                         "a directory with network/ and labels/ is read as it is, any other needs `periphery prepare`")
    (partial / "prepare.json").write_text(json.dumps({"source": str(directory.resolve()), "options": options,
                                                      "layout": layout(directory), "command": command[1:3]},
                                                     sort_keys=True) + "\n")
    if cache.exists() and not prepared_ready(cache, options):
        shutil.rmtree(cache)  # a stale cache of other options, or one that never completed
    try:
        os.rename(partial, cache)
    except OSError:
        # Another node sharing this file system renamed its cache first: use that one.
        shutil.rmtree(partial, ignore_errors=True)
        if not prepared_ready(cache, options):
            raise
    return cache


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


# --- geometric augmentation (image, LUT and labels together) ----------------------------------
# Image coordinates use the edge convention: pixel i of the 512-wide input spans [i, i + 1), so the
# contract's network principal point cx = 256 (`docs/reference/contract.md#44-network-intrinsics-and-projection`) is
# the canvas centre. Feature coordinates are image coordinates / 4 with no half-pixel shift (same
# section), and the LUT stores u = round(X/Z), v = round(Y/Z) of those (`docs/reference/contract.md#5-projectionlut`).

# The voxel grid is exactly symmetric in lateral position: grid x = −10 + 0.5·ix, ix = 0…40, so the
# mirror y → −y sends voxel column ix to 40 − ix; likewise head cell ix (of 21) goes to 20 − ix.
MIRROR_VOXEL = np.arange(ref.VOXELS).reshape(ref.GRID_X, ref.GRID_Y, ref.GRID_Z)[::-1].reshape(-1)
MIRROR_ANCHOR = np.arange(ANCHORS.shape[0]).reshape(ref.HEAD_X, -1)[::-1].reshape(-1)


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


def batch(frames: List[Frame], rng: Optional[np.random.Generator], device: torch.device,
          aug: Augmentation = Augmentation()):
    """Tensors of one batch; with ``rng`` each frame is augmented (``augment_frame``), without it used as is."""
    samples = [augment_frame(f, aug, rng) if rng is not None else (f, f.pixels) for f in frames]
    images = np.stack([normalise(pixels, f.letterbox) for f, pixels in samples])
    frames = [f for f, _ in samples]
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


# --- decode and evaluation (`docs/reference/contract.md#3-decode`, `docs/guides/evaluation.md`) ----------------------------------
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
    `docs/reference/contract.md`; pedestrians keep the common one), the common threshold before, and the F1 by
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


class Trainable(torch.nn.Module):
    """The model and the auxiliary head as one module, so that DistributedDataParallel sees the whole
    forward pass (``forward``) and synchronises every gradient."""

    def __init__(self, model: ref.Safety40, aux: Optional["AuxiliaryHead"]) -> None:
        super().__init__()
        self.model = model
        self.aux = aux

    def forward(self, images: torch.Tensor, lut_index: torch.Tensor, lut_vis: torch.Tensor):
        return forward(self.model, images, lut_index, lut_vis, self.aux)


class World(NamedTuple):
    """This process's place in a torchrun job (rank 0 of 1 without torchrun)."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0

    @property
    def distributed(self) -> bool:
        return self.size > 1


def world_from_environment() -> World:
    return World(int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1")),
                 int(os.environ.get("LOCAL_RANK", "0")))


def build_model(args, device: torch.device) -> Tuple[ref.Safety40, Optional[AuxiliaryHead]]:
    """The network and auxiliary head as every rank builds them (same seed: same initial weights),
    with ``--init-from`` applied."""
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    # channels-last convolutions run about twice as fast on CPU (oneDNN), measured here.
    model = ref.Safety40().to(device, memory_format=torch.channels_last)
    init_head(model)
    aux = AuxiliaryHead().to(device, memory_format=torch.channels_last) if args.aux_weight > 0 else None
    if args.init_from:
        if args.init_from.suffix == ".safetensors":
            # Our exported weights (F16 or F32, BN unfolded or folded): the network only, fresh aux head.
            ref.load_state(args.init_from, model)
            note = "safetensors weights"
        else:
            init = torch.load(args.init_from, map_location=device, weights_only=False)
            model.load_state_dict(init["model"])
            if aux is not None and init.get("aux"):
                aux.load_state_dict(init["aux"])
            note = f"iteration {init['iteration']}, {init['images_seen']} images"
        if getattr(args, "verbose", True):
            print(f"initialised from {args.init_from} ({note})", flush=True)
    model.train()
    return model, aux


def all_reduce_mean(values: List[float], world: World, device: torch.device) -> List[float]:
    if not world.distributed:
        return values
    t = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(t)
    return (t / world.size).tolist()


def broadcast_object(value, world: World):
    if not world.distributed:
        return value
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, nargs="+", required=True,
                    help="dataset directories, any layout (network/ + labels/ as they are; others via `periphery prepare`)")
    ap.add_argument("--val", type=Path, help="held-out dataset directory (any layout) for the F1 in the log")
    ap.add_argument("--out", type=Path, required=True, help="run directory (checkpoint.pt, train.log)")
    ap.add_argument("--cache", type=Path, help="where prepared datasets go (default OUT/prepared)")
    ap.add_argument("--layout", choices=("native", "kitti", "cityscapes3d"),
                    help="`periphery prepare --layout`: the layout to read where a directory holds several")
    ap.add_argument("--split", help="dataset split of --data for `periphery prepare` (e.g. train)")
    ap.add_argument("--val-split", help="dataset split of --val and --calibrate-scores for `periphery prepare` (e.g. val)")
    ap.add_argument("--mount-height", type=float, help="camera height above the road in metres, for `periphery prepare` (KITTI)")
    ap.add_argument("--mount-pitch", type=float, help="camera pitch in degrees, nose up, for `periphery prepare` (KITTI)")
    ap.add_argument("--strict", action="store_true", help="`periphery prepare --strict`: a bad frame is fatal, not skipped")
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=4, help="batch per rank (under torchrun the global batch is this × world size)")
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
    ap.add_argument("--init-from", type=Path,
                    help="start from this network: a checkpoint.pt of this trainer (not its optimiser) or a "
                         "Safety40 .safetensors file (fine-tuning our exported weights)")
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
    ap.add_argument("--photometric", action=argparse.BooleanOptionalAction, default=True,
                    help="photometric augmentation (default on)")
    ap.add_argument("--photometric-prob", type=float, default=1.0, metavar="P",
                    help="probability of the photometric augmentation per sample (1: always, as before)")
    ap.add_argument("--flip", type=float, default=0.0, metavar="P",
                    help="probability of the horizontal flip (image, LUT and labels mirrored) per sample (default 0)")
    ap.add_argument("--zoom", type=float, default=0.0, metavar="P",
                    help="probability of the scale jitter (image and LUT zoomed together) per sample (default 0)")
    ap.add_argument("--zoom-extent", type=float, default=0.1, metavar="E", help="scale jitter s in [1-E, 1+E]")
    ap.add_argument("--amp", action=argparse.BooleanOptionalAction, default=None,
                    help="bfloat16 autocast of forward and losses on CUDA (default: on with CUDA; CPU never)")
    ap.add_argument("--debug-record", type=Path, metavar="DIR",
                    help="write, per rank and iteration, the frame names (DIR/rankR.jsonl) and the synchronised "
                         "gradients before clipping (DIR/rankR-iterN.pt): large, for tests only")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop (after a checkpoint) when this much time has passed")
    args = ap.parse_args(argv)

    world = world_from_environment()
    lead = world.rank == 0
    args.verbose = lead
    cuda = torch.cuda.is_available()
    device = torch.device(f"cuda:{world.local_rank}" if cuda and world.distributed else "cuda" if cuda else "cpu")
    if cuda:
        torch.cuda.set_device(device)
    if world.distributed and not dist.is_initialized():
        dist.init_process_group("nccl" if cuda else "gloo")
    amp = cuda and args.amp is not False
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt_path = args.out / "checkpoint.pt"
    log = open(args.out / "train.log", "a", buffering=1) if lead else None
    say = (lambda text: print(text, flush=True)) if lead else (lambda text: None)  # noqa: E731
    record = None
    if args.debug_record:
        args.debug_record.mkdir(parents=True, exist_ok=True)
        record = open(args.debug_record / f"rank{world.rank}.jsonl", "a", buffering=1)

    # Datasets of other layouts are converted once (per node: its local rank 0), then read natively.
    raw = {"data": list(args.data), "val": args.val, "calibrate": list(args.calibrate_scores or [])}
    make = world.local_rank == 0
    data_dirs = [prepare(d, args, args.split, make) for d in args.data]
    val_dir = prepare(args.val, args, args.val_split, make) if args.val else None
    calibrate_dirs = [prepare(d, args, args.val_split, make) for d in args.calibrate_scores or []]
    if world.distributed:
        dist.barrier()
        data_dirs = [prepare(d, args, args.split, False) for d in args.data]

    np_rng = np.random.default_rng(args.seed + world.rank)  # rank r augments with seed + r
    model, aux = build_model(args, device)
    trainable = Trainable(model, aux)
    net = (torch.nn.parallel.DistributedDataParallel(trainable, device_ids=[device.index] if cuda else None)
           if world.distributed else trainable)
    decay, no_decay = [], []
    params = list(model.named_parameters()) + (list(aux.named_parameters()) if aux is not None else [])
    for name, p in params:
        (no_decay if p.ndim == 1 else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
    aug = Augmentation(args.photometric_prob if args.photometric else 0.0, args.flip, args.zoom, args.zoom_extent)
    it, epoch, order, position, images_seen = 0, 0, [], 0, 0
    if args.resume and ckpt_path.exists():
        ck = torch.load(ckpt_path, map_location=device, weights_only=False)
        model.load_state_dict(ck["model"])
        if aux is not None:
            aux.load_state_dict(ck["aux"])
        opt.load_state_dict(ck["optimizer"])
        it, epoch, order, position, images_seen = ck["iteration"], ck["epoch"], ck["order"], ck["position"], ck["images_seen"]
        saved = ck.get("rng_ranks") or [ck["rng"]]
        if len(saved) == world.size:
            state = saved[world.rank]
            random.setstate(state["python"])
            np_rng.bit_generator.state = state["numpy"]
            torch.set_rng_state(state["torch"])
            if state["cuda"] is not None and cuda:
                torch.cuda.set_rng_state_all(state["cuda"])
        else:
            np_rng = np.random.default_rng([args.seed + world.rank, it])
            say(f"warning: the checkpoint holds the RNG states of {len(saved)} ranks, this run has {world.size}: "
                "augmentation continues from fresh seeds (the run is not the uninterrupted one)")
        say(f"resumed at iteration {it} (epoch {epoch}, {images_seen} images seen)")

    frames = load_frames(data_dirs, args.pos_radius, args.ignore_radius)
    val = list(load_frames([val_dir], args.pos_radius, args.ignore_radius).values()) if val_dir and lead else []
    say(f"{len(frames)} training frames, {len(val)} held-out frames, device {device}, "
        f"threads {torch.get_num_threads()}, world size {world.size} (global batch {args.batch * world.size})"
        + (", bfloat16 autocast" if amp else ""))
    missing = [k for k in order if k not in frames]
    if missing:
        raise SystemExit(f"checkpoint's epoch order names frames that are gone: {missing[:4]}")

    autocast = (lambda: torch.autocast("cuda", dtype=torch.bfloat16)) if amp else contextlib.nullcontext
    step = args.batch * world.size
    start = time.time()
    window = time.time()
    sums: Dict[str, float] = {}
    while it < args.iterations:
        if position + step > len(order):
            # A new epoch picks up frames written since the last one (synth may still be running);
            # rank 0's order is every rank's.
            frames = load_frames(data_dirs, args.pos_radius, args.ignore_radius, frames)
            order = sorted(frames)
            # Near two-wheelers are rare (7 % of frames) and were the detector's weakest case.
            order += [k for k in sorted(frames) if has_near_two_wheeler(frames[k])] * (args.oversample_near_two_wheelers - 1)
            random.Random(args.seed * 1000 + epoch).shuffle(order)
            order = broadcast_object(order, world)
            if any(k not in frames for k in order):
                frames = load_frames(data_dirs, args.pos_radius, args.ignore_radius, frames)
            if len(order) < step:
                raise SystemExit(f"{len(order)} frames cannot fill a global batch of {step}")
            epoch, position = epoch + 1, 0
        # Rank r takes positions r, r + W, … of the global batch.
        names = order[position : position + step][world.rank :: world.size]
        chunk = [frames[k] for k in names]
        position += step
        for group in opt.param_groups:
            group["lr"] = learning_rate(it, args)
        images, idx, vis, labels, codes, dirs, masks = batch(chunk, np_rng, device, aug)
        with autocast():
            outputs = net(images, idx, vis)
            if amp:
                outputs = tuple(o.float() for o in outputs)
            parts = losses(outputs[:3], labels, codes, dirs, args.box_weight, args.dir_weight, args.two_wheeler_weight,
                           args.near_box_weight, args.near_box_range)
            if aux is not None:
                parts["aux"] = aux_loss(outputs[3], masks, args.aux_weight)
            total = sum(parts.values())
        opt.zero_grad(set_to_none=True)
        total.backward()
        if record is not None:
            record.write(json.dumps({"iteration": it + 1, "rank": world.rank, "frames": names,
                                     "loss": float(total.detach())}) + "\n")
            torch.save({("aux." if i >= len(list(model.parameters())) else "") + name: p.grad.detach().cpu().clone()
                        for i, (name, p) in enumerate(params) if p.grad is not None},
                       args.debug_record / f"rank{world.rank}-iter{it + 1}.pt")
        norm = torch.nn.utils.clip_grad_norm_([p for _, p in params], 35.0)
        opt.step()
        it += 1
        images_seen += step
        for k, v in parts.items():
            sums[k] = sums.get(k, 0.0) + float(v.detach())
        sums["n"] = sums.get("n", 0) + 1
        if it % args.log_every == 0:
            means = all_reduce_mean([sums[k] / sums["n"] for k in parts], world, device)
            rate = args.log_every * step / (time.time() - window)
            window = time.time()
            entry = {"iteration": it, "epoch": epoch, "images_seen": images_seen, "lr": learning_rate(it - 1, args),
                     **dict(zip(parts, means)), "grad_norm": float(norm), "images_per_s": rate}
            if lead:
                log.write(json.dumps(entry) + "\n")
            say(" ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in entry.items()))
            sums = {}
        if val and (it % args.val_every == 0 or it == args.iterations):
            result = {"iteration": it, "validation": evaluate(model, val, device)}
            log.write(json.dumps(result) + "\n")
            say(json.dumps(result))
        out_of_time = args.max_minutes > 0 and time.time() - start > 60 * args.max_minutes
        if args.max_minutes > 0:
            out_of_time = broadcast_object(out_of_time, world)  # rank 0's clock decides for all
        if it % args.checkpoint_every == 0 or it == args.iterations or out_of_time:
            states = [rng_state(np_rng)]
            if world.distributed:
                states = [None] * world.size
                dist.all_gather_object(states, rng_state(np_rng))
            if lead:
                save_checkpoint(ckpt_path, {"model": model.state_dict(), "aux": aux.state_dict() if aux is not None else None,
                                            "optimizer": opt.state_dict(), "iteration": it,
                                            "epoch": epoch, "order": order, "position": position, "images_seen": images_seen,
                                            "rng": states[0], "rng_ranks": states, "world_size": world.size,
                                            "args": vars(args) | {"data": [str(d) for d in args.data],
                                            "val": str(args.val), "out": str(args.out), "export": str(args.export),
                                            "cache": str(args.cache), "init_from": str(args.init_from),
                                            "debug_record": str(args.debug_record),
                                            "calibrate_scores": [str(d) for d in args.calibrate_scores or []]}})
        if out_of_time:
            say(f"stopping at iteration {it} after {args.max_minutes} minutes; --resume continues")
            return finish(log, record, world)
    if args.export and lead:
        layouts = sorted({layout(d) for d in raw["data"]})
        synthetic_only = layouts == ["synthetic"]
        if synthetic_only and not args.init_from:
            provenance = ("trained from scratch by periphery-train on frames of Periphery's synthetic world "
                          "(periphery synth); synthetic scenes only - real cameras need the real Safety40 checkpoint")
        else:
            provenance = (f"trained by periphery-train "
                          + (f"from {args.init_from.name}" if args.init_from else "from scratch")
                          + f" on {', '.join(layouts)} frames ({', '.join(d.name for d in raw['data'])})")
        metadata = {
            **ref.WEIGHTS_METADATA, "bn_folded": "false", "trained_focal_px": "565.6",
            "parameter_count": str(sum(p.numel() for p in model.parameters())), "trained": "true",
            "training_data": "synthetic" if synthetic_only else ",".join(layouts),
            "provenance": provenance,
            "data_seed": args.data_seed, "frames": str(len(frames)), "iterations": str(it),
            "images_seen": str(images_seen), "batch": str(args.batch), "device": str(device),
            "trainer_settings": json.dumps({k: v for k, v in sorted(vars(args).items())
                                            if k in ("lr", "warmup", "weight_decay", "box_weight", "dir_weight",
                                                     "pos_radius", "ignore_radius", "seed", "iterations", "batch",
                                                     "aux_weight", "oversample_near_two_wheelers", "two_wheeler_weight",
                                                     "near_box_weight", "near_box_range")} | {"init_from": str(args.init_from)}
                                           | ({"world_size": world.size, "global_batch": step} if world.distributed else {})
                                           | ({"flip": args.flip} if args.flip else {})
                                           | ({"zoom": args.zoom, "zoom_extent": args.zoom_extent} if args.zoom else {})
                                           | ({"photometric": aug.photometric} if aug.photometric != 1.0 else {})),
        }
        if calibrate_dirs:
            held_out = list(load_frames(calibrate_dirs, args.pos_radius, args.ignore_radius).values())
            shift, best, table = calibrate_scores(model, held_out, device, args.calibration_near_recall)
            with torch.no_grad():
                # conv_cls channel a·4 + k holds class k of anchor a (periphery.reference.safety40.candidate_major).
                model.bbox_head.conv_cls.bias += torch.tensor(shift, dtype=model.bbox_head.conv_cls.bias.dtype,
                                                              device=device).repeat(ref.ANCHORS)
            metadata["score_calibration"] = json.dumps({
                "logit_shift": shift, "threshold_before": best, "fitted_on": [str(d) for d in raw["calibrate"]],
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
    return finish(log, record, world)


def finish(log, record, world: World) -> int:
    for f in (log, record):
        if f is not None:
            f.close()
    if world.distributed and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes a seeded random initialisation of the Safety40 network as F16 safetensors.

The file is NOT a trained model. It exists so that the Swift runtime can be tested for numerical
parity with the PyTorch reference (periphery.reference.safety40) on weights whose activations stay O(1)
through the whole network, with a classification bias chosen so that a few dozen candidates of the
parity fixture clear sigmoid 0.5 (decode parity is then not trivial).

Recipe (all draws from ``numpy.random.default_rng(seed)``, in state-dict order):

* conv weights: He-normal, std = gain·sqrt(2 / fan_in); gain 1, except the convs whose input is
  followed by a ReLU (the FPN's ``lateral_convs`` and ``fpn_convs``, ``neck_fuse_0``,
  ``neck_3d.fuse``, ``bbox_head.*``), which use the linear gain sqrt(1/2).
* conv biases: normal(0, 0.02).
* ``bbox_head.conv_reg``: its 72 weight rows are rescaled so that every box-code channel has std
  0.5 on the parity fixture, and its bias is minus the channel's bias-free mean plus normal(0, 0.02)
  (codes of the size of a trained head's, so decoded boxes have plausible sizes).
* BN weight: 1 + normal(0, 0.05), scaled by ``--residual-gamma`` on the last BN of every residual
  branch (``bn2`` of BasicBlocks, ``conv1.bn`` of ResModule2D) so that the residual sums do not
  double the variance at every block; BN bias normal(0, 0.05); running_mean normal(0, 0.05);
  running_var uniform(0.5, 1.5).
* ``bbox_head.conv_cls.bias``: chosen on the parity fixture (``periphery.reference.safety40.fixture_image()``
  through the committed self-check LUT): the 32 output rows of ``conv_cls.weight`` are rescaled so
  that each channel's bias-free logit has std 1.5 over the 840 cells, each channel is centred
  (minus its mean bias-free logit), the pedestrian channels get a further −1 (decode drops
  label 3), normal(0, 0.05) noise is added, and then one common shift so that P candidates have a
  best-class logit > 0, where P is the count within ``--positives`` ± 10 with the widest gap
  between the last positive and the first negative; the threshold sits midway in that gap.

Every float tensor is stored as F16 (BN running statistics too); no ``num_batches_tracked``.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch

from periphery.reference import safety40 as s40

LINEAR_CONVS = ("neck.lateral_convs.", "neck.fpn_convs.", "neck_fuse_0.", "neck_3d.fuse.", "bbox_head.")
RESIDUAL_LAST_BN = ("bn2.", "conv1.bn.")
CLS_STD = 1.5  # std of every conv_cls channel on the fixture
REG_STD = 0.5  # std of every conv_reg channel on the fixture


def random_state(seed: int, residual_gamma: float) -> Dict[str, np.ndarray]:
    """Draws every tensor of the network (float32), before F16 rounding and the cls-bias shift."""
    rng = np.random.default_rng(seed)
    names = s40.weight_names(s40.Safety40())
    state: Dict[str, np.ndarray] = {}
    for name, shape in names.items():
        if name.endswith(".weight") and len(shape) == 4:  # conv
            fan_in = shape[1] * shape[2] * shape[3]
            gain = np.sqrt(0.5) if name.startswith(LINEAR_CONVS) else 1.0
            arr = rng.normal(0.0, gain * np.sqrt(2.0 / fan_in), shape)
        elif name.endswith(".bias") and len(names.get(name[: -len("bias")] + "weight", ())) == 4:  # conv bias
            arr = rng.normal(0.0, 0.02, shape)
        elif name.endswith(".weight"):  # BN gamma
            arr = 1.0 + rng.normal(0.0, 0.05, shape)
            if any(tag in name for tag in RESIDUAL_LAST_BN):
                arr *= residual_gamma
        elif name.endswith(".bias"):  # BN beta
            arr = rng.normal(0.0, 0.05, shape)
        elif name.endswith(".running_mean"):
            arr = rng.normal(0.0, 0.05, shape)
        elif name.endswith(".running_var"):
            arr = rng.uniform(0.5, 1.5, shape)
        else:
            raise AssertionError(f"no rule for {name}")
        state[name] = arr.astype(np.float32)
    return state


def f16(state: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """Rounds every tensor to IEEE half (what the file stores)."""
    return {k: v.astype(np.float16) for k, v in state.items()}


def to_model(state16: Dict[str, np.ndarray]) -> s40.Safety40:
    """Builds a float32 eval model from F16 tensors, with the committed self-check LUT."""
    model = s40.Safety40()
    model.load_state_dict({k: torch.from_numpy(v.astype(np.float32)) for k, v in state16.items()}, strict=False)
    idx, vis = s40.load_lut(s40.DEFAULT_LUT)
    model.set_lut(idx, vis)
    return model.eval()


def run_fixture(model: s40.Safety40, dtype: torch.dtype = torch.float32) -> s40.Outputs:
    """Runs the parity fixture input through the model in ``dtype``."""
    with torch.inference_mode():
        return model.to(dtype).run(torch.from_numpy(s40.fixture_image()).to(dtype))


def choose_cls_shift(raw_best: np.ndarray, positives: int) -> Tuple[float, int]:
    """Shift s and count P (within positives ± 10, widest gap) with P entries of raw_best + s > 0."""
    order = np.sort(raw_best)[::-1]
    lo, hi = max(1, positives - 10), min(len(order) - 1, positives + 10)
    p = max(range(lo, hi + 1), key=lambda k: order[k - 1] - order[k])
    return float(-(order[p - 1] + order[p]) / 2.0), p


def head_maps(state: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """The head outputs of the F16-rounded ``state`` on the fixture, as [840 cells, channels].

    Computed in float64 so that the calibrated values, and so the file's bytes, do not hang on the
    summation order of one machine's float32 kernels.
    """
    out = run_fixture(to_model(f16(state)), torch.float64)
    return {"conv_cls": out.classes.numpy().reshape(-1, 32), "conv_reg": out.boxes.numpy().reshape(-1, 72),
            "conv_dir_cls": out.directions.numpy().reshape(-1, 16)}


def make(seed: int, positives: int, residual_gamma: float) -> Dict[str, np.ndarray]:
    """Draws the weights and calibrates the head on the fixture; returns the F16 state the file stores."""
    state = random_state(seed, residual_gamma)
    noise = {k: state[f"bbox_head.{k}.bias"].copy() for k in ("conv_cls", "conv_reg")}
    for k in noise:
        state[f"bbox_head.{k}.bias"] = np.zeros_like(noise[k])
    maps = head_maps(state)  # bias-free
    for k, target in (("conv_cls", CLS_STD), ("conv_reg", REG_STD)):
        scale = (target / maps[k].std(axis=0)).astype(np.float32)
        state[f"bbox_head.{k}.weight"] = state[f"bbox_head.{k}.weight"] * scale[:, None, None, None]
    maps = head_maps(state)
    state["bbox_head.conv_reg.bias"] = (-maps["conv_reg"].mean(axis=0) + noise["conv_reg"]).astype(np.float32)
    per_channel = maps["conv_cls"]  # [840 cells, channel a·4 + k]
    cls_bias = -per_channel.mean(axis=0) + noise["conv_cls"]
    cls_bias[3::4] -= 1.0  # pedestrian channels
    raw_best = (per_channel + cls_bias).reshape(-1, 4).max(axis=1)
    shift, p = choose_cls_shift(raw_best, positives)
    state["bbox_head.conv_cls.bias"] = (cls_bias + shift).astype(np.float32)
    state16 = f16(state)
    for dtype in (torch.float64, torch.float32):
        got = int((run_fixture(to_model(state16), dtype).classes.numpy().max(axis=1) > 0).sum())
        if got != p:  # the F16 rounding of the bias moved a candidate across 0
            raise RuntimeError(f"expected {p} fixture positives after F16 rounding, got {got} in {dtype}")
    return state16


def report(state16: Dict[str, np.ndarray]) -> List[str]:
    """Describes activation statistics on the fixture input; returns problems found."""
    model = to_model(state16)
    x = torch.from_numpy(s40.fixture_image())
    problems = []
    with torch.inference_mode():
        cs = model.backbone(x)
        ps = model.neck(cs)
        out = model.run(x)
    rows = [(f"C{i + 2}", t) for i, t in enumerate(cs)] + [(f"P{i}", t) for i, t in enumerate(ps)]
    rows += [(k, getattr(out, k)) for k in ("features", "volume", "bev", "classes", "boxes", "directions")]
    for name, t in rows:
        std = t.std().item()
        finite = bool(torch.isfinite(t).all())
        print(f"  {name:10s} std {std:8.4f}  mean {t.mean().item():8.4f}  max|x| {t.abs().max().item():8.3f}")
        if name in ("features", "volume", "classes", "boxes", "directions") and (not finite or not 0.1 <= std <= 10):
            problems.append(f"{name}: std {std:.4g}, finite {finite}")
    best = out.classes.max(dim=1)
    probs = torch.sigmoid(best.values)
    labels = best.indices[probs > 0.5]
    margin = best.values.abs().min().item()
    print(f"  candidates with best sigmoid > 0.5: {int((probs > 0.5).sum())} "
          f"(labels 0..3: {[int((labels == k).sum()) for k in range(4)]}); min |best logit| {margin:.4f}")
    return problems


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--seed", type=int, required=True, help="numpy default_rng seed")
    ap.add_argument("-o", "--output", type=Path, required=True, help="safetensors file to write")
    ap.add_argument("--positives", type=int, default=40, help="fixture candidates above sigmoid 0.5 (default 40)")
    ap.add_argument("--residual-gamma", type=float, default=0.35,
                    help="scale of the last BN weight of every residual branch (default 0.35)")
    args = ap.parse_args(argv)
    if not 1 <= args.positives < s40.CANDIDATES:
        ap.error("--positives must lie in [1, 6720)")

    state16 = make(args.seed, args.positives, args.residual_gamma)
    print("activations on the parity fixture (float32):")
    problems = report(state16)
    if problems:
        print("activation check FAILED: " + "; ".join(problems), file=sys.stderr)
        return 1
    count = sum(v.size for k, v in state16.items() if not k.endswith(("running_mean", "running_var")))
    if count != s40.EXPECTED_TOTAL_PARAMETERS:
        print(f"parameter count {count} != {s40.EXPECTED_TOTAL_PARAMETERS}", file=sys.stderr)
        return 1
    metadata = {
        **s40.WEIGHTS_METADATA,
        "trained_focal_px": "565.6",
        "provenance": f"seeded random initialisation (seed {args.seed}) by tools/make_weights.py — NOT trained; "
                      "outputs are not detections of real vehicles",
        "trained": "false",
        "bn_folded": "false",
        "parameter_count": str(s40.EXPECTED_TOTAL_PARAMETERS),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    data = s40.write_safetensors(args.output, state16, metadata)
    print(f"wrote {args.output}: {len(state16)} tensors, {count:,} parameters, {len(data):,} bytes, "
          f"sha256 {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the Safety40 network parity fixture from the PyTorch reference.

Output (float32 safetensors, default
``Tests/PeripheryInferenceTests/Fixtures/safety40_parity.safetensors``):

========== ==================== ===============================================
name       shape                meaning
========== ==================== ===============================================
image      [1, 3, 256, 512]     normalised input (``periphery.reference.safety40.fixture_image``)
features   [1, 64, 64, 128]     ``neck_fuse_0`` output (`docs/reference/network.md#3-fuse-to-one-stride-4-map`)
volume     [1, 64, 41, 80, 2]   LUT gather, invisible voxels 0 (§4)
classes    [6720, 4]            class logits, candidate-major (§6)
boxes      [6720, 9]            box codes, candidate-major
directions [6720, 2]            direction logits, candidate-major
========== ==================== ===============================================

The values are the float32 forward pass of ``periphery.reference.safety40`` on the committed weights
and the committed self-check LUT. The same pass in float64 measures the reference's own float32
noise, max|f32 − f64| / max|f64| per tensor, which is printed and stored in the metadata
(``noise_<name>``) so that parity tolerances can be set against it.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import torch

from periphery.reference import safety40 as s40

DEFAULT_WEIGHTS = s40.REPO_ROOT / "Weights/safety40-random-init.safetensors"
DEFAULT_OUTPUT = s40.REPO_ROOT / "Tests/PeripheryInferenceTests/Fixtures/safety40_parity.safetensors"
NAMES = ("features", "volume", "classes", "boxes", "directions")


def forward(weights: Path, lut: Path, image: np.ndarray, dtype: torch.dtype) -> Dict[str, np.ndarray]:
    """Runs the reference in ``dtype`` and returns the fixture tensors as float64 numpy arrays."""
    model = s40.build_model(weights, lut, dtype)
    with torch.inference_mode():
        out = model.run(torch.from_numpy(image).to(dtype))
    return {k: getattr(out, k).double().numpy() for k in NAMES}


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS, help="weight file (default: %(default)s)")
    ap.add_argument("--lut", type=Path, default=s40.DEFAULT_LUT, help="ProjectionLUT file (default: %(default)s)")
    ap.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT, help="fixture to write (default: %(default)s)")
    ap.add_argument("--image-seed", type=int, default=20260831, help="seed of the fixture image (default %(default)s)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (default 1: one summation order, byte-reproducible output)")
    args = ap.parse_args(argv)
    for p in (args.weights, args.lut):
        if not p.is_file():
            ap.error(f"no such file: {p}")

    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    image = s40.fixture_image(args.image_seed)
    f32 = forward(args.weights, args.lut, image, torch.float32)
    f64 = forward(args.weights, args.lut, image, torch.float64)

    noise: Dict[str, float] = {}
    print(f"image: min {image.min():.4f} max {image.max():.4f} std {image.std():.4f}")
    for k in NAMES:
        a, b = f32[k], f64[k]
        if not np.isfinite(a).all():
            print(f"{k}: non-finite values in the float32 pass", file=sys.stderr)
            return 1
        noise[k] = float(np.abs(a - b).max() / np.abs(b).max())
        print(f"{k:10s} {str(tuple(a.shape)):20s} std {a.std():8.4f}  max|f64| {np.abs(b).max():9.4f}  "
              f"max|f32-f64|/max|f64| {noise[k]:.3e}")
    positives = int((f32["classes"].max(axis=1) > 0).sum())
    print(f"candidates with best-class sigmoid > 0.5: {positives}")

    tensors = {"image": image.astype(np.float32)}
    tensors.update({k: f32[k].astype(np.float32) for k in NAMES})
    metadata = {
        "generator": "tools/make_goldens.py (PyTorch reference periphery.reference.safety40, float32)",
        "torch_version": torch.__version__,
        "weights_file": args.weights.name,
        "weights_sha256": sha256(args.weights),
        "lut_file": args.lut.name,
        "lut_sha256": sha256(args.lut),
        "image_seed": str(args.image_seed),
        "positives_at_0.5": str(positives),
        "noise_f32_vs_f64": json.dumps({k: float(f"{v:.3e}") for k, v in noise.items()}, sort_keys=True),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    data = s40.write_safetensors(args.output, tensors, metadata)
    print(f"wrote {args.output}: {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

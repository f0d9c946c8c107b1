"""Exports a Safety40 weight file as the iOS app's two Core ML packages, for round-trip tests.

    periphery-export-coreml --weights W.safetensors --out DIR

writes ``DIR/backbone_static.mlpackage`` (``image`` [1, 3, 256, 512] → features [1, 64, 64, 128])
and ``DIR/head_static.mlpackage`` (``volume`` [1, 64, 41, 80, 2] → classes [6720, 4], boxes
[6720, 9], directions [6720, 2]) the way the reference app's export made them: mlprogram, static
shapes (dynamic interpolation sizes do not convert), float32 inputs and outputs, float16
weights and compute, every batch norm folded by coremltools. Packages are build outputs: write
them under ``out/`` (git-ignored). Only Core ML on macOS can run them; here they are read back by
``periphery.convert.coreml`` and ``periphery.convert.verify_parity``.
"""
from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import Optional, Sequence, Tuple

import numpy as np
import torch

from periphery.reference import safety40 as s40

VOLUME_SHAPE = (1, s40.FEATURE_C, s40.GRID_X, s40.GRID_Y, s40.GRID_Z)


class BackboneHalf(torch.nn.Module):
    """image → features (backbone, FPN, fuse)."""

    def __init__(self, model: s40.Safety40) -> None:
        super().__init__()
        self.model = model

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.model.features(image)


class HeadHalf(torch.nn.Module):
    """volume → (classes, boxes, directions), candidate-major."""

    def __init__(self, model: s40.Safety40) -> None:
        super().__init__()
        self.model = model

    def forward(self, volume: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        _, classes, boxes, directions = self.model.head(volume)
        return classes, boxes, directions


def export(model: s40.Safety40, directory: Path, precision: str = "float16") -> Tuple[Path, Path]:
    """Writes the two packages of ``model`` under ``directory``; returns their paths."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import coremltools as ct
    model = model.float().eval()
    directory.mkdir(parents=True, exist_ok=True)
    compute = ct.precision.FLOAT16 if precision == "float16" else ct.precision.FLOAT32
    paths = []
    for half, name, input_name, shape in ((BackboneHalf(model), "backbone_static", "image", s40.IMAGE_SHAPE),
                                          (HeadHalf(model), "head_static", "volume", VOLUME_SHAPE)):
        half.eval()
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # tracer and coremltools version chatter
            traced = torch.jit.trace(half, torch.zeros(shape))
            package = ct.convert(traced, inputs=[ct.TensorType(name=input_name, shape=shape, dtype=np.float32)],
                                 convert_to="mlprogram", compute_precision=compute,
                                 minimum_deployment_target=ct.target.iOS17)
        path = directory / f"{name}.mlpackage"
        package.save(str(path))
        paths.append(path)
    return paths[0], paths[1]


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weights", type=Path, default=s40.REPO_ROOT / "Weights/safety40-random-init.safetensors")
    ap.add_argument("--out", type=Path, required=True, help="directory for the two .mlpackage folders")
    ap.add_argument("--precision", choices=("float16", "float32"), default="float16")
    args = ap.parse_args(argv)
    backbone, head = export(s40.load_state(args.weights), args.out, args.precision)
    print(f"wrote {backbone} and {head}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

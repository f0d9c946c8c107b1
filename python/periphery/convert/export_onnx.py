"""Exports the whole Safety40 network (with the LUT gather) as one ONNX model and verifies it.

The model has one input, ``image`` [1, 3, 256, 512] float32, and three outputs, ``classes``
[6720, 4], ``boxes`` [6720, 9] and ``directions`` [6720, 2] (candidate-major, `docs/reference/network.md#6-anchor-head-bbox_head`). The
ProjectionLUT gather is inside the graph: ``features`` is flattened to [1, 64, 8192], gathered
along the last axis with a constant int64 index tensor (the LUT, by default the comma self-check
calibration committed as ``selfcheck_lut.bin``) and multiplied by a constant visibility vector.

The export is verified with ONNX Runtime against the PyTorch reference on the parity fixture input
and on a uniform [−2, 2] random input; the max abs differences are printed. ONNX files are build
outputs: write them under ``out/`` (git-ignored) and never commit them.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import torch

from periphery.reference import safety40 as s40

DEFAULT_WEIGHTS = s40.REPO_ROOT / "Weights/safety40-random-init.safetensors"
OUTPUT_NAMES = ["classes", "boxes", "directions"]
OPSET = 17


def export(weights: Path, lut: Path, output: Path) -> Path:
    """Writes the ONNX model for ``weights`` and ``lut`` to ``output`` (one file, weights inside)."""
    model = s40.build_model(weights, lut)
    output.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(s40.IMAGE_SHAPE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter announces its deprecation
        torch.onnx.export(model, (dummy,), str(output), input_names=["image"], output_names=OUTPUT_NAMES,
                          opset_version=OPSET, dynamo=False, do_constant_folding=True)
    import onnx

    proto = onnx.load(str(output))
    onnx.checker.check_model(proto)
    ops = {n.op_type for n in proto.graph.node}
    if "Gather" not in ops:
        raise RuntimeError(f"exported graph has no Gather op (ops: {sorted(ops)})")
    return output


def onnx_session(path: Path, threads: int = 0):
    """An ONNX Runtime CPU session with all graph optimisations."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def verify(onnx_path: Path, weights: Path, lut: Path) -> Dict[str, Dict[str, float]]:
    """Max abs (and relative-to-max) differences between ONNX Runtime and the torch reference."""
    model = s40.build_model(weights, lut)
    sess = onnx_session(onnx_path)
    rng = np.random.default_rng(1)
    inputs = {
        "fixture": s40.fixture_image(),
        "uniform": rng.uniform(-2.0, 2.0, s40.IMAGE_SHAPE).astype(np.float32),
    }
    result: Dict[str, Dict[str, float]] = {}
    for label, x in inputs.items():
        with torch.inference_mode():
            ref = [t.numpy() for t in model(torch.from_numpy(x))]
        got = sess.run(OUTPUT_NAMES, {"image": x})
        for name, r, g in zip(OUTPUT_NAMES, ref, got):
            if g.shape != r.shape:
                raise RuntimeError(f"{name}: ONNX shape {g.shape} != torch shape {r.shape}")
            diff = float(np.abs(g - r).max())
            result[f"{label}/{name}"] = {"max_abs": diff, "rel_to_max": diff / float(np.abs(r).max())}
    return result


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS, help="weight file (default: %(default)s)")
    ap.add_argument("--lut", type=Path, default=s40.DEFAULT_LUT, help="ProjectionLUT file (default: %(default)s)")
    ap.add_argument("-o", "--output", type=Path, default=s40.REPO_ROOT / "out/safety40.onnx",
                    help="ONNX file to write (default: %(default)s)")
    ap.add_argument("--no-verify", action="store_true", help="skip the ONNX Runtime check")
    ap.add_argument("--tolerance", type=float, default=1e-4,
                    help="fail when an output's max abs diff / max |output| exceeds this (default %(default)s)")
    args = ap.parse_args(argv)
    for p in (args.weights, args.lut):
        if not p.is_file():
            ap.error(f"no such file: {p}")
    path = export(args.weights, args.lut, args.output)
    print(f"wrote {path} ({path.stat().st_size:,} bytes, opset {OPSET})")
    if args.no_verify:
        return 0
    worst = 0.0
    for key, d in verify(path, args.weights, args.lut).items():
        print(f"onnxruntime vs torch {key:22s} max abs diff {d['max_abs']:.3e}  (/max|ref| {d['rel_to_max']:.3e})")
        worst = max(worst, d["rel_to_max"])
    if worst > args.tolerance:
        print(f"FAILED: relative difference {worst:.3e} > {args.tolerance:g}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

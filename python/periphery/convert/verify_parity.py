"""Checks a converted weight file against its source: the source model vs `periphery forward`.

    periphery-verify-parity --converted OUT.safetensors --checkpoint CKPT.pth
    periphery-verify-parity --converted OUT.safetensors --coreml backbone_static.mlpackage head_static.mlpackage

Inputs: the deterministic real-looking parity image (``periphery.reference.safety40.fixture_image``) and
``--random N`` uniform [−2, 2] images, with the gather through the ProjectionLUT of
``--calibration`` (built by ``periphery lut``); with ``--frames DIR`` also rendered frames of a
``periphery synth --network-inputs`` directory, each with its own calibration and LUT. For each input the source runs as follows:

* checkpoint: the PyTorch reference (``periphery.reference.safety40``) with the checkpoint's own tensors, float32;
* Core ML packages (Core ML cannot run here): the packages' MIL programs interpreted op by op
  (``periphery.convert.coreml_program``, float32 compute on the packages' float16 weights), and also the PyTorch
  reference loaded with the converted file; with ``--reference W`` also the PyTorch reference with
  the float32 weights the packages were exported from (round-trip checks).

and the converted file runs through the Swift runtime (``periphery forward``). Reported per
output (features, classes, boxes, directions): the max relative error, ``max |swift − source| /
max |source|`` over all inputs. Also whether the top-scoring detections agree: the same ten best
candidates (best vehicle-class logit; as a set, since near ties may swap order), and, after decode at score 0.5 with circular NMS,
the same detections (label, and centre within 5 cm). Exits 1 when an error is over ``--tolerance``
(default 1e-4 for checkpoints, 2e-2 for Core ML, on the head outputs) or the detections differ.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import warnings
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import torch

from periphery import _checkout
from periphery.reference import safety40 as s40

OUTPUTS = ("features", "classes", "boxes", "directions")
HEAD = ("classes", "boxes", "directions")
DEFAULT_CALIBRATION = s40.REPO_ROOT / "docs/sample/synthetic/calibration.json"
DEFAULT_BIN = _checkout.DEFAULT_BINARY


class Input(NamedTuple):
    """One test input: the normalised image, the LUT of its gather and the calibration that made it."""

    label: str
    image: np.ndarray  # [1, 3, 256, 512]
    lut: Tuple[np.ndarray, np.ndarray]
    calibration: Path


def inputs(random: int, calibration: Path, lut: Tuple[np.ndarray, np.ndarray], frames: Optional[Path] = None,
           max_frames: int = 3) -> List[Input]:
    """The parity fixture image, ``random`` uniform [−2, 2] images (seeds 1…N), and up to
    ``max_frames`` rendered frames of a ``periphery synth --network-inputs`` directory (each with
    its own calibration and LUT)."""
    out = [Input("fixture", s40.fixture_image(), lut, calibration)]
    for seed in range(1, random + 1):
        out.append(Input(f"random-{seed}", np.random.default_rng(seed).uniform(-2, 2, s40.IMAGE_SHAPE).astype(np.float32),
                         lut, calibration))
    if frames is not None:
        from periphery.train.data import load_frames, normalise

        for frame in list(load_frames([frames], 1.0, 2.0).values())[:max_frames]:
            stem = frame.name.split("/")[-1]
            out.append(Input(f"frame {stem}", normalise(frame.pixels, frame.letterbox)[None],
                             (frame.lut_index, frame.lut_visibility), frames / "calibration" / f"{stem}.json"))
    return out


def torch_outputs(model: s40.Safety40, image: np.ndarray, lut: Tuple[np.ndarray, np.ndarray]) -> Dict[str, np.ndarray]:
    model.set_lut(*lut)
    with torch.no_grad():
        out = model.run(torch.from_numpy(image))
    return {name: getattr(out, name).numpy() for name in OUTPUTS}


class CoreMLSource:
    """The two packages' MIL programs, run by the interpreter."""

    def __init__(self, backbone: Path, head: Path) -> None:
        from periphery.convert import coreml as cc

        self.backbone, _ = cc.load_program(backbone)
        self.head, _ = cc.load_program(head)
        self.backbone_roles = cc.check_io(backbone, "backbone", self.backbone)
        self.head_roles = cc.check_io(head, "head", self.head)

    def __call__(self, image: np.ndarray, lut: Tuple[np.ndarray, np.ndarray]) -> Dict[str, np.ndarray]:
        from periphery.convert import coreml_program

        image_name = next(k for k, v in self.backbone_roles.items() if v == "image")
        out = coreml_program.run(self.backbone, {image_name: image})
        features = next(out[k] for k, v in self.backbone_roles.items() if v == "features")
        volume_name = next(k for k, v in self.head_roles.items() if v == "volume")
        index, visibility = (torch.from_numpy(np.asarray(a)) for a in lut)
        volume = s40.lut_gather(torch.from_numpy(features), index.long(), visibility.float()).numpy()
        head = coreml_program.run(self.head, {volume_name: volume})
        result = {"features": features}
        for name, role in self.head_roles.items():
            if role in HEAD:
                result[role] = head[name].reshape(s40.CANDIDATES, -1)
        return result


def swift_outputs(binary: Path, weights: Path, calibration: Path, image: np.ndarray, scratch: Path) -> Dict[str, np.ndarray]:
    source, dump = scratch / "input.safetensors", scratch / "dump.safetensors"
    s40.write_safetensors(source, {"image": image.astype(np.float32)}, {})
    run = subprocess.run([str(binary), "forward", "--weights", str(weights), "--input", str(source),
                          "--calibration", str(calibration), "--dump", str(dump)], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"periphery forward failed ({run.returncode}): {run.stderr.strip()}")
    tensors, _ = s40.read_safetensors(dump)
    return {name: tensors[name] for name in OUTPUTS}


def relative_error(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| / max |b| (b the source)."""
    return float(np.abs(a.astype(np.float64) - b).max() / max(np.abs(b).max(), 1e-30))


def top_candidates(classes: np.ndarray, count: int = 10) -> set:
    """The ``count`` candidates with the best vehicle-class logits (a set: near ties may swap order)."""
    return {int(i) for i in np.argsort(-classes[:, :3].max(1), kind="stable")[:count]}


def detections(out: Dict[str, np.ndarray], threshold: float = 0.5) -> List[Tuple[int, float, float]]:
    """(label, x, y) of the decoded detections (score threshold, plausibility, 2 m circular NMS)."""
    from periphery.train.evaluation import decode

    return [(d[1], d[2], d[3]) for d in decode(out["classes"], out["boxes"], out["directions"], threshold)]


def same_detections(a: List[Tuple[int, float, float]], b: List[Tuple[int, float, float]]) -> bool:
    """Same count, and each detection of ``a`` has one of ``b`` with its label within 5 cm."""
    unused = list(b)
    for label, x, y in a:
        match = next((d for d in unused if d[0] == label and np.hypot(d[1] - x, d[2] - y) < 0.05), None)
        if match is None:
            return False
        unused.remove(match)
    return not unused


def compare(sources: Dict[str, object], binary: Path, converted: Path, cases: List[Input]) -> Dict[str, dict]:
    """Per source: max relative error per output and detection agreement over all inputs."""
    report = {name: {"max_relative_error": {k: 0.0 for k in OUTPUTS}, "top10_same": True, "detections_same": True,
                     "detections": 0} for name in sources}
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            swift = swift_outputs(binary, converted, case.calibration, case.image, Path(tmp))
            swift_dets = detections(swift)
            for name, source in sources.items():
                reference = source(case.image, case.lut)
                entry = report[name]
                for key in OUTPUTS:
                    entry["max_relative_error"][key] = max(entry["max_relative_error"][key], relative_error(swift[key], reference[key]))
                entry["top10_same"] &= top_candidates(swift["classes"]) == top_candidates(reference["classes"])
                entry["detections_same"] &= same_detections(swift_dets, detections(reference))
                entry["detections"] += len(swift_dets)
    return report


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--converted", type=Path, required=True, help="the converted safetensors file")
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--checkpoint", type=Path, help="the PyTorch checkpoint it came from")
    group.add_argument("--coreml", type=Path, nargs=2, metavar=("BACKBONE", "HEAD"), help="the two .mlpackage folders")
    ap.add_argument("--reference", type=Path, metavar="W.safetensors",
                    help="with --coreml: also compare with the PyTorch weights the packages were exported from")
    ap.add_argument("--bin", type=Path, default=DEFAULT_BIN, help="periphery binary (default .build/release/periphery)")
    ap.add_argument("--calibration", type=Path, default=DEFAULT_CALIBRATION, help="calibration for the LUT gather")
    ap.add_argument("--random", type=int, default=2, help="random inputs besides the fixture image (default 2)")
    ap.add_argument("--frames", type=Path, help="also rendered frames of this `periphery synth --network-inputs` directory")
    ap.add_argument("--max-frames", type=int, default=3, help="at most this many of --frames (default 3)")
    ap.add_argument("--tolerance", type=float, help="max relative error on head outputs (default 1e-4 / 2e-2)")
    ap.add_argument("--trust-pickle", action="store_true", help="see periphery-convert-checkpoint --help")
    ap.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        lut_path = Path(tmp) / "lut.bin"
        made = subprocess.run([str(args.bin), "lut", "--calibration", str(args.calibration), "--out", str(lut_path)],
                              capture_output=True, text=True)
        if made.returncode != 0:
            raise SystemExit(f"periphery lut failed: {made.stderr.strip()}")
        lut = s40.load_lut(lut_path)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.checkpoint:
            from periphery.convert import checkpoint as ck

            try:
                state, _ = ck.find_state_dict(ck.load_checkpoint(args.checkpoint, args.trust_pickle), args.checkpoint)
                tensors, _ = ck.map_names(state, args.checkpoint)
            except ck.CheckpointError as error:
                raise SystemExit(f"verify_parity: {error}")
            model = s40.state_from_tensors(tensors, str(args.checkpoint))
            sources = {"pytorch checkpoint": lambda image, lut: torch_outputs(model, image, lut)}
            tolerance = args.tolerance or 1e-4
        else:
            from periphery.convert import coreml as cc

            try:
                interpreted = CoreMLSource(args.coreml[0], args.coreml[1])
            except cc.ConversionError as error:
                raise SystemExit(f"verify_parity: {error}")
            converted = s40.load_state(args.converted)
            sources = {"core ml program (interpreted)": interpreted,
                       "pytorch reference, converted weights": lambda image, lut: torch_outputs(converted, image, lut)}
            if args.reference:
                original = s40.load_state(args.reference)
                sources["pytorch reference, original weights"] = lambda image, lut: torch_outputs(original, image, lut)
            tolerance = args.tolerance or 2e-2
        cases = inputs(args.random, args.calibration, lut, args.frames, args.max_frames)
        report = compare(sources, args.bin, args.converted, cases)

    ok = all(max(entry["max_relative_error"][k] for k in HEAD) <= tolerance and entry["top10_same"] and entry["detections_same"]
             for entry in report.values())
    if args.json:
        print(json.dumps({"tolerance": tolerance, "inputs": [c.label for c in cases], "pass": ok, "sources": report}, indent=1))
    else:
        print(f"{len(cases)} inputs ({', '.join(c.label for c in cases)}), tolerance {tolerance:g} (max relative error on head outputs)")
        for name, entry in report.items():
            errors = ", ".join(f"{k} {v:.2e}" for k, v in entry["max_relative_error"].items())
            print(f"  swift vs {name}: {errors}; top-10 candidates {'same' if entry['top10_same'] else 'DIFFER'}; "
                  f"detections {'same' if entry['detections_same'] else 'DIFFER'} ({entry['detections']} in all)")
        print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

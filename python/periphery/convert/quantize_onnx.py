"""Static INT8 post-training quantization of the exported Safety40 ONNX model (QDQ, per-channel).

The fp32 model written by ``periphery-export-onnx`` is quantized by ONNX Runtime's
``quantize_static`` into QDQ format (QuantizeLinear/DequantizeLinear pairs around every quantizable
op), which both ONNX Runtime's CPU provider and OpenVINO's low-precision transformations run as
INT8 kernels. Settings:

* weights QInt8, symmetric, per output channel (``per_channel=True``);
* activations asymmetric, calibrated by MinMax over the calibration frames. The data types follow
  the "Choosing parameters for CPU inference" guidance of ``quantize_static`` in ONNX Runtime 1.32:
  on x86-64, QUInt8 activations with QInt8 weights (U8S8), ``reduce_range`` only on CPUs without
  VNNI (whose 16-bit intermediate sums can saturate); on other CPUs (ARM) QInt8 activations (S8S8);
* the model first goes through ``quant_pre_process`` (symbolic shape inference and ORT's basic graph
  optimisations), as ONNX Runtime recommends before quantization.

Calibration frames are real preprocessed network inputs: ``DIR/network/NNNNNN.bin`` records written
by ``periphery synth --frames N --seed S --out DIR --network-inputs`` (the engine's own crop, Lanczos
resize and letterbox), normalised exactly as ``periphery.train`` feeds the trainer (the
contract's mean/std, 0 outside the letterbox). Each record also carries its frame's ProjectionLUT;
it is not used: the exported model's gather has one constant LUT (``selfcheck_lut.bin`` unless
exported with another), so the calibration sees the post-gather tensors through that LUT, as every
inference of that model does.

The result is cached under ``--cache`` (default ``out/quantized/``, git-ignored) under a key made of
the fp32 model's bytes (which hold the weights and the LUT; the export is byte-for-byte
deterministic), every calibration record's name and bytes, the settings and the ONNX Runtime
version, so repeated benchmark rounds do not requantize. A ``.json`` file beside each cached model
records how it was made and how long the quantization took.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np

from periphery import _checkout

REPO_ROOT = _checkout.REPO_ROOT
DEFAULT_CACHE = REPO_ROOT / "out/quantized"
# Bump when the recipe below changes in a way the settings dictionary does not show.
RECIPE_VERSION = 1


def cpu_has_vnni() -> bool:
    """Whether this x86 CPU has AVX-512 VNNI or AVX-VNNI (from /proc/cpuinfo; False when unknown)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_vnni", "avx_vnni"})
    except OSError:
        pass
    return False


def default_settings() -> Dict[str, object]:
    """The quantization settings for this machine (see the module docstring for why)."""
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    return {
        "format": "QDQ",
        "per_channel": True,
        "weight_type": "QInt8",
        "activation_type": "QUInt8" if x86 else "QInt8",
        "reduce_range": x86 and not cpu_has_vnni(),
        "calibrate_method": "MinMax",
        "pre_process": True,
    }


# --- calibration frames ----------------------------------------------------------------------
def calibration_records(directory: Path, limit: Optional[int] = None) -> List[Path]:
    """The sorted ``DIR/network/*.bin`` records (the first ``limit`` of them when given)."""
    net = directory / "network"
    if not net.is_dir():
        raise ValueError(f"{directory}: no network/ folder (make it with `periphery synth --network-inputs`)")
    records = sorted(p for p in net.iterdir() if p.suffix == ".bin" and not p.name.startswith("."))
    if limit is not None:
        records = records[:limit]
    if not records:
        raise ValueError(f"{net}: no .bin network input records")
    return records


def network_input(path: Path) -> np.ndarray:
    """One record → the normalised network input [1, 3, 256, 512] float32 (its LUT is ignored)."""
    from periphery.train.data import RECORD_BYTES, normalise  # the trainer's reader and normalisation are the reference

    raw = path.read_bytes()
    if len(raw) != RECORD_BYTES:
        raise ValueError(f"{path}: a network input record is {RECORD_BYTES} bytes, this one is {len(raw)}")
    letterbox = tuple(int(v) for v in np.frombuffer(raw[:16], dtype="<i4"))
    x, y, w, h = letterbox
    if not (0 <= x and 0 <= y and w > 0 and h > 0 and x + w <= 512 and y + h <= 256):
        raise ValueError(f"{path}: letterbox {letterbox} is not inside 512×256")
    pixels = np.frombuffer(raw[16 : 16 + 3 * 256 * 512], dtype=np.uint8).reshape(3, 256, 512)
    return normalise(pixels, letterbox)[None]


def _reader(records: List[Path]):
    """An ONNX Runtime CalibrationDataReader over the records (loaded one at a time)."""
    from onnxruntime.quantization import CalibrationDataReader

    class FrameReader(CalibrationDataReader):
        def __init__(self) -> None:
            self._frames: Iterator[Path] = iter(records)

        def get_next(self) -> Optional[Dict[str, np.ndarray]]:
            path = next(self._frames, None)
            return None if path is None else {"image": network_input(path)}

    return FrameReader()


# --- quantization and cache ------------------------------------------------------------------
def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def cache_key(model: Path, records: List[Path], settings: Dict[str, object]) -> str:
    """The cache key: the fp32 model's bytes, the calibration records, the settings, ORT's version."""
    import onnxruntime as ort

    h = hashlib.sha256()
    h.update(json.dumps({"recipe": RECIPE_VERSION, "onnxruntime": ort.__version__, "settings": settings},
                        sort_keys=True).encode())
    h.update(_digest(model).encode())  # the weights and the LUT are inside the model
    for record in records:
        h.update(record.name.encode())
        h.update(_digest(record).encode())
    return h.hexdigest()


def quantize(model: Path, records: List[Path], output: Path, settings: Dict[str, object]) -> float:
    """Writes the QDQ INT8 model of ``model`` to ``output``; returns the seconds it took."""
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="quantize_onnx_") as tmp:
        source = model
        if settings["pre_process"]:
            source = Path(tmp) / "pre.onnx"
            quant_pre_process(str(model), str(source))
        quantize_static(
            str(source), str(output), _reader(records),
            quant_format=QuantFormat.QDQ,
            per_channel=bool(settings["per_channel"]),
            reduce_range=bool(settings["reduce_range"]),
            activation_type=getattr(QuantType, str(settings["activation_type"])),
            weight_type=getattr(QuantType, str(settings["weight_type"])),
            calibrate_method=getattr(CalibrationMethod, str(settings["calibrate_method"])),
            # No CalibMaxIntermediateOutputs: in ORT 1.32 MinMaxCalibrater.collect_data drops the
            # frames collected so far whenever that many accumulate (it clears without merging their
            # ranges), so the ranges would come from the last few frames only. Not needed either: the
            # calibration graph keeps only ReduceMin/ReduceMax outputs per frame, not whole tensors.
        )
    return time.perf_counter() - start


def int8_model(model: Path, calibration: Path, cache: Path = DEFAULT_CACHE,
               limit: Optional[int] = None) -> Tuple[Path, Dict[str, object]]:
    """The cached INT8 model of the fp32 ``model`` calibrated on ``calibration``, quantizing on a miss.

    Returns its path and its record (settings, calibration frames, ``quantize_s``, ``cached``).
    """
    records = calibration_records(calibration, limit)
    settings = default_settings()
    key = cache_key(model, records, settings)
    path = cache / f"safety40-int8-{key[:20]}.onnx"
    meta_path = path.with_suffix(".json")
    if path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        return path, dict(meta, path=str(path), cached=True)
    import onnxruntime as ort

    cache.mkdir(parents=True, exist_ok=True)
    print(f"quantize_onnx: calibrating on {len(records)} frames of {calibration} …", file=sys.stderr)
    # Written under temporary names and renamed, so a concurrent or interrupted run never leaves a
    # half-written model that looks cached.
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    seconds = quantize(model, records, partial, settings)
    meta: Dict[str, object] = {
        "key": key, "source_sha256": _digest(model), "calibration": str(calibration),
        "calibration_frames": len(records), "settings": settings, "onnxruntime": ort.__version__,
        "quantize_s": round(seconds, 1),
    }
    os.replace(partial, path)
    partial_meta = meta_path.with_name(f".{meta_path.name}.{os.getpid()}")
    partial_meta.write_text(json.dumps(meta, indent=2) + "\n")
    os.replace(partial_meta, meta_path)
    print(f"quantize_onnx: wrote {path} in {seconds:.1f} s", file=sys.stderr)
    return path, dict(meta, path=str(path), cached=False)


def main(argv: Optional[List[str]] = None) -> int:
    from periphery.reference import safety40 as s40

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--calibration", type=Path, required=True,
                    help="dataset folder written by `periphery synth --network-inputs`")
    ap.add_argument("--weights", type=Path, default=REPO_ROOT / "Weights/safety40-random-init.safetensors",
                    help="weight file to export when --onnx is not given (default: %(default)s)")
    ap.add_argument("--lut", type=Path, default=s40.DEFAULT_LUT, help="ProjectionLUT file (default: %(default)s)")
    ap.add_argument("--onnx", type=Path, help="fp32 model to quantize (default: export --weights and --lut)")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="cache folder (default: %(default)s)")
    ap.add_argument("--calibration-frames", type=int, help="use only the first N records")
    ap.add_argument("-o", "--output", type=Path, help="also copy the INT8 model here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="quantize_onnx_") as tmp:
        model = args.onnx
        if model is None:
            from periphery.convert import export_onnx

            model = Path(tmp) / "safety40.onnx"
            export_onnx.export(args.weights, args.lut, model)
        elif not model.is_file():
            ap.error(f"no such file: {model}")
        path, meta = int8_model(model, args.calibration, args.cache, args.calibration_frames)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_bytes(path.read_bytes())
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())

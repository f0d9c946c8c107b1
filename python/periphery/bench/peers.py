"""Times peer runtimes on the Safety40 network: ONNX Runtime, PyTorch eager and OpenVINO, f32 and INT8.

Every runtime runs the whole network (image → classes, boxes, directions, with the LUT gather) on
the same weights and the same seeded uniform [−2, 2] input, in its own subprocess so that its peak
resident memory (``VmHWM`` of /proc/self/status, read at the end of the run) is its own:

* ``onnxruntime``: CPU provider, ``intra_op_num_threads = T``, ``inter_op_num_threads = 1``,
  graph optimisation ORT_ENABLE_ALL, on the model written by ``periphery-export-onnx``;
* ``onnxruntime-int8``: the same session options on the static INT8 model of
  ``periphery-quantize-onnx`` (QDQ, per-channel QInt8 weights, QUInt8 activations on x86-64 as ONNX
  Runtime recommends for CPUs, MinMax-calibrated on the real preprocessed frames of
  ``--calibration DIR``, a ``periphery synth --network-inputs`` dataset). The quantized model is
  cached on disk (keyed by the fp32 model, which holds the weights and LUT, and the calibration
  records), so repeated rounds do not requantize; quantization is never timed;
* ``pytorch``: the eager reference of ``periphery.reference.safety40``, ``torch.set_num_threads(T)``,
  ``torch.inference_mode()``;
* ``openvino`` (the OpenVINO runtimes run only when it is installed): the fp32 ONNX model, CPU,
  ``INFERENCE_NUM_THREADS = T``, latency hint, f32 inference precision;
* ``openvino-default``: the same with no inference precision hint, as a user gets out of the box
  (OpenVINO picks bf16 by itself on CPUs with BF16 instructions);
* ``openvino-bf16``: the same with the bf16 inference precision hint;
* ``openvino-int8``: the QDQ INT8 model of ``onnxruntime-int8``, no precision hint (OpenVINO runs the
  quantized ops in INT8 and chooses the precision of the rest, bf16 on BF16 CPUs).

Each OpenVINO entry reports the ``inference_precision`` the compiled model actually uses, and under
``primitive_types`` how many operations of its execution graph run on each oneDNN implementation
(the ``primitiveType`` of ``compiled.get_runtime_model()``, e.g. ``brgconv_avx512_core_vnni`` or
``jit_avx2_I8``): the record of which instruction set it used, ``ONEDNN_MAX_CPU_ISA`` included.

Per-frame wall time is measured around one inference call after ``--warmup`` untimed frames.
Percentiles use index round((n − 1)·p), rounding half up, on the sorted times (as
``periphery bench``). One JSON object is printed on stdout; progress goes to stderr. Each runtime
object also carries its version and the max abs difference of its outputs from PyTorch's
(``max_abs_diff_vs_pytorch``, a sanity check that all runtimes compute the same network; PyTorch
runs untimed for it when it is not among the runtimes) on the benchmark input and, with
``--calibration``, on the first calibration frame (``max_abs_diff_vs_pytorch_real_frame``: uniform
noise is far outside the activation ranges an INT8 model was calibrated for, a real frame is not).
INT8 differences are large by nature and reported, never checked. ``int8_model`` records the
quantized model, whether it came from the cache, and how long its quantization took. The top-level
``load_average_1m`` holds the machine's 1-minute load before and after the run: numbers taken under
a load above the thread count are not comparable.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

import numpy as np

from periphery import _checkout

REPO_ROOT = _checkout.REPO_ROOT
DEFAULT_WEIGHTS = REPO_ROOT / "Weights/safety40-random-init.safetensors"
DEFAULT_LUT = REPO_ROOT / "Sources/PeripheryInference/Resources/Conformance/selfcheck_lut.bin"
RUNTIMES = ("onnxruntime", "onnxruntime-int8", "pytorch", "openvino", "openvino-default", "openvino-bf16",
            "openvino-int8")
INT8_RUNTIMES = ("onnxruntime-int8", "openvino-int8")
# OpenVINO CPU settings per runtime: the inference precision hint (None: no hint, OpenVINO's own
# choice) and whether it runs the INT8 model.
OPENVINO_VARIANTS = {
    "openvino": ("f32", False),
    "openvino-default": (None, False),
    "openvino-bf16": ("bf16", False),
    "openvino-int8": (None, True),
}
IMAGE_SHAPE = (1, 3, 256, 512)
INPUT_SEED = 7


def percentile(values: List[float], p: float) -> float:
    """The value at index round((n − 1)·p) (half up) of the sorted values."""
    ordered = sorted(values)
    return ordered[int(math.floor((len(ordered) - 1) * p + 0.5))]


def peak_rss_mb() -> float:
    """This process's peak resident set size (VmHWM) in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench_input() -> np.ndarray:
    """The shared benchmark input: seeded uniform [−2, 2], float32 [1, 3, 256, 512]."""
    return np.random.default_rng(INPUT_SEED).uniform(-2.0, 2.0, IMAGE_SHAPE).astype(np.float32)


# --- workers (run in a subprocess each) ------------------------------------------------------
def make_runner(runtime: str, args: argparse.Namespace
                ) -> tuple[Callable[[np.ndarray], List[np.ndarray]], str, Dict[str, object]]:
    """Builds the inference callable of one runtime; returns it with the runtime's version and any
    settings worth reporting."""
    threads = args.threads
    if runtime in ("onnxruntime", "onnxruntime-int8"):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        model = args.onnx_int8 if runtime == "onnxruntime-int8" else args.onnx
        sess = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        names = [o.name for o in sess.get_outputs()]
        return (lambda x: sess.run(names, {"image": x})), ort.__version__, {}
    if runtime == "pytorch":
        import torch

        from periphery.reference import safety40 as s40

        torch.set_num_threads(threads)
        model = s40.build_model(args.weights, args.lut)

        def run_torch(x: np.ndarray) -> List[np.ndarray]:
            with torch.inference_mode():
                return [t.numpy() for t in model(torch.from_numpy(x))]

        return run_torch, torch.__version__, {}
    if runtime in OPENVINO_VARIANTS:
        import openvino as ov

        precision, int8 = OPENVINO_VARIANTS[runtime]
        config: Dict[str, object] = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY"}
        if precision is not None:
            config["INFERENCE_PRECISION_HINT"] = precision
        core = ov.Core()
        compiled = core.compile_model(core.read_model(str(args.onnx_int8 if int8 else args.onnx)), "CPU", config)
        request = compiled.create_infer_request()
        outputs = list(compiled.outputs)

        def run_ov(x: np.ndarray) -> List[np.ndarray]:
            result = request.infer({0: x})
            return [np.array(result[o]) for o in outputs]

        # What the plugin chose (or was told): without a hint this is the only record of it.
        chosen = compiled.get_property("INFERENCE_PRECISION_HINT")
        # Which implementation each operation of the execution graph runs (the ISA is in its name).
        primitives: Dict[str, int] = {}
        for op in compiled.get_runtime_model().get_ordered_ops():
            info = op.get_rt_info()
            if "primitiveType" in info:
                kind = str(info["primitiveType"].astype(str) if hasattr(info["primitiveType"], "astype") else info["primitiveType"])
                primitives[kind] = primitives.get(kind, 0) + 1
        return run_ov, ov.__version__, {"inference_precision": getattr(chosen, "get_type_name", lambda: str(chosen))(),
                                        "primitive_types": dict(sorted(primitives.items()))}
    raise ValueError(f"unknown runtime {runtime}")


def worker(args: argparse.Namespace) -> int:
    """Times one runtime and prints its JSON result line; saves the last outputs for comparison."""
    run, version, extra = make_runner(args.worker, args)
    x = bench_input()
    for _ in range(args.warmup):
        run(x)
    times = []
    out: List[np.ndarray] = []
    for _ in range(args.frames):
        t0 = time.perf_counter()
        out = run(x)
        times.append((time.perf_counter() - t0) * 1000.0)
    if args.save:
        arrays = {f"bench_{i}": np.asarray(o).reshape(-1) for i, o in enumerate(out)}
        if args.check_input:
            # After the timing; one more frame through the same buffers leaves the peak memory as it is.
            arrays |= {f"real_{i}": np.asarray(o).reshape(-1) for i, o in enumerate(run(np.load(args.check_input)))}
        np.savez(args.save, **arrays)
    print(json.dumps({
        "version": version,
        "median_ms": round(percentile(times, 0.5), 3),
        "p95_ms": round(percentile(times, 0.95), 3),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        **extra,
    }))
    return 0


def reference_outputs(args: argparse.Namespace, save: Path, check_input: Optional[Path]) -> None:
    """PyTorch's outputs (untimed, in this process) saved as a worker saves them, for the diffs."""
    import torch

    from periphery.reference import safety40 as s40

    model = s40.build_model(args.weights, args.lut)
    inputs = {"bench": bench_input()} | ({"real": np.load(check_input)} if check_input else {})
    arrays: Dict[str, np.ndarray] = {}
    with torch.inference_mode():
        for label, x in inputs.items():
            arrays |= {f"{label}_{i}": t.numpy().reshape(-1) for i, t in enumerate(model(torch.from_numpy(x)))}
    np.savez(save, **arrays)


def max_abs_diff(got: Path, ref: Path, label: str) -> Optional[float]:
    """Max abs difference over all outputs saved under ``label`` (None when either lacks them)."""
    a, b = np.load(got), np.load(ref)
    keys = [k for k in b.files if k.startswith(f"{label}_")]
    if not keys or any(k not in a.files for k in keys):
        return None
    diff = max(float(np.abs(a[k].astype(np.float64) - b[k]).max()) for k in keys)
    return float(f"{diff:.3e}")


# --- driver ----------------------------------------------------------------------------------
def run_worker(runtime: str, args: argparse.Namespace, onnx: Path, onnx_int8: Optional[Path], save: Path,
               check_input: Optional[Path]) -> Dict[str, object]:
    """Runs one runtime's worker subprocess and returns its parsed JSON result."""
    cmd = [sys.executable, "-m", "periphery.bench.peers", "--worker", runtime, "--weights", str(args.weights),
           "--lut", str(args.lut), "--onnx", str(onnx), "--threads", str(args.threads),
           "--frames", str(args.frames), "--warmup", str(args.warmup), "--save", str(save)]
    if onnx_int8 is not None:
        cmd += ["--onnx-int8", str(onnx_int8)]
    if check_input is not None:
        cmd += ["--check-input", str(check_input)]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    print(f"bench_peers: {runtime} …", file=sys.stderr)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{runtime} worker failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS, help="weight file (default: %(default)s)")
    ap.add_argument("--lut", type=Path, default=DEFAULT_LUT, help="ProjectionLUT file (default: %(default)s)")
    ap.add_argument("--onnx", type=Path,
                    help="ONNX model of these weights and LUT (default: export one to a temporary folder)")
    ap.add_argument("--calibration", type=Path,
                    help="`periphery synth --network-inputs` dataset to calibrate the INT8 model on "
                         "(needed by the int8 runtimes)")
    ap.add_argument("--quant-cache", type=Path, default=None,
                    help="folder of cached INT8 models (default: out/quantized/)")
    ap.add_argument("--threads", type=int, default=2, help="threads per runtime (default %(default)s)")
    ap.add_argument("--frames", type=int, default=50, help="timed frames (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed frames first (default %(default)s)")
    ap.add_argument("--runtimes", default="onnxruntime,pytorch,openvino",
                    help=f"comma-separated subset of {','.join(RUNTIMES)} (default %(default)s); the openvino "
                         "runtimes are skipped when it is not installed")
    ap.add_argument("--worker", choices=RUNTIMES, help=argparse.SUPPRESS)
    ap.add_argument("--onnx-int8", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--check-input", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--save", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.threads < 1 or args.frames < 1 or args.warmup < 0:
        ap.error("--threads and --frames must be ≥ 1, --warmup ≥ 0")
    for p in (args.weights, args.lut):
        if not p.is_file():
            ap.error(f"no such file: {p}")
    if args.worker:
        return worker(args)

    wanted = [r.strip() for r in args.runtimes.split(",") if r.strip()]
    unknown = [r for r in wanted if r not in RUNTIMES]
    if unknown:
        ap.error(f"unknown runtimes {unknown}; choose from {RUNTIMES}")
    if any(r in INT8_RUNTIMES for r in wanted) and args.calibration is None:
        ap.error(f"--calibration DIR (a `periphery synth --network-inputs` dataset) is needed by "
                 f"{', '.join(r for r in wanted if r in INT8_RUNTIMES)}")
    if args.calibration is not None and not (args.calibration / "network").is_dir():
        ap.error(f"{args.calibration}: no network/ folder (make it with `periphery synth --network-inputs`)")
    if importlib.util.find_spec("openvino") is None:
        skipped = [r for r in wanted if r in OPENVINO_VARIANTS]
        if skipped:
            print(f"bench_peers: openvino not installed, skipped {', '.join(skipped)}", file=sys.stderr)
            wanted = [r for r in wanted if r not in OPENVINO_VARIANTS]

    with tempfile.TemporaryDirectory(prefix="bench_peers_") as tmp:
        onnx = args.onnx
        if onnx is None and any(r != "pytorch" for r in wanted):
            from periphery.convert import export_onnx

            onnx = Path(tmp) / "safety40.onnx"
            print(f"bench_peers: exporting {onnx} …", file=sys.stderr)
            export_onnx.export(args.weights, args.lut, onnx)
        elif onnx is not None and not onnx.is_file():
            ap.error(f"no such file: {onnx}")
        result: Dict[str, object] = {"threads": args.threads, "frames": args.frames}
        onnx_int8: Optional[Path] = None
        check_input: Optional[Path] = None
        if args.calibration is not None:
            from periphery.convert import quantize_onnx

            if onnx is not None and any(r in INT8_RUNTIMES for r in wanted):
                # Before the load reading and the timed workers: a cache miss calibrates for a while.
                onnx_int8, result["int8_model"] = quantize_onnx.int8_model(
                    onnx, args.calibration, args.quant_cache or quantize_onnx.DEFAULT_CACHE)
            check_input = Path(tmp) / "real_frame.npy"
            first = quantize_onnx.calibration_records(args.calibration, 1)[0]
            np.save(check_input, quantize_onnx.network_input(first))
            result["real_frame"] = str(first)
        load_before = os.getloadavg()[0]
        saved: Dict[str, Path] = {}
        # PyTorch first, so every other runtime can be compared with it.
        for runtime in sorted(wanted, key=lambda r: r != "pytorch"):
            saved[runtime] = Path(tmp) / f"{runtime}.npz"
            result[runtime] = run_worker(runtime, args, onnx or Path(tmp) / "none.onnx", onnx_int8,
                                         saved[runtime], check_input)
        load_after = os.getloadavg()[0]
        reference = saved.get("pytorch")
        if reference is None:
            reference = Path(tmp) / "reference.npz"
            print("bench_peers: pytorch reference outputs (untimed) …", file=sys.stderr)
            reference_outputs(args, reference, check_input)
        for runtime in wanted:
            result[runtime]["max_abs_diff_vs_pytorch"] = max_abs_diff(saved[runtime], reference, "bench")
            if check_input is not None:
                result[runtime]["max_abs_diff_vs_pytorch_real_frame"] = max_abs_diff(saved[runtime], reference, "real")
        # Other work on the machine skews every number; record the 1-minute load around the run.
        result["load_average_1m"] = [round(load_before, 2), round(load_after, 2)]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

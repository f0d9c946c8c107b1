#!/usr/bin/env python3
"""Times peer runtimes on the Safety40 network: ONNX Runtime, PyTorch eager and OpenVINO.

Every runtime runs the whole network (image → classes, boxes, directions, with the LUT gather) on
the same weights and the same seeded uniform [−2, 2] input, in its own subprocess so that its peak
resident memory (``VmHWM`` of /proc/self/status, read at the end of the run) is its own:

* ``onnxruntime``: CPU provider, ``intra_op_num_threads = T``, ``inter_op_num_threads = 1``,
  graph optimisation ORT_ENABLE_ALL, on the model written by ``tools/export_onnx.py``;
* ``pytorch``: the eager reference of ``tools/safety40_torch.py``, ``torch.set_num_threads(T)``,
  ``torch.inference_mode()``;
* ``openvino`` (only when installed): the same ONNX model, CPU, ``INFERENCE_NUM_THREADS = T``,
  latency hint, f32 inference precision.

Per-frame wall time is measured around one inference call after ``--warmup`` untimed frames.
Percentiles use index round((n − 1)·p), rounding half up, on the sorted times (as
``periphery bench``). One JSON object is printed on stdout; progress goes to stderr. Each runtime
object also carries its version and the max abs difference of its outputs from PyTorch's on the
last frame (a sanity check that all runtimes compute the same network), and the top-level
``load_average_1m`` holds the machine's 1-minute load before and after the run: numbers taken
under a load above the thread count are not comparable.
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

TOOLS = Path(__file__).resolve().parent
REPO_ROOT = TOOLS.parent
DEFAULT_WEIGHTS = REPO_ROOT / "Weights/safety40-random-init.safetensors"
DEFAULT_LUT = REPO_ROOT / "Sources/PeripheryInference/Resources/Conformance/selfcheck_lut.bin"
RUNTIMES = ("onnxruntime", "pytorch", "openvino")
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
def make_runner(runtime: str, args: argparse.Namespace) -> tuple[Callable[[np.ndarray], List[np.ndarray]], str]:
    """Builds the inference callable of one runtime and returns it with the runtime's version."""
    threads = args.threads
    if runtime == "onnxruntime":
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        sess = ort.InferenceSession(str(args.onnx), opts, providers=["CPUExecutionProvider"])
        names = [o.name for o in sess.get_outputs()]
        return (lambda x: sess.run(names, {"image": x})), ort.__version__
    if runtime == "pytorch":
        import torch

        sys.path.insert(0, str(TOOLS))
        import safety40_torch as s40

        torch.set_num_threads(threads)
        model = s40.build_model(args.weights, args.lut)

        def run_torch(x: np.ndarray) -> List[np.ndarray]:
            with torch.inference_mode():
                return [t.numpy() for t in model(torch.from_numpy(x))]

        return run_torch, torch.__version__
    if runtime == "openvino":
        import openvino as ov

        core = ov.Core()
        compiled = core.compile_model(core.read_model(str(args.onnx)), "CPU", {
            "INFERENCE_NUM_THREADS": threads,
            "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_PRECISION_HINT": "f32",
        })
        request = compiled.create_infer_request()
        outputs = list(compiled.outputs)

        def run_ov(x: np.ndarray) -> List[np.ndarray]:
            result = request.infer({0: x})
            return [np.array(result[o]) for o in outputs]

        return run_ov, ov.__version__
    raise ValueError(f"unknown runtime {runtime}")


def worker(args: argparse.Namespace) -> int:
    """Times one runtime and prints its JSON result line; saves the last outputs for comparison."""
    run, version = make_runner(args.worker, args)
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
        np.savez(args.save, *[np.asarray(o).reshape(-1) for o in out])
    print(json.dumps({
        "version": version,
        "median_ms": round(percentile(times, 0.5), 3),
        "p95_ms": round(percentile(times, 0.95), 3),
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }))
    return 0


# --- driver ----------------------------------------------------------------------------------
def run_worker(runtime: str, args: argparse.Namespace, onnx: Path, save: Path) -> Dict[str, object]:
    """Runs one runtime's worker subprocess and returns its parsed JSON result."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", runtime, "--weights", str(args.weights),
           "--lut", str(args.lut), "--onnx", str(onnx), "--threads", str(args.threads),
           "--frames", str(args.frames), "--warmup", str(args.warmup), "--save", str(save)]
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
    ap.add_argument("--threads", type=int, default=2, help="threads per runtime (default %(default)s)")
    ap.add_argument("--frames", type=int, default=50, help="timed frames (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed frames first (default %(default)s)")
    ap.add_argument("--runtimes", default=",".join(RUNTIMES),
                    help="comma-separated subset of %(default)s; openvino is skipped when not installed")
    ap.add_argument("--worker", choices=RUNTIMES, help=argparse.SUPPRESS)
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
    if "openvino" in wanted and importlib.util.find_spec("openvino") is None:
        print("bench_peers: openvino not installed, skipped", file=sys.stderr)
        wanted.remove("openvino")

    with tempfile.TemporaryDirectory(prefix="bench_peers_") as tmp:
        onnx = args.onnx
        if onnx is None and any(r != "pytorch" for r in wanted):
            sys.path.insert(0, str(TOOLS))
            import export_onnx

            onnx = Path(tmp) / "safety40.onnx"
            print(f"bench_peers: exporting {onnx} …", file=sys.stderr)
            export_onnx.export(args.weights, args.lut, onnx)
        elif onnx is not None and not onnx.is_file():
            ap.error(f"no such file: {onnx}")
        result: Dict[str, object] = {"threads": args.threads, "frames": args.frames}
        load_before = os.getloadavg()[0]
        saved: Dict[str, Path] = {}
        # PyTorch first, so every other runtime can be compared with it.
        for runtime in sorted(wanted, key=lambda r: r != "pytorch"):
            saved[runtime] = Path(tmp) / f"{runtime}.npz"
            result[runtime] = run_worker(runtime, args, onnx or Path(tmp) / "none.onnx", saved[runtime])
        if "pytorch" in saved:
            ref = np.load(saved["pytorch"])
            for runtime in wanted:
                got = np.load(saved[runtime])
                diff = max(float(np.abs(got[k] - ref[k]).max()) for k in ref.files)
                result[runtime]["max_abs_diff_vs_pytorch"] = float(f"{diff:.3e}")
        # Other work on the machine skews every number; record the 1-minute load around the run.
        result["load_average_1m"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs `periphery bench` and the peer runtimes side by side, alternating, and compares medians.

This machine's timings drift by ±20 % from minute to minute, so one runtime measured now and
another measured later cannot be compared. Each round runs `periphery bench --json` once per
precision of ``--periphery-precisions`` (``fp32`` runs without ``--precision``, so the script works
with a CLI that predates the option; others pass ``--precision P``, and ``int8`` reads the weights of
``--weights-int8``) and then `periphery-bench-peers` with every peer of ``--runtimes``, back to back,
with the same thread count and weights. The report gives, per runtime, the median over rounds of
the per-round median and p95, the peak resident memory, the version, OpenVINO's inference precision
and the max abs difference from PyTorch (from bench_peers), and under ``ratios`` the ratio of each
Periphery precision's median to each peer's measured in the same rounds (below 1: Periphery is
faster). One JSON object on stdout.

The INT8 peers need ``--calibration DIR`` (a `periphery synth --network-inputs` dataset); the INT8
model is quantized (or found in the cache) once before the first round, so no round runs right
after minutes of calibration, and ``int8_model`` in the report says how long quantization took.

``--isa avx2`` holds both runtimes to AVX2 on a CPU that has more (AVX-512, VNNI): Periphery INT8
runs ``--int8-kernel avx2``, Periphery FP32 runs OpenBLAS's Haswell (AVX2) kernels through
``OPENBLAS_CORETYPE=Haswell`` (its ``blas_core`` in the report says which ran), and the peers run
with ``ONEDNN_MAX_CPU_ISA=AVX2``, which OpenVINO's oneDNN reads; each OpenVINO entry's
``primitive_types`` (from bench_peers) shows the implementations its execution graph used, so that
the report proves the limit took effect (``avx2`` in the names, no ``avx512`` or ``vnni``).

Every benchmarked process runs without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in its environment:
users do not set them, and an OpenBLAS told another core type or cache size picks other kernels
and tiles than it picks for the CPU by itself. ``env_removed`` lists those that were set here.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from periphery import _checkout

REPO_ROOT = _checkout.REPO_ROOT
DEFAULT_RUNTIMES = "onnxruntime,onnxruntime-int8,openvino,openvino-default,openvino-bf16,openvino-int8"
INT8_PEERS = ("onnxruntime-int8", "openvino-int8")
# Tuning variables a user's environment does not have (this machine's may; docs/results/benchmarks.md).
REMOVED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
# Per-runtime fields of the report beside the timings, copied from the last round that has them.
PEER_FIELDS = ("version", "inference_precision", "max_abs_diff_vs_pytorch", "max_abs_diff_vs_pytorch_real_frame",
               "primitive_types", "kernel")


def bench_env() -> Dict[str, str]:
    """This process's environment without the variables of REMOVED_ENV."""
    return {k: v for k, v in os.environ.items() if k not in REMOVED_ENV}


def periphery_name(precision: str) -> str:
    """The report's name for one Periphery precision: fp32 keeps the plain name of earlier reports."""
    return "periphery" if precision == "fp32" else f"periphery-{precision}"


# What `--isa avx2` sets: Periphery's INT8 kernel, OpenBLAS's core for FP32, oneDNN's ISA limit.
AVX2_INT8_KERNEL = "avx2"
AVX2_OPENBLAS_CORE = "Haswell"
AVX2_ONEDNN_ISA = "AVX2"


def run_periphery(binary: Path, frames: int, threads: int, weights: Path, precision: str,
                  isa: Optional[str] = None) -> Dict[str, float]:
    """One `periphery bench --json` run at one precision; adds its peak RSS (from wait4) in MiB."""
    command = [str(binary), "bench", "--json", "--frames", str(frames), "--threads", str(threads),
               "--weights", str(weights)]
    env = bench_env()
    if precision != "fp32":
        command += ["--precision", precision]
    if isa == "avx2" and precision == "int8":
        command += ["--int8-kernel", AVX2_INT8_KERNEL]
    if isa == "avx2" and precision == "fp32":
        env["OPENBLAS_CORETYPE"] = AVX2_OPENBLAS_CORE
    # stderr to a file, not a pipe: reading stdout to the end while stderr fills a pipe could block.
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, env=env)
        out = process.stdout.read() if process.stdout else b""
        _, status, usage = os.wait4(process.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            sys.exit(f"{' '.join(command)} failed with status {os.waitstatus_to_exitcode(status)}:\n"
                     f"{errors.read().decode(errors='replace')[-2000:]}")
    result = json.loads(out)
    result["peak_rss_mb"] = usage.ru_maxrss / 1024.0
    return result


def run_peers(runtimes: str, frames: int, threads: int, weights: Path, onnx: Optional[Path],
              calibration: Optional[Path], isa: Optional[str] = None) -> Dict[str, Dict[str, object]]:
    """One `periphery-bench-peers` run (its workers inherit the cleaned environment)."""
    command = [sys.executable, "-m", "periphery.bench.peers", "--runtimes", runtimes, "--frames", str(frames),
               "--threads", str(threads), "--weights", str(weights)]
    if onnx:
        command += ["--onnx", str(onnx)]
    if calibration:
        command += ["--calibration", str(calibration)]
    env = bench_env()
    if isa == "avx2":
        env["ONEDNN_MAX_CPU_ISA"] = AVX2_ONEDNN_ISA
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"periphery.bench.peers failed with status {proc.returncode}:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


def prepare_int8(weights: Path, onnx: Optional[Path], calibration: Path) -> Dict[str, object]:
    """Quantizes the INT8 peers' model now (or finds it cached), so that no round pays for it."""
    command = [sys.executable, "-m", "periphery.convert.quantize_onnx", "--calibration", str(calibration)]
    command += ["--onnx", str(onnx)] if onnx else ["--weights", str(weights)]
    print("bench_side_by_side: preparing the INT8 model …", file=sys.stderr)
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"periphery.convert.quantize_onnx failed with status {proc.returncode}:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", type=Path, default=_checkout.DEFAULT_BINARY, help="periphery executable")
    parser.add_argument("--weights", type=Path, default=REPO_ROOT / "Weights/safety40-random-init.safetensors")
    parser.add_argument("--weights-int8", type=Path, default=REPO_ROOT / "Weights/safety40-synthetic-int8.safetensors",
                        help="weights of `periphery bench --precision int8` (default: %(default)s)")
    parser.add_argument("--periphery-precisions", default="fp32",
                        help="comma-separated `periphery bench` precisions per round, e.g. fp32,int8 (default %(default)s)")
    parser.add_argument("--onnx", type=Path, default=None, help="ONNX model of the weights (default: bench_peers exports one)")
    parser.add_argument("--calibration", type=Path, default=None,
                        help="`periphery synth --network-inputs` dataset for the INT8 peers (passed to periphery-bench-peers)")
    parser.add_argument("--runtimes", default=DEFAULT_RUNTIMES, help="peers, as for periphery-bench-peers (default %(default)s)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--frames", type=int, default=30, help="timed frames per runtime per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--isa", choices=["auto", "avx2"], default="auto",
                        help="auto: each runtime's own choice; avx2: hold both to AVX2 (see above)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.frames < 1 or args.threads < 1:
        parser.error("--rounds, --frames and --threads must be ≥ 1")
    if not args.binary.exists():
        sys.exit(f"{args.binary} not found: run `swift build -c release` first")
    precisions = [p.strip() for p in args.periphery_precisions.split(",") if p.strip()]
    if not precisions or any(not re.fullmatch(r"[a-z0-9]+", p) for p in precisions) or len(set(precisions)) < len(precisions):
        parser.error(f"--periphery-precisions: a comma-separated list of distinct names, not {args.periphery_precisions!r}")
    weights = {p: args.weights_int8 if p == "int8" else args.weights for p in precisions}
    for path in set(weights.values()):
        if not path.is_file():
            parser.error(f"no such weights file: {path}")
    peers = [r.strip() for r in args.runtimes.split(",") if r.strip()]
    int8_peers = [r for r in peers if r in INT8_PEERS]
    if int8_peers and args.calibration is None:
        parser.error(f"--calibration DIR (`periphery synth --network-inputs`) is needed by {', '.join(int8_peers)}; "
                     "give one or leave them out of --runtimes")

    report: Dict[str, object] = {"threads": args.threads, "frames_per_round": args.frames, "rounds": args.rounds,
                                 "env_removed": [k for k in REMOVED_ENV if k in os.environ], "isa": args.isa}
    isa = None if args.isa == "auto" else args.isa
    if int8_peers:
        report["int8_model"] = prepare_int8(args.weights, args.onnx, args.calibration)

    rounds: List[Dict[str, Dict[str, object]]] = []
    ours: Dict[str, object] = {}
    # Other work on the machine skews every number; the 1-minute load at the start of each round
    # shows which rounds ran on a busy machine (a load above the core count makes them incomparable).
    loads: List[float] = []
    for index in range(args.rounds):
        loads.append(round(os.getloadavg()[0], 2))
        entry: Dict[str, Dict[str, object]] = {}
        for precision in precisions:
            ours = run_periphery(args.binary, args.frames, args.threads, weights[precision], precision, isa)
            entry[periphery_name(precision)] = {key: ours[key] for key in ("median_ms", "p95_ms", "peak_rss_mb", "kernel")
                                                if key in ours}
        if peers:
            measured = run_peers(",".join(peers), args.frames, args.threads, args.weights, args.onnx, args.calibration, isa)
            for name in peers:
                if name in measured:
                    entry[name] = {key: measured[name][key] for key in ("median_ms", "p95_ms", "peak_rss_mb", *PEER_FIELDS)
                                   if key in measured[name]}
        rounds.append(entry)
        print(f"round {index + 1}: " + ", ".join(f"{k} {v['median_ms']:.1f} ms" for k, v in entry.items()), file=sys.stderr)

    report |= {"blas_core": ours.get("blas_core"), "load_average_1m": round(os.getloadavg()[0], 2),
               "round_load_average_1m": loads}
    for name in rounds[0]:
        report[name] = {
            "median_ms": statistics.median(r[name]["median_ms"] for r in rounds),
            "p95_ms": statistics.median(r[name]["p95_ms"] for r in rounds),
            "peak_rss_mb": max(r[name]["peak_rss_mb"] for r in rounds),
            "round_medians_ms": [r[name]["median_ms"] for r in rounds],
            **{key: rounds[-1][name][key] for key in PEER_FIELDS if key in rounds[-1][name]},
        }
    # Every Periphery precision against every peer, each ratio taken within one round.
    ratios: Dict[str, Dict[str, object]] = {}
    ours_names = [periphery_name(p) for p in precisions]
    for ours_name in ours_names:
        ratios[ours_name] = {}
        for name in rounds[0]:
            if name in ours_names:
                continue
            per_round = [r[ours_name]["median_ms"] / r[name]["median_ms"] for r in rounds]
            ratios[ours_name][name] = {"median": round(statistics.median(per_round), 3),
                                       "per_round": [round(x, 3) for x in per_round]}
    report["ratios"] = ratios
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs `periphery bench` and the peer runtimes side by side, alternating, and compares medians.

This machine's timings drift by ±20 % from minute to minute, so one runtime measured now and
another measured later cannot be compared. Each round runs `periphery bench --json` and then
`tools/bench_peers.py` (ONNX Runtime and OpenVINO by default) back to back, with the same thread
count and weights; the report gives, per runtime, the median over rounds of the per-round median
and p95, the peak resident memory, and the ratio of Periphery's median to each peer's measured in
the same rounds. One JSON object on stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

TOOLS = Path(__file__).resolve().parent
REPO_ROOT = TOOLS.parent


def run_periphery(binary: Path, frames: int, threads: int, weights: Path) -> Dict[str, float]:
    """One `periphery bench --json` run; adds its peak RSS (from wait4) in MiB."""
    process = subprocess.Popen(
        [str(binary), "bench", "--json", "--frames", str(frames), "--threads", str(threads), "--weights", str(weights)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"periphery bench failed with status {status}")
    result = json.loads(out)
    result["peak_rss_mb"] = usage.ru_maxrss / 1024.0
    return result


def run_peers(runtimes: str, frames: int, threads: int, weights: Path, onnx: Path | None) -> Dict[str, Dict[str, float]]:
    """One `tools/bench_peers.py` run."""
    command = [sys.executable, str(TOOLS / "bench_peers.py"), "--runtimes", runtimes, "--frames", str(frames),
               "--threads", str(threads), "--weights", str(weights)]
    if onnx:
        command += ["--onnx", str(onnx)]
    out = subprocess.run(command, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return json.loads(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", type=Path, default=REPO_ROOT / ".build/release/periphery", help="periphery executable")
    parser.add_argument("--weights", type=Path, default=REPO_ROOT / "Weights/safety40-random-init.safetensors")
    parser.add_argument("--onnx", type=Path, default=None, help="ONNX model of the weights (default: bench_peers exports one)")
    parser.add_argument("--runtimes", default="onnxruntime,openvino", help="peers, as for bench_peers.py")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--frames", type=int, default=30, help="timed frames per runtime per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not args.binary.exists():
        sys.exit(f"{args.binary} not found: run `swift build -c release` first")

    rounds: List[Dict[str, Dict[str, float]]] = []
    for index in range(args.rounds):
        ours = run_periphery(args.binary, args.frames, args.threads, args.weights)
        peers = run_peers(args.runtimes, args.frames, args.threads, args.weights, args.onnx)
        entry = {"periphery": {"median_ms": ours["median_ms"], "p95_ms": ours["p95_ms"], "peak_rss_mb": ours["peak_rss_mb"]}}
        for name in args.runtimes.split(","):
            if name in peers:
                entry[name] = {key: peers[name][key] for key in ("median_ms", "p95_ms", "peak_rss_mb")}
        rounds.append(entry)
        print(f"round {index + 1}: " + ", ".join(f"{k} {v['median_ms']:.1f} ms" for k, v in entry.items()), file=sys.stderr)

    report: Dict[str, object] = {"threads": args.threads, "frames_per_round": args.frames, "rounds": args.rounds,
                                 "blas_core": ours.get("blas_core"), "load_average_1m": os.getloadavg()[0]}
    for name in rounds[0]:
        report[name] = {
            "median_ms": statistics.median(r[name]["median_ms"] for r in rounds),
            "p95_ms": statistics.median(r[name]["p95_ms"] for r in rounds),
            "peak_rss_mb": max(r[name]["peak_rss_mb"] for r in rounds),
            "round_medians_ms": [r[name]["median_ms"] for r in rounds],
        }
    for name in rounds[0]:
        if name != "periphery":
            ratios = [r["periphery"]["median_ms"] / r[name]["median_ms"] for r in rounds]
            report[f"ratio_to_{name}"] = {"median": statistics.median(ratios), "per_round": [round(x, 3) for x in ratios]}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compares results of the same input from two machines (x86-64 and emulated aarch64, `make test-arm64`).

Two kinds of file, told apart by their contents:
- `periphery detect --json` arrays: the same count, labels and classes, and every score and box field
  within TOLERANCE · max(1, |x86 value|);
- `periphery run` replay sidecars: the same frames (index, time, counts), and every raw detection and
  track field within the same bound; wall-clock fields (timing_ms, arrival, latency_ms and the
  summary's timings) are left out.

TOLERANCE is 1e-4, the relative bound the network parity tests hold each head tensor to: OpenBLAS runs
other sgemm kernels on ARM, and the FP32 network's sums round differently. The INT8 integers are the
same on every path; the report also says whether the two files are equal to the last digit.

Usage: compare_across_machines.py X86_FILE ARM_FILE [--label NAME]
"""

import argparse
import json
import sys

TOLERANCE = 1e-4
DETECTION_FIELDS = ["score", "x", "y", "z", "length", "width", "height", "yaw"]
WALL_CLOCK = {"timing_ms", "arrival", "latency_ms", "dropped"}


def load(path):
    text = open(path).read()
    try:
        return "detections", json.loads(text)
    except json.JSONDecodeError:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        if not lines or lines[0].get("kind") != "periphery-replay":
            sys.exit(f"compare_across_machines: {path}: neither a detections array nor a replay sidecar")
        return "sidecar", [line for line in lines[1:] if "summary" not in line]


class Comparison:
    def __init__(self):
        self.worst = 0.0
        self.exact = True
        self.failures = []

    def number(self, where, x86, arm):
        difference = abs(x86 - arm)
        self.exact &= x86 == arm
        self.worst = max(self.worst, difference / max(1.0, abs(x86)))
        if difference > TOLERANCE * max(1.0, abs(x86)):
            self.failures.append(f"{where}: {arm} on aarch64 against {x86} on x86-64")

    def same(self, where, x86, arm):
        if x86 != arm:
            self.failures.append(f"{where}: {arm!r} on aarch64 against {x86!r} on x86-64")

    def rows(self, where, x86, arm):
        """Lists of numeric rows (raw detections, tracks): equal shapes, numbers within the bound."""
        self.same(f"{where} count", len(x86), len(arm))
        for i, (a, b) in enumerate(zip(x86, arm)):
            self.same(f"{where} {i} length", len(a), len(b))
            for j, (p, q) in enumerate(zip(a, b)):
                self.value(f"{where} {i} field {j}", p, q)

    def value(self, where, x86, arm):
        """Numbers within the bound, lists (a track's history) element by element, the rest equal."""
        if isinstance(x86, (int, float)) and isinstance(arm, (int, float)) and not isinstance(x86, bool):
            self.number(where, x86, arm)
        elif isinstance(x86, list) and isinstance(arm, list):
            self.same(f"{where} length", len(x86), len(arm))
            for k, (p, q) in enumerate(zip(x86, arm)):
                self.value(f"{where}[{k}]", p, q)
        else:
            self.same(where, x86, arm)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("x86")
    parser.add_argument("arm")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    (kind, x86), (other, arm) = load(args.x86), load(args.arm)
    if kind != other:
        sys.exit(f"compare_across_machines: {args.x86} is a {kind} file, {args.arm} a {other} file")
    result = Comparison()
    if kind == "detections":
        result.same("detection count", len(x86), len(arm))
        for i, (a, b) in enumerate(zip(x86, arm)):
            result.same(f"detection {i} label", (a["label"], a["class"]), (b["label"], b["class"]))
            for field in DETECTION_FIELDS:
                result.number(f"detection {i} {field}", a[field], b[field])
        count = f"{len(x86)} detections"
    else:
        result.same("frame count", len(x86), len(arm))
        for a, b in zip(x86, arm):
            frame = f"frame {a.get('index')}"
            for key in sorted((set(a) | set(b)) - WALL_CLOCK - {"raw", "tracks"}):
                result.same(f"{frame} {key}", a.get(key), b.get(key))
            result.rows(f"{frame} raw detection", a.get("raw", []), b.get("raw", []))
            result.rows(f"{frame} track", a.get("tracks", []), b.get("tracks", []))
        count = f"{len(x86)} frames, {sum(len(f.get('raw', [])) for f in x86)} detections"
    label = f"{args.label}: " if args.label else ""
    equality = "equal to the last digit" if result.exact else f"largest relative difference {result.worst:.1e}"
    if result.failures:
        print(f"compare_across_machines: {label}{count}; " + "; ".join(result.failures[:5]), file=sys.stderr)
        sys.exit(1)
    print(f"compare_across_machines: {label}{count}, within {TOLERANCE:g} of x86-64 ({equality})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compares `periphery decode` JSON with the detections of a self-check manifest (tolerance 2e-4)."""
import json
import sys

TOLERANCE = 2e-4
FIELDS = ["score", "x", "y", "z", "length", "width", "height", "yaw"]


def main(got_path: str, manifest_path: str) -> int:
    with open(got_path) as f:
        got = json.load(f)
    with open(manifest_path) as f:
        expected = json.load(f)["detections"]
    if len(got) != len(expected):
        print(f"decode: {len(got)} detections, expected {len(expected)}")
        return 1
    worst = max(abs(g[k] - e[k]) for g, e in zip(got, expected) for k in FIELDS)
    labels = all(g["label"] == e["label"] for g, e in zip(got, expected))
    print(f"decode: {len(got)} detections, labels {'equal' if labels else 'differ'}, max field error {worst:.2e}")
    return 0 if labels and worst < TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))

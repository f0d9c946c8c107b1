#!/usr/bin/env python3
"""Compares the detections a C API program printed with `periphery detect --json`'s.

Equal to the printed precision: the same count, labels and classes; scores equal as float32 (the
detector's type; C prints %.9g, which round-trips a float32); box fields equal as doubles (C prints
%.17g and the CLI Swift's shortest round-trip form, so both parse to the same double).
"""
import json
import struct
import sys

FIELDS = ["x", "y", "z", "length", "width", "height", "yaw"]


def float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def main(cli_path: str, program_path: str) -> int:
    with open(cli_path) as f:
        cli = json.load(f)
    with open(program_path) as f:
        program = json.load(f)
    if len(cli) != len(program):
        print(f"c api: {len(program)} detections, periphery detect gave {len(cli)}")
        return 1
    for i, (a, b) in enumerate(zip(cli, program)):
        differing = [k for k in FIELDS if a[k] != b[k]]
        if a["label"] != b["label"] or a["class"] != b["class"]:
            differing.append("label")
        if float32(a["score"]) != float32(b["score"]):
            differing.append("score")
        if differing:
            print(f"c api: detection {i} differs in {', '.join(differing)}: {b} against {a}")
            return 1
    print(f"c api: {len(cli)} detections, every field equal to periphery detect's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

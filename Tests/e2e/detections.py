"""Rules that hold detections and LUTs to their references. Each `assert_*` fails with what differs.

- `assert_matches_manifest`: `periphery decode` JSON against the detections of a self-check manifest
  (every field within 2e-4, labels equal).
- `assert_equal_to_cli`: a C API program's (or the binding's) detections against `periphery detect
  --json`'s, equal to the printed precision: the same count, labels and classes; scores equal as
  float32 (the detector's type; C prints %.9g, which round-trips a float32); box fields equal as
  doubles (C prints %.17g and the CLI Swift's shortest round-trip form, so both parse to the same
  double).
- `assert_lut_equal`: a ProjectionLUT file against a golden one: visibility exact, indices exact on
  visible voxels.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

DECODE_TOLERANCE = 2e-4
DECODE_FIELDS = ["score", "x", "y", "z", "length", "width", "height", "yaw"]
BOX_FIELDS = ["x", "y", "z", "length", "width", "height", "yaw"]
LUT_VOXELS = 6560


def float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def assert_matches_manifest(got_path, manifest_path) -> None:
    got = json.loads(Path(got_path).read_text())
    expected = json.loads(Path(manifest_path).read_text())["detections"]
    assert len(got) == len(expected), f"decode: {len(got)} detections, expected {len(expected)}"
    worst = max(abs(g[k] - e[k]) for g, e in zip(got, expected) for k in DECODE_FIELDS)
    assert all(g["label"] == e["label"] for g, e in zip(got, expected)), "decode: labels differ"
    assert worst < DECODE_TOLERANCE, f"decode: max field error {worst:.2e}"


def assert_equal_to_cli(cli_path, program_path) -> None:
    cli = json.loads(Path(cli_path).read_text())
    program = json.loads(Path(program_path).read_text())
    assert len(cli) == len(program), f"{len(program)} detections, periphery detect gave {len(cli)}"
    for i, (a, b) in enumerate(zip(cli, program)):
        differing = [k for k in BOX_FIELDS if a[k] != b[k]]
        if a["label"] != b["label"] or a["class"] != b["class"]:
            differing.append("label")
        if float32(a["score"]) != float32(b["score"]):
            differing.append("score")
        assert not differing, f"detection {i} differs in {', '.join(differing)}: {b} against {a}"


def assert_lut_equal(got_path, expected_path) -> None:
    got, exp = Path(got_path).read_bytes(), Path(expected_path).read_bytes()
    n = LUT_VOXELS
    assert len(got) == 5 * n and len(exp) == 5 * n, f"LUT files must be {5 * n} bytes, got {len(got)} and {len(exp)}"
    gi, ei = struct.unpack(f"<{n}i", got[:4 * n]), struct.unpack(f"<{n}i", exp[:4 * n])
    gv, ev = got[4 * n:], exp[4 * n:]
    visibility = sum(a != b for a, b in zip(gv, ev))
    indices = sum(1 for i in range(n) if ev[i] and gi[i] != ei[i])
    assert visibility == 0 and indices == 0, (
        f"LUT: {visibility} visibility mismatches, {indices} index mismatches on visible voxels, {sum(gv)}/{n} visible")

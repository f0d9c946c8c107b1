"""What the binding's tests share: the repository's files, the CLI (the independent reference) and
the comparison rules.

The CLI is ``$PERIPHERY`` (default ``.build/release/periphery``). The package under test is the
installed one (``make test-python`` installs the wheel into a fresh venv); ``PERIPHERY_LIBRARY`` may
point it at a build's ``libPeripheryC.so`` during development.

Comparison rule (as Tests/e2e/detections.py holds the C API to the CLI): the same count, order and labels; scores equal as
float32 (the detector's type, which the CLI prints in Swift's shortest round-trip form); box fields,
track fields and timestamps equal as doubles (printed in the shortest round-trip form, so parsing
gives the very double). No tolerance is needed: the CLI and the binding run the same library code
on the same pixels with the same number of threads (FP32's sums may round differently on another).
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
WEIGHTS = ROOT / "Weights" / "safety40-synthetic.safetensors"
INT8_WEIGHTS = ROOT / "Weights" / "safety40-synthetic-int8.safetensors"
FRAME = ROOT / "docs" / "sample" / "synthetic" / "frame.png"
CALIBRATION = ROOT / "docs" / "sample" / "synthetic" / "calibration.json"
DRIVE = ROOT / "Tests" / "cli" / "drive"
BOX = ("x", "y", "z", "length", "width", "height", "yaw")
EVENT_KEYS = ("type", "phase", "track", "ttc_s", "headway_s", "range_m")


def cli() -> str:
    path = os.environ.get("PERIPHERY") or str(ROOT / ".build" / "release" / "periphery")
    if not Path(path).is_file():
        raise RuntimeError(f"the CLI {path} is missing: build it (swift build -c release) or set PERIPHERY")
    return path


def run_cli(*args: str) -> None:
    done = subprocess.run([cli(), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"periphery {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")


def cli_detect(image: Path, calibration: Path, out: Path) -> list[dict]:
    """`periphery detect --reject-implausible --json` (the engine's decode settings)."""
    run_cli("detect", str(image), "--calibration", str(calibration), "--weights", str(WEIGHTS),
            "--reject-implausible", "--json", str(out))
    return json.loads(out.read_text())


def read_rgb(path: Path) -> np.ndarray:
    """A PNG as H×W×3 uint8 RGB, read by Pillow (not by the library under test)."""
    with Image.open(path) as picture:
        return np.asarray(picture.convert("RGB")).copy()


def float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def detection_differences(cli_detections: list[dict], detections) -> list[str]:
    """Why the binding's detections differ from `periphery detect --json`'s (empty when equal)."""
    if len(cli_detections) != len(detections):
        return [f"{len(detections)} detections, periphery detect gave {len(cli_detections)}"]
    problems = []
    for i, (a, d) in enumerate(zip(cli_detections, detections)):
        differing = [k for k in BOX if a[k] != getattr(d.box, k)]
        if a["label"] != d.label or a["class"] != d.class_name:
            differing.append("label")
        if float32(a["score"]) != float32(d.score):
            differing.append("score")
        if differing:
            problems.append(f"detection {i} differs in {', '.join(differing)}: {d} against {a}")
    return problems


def sidecar(path: Path) -> list[dict]:
    """The frame lines of a replay sidecar (header and summary dropped)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines and lines[0].get("kind") == "periphery-replay", f"{path}: not a replay sidecar"
    return [line for line in lines[1:] if "summary" not in line]


def frame_differences(line: dict, frame) -> list[str]:
    """Why a source's frame differs from its sidecar line (empty when equal).

    Raw detections [score, label, x, y, z, length, width, height, yaw]; tracks [id, x, y, z, length,
    width, height, yaw, model_yaw, label, score, hits, observed, state, velocity, trail,
    heading_source]; safety events as the line's "events" (none without the key), each figure equal
    as a double and an unknown one None for the sidecar's null. The sidecar marks a tracker reset
    from the second frame on (the first frame always starts a tracker; the binding reports that one
    too).
    """
    where = f"frame {line['index']}"
    problems = []
    if frame.index != line["index"]:
        problems.append(f"{where}: index {frame.index}")
    if frame.timestamp != line["pts"]:
        problems.append(f"{where}: timestamp {frame.timestamp!r} against pts {line['pts']!r}")
    reset = line.get("tracker_reset", False) or line["index"] == 0
    if frame.tracker_reset != reset:
        problems.append(f"{where}: tracker_reset {frame.tracker_reset}, the sidecar {reset}")
    raw = line["raw"]
    if len(raw) != len(frame.detections) or line["raw_count"] != len(raw):
        problems.append(f"{where}: {len(frame.detections)} detections, the sidecar {len(raw)}")
    else:
        for i, (r, d) in enumerate(zip(raw, frame.detections)):
            mine = [float32(d.score), d.label, *(getattr(d.box, k) for k in BOX)]
            theirs = [float32(r[0]), *r[1:]]
            if mine != theirs:
                problems.append(f"{where}: detection {i} {mine} against {theirs}")
    tracks = line["tracks"]
    if len(tracks) != len(frame.tracks) or line["track_count"] != len(tracks):
        problems.append(f"{where}: {len(frame.tracks)} tracks, the sidecar {len(tracks)}")
    else:
        for t, k in zip(tracks, frame.tracks):
            velocity = tuple(t[14]) if t[14] is not None else None
            mine = [k.id, *(getattr(k.box, f) for f in BOX), k.label, k.score, k.hits, k.observed, k.state, k.velocity]
            theirs = [t[0], *t[1:8], t[9], t[10], t[11], t[12], t[13], velocity]
            if mine != theirs:
                problems.append(f"{where}: track {t[0]} {mine} against {theirs}")
    events = [{key: getattr(e, key) for key in EVENT_KEYS} for e in frame.events]
    if events != line.get("events", []):
        problems.append(f"{where}: events {events} against {line.get('events', [])}")
    return problems

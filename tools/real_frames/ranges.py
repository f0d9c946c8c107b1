"""Fills in the ground-contact point of every hand-drawn box of Tests/real/labels.

Usage: .build/venv/bin/python tools/real_frames/ranges.py [--set Tests/real]

Each label's `x_m` and `y_m` (vehicle frame: x forward, y left, metres) are where the ray through
the box's bottom-centre pixel meets the flat road (z = 0), through the frame's calibration
(docs/reference/geometry.md §3: R = Rx(-roll) Ry(pitch) Rz(-yaw), camera centre
(forward_of_origin, 0, height), image axes (-y, -z, x) of the sensor's). A bottom-centre at or
above the horizon meets no road: its `x_m` and `y_m` are null and the label must be don't care.
A box less than MIN_HEIGHT pixels tall is made don't care too (Tests/real/README.md, "Labels").
"""

import argparse
import json
import math
import pathlib

import numpy as np

# Sensor (x forward, y left, z up) to image axes (x right, y down, z forward).
MIN_HEIGHT = 15
SENSOR_TO_IMAGE = np.array([[0, -1, 0], [0, 0, -1], [1, 0, 0]], float)


def rotation(mount):
    """Vehicle -> sensor rotation of a calibration file's mount."""
    roll, pitch, yaw = (math.radians(mount[k]) for k in ("roll_deg", "pitch_deg", "yaw_deg"))
    rx = np.array([[1, 0, 0], [0, math.cos(-roll), -math.sin(-roll)], [0, math.sin(-roll), math.cos(-roll)]])
    ry = np.array([[math.cos(pitch), 0, math.sin(pitch)], [0, 1, 0], [-math.sin(pitch), 0, math.cos(pitch)]])
    rz = np.array([[math.cos(-yaw), -math.sin(-yaw), 0], [math.sin(-yaw), math.cos(-yaw), 0], [0, 0, 1]])
    return rx @ ry @ rz


def ground_point(calibration, u, v):
    """(x, y) on the road of pixel (u, v), or None when its ray does not go down."""
    k, mount = calibration["intrinsics"], calibration["mount"]
    matrix = np.array([[k["fx"], 0, k["cx"]], [0, k["fy"], k["cy"]], [0, 0, 1]], float)
    ray = rotation(mount).T @ SENSOR_TO_IMAGE.T @ np.linalg.solve(matrix, [u, v, 1.0])
    if ray[2] >= -1e-9:
        return None
    t = mount["height_m"] / -ray[2]
    return mount["forward_of_origin_m"] + t * ray[0], t * ray[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=pathlib.Path, default=pathlib.Path("Tests/real"))
    args = parser.parse_args()
    for path in sorted((args.set / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        calibration = json.loads((args.set / label["calibration"]).read_text())
        for vehicle in label["vehicles"]:
            x0, y0, x1, y1 = vehicle["box"]
            point = ground_point(calibration, (x0 + x1) / 2, y1)
            vehicle["x_m"], vehicle["y_m"] = (None, None) if point is None else (round(point[0], 3), round(point[1], 3))
            if point is None or y1 - y0 < MIN_HEIGHT:
                vehicle["dont_care"] = True
        path.write_text(json.dumps(label, indent=1) + "\n")


if __name__ == "__main__":
    main()

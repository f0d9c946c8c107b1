#!/usr/bin/env python3
"""Renders the bundled sample camera frame, or a whole sample drive: a straight road with lane
markings and box-shaped vehicles, ray-cast through the sample calibration (docs/sample/calibration.json).

Made by the project from geometry alone (no third-party imagery), so that `make demo` and the CLI
tests have frames whose camera is exactly known. Needs only numpy; PNGs are written with zlib.

    python3 tools/make_sample_frame.py -o docs/sample/frame.png
    python3 tools/make_sample_frame.py --drive out/drive --frames 100 [--scale 0.5]

A drive is the reference layout: frames 000000.png…, frames.csv (pts and K), motion.csv (gravity
and rotation rate at 100 Hz) and location.csv (speed at 10 Hz). The ego drives straight at
15 m/s; one car ahead moves at 12 m/s, one oncoming at 14 m/s, a truck is parked.
"""
from __future__ import annotations

import argparse
import json
import math
import struct
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CALIBRATION = ROOT / "docs/sample/calibration.json"
# (x forward, y left, yaw, length, width, height, RGB) in the vehicle frame, on the road (z = 0).
VEHICLES = [
    (14.0, 0.2, 0.02, 4.5, 1.85, 1.5, (160, 30, 35)),
    (24.0, -3.6, -0.03, 4.8, 1.9, 1.6, (40, 70, 150)),
    (33.0, 3.4, math.pi, 11.0, 2.5, 3.2, (220, 220, 210)),
]


def rotation(pitch: float, roll: float, yaw: float) -> np.ndarray:
    """Vehicle → sensor rotation Rx(−roll)·Ry(pitch)·Rz(−yaw) (reference, `docs/reference/contract.md#42-vehicle-to-sensor-rotation`)."""
    def rx(a):
        return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])

    def ry(a):
        return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])

    def rz(a):
        return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    return rx(-roll) @ ry(pitch) @ rz(-yaw)


def render(calibration: dict, vehicles=VEHICLES) -> np.ndarray:
    """Ray-casts the scene; returns an H×W×3 uint8 image."""
    k, m = calibration["intrinsics"], calibration["mount"]
    w, h = k["width"], k["height"]
    r = rotation(math.radians(m["pitch_deg"]), math.radians(m["roll_deg"]), math.radians(m["yaw_deg"]))
    s = np.array([[0, -1, 0], [0, 0, -1], [1, 0, 0]], dtype=float)
    centre = np.array([m["forward_of_origin_m"], m.get("lateral_offset_m", 0.0), m["height_m"]])
    u, v = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    rays_image = np.stack([(u - k["cx"]) / k["fx"], (v - k["cy"]) / k["fy"], np.ones_like(u)], axis=-1)
    rays = rays_image @ (s @ r)  # image → vehicle directions: (S·R)ᵀ applied to each row vector
    image = np.zeros((h, w, 3))
    # Sky: brighter towards the horizon.
    elevation = rays[..., 2] / np.linalg.norm(rays, axis=-1)
    image[:] = np.array([150, 185, 225]) * (1 - 0.5 * np.clip(elevation, 0, 1))[..., None]
    # Ground plane z = 0.
    t_ground = np.where(rays[..., 2] < -1e-6, -centre[2] / np.minimum(rays[..., 2], -1e-6), np.inf)
    gx = centre[0] + t_ground * rays[..., 0]
    gy = centre[1] + t_ground * rays[..., 1]
    ground = np.isfinite(t_ground)
    grass = np.array([70, 110, 55]) + 12 * np.sin(gx * 1.7)[..., None] * np.array([1, 1, 0.5])
    road = np.array([85, 85, 90]) + 6 * np.sin(gx * 9.1 + gy * 3.3)[..., None]
    colour = np.where((np.abs(gy) < 7.4)[..., None], road, grass)
    dashes = (np.mod(gx, 9.0) < 3.0) & (np.abs(np.abs(gy) - 1.85) < 0.07)
    edges = np.abs(np.abs(gy) - 7.2) < 0.1
    colour = np.where((dashes | edges)[..., None], np.array([235, 235, 225]), colour)
    fog = np.clip(t_ground / 250.0, 0, 1)[..., None]
    colour = colour * (1 - fog) + np.array([160, 180, 200]) * fog
    image = np.where(ground[..., None], colour, image)
    depth = np.where(ground, t_ground, np.inf)
    # Vehicles: oriented boxes, slab intersection in each box's frame, Lambert shading.
    sun = np.array([0.4, 0.5, 0.75]) / np.linalg.norm([0.4, 0.5, 0.75])
    for x, y, yaw, length, width, height, rgb in vehicles:
        c, sn = math.cos(yaw), math.sin(yaw)
        to_box = np.array([[c, sn, 0], [-sn, c, 0], [0, 0, 1]])
        origin = to_box @ (centre - np.array([x, y, height / 2]))
        direction = rays @ to_box.T
        half = np.array([length / 2, width / 2, height / 2])
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (-half - origin) / direction
            t2 = (half - origin) / direction
        near = np.nanmax(np.minimum(t1, t2), axis=-1)
        far = np.nanmin(np.maximum(t1, t2), axis=-1)
        hit = (near <= far) & (near > 0) & (near < depth)
        axis = np.argmax(np.minimum(t1, t2), axis=-1)
        normal_box = np.zeros(rays.shape)
        for a in range(3):
            sign = -np.sign(direction[..., a])
            normal_box[..., a] = np.where(axis == a, sign, 0)
        normal = normal_box @ to_box  # back to the vehicle frame
        shade = 0.35 + 0.65 * np.clip(normal @ sun, 0, 1)
        body = np.array(rgb) * shade[..., None]
        # Dark glass band in the upper part of the body.
        z_hit = centre[2] + near * rays[..., 2]
        glass = (z_hit > 0.62 * height) & (z_hit < 0.9 * height) & (axis != 2)
        body = np.where(glass[..., None], np.array([40, 55, 70]) * shade[..., None], body)
        wheels = z_hit < 0.28
        body = np.where(wheels[..., None], np.array([20, 20, 22]), body)
        image = np.where(hit[..., None], body, image)
        depth = np.where(hit, near, depth)
    return np.clip(image, 0, 255).astype(np.uint8)


def write_png(path: Path, image: np.ndarray) -> None:
    """Writes an 8-bit RGB PNG with zlib (no imaging library)."""
    h, w, _ = image.shape
    raw = b"".join(b"\x00" + image[row].tobytes() for row in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    path.write_bytes(png)


def scaled(calibration: dict, scale: float) -> dict:
    """The calibration of the same camera at `scale` times the resolution."""
    k = dict(calibration["intrinsics"])
    for key in ("fx", "fy", "cx", "cy"):
        k[key] = k[key] * scale
    k["width"], k["height"] = round(k["width"] * scale), round(k["height"] * scale)
    return {"intrinsics": k, "mount": calibration["mount"]}


def write_drive(directory: Path, calibration: dict, frames: int, fps: float = 10.0, speed: float = 15.0) -> None:
    """Renders a straight drive in the reference drive layout."""
    directory.mkdir(parents=True, exist_ok=True)
    k = calibration["intrinsics"]
    t0 = 1000.0
    rows = ["pts,k00,k01,k02,k10,k11,k12,k20,k21,k22,width,height,exposure_s,iso,lens"]
    for i in range(frames):
        t = i / fps
        # Relative motion: the lead car gains −3 m/s on us, the oncoming car closes at 29 m/s, the truck is parked.
        vehicles = [
            (22.0 - 3.0 * t, 0.1, 0.0, 4.5, 1.85, 1.5, (160, 30, 35)),
            (60.0 - 29.0 * t, 3.6, math.pi, 4.8, 1.9, 1.6, (40, 70, 150)),
            (40.0 - speed * t, -5.5, 0.0, 10.0, 2.5, 3.2, (220, 220, 210)),
        ]
        with np.errstate(invalid="ignore"):
            image = render(calibration, [v for v in vehicles if 2.0 < v[0] < 80.0])
        write_png(directory / f"{i:06d}.png", image)
        rows.append(f"{t0 + t:.6f},{k['fx']},0,{k['cx']},0,{k['fy']},{k['cy']},0,0,1,{k['width']},{k['height']},0.008,100,1.0")
    (directory / "frames.csv").write_text("\n".join(rows) + "\n")
    # Landscape mount: gravity along device −x; no rotation, so the yaw rate is 0.
    motion = ["t,gx,gy,gz,ax,ay,az,rx,ry,rz,qx,qy,qz,qw,gravity_pitch,roll,heading"]
    for j in range(int(frames / fps * 100) + 10):
        motion.append(f"{t0 - 0.05 + j / 100:.6f},-1,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0")
    (directory / "motion.csv").write_text("\n".join(motion) + "\n")
    location = ["t,t_wall,lat,lon,alt,h_acc,v_acc,speed,speed_acc,course,course_acc"]
    for j in range(frames + 2):
        location.append(f"{t0 - 0.1 + j / fps:.6f},0,0,0,0,5,5,{speed},0.5,0,1")
    (directory / "location.csv").write_text("\n".join(location) + "\n")
    (directory / "calibration.json").write_text(json.dumps(calibration, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--out", type=Path, default=ROOT / "docs/sample/frame.png")
    parser.add_argument("--calibration", type=Path, default=CALIBRATION)
    parser.add_argument("--drive", type=Path, help="write a drive directory here instead of one frame")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--scale", type=float, default=1.0, help="resolution relative to the calibration")
    args = parser.parse_args()
    calibration = scaled(json.loads(args.calibration.read_text()), args.scale)
    if args.drive:
        write_drive(args.drive, calibration, args.frames)
        print(f"wrote {args.frames} frames to {args.drive}")
        return
    with np.errstate(invalid="ignore"):  # sky pixels carry infinite ground distances
        image = render(calibration)
    write_png(args.out, image)
    print(f"wrote {args.out} ({image.shape[1]}×{image.shape[0]})")


if __name__ == "__main__":
    main()

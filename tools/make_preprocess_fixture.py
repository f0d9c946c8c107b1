#!/usr/bin/env python3
"""Writes the Pillow reference for Tests/PeripheryInferenceTests/PreprocessorTests.swift.

A deterministic synthetic 640 × 400 camera frame, made here (no third-party images): colour
gradients, hard edges at several angles, checkerboards and stripes from 1 to 8 pixels, a zone plate
and blocks of text-like glyph bars. For a few cameras the focal-matched crop and letterbox of
reference, `docs/reference/contract.md#43-focal-matched-crop-and-letterbox` are computed, the crop is resized with Pillow's
`Image.resize((scaledW, scaledH), Image.Resampling.LANCZOS)`, and the 8-bit result is written as
a PNG; the Swift test normalises it ((p − MEAN) / STD, reference, `docs/reference/contract.md#14-input-normalisation`) and places it at
(offsetX, offsetY) itself, so the full [3, 256, 512] float tensor (1.5 MB) is not stored.

Output, in Tests/PeripheryInferenceTests/Fixtures/preprocess/:
  frame.png          the source frame, RGB8
  case_NAME.png      the Pillow-resized crop of each case, scaledW × scaledH RGB8
  cases.json         per case: the frame rows used (a case may use a horizontal strip of the frame
                     as its frame), intrinsics, the crop numbers, the PNG name

    .build/venv/bin/python tools/make_preprocess_fixture.py   # needs Pillow and numpy
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from PIL import Image

OUT = Path(__file__).resolve().parent.parent / "Tests/PeripheryInferenceTests/Fixtures/preprocess"
W, H = 640, 400
NET_W, NET_H = 512, 256
TARGET_FOCAL = 565.6

# name, fx, cx, cy, frame rows: a frame too small for the trained focal (whole frame, side bars), a
# crop on the bottom border, a crop on the left border with a 1-pixel right bar, a mild centred
# downscale, and a 640 × 200 strip of the frame (rows 80 ..< 280, aspect 3.2) whose crop is
# upscaled and letterboxed top and bottom.
CASES = [
    ("whole_frame", 1000.0, 320.0, 200.0, (0, H)),
    ("bottom_border", 800.0, 330.0, 350.0, (0, H)),
    ("left_border", 600.0, 100.0, 190.0, (0, H)),
    ("centre", 700.0, 321.0, 199.0, (0, H)),
    ("wide_strip", 560.0, 320.0, 100.0, (80, 280)),
]


def round_half_away(v: float) -> int:
    """Swift's `.rounded()`: half away from zero (Python's round is half to even)."""
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


def focal_matched_crop(fx: float, cx: float, cy: float, W: int, H: int) -> dict:
    """Reference §4.3, as Sources/PeripheryGeometry/Camera/FocalMatchedCrop.swift computes it."""
    scale = TARGET_FOCAL / fx
    crop_w = max(1, min(round_half_away(NET_W / scale), W))
    crop_h = max(1, min(round_half_away(NET_H / scale), H))
    x0 = round_half_away(cx - crop_w / 2)
    y0 = round_half_away(cy - crop_h / 2)
    x = min(max(x0, 0), W - crop_w)
    y = min(max(y0, 0), H - crop_h)
    resize = min(NET_W / crop_w, NET_H / crop_h)
    scaled_w = round_half_away(crop_w * resize)
    scaled_h = round_half_away(crop_h * resize)
    return {
        "x": x, "y": y, "width": crop_w, "height": crop_h,
        "scaledWidth": scaled_w, "scaledHeight": scaled_h,
        "offsetX": (NET_W - scaled_w) // 2, "offsetY": (NET_H - scaled_h) // 2,
    }


def synthetic_frame() -> np.ndarray:
    """The test frame, [H, W, 3] uint8."""
    y, x = np.mgrid[0:H, 0:W].astype(np.float64)
    img = np.zeros((H, W, 3), np.float64)
    # Background: smooth colour gradients.
    img[..., 0] = 255 * x / (W - 1)
    img[..., 1] = 255 * y / (H - 1)
    img[..., 2] = 128 + 100 * np.sin(x / 37.0) * np.cos(y / 23.0)
    # Hard-edged shapes: a disc and a rotated bar (edges at many angles).
    disc = (x - 470) ** 2 + (y - 110) ** 2 < 60 ** 2
    img[disc] = (250, 240, 20)
    u = (x - 200) * math.cos(0.5) + (y - 300) * math.sin(0.5)
    v = -(x - 200) * math.sin(0.5) + (y - 300) * math.cos(0.5)
    img[(abs(u) < 90) & (abs(v) < 12)] = (10, 20, 200)
    # Checkerboards and stripes of 1, 2, 3, 4 and 8 pixels.
    for i, p in enumerate([1, 2, 3, 4, 8]):
        x0, y0 = 20 + 60 * i, 20
        sub = (slice(y0, y0 + 50), slice(x0, x0 + 50))
        yy, xx = y[sub] - y0, x[sub] - x0
        img[sub] = np.where(((xx // p + yy // p) % 2 == 0)[..., None], 240, 15)
        sub = (slice(80, 130), slice(x0, x0 + 50))
        img[sub][..., 1] = np.where(((x[sub] - x0) // p) % 2 == 0, 255, 0)
    # A zone plate: frequency rising to Nyquist, the aliasing test.
    zone = (slice(150, 250), slice(520, 620))
    r2 = (x[zone] - 570) ** 2 + (y[zone] - 200) ** 2
    img[zone] = (127.5 + 127.5 * np.cos(math.pi * r2 / 100.0))[..., None]
    # Text-like glyph bars: 3-6 px strokes in 7 × 11 cells, from a fixed seed.
    rng = np.random.default_rng(565)
    for line in range(4):
        for col in range(34):
            cx0, cy0 = 330 + col * 8, 260 + line * 14
            if cx0 + 7 > W:
                break
            glyph = rng.integers(0, 2, (11, 7))
            glyph[:, 0] = 0
            img[cy0:cy0 + 11, cx0:cx0 + 7] = np.where(glyph[..., None] == 1, (5, 5, 5), (245, 245, 235))
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    frame = Image.fromarray(synthetic_frame())
    frame.save(OUT / "frame.png", optimize=True)
    cases = []
    for name, fx, cx, cy, (row0, row1) in CASES:
        source = frame.crop((0, row0, W, row1))
        crop = focal_matched_crop(fx, cx, cy, W, row1 - row0)
        box = (crop["x"], crop["y"], crop["x"] + crop["width"], crop["y"] + crop["height"])
        resized = source.crop(box).resize((crop["scaledWidth"], crop["scaledHeight"]), Image.Resampling.LANCZOS)
        resized.save(OUT / f"case_{name}.png", optimize=True)
        cases.append({
            "name": name, "fx": fx, "fy": fx, "cx": cx, "cy": cy, "width": W, "height": row1 - row0,
            "frameRows": [row0, row1],
            "crop": crop, "expected": f"case_{name}.png",
        })
        print(name, crop)
    (OUT / "cases.json").write_text(json.dumps({
        "filter": "Pillow Image.Resampling.LANCZOS", "mean": [123.675, 116.28, 103.53],
        "std": [58.395, 57.12, 57.375], "cases": cases,
    }, indent=1) + "\n")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {len(list(OUT.iterdir()))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()

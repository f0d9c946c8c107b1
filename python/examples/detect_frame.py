#!/usr/bin/env python3
"""One frame through the engine, its detections printed as `periphery detect --json` prints them.

    python detect_frame.py WEIGHTS FRAME.png CALIBRATION.json > detections.json

Reads the PNG with Pillow (any reader that gives an H×W×3 uint8 array will do; OpenCV's BGR arrays
go in with order="bgr").
"""
import json
import sys

import numpy as np
from PIL import Image

import periphery

weights, frame, calibration_path = sys.argv[1:4]
engine = periphery.Engine(weights)
calibration = periphery.Calibration.load(calibration_path)
image = np.asarray(Image.open(frame).convert("RGB"))
result = engine.process(image, calibration, timestamp=0.0)
detections = [
    {"class": d.class_name, "label": d.label, "score": d.score,
     "x": d.box.x, "y": d.box.y, "z": d.box.z, "length": d.box.length, "width": d.box.width, "height": d.box.height,
     "yaw": d.box.yaw}
    for d in result.detections
]
json.dump(detections, sys.stdout, indent=1)
print(f"{len(detections)} detections in {result.timings.total_ms:.0f} ms "
      f"(libperiphery {periphery.library_version()}, {periphery.__file__})", file=sys.stderr)

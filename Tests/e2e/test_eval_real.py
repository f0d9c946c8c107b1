"""`periphery eval-real` on the hand-labelled real frames (Tests/real/README.md): its counts against
an independent scoring in NumPy of what `periphery detect` finds on the same frames, and its errors
for bad labels.

The reference restates the rule of docs/guides/evaluation.md#real-frames from its definition: the
3-D boxes of `detect --json` projected through each frame's calibration file (docs/reference/geometry.md
§3: R = Rx(-roll) Ry(pitch) Rz(-yaw), corners behind the camera clipped at 0.05 m depth), the
focal-matched crop of docs/reference/geometry.md §4 for the view rule, and the greedy IoU matching. Tolerance: the
TP / FP / FN counts are integers and must be equal; each matched pair's IoU within 1e-6 (both sides
compute in float64 from the same detections).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from helpers import ROOT, fails, json_lines, run

REAL = ROOT / "Tests/real"
# Two or more frames per camera where there is traffic, to keep the run short.
FRAMES = ["A-udacity-test1", "A-udacity-test4", "A-sunsided-challenge9", "B-solidWhiteRight-video-160",
          "C-pandaset-002-00", "C-pandaset-002-48", "D-comma2k19-preview"]
THRESHOLD, IOU, RANGE, NEAR = 0.6, 0.4, 40.0, 0.05
S = np.array([[0, -1, 0], [0, 0, -1], [1, 0, 0]], float)


def rotation(mount):
    roll, pitch, yaw = (math.radians(mount[k]) for k in ("roll_deg", "pitch_deg", "yaw_deg"))
    def rx(a): return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    def ry(a): return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])
    def rz(a): return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    return rx(-roll) @ ry(pitch) @ rz(-yaw)


def projected_rectangle(d, camera):
    """The clipped bounding rectangle of a detection's 8 corners in the source frame."""
    k, mount = camera["intrinsics"], camera["mount"]
    matrix = np.array([[k["fx"], 0, k["cx"]], [0, k["fy"], k["cy"]], [0, 0, 1]])
    centre = np.array([mount["forward_of_origin_m"], 0.0, mount["height_m"]])
    c, s = math.cos(d["yaw"]), math.sin(d["yaw"])
    corners = {}
    for sl in (1, -1):
        for sw in (1, -1):
            for sh in (1, -1):
                local = np.array([sl * d["length"] / 2, sw * d["width"] / 2])
                point = np.array([d["x"] + c * local[0] - s * local[1], d["y"] + s * local[0] + c * local[1], d["z"] + sh * d["height"] / 2])
                corners[(sl, sw, sh)] = matrix @ S @ rotation(mount) @ (point - centre)
    points = [h[:2] / h[2] for h in corners.values() if h[2] >= NEAR]
    for a_key, a in corners.items():   # edges across the near plane end on it
        for axis in range(3):
            b_key = tuple(-v if i == axis else v for i, v in enumerate(a_key))
            b = corners[b_key]
            if a_key < b_key and (a[2] < NEAR) != (b[2] < NEAR):
                p = a + (NEAR - a[2]) / (b[2] - a[2]) * (b - a)
                points.append(p[:2] / p[2])
    if not points:
        return [0.0, 0.0, 0.0, 0.0]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    w, h = k["width"], k["height"]
    return [min(max(min(xs), 0), w), min(max(min(ys), 0), h), min(max(max(xs), 0), w), min(max(max(ys), 0), h)]


def half_away(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def crop(camera):
    k = camera["intrinsics"]
    scale = 565.6 / k["fx"]
    cw, ch = min(half_away(512 / scale), k["width"]), min(half_away(256 / scale), k["height"])
    x0 = min(max(half_away(k["cx"] - cw / 2), 0), k["width"] - cw)
    y0 = min(max(half_away(k["cy"] - ch / 2), 0), k["height"] - ch)
    return [x0, y0, x0 + cw, y0 + ch]


def area(r):
    return max(0.0, r[2] - r[0]) * max(0.0, r[3] - r[1])


def intersection(a, b):
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def iou(a, b):
    union = area(a) + area(b) - intersection(a, b)
    return intersection(a, b) / union if union > 0 else 0.0


def counts(v, camera):
    if v["dont_care"] or v["x_m"] is None or math.hypot(v["x_m"], v["y_m"]) > RANGE:
        return False
    if not (0 <= v["x_m"] <= 40 and -10 <= v["y_m"] <= 10):
        return False
    return 1 - intersection(v["box"], crop(camera)) / area(v["box"]) <= 0.5


def score_frame(detections, labels, camera):
    """(TP, FP, FN, IoUs of the pairs) of one frame by the greedy rule."""
    truth = [(v["box"], counts(v, camera)) for v in labels["vehicles"]]
    order = sorted((i for i, d in enumerate(detections) if d["score"] >= THRESHOLD), key=lambda i: (-detections[i]["score"], i))
    taken, pairs, fp = set(), [], 0
    for i in order:
        rect = projected_rectangle(detections[i], camera)
        best, best_iou = None, IOU
        for t, (box, counted) in enumerate(truth):
            value = iou(rect, box)
            if counted and t not in taken and value >= best_iou and (best is None or value > best_iou):
                best, best_iou = t, value
        if best is not None:
            taken.add(best)
            pairs.append(best_iou)
        elif math.hypot(detections[i]["x"], detections[i]["y"]) > RANGE:
            continue
        elif not any(not counted and iou(rect, box) >= IOU for box, counted in truth):
            fp += 1
    missed = sum(1 for t, (_, counted) in enumerate(truth) if counted and t not in taken)
    return len(pairs), fp, missed, pairs


@pytest.fixture(scope="module")
def subset(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("real")
    shutil.copytree(REAL / "cameras", folder / "cameras")
    (folder / "frames").mkdir()
    (folder / "labels").mkdir()
    for name in FRAMES:
        shutil.copy(REAL / "labels" / f"{name}.json", folder / "labels")
        shutil.copy(REAL / "frames" / f"{name}.jpg", folder / "frames")
    return folder


def test_eval_real_counts_equal_an_independent_scoring_of_detect_outputs(periphery, subset, tmp_path):
    report = json.loads(run([periphery, "eval-real", "--data", subset, "--json", "--threads", "1",
                             "--matches", tmp_path / "matches.jsonl"]).stdout)
    lines = {line["frame"]: line for line in json_lines(tmp_path / "matches.jsonl")}
    totals = {}
    for name in FRAMES:
        labels = json.loads((subset / "labels" / f"{name}.json").read_text())
        camera = json.loads((subset / labels["calibration"]).read_text())
        out = tmp_path / f"{name}.json"
        run([periphery, "detect", subset / labels["frame"], "--calibration", subset / labels["calibration"],
             "--threshold", "0.5", "--reject-implausible", "--threads", "1", "--json", out])
        tp, fp, fn, ious = score_frame(json.loads(out.read_text()), labels, camera)
        line = lines[name]
        assert (tp, fp, fn) == (len(line["matched"]), len(line["false_positives"]), len(line["missed"])), (name, line)
        assert np.allclose(ious, [pair[2] for pair in line["matched"]], atol=1e-6, rtol=0), (name, ious, line["matched"])
        group = totals.setdefault(name[0], [0, 0, 0, 0])
        group[0] += 1
        for i, n in enumerate((tp, fp, fn)):
            group[i + 1] += n
    assert sum(g[1] for g in totals.values()) > 0, totals   # the frames are chosen to have matches
    for camera, (frames, tp, fp, fn) in totals.items():
        ours = report["cameras"][camera]
        assert (ours["frames"], ours["tp"], ours["fp"], ours["fn"]) == (frames, tp, fp, fn), (camera, ours, totals)
    assert report["all"]["tp"] == sum(g[1] for g in totals.values()), report


def test_eval_real_names_the_file_and_field_of_a_box_outside_the_frame(periphery, subset, tmp_path):
    data = shutil.copytree(subset, tmp_path / "bad")
    path = data / "labels/D-comma2k19-preview.json"
    labels = json.loads(path.read_text())
    labels["vehicles"][1]["box"][2] = 1200   # the frame is 1164 wide
    path.write_text(json.dumps(labels))
    fails([periphery, "eval-real", "--data", data], None, f"{path}: field 'vehicles[1].box' must be 0 ≤ x0 < x1 ≤ 1164")


def test_eval_real_names_the_file_of_a_label_without_vehicles(periphery, subset, tmp_path):
    data = shutil.copytree(subset, tmp_path / "bad")
    path = data / "labels/A-udacity-test1.json"
    labels = json.loads(path.read_text())
    del labels["vehicles"]
    path.write_text(json.dumps(labels))
    fails([periphery, "eval-real", "--data", data], None, f"{path}: field 'vehicles' must be an array of objects")

"""Checks the Cityscapes 3D layout of `periphery synth --cityscapes3d` with cityscapesScripts' own classes.

For every frame written in both layouts (native DIR/images, calibration, labels and Cityscapes 3D
DIR/leftImg8bit, camera, gtBbox3d under train/synthetic/), the gtBbox3d file is read by
`cityscapesscripts.helpers.annotation.Annotation` (objects as `CsBbox3d`), and each object becomes a
`Box3dImageTransform` on a `Camera` built from the file's sensor block. Its 8 vertices in the vehicle
frame (CRS_V) and their image projections are compared with ours, computed here in numpy from the
NATIVE files only: the label's centre, yaw and length/width/height give the corners (order BLB, BRB,
FRB, FLB, BLT, BRT, FRT, FLT), and the calibration's K and mount project them
(docs/reference/geometry.md §3: R = Rx(-roll)·Ry(pitch)·Rz(-yaw), c = (forward, lateral, height),
pixel = K·S·R·(p - c)). Only corners at least 0.01 m in front of the camera (cityscapesScripts'
S-frame z) are projected. Bounds: corners 1e-4 m, projections 0.01 px.

Also checked, per frame: sensor_T_ISO_8855 = [R | -R·c] of our calibration; camera.json's extrinsic
(Rz(yaw)·Ry(pitch)·Rx(roll), translation (x, y, z)) is the inverse of sensor_T_ISO_8855; its
intrinsic equals the sensor block's and our K (all to 1e-9); imgWidth/imgHeight and the
leftImg8bit image equal the native frame; the object count equals the label count; and per object
the label name (0 car, 1 truck, 2 bicycle, 3 person), in_view, the unit quaternion and the format.
Zero objects in all is a failure: a check that cannot fail proves nothing.

`check(DIR)` checks a dataset; `write_dataset(DIR)` writes a small one from the formulas above, and
each of `CORRUPTIONS` applied to it (`mutate`) must be refused (Tests/e2e/test_cityscapes3d.py).
cityscapesscripts (the tools' group of python/requirements-dev.txt) is imported when a frame is checked.
"""

import glob
import json
import math
import os
import shutil

import numpy as np
from PIL import Image

CITY = "synthetic"
SEQUENCE = "000000"
LABEL_NAMES = {0: "car", 1: "truck", 2: "bicycle", 3: "person"}
VERTEX_ORDER = ["BLB", "BRB", "FRB", "FLB", "BLT", "BRT", "FRT", "FLT"]
S_AXES = np.array([[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]])  # ISO 8855 -> image axes
CORNER_TOL_M = 1e-4
PIXEL_TOL = 0.01
EXACT_TOL = 1e-9
MIN_DEPTH_M = 0.01  # cityscapesScripts' camera_plane_z


class CheckError(Exception):
    pass


def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def cs_paths(root, frame):
    stem = f"{CITY}_{SEQUENCE}_{frame}"
    return {
        "image": os.path.join(root, "leftImg8bit", "train", CITY, f"{stem}_leftImg8bit.png"),
        "camera": os.path.join(root, "camera", "train", CITY, f"{stem}_camera.json"),
        "gt": os.path.join(root, "gtBbox3d", "train", CITY, f"{stem}_gtBbox3d.json"),
    }


def native_paths(root, frame):
    return {
        "image": os.path.join(root, "images", f"{frame}.png"),
        "calibration": os.path.join(root, "calibration", f"{frame}.json"),
        "labels": os.path.join(root, "labels", f"{frame}.json"),
    }


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        raise CheckError(f"{path}: cannot read JSON ({error})")


def our_camera(calibration):
    """K, R (vehicle -> ISO-oriented sensor) and camera centre c of a native calibration json."""
    k = calibration["intrinsics"]
    m = calibration["mount"]
    K = np.array([[k["fx"], 0.0, k["cx"]], [0.0, k["fy"], k["cy"]], [0.0, 0.0, 1.0]])
    R = (rot_x(-math.radians(m["roll_deg"])) @ rot_y(math.radians(m["pitch_deg"]))
         @ rot_z(-math.radians(m["yaw_deg"])))
    c = np.array([m["forward_of_origin_m"], m["lateral_offset_m"], m["height_m"]])
    return K, R, c


def our_corners(vehicle):
    """The 8 corners of a native label box, in cityscapesScripts' vertex order."""
    half = np.array([vehicle["length"], vehicle["width"], vehicle["height"]]) / 2.0
    signs = np.array([[-1, 1, -1], [-1, -1, -1], [1, -1, -1], [1, 1, -1],
                      [-1, 1, 1], [-1, -1, 1], [1, -1, 1], [1, 1, 1]], dtype=float)
    centre = np.array([vehicle["x"], vehicle["y"], vehicle["z"]])
    return (rot_z(vehicle["yaw"]) @ (signs * half).T).T + centre


def close(a, b, tol=EXACT_TOL):
    return float(np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)))) <= tol


def check_frame(root, frame, stats):
    from cityscapesscripts.helpers.annotation import Annotation, CsBbox3d, CsObjectType
    from cityscapesscripts.helpers.box3dImageTransform import CRS_S, CRS_V, Box3dImageTransform, Camera

    native = native_paths(root, frame)
    cs = cs_paths(root, frame)
    calibration = load_json(native["calibration"])
    labels = load_json(native["labels"])
    camera_json = load_json(cs["camera"])
    gt = load_json(cs["gt"])
    K, R, c = our_camera(calibration)
    intr = calibration["intrinsics"]
    m = calibration["mount"]

    # The sensor block: our extrinsic and K.
    sensor = gt["sensor"]
    where = cs["gt"]
    T = np.array(sensor["sensor_T_ISO_8855"], dtype=float)
    if T.shape != (3, 4):
        raise CheckError(f"{where}: sensor_T_ISO_8855 has shape {T.shape}, expected 3x4 rows [R | t]")
    ours_T = np.hstack([R, (-R @ c)[:, None]])
    if not close(T, ours_T):
        raise CheckError(f"{where}: sensor_T_ISO_8855 {T.tolist()} is not [R | -R c] of "
                         f"{native['calibration']} {ours_T.tolist()}")
    for cs_key, our_key in (("fx", "fx"), ("fy", "fy"), ("u0", "cx"), ("v0", "cy")):
        if not close(sensor[cs_key], intr[our_key]):
            raise CheckError(f"{where}: sensor {cs_key} = {sensor[cs_key]} but "
                             f"{native['calibration']} {our_key} = {intr[our_key]}")
    if (gt["imgWidth"], gt["imgHeight"]) != (intr["width"], intr["height"]):
        raise CheckError(f"{where}: imgWidth x imgHeight {gt['imgWidth']}x{gt['imgHeight']} but "
                         f"{native['calibration']} is {intr['width']}x{intr['height']}")

    # camera.json: the inverse of sensor_T_ISO_8855, the same intrinsics.
    where = cs["camera"]
    ext = camera_json["extrinsic"]
    vehicle_R_camera = rot_z(ext["yaw"]) @ rot_y(ext["pitch"]) @ rot_x(ext["roll"])
    vehicle_T_camera = np.eye(4)
    vehicle_T_camera[:3, :3] = vehicle_R_camera
    vehicle_T_camera[:3, 3] = [ext["x"], ext["y"], ext["z"]]
    sensor_T_4x4 = np.vstack([T, [0.0, 0.0, 0.0, 1.0]])
    if not close(vehicle_T_camera, np.linalg.inv(sensor_T_4x4)):
        raise CheckError(
            f"{where}: extrinsic (yaw {ext['yaw']}, pitch {ext['pitch']}, roll {ext['roll']}, "
            f"x {ext['x']}, y {ext['y']}, z {ext['z']}) composed as Rz(yaw)·Ry(pitch)·Rx(roll) is not "
            f"the inverse of {cs['gt']} sensor_T_ISO_8855 (max difference "
            f"{np.max(np.abs(vehicle_T_camera - np.linalg.inv(sensor_T_4x4))):.3g}; "
            f"{native['calibration']} gives yaw {math.radians(m['yaw_deg'])}, "
            f"pitch {-math.radians(m['pitch_deg'])} (nose-down positive), "
            f"roll {math.radians(m['roll_deg'])}, x {c[0]}, y {c[1]}, z {c[2]})")
    for key in ("fx", "fy", "u0", "v0"):
        if not close(camera_json["intrinsic"][key], sensor[key]):
            raise CheckError(f"{where}: intrinsic {key} = {camera_json['intrinsic'][key]} but "
                             f"{cs['gt']} sensor {key} = {sensor[key]}")
    if not close(camera_json.get("baseline", 0.0), sensor.get("baseline", 0.0)):
        raise CheckError(f"{where}: baseline {camera_json.get('baseline')} but {cs['gt']} sensor "
                         f"baseline {sensor.get('baseline')}")

    # leftImg8bit: the native frame.
    with Image.open(cs["image"]) as a, Image.open(native["image"]) as b:
        if a.size != (gt["imgWidth"], gt["imgHeight"]):
            raise CheckError(f"{cs['image']}: {a.size[0]}x{a.size[1]} but imgWidth x imgHeight is "
                             f"{gt['imgWidth']}x{gt['imgHeight']}")
        if not np.array_equal(np.asarray(a.convert("RGB")), np.asarray(b.convert("RGB"))):
            raise CheckError(f"{cs['image']}: pixels differ from {native['image']}")

    # Objects, read by cityscapesScripts.
    annotation = Annotation(CsObjectType.BBOX3D)
    with open(cs["gt"]) as f:
        annotation.fromJsonText(f.read())
    boxes = [o for o in annotation.objects if isinstance(o, CsBbox3d)]
    vehicles = labels["vehicles"]
    if len(boxes) != len(vehicles) or len(gt["objects"]) != len(vehicles):
        raise CheckError(f"{cs['gt']}: {len(boxes)} objects but {native['labels']} has "
                         f"{len(vehicles)} vehicles")
    camera = Camera(fx=sensor["fx"], fy=sensor["fy"], u0=sensor["u0"], v0=sensor["v0"],
                    sensor_T_ISO_8855=sensor["sensor_T_ISO_8855"],
                    imgWidth=gt["imgWidth"], imgHeight=gt["imgHeight"])
    for index, (box, raw, vehicle) in enumerate(zip(boxes, gt["objects"], vehicles)):
        where = f"{cs['gt']} object {index} (label {vehicle['label']}, {native['labels']} vehicle {index})"
        expected = LABEL_NAMES.get(vehicle["label"])
        if box.label != expected:
            raise CheckError(f"{where}: label {box.label!r}, expected {expected!r}")
        if raw.get("in_view") != vehicle["in_view"]:
            raise CheckError(f"{where}: in_view {raw.get('in_view')} but the native label says "
                             f"{vehicle['in_view']}")
        if raw["3d"].get("format") != "CRS_ISO8855":
            raise CheckError(f"{where}: 3d format {raw['3d'].get('format')!r}, expected 'CRS_ISO8855'")
        if abs(np.linalg.norm(box.rotation) - 1.0) > EXACT_TOL:
            raise CheckError(f"{where}: rotation {box.rotation} is not a unit quaternion")

        transform = Box3dImageTransform(camera)
        transform.initialize_box_from_annotation(box, coordinate_system=CRS_V)
        theirs = transform.get_vertices(CRS_V)
        theirs_s = transform.get_vertices(CRS_S)
        theirs_2d = transform.get_vertices_2d()
        corners = our_corners(vehicle)
        pixels = (K @ S_AXES @ R @ (corners - c).T).T
        for j, name in enumerate(VERTEX_ORDER):
            error = float(np.max(np.abs(theirs[name] - corners[j])))
            stats["corner"] = max(stats["corner"], error)
            if error > CORNER_TOL_M:
                raise CheckError(f"{where}: vertex {name} {theirs[name].tolist()} but ours "
                                 f"{corners[j].tolist()} ({error:.3g} m apart)")
            if theirs_s[name][2] < MIN_DEPTH_M:
                continue
            ours_px = pixels[j, :2] / pixels[j, 2]
            error = float(np.max(np.abs(theirs_2d[name] - ours_px)))
            stats["pixel"] = max(stats["pixel"], error)
            stats["projected"] += 1
            if error > PIXEL_TOL:
                raise CheckError(f"{where}: vertex {name} projects to {theirs_2d[name].tolist()} but "
                                 f"ours to {ours_px.tolist()} ({error:.3g} px apart)")
        stats["objects"] += 1
    stats["frames"] += 1


def frames_of(root):
    native = {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(root, "labels", "*.json"))}
    prefix = f"{CITY}_{SEQUENCE}_"
    suffix = "_gtBbox3d.json"
    cs = {os.path.basename(p)[len(prefix):-len(suffix)]
          for p in glob.glob(os.path.join(root, "gtBbox3d", "train", CITY, prefix + "*" + suffix))}
    if native != cs:
        only_native = sorted(native - cs)[:5]
        only_cs = sorted(cs - native)[:5]
        raise CheckError(f"{root}: frames differ between the layouts (only in labels/: {only_native}, "
                         f"only in gtBbox3d/train/{CITY}/: {only_cs})")
    return sorted(native)


def check(root):
    stats = {"frames": 0, "objects": 0, "projected": 0, "corner": 0.0, "pixel": 0.0}
    frames = frames_of(root)
    if not frames:
        raise CheckError(f"{root}: no frames (no labels/*.json and no gtBbox3d/train/{CITY}/*_gtBbox3d.json)")
    for frame in frames:
        try:
            check_frame(root, frame, stats)
        except KeyError as error:
            raise CheckError(f"{root} frame {frame}: missing key {error}")
        except FileNotFoundError as error:
            raise CheckError(f"{root} frame {frame}: {error}")
    if stats["objects"] == 0:
        raise CheckError(f"{root}: {stats['frames']} frames but no objects; nothing was checked")
    if stats["projected"] == 0:
        raise CheckError(f"{root}: no box corner is in front of the camera; no projection was checked")
    return stats


def summary(root, stats):
    return (f"check_cityscapes3d: {root}: {stats['frames']} frames, {stats['objects']} objects, "
            f"max corner error {stats['corner']:.3g} m, max projection error {stats['pixel']:.3g} px "
            f"({stats['projected']} corners projected)")


# --- self-test: a small dataset written from the formulas above --------------------------------

def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f)


def write_dataset(root, frames=3, seed=1):
    rng = np.random.default_rng(seed)
    for i in range(frames):
        frame = f"{i:06d}"
        width, height = 320, 200
        fx = float(rng.uniform(250, 400))
        intr = {"fx": fx, "fy": fx, "cx": float(rng.uniform(150, 170)),
                "cy": float(rng.uniform(90, 110)), "width": width, "height": height}
        mount = {"pitch_deg": float(rng.uniform(-6, 6)), "roll_deg": float(rng.uniform(-3, 3)),
                 "yaw_deg": float(rng.uniform(-3, 3)), "height_m": float(rng.uniform(1.0, 1.6)),
                 "forward_of_origin_m": float(rng.uniform(0.5, 2.0)),
                 "lateral_offset_m": float(rng.uniform(-0.3, 0.3))}
        calibration = {"intrinsics": intr, "mount": mount}
        K, R, c = our_camera(calibration)
        vehicles = []
        for j in range(3 + i):
            label = int(rng.integers(0, 4))
            length, wid, hgt = [float(v) for v in rng.uniform([1.5, 0.5, 1.2], [9.0, 2.5, 3.5])]
            # The first box of frame 0 straddles the camera plane: some corners are not projected.
            x = 1.0 if (i == 0 and j == 0) else float(rng.uniform(5, 40))
            vehicles.append({"x": x, "y": float(rng.uniform(-8, 8)), "z": hgt / 2, "length": length,
                             "width": wid, "height": hgt, "yaw": float(rng.uniform(-math.pi, math.pi)),
                             "label": label, "in_view": bool(rng.integers(0, 2))})
        paths = native_paths(root, frame)
        write_json(paths["calibration"], calibration)
        write_json(paths["labels"], {"vehicles": vehicles})
        os.makedirs(os.path.dirname(paths["image"]), exist_ok=True)
        pixels = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(paths["image"])

        T = np.hstack([R, (-R @ c)[:, None]])
        sensor = {"sensor_T_ISO_8855": T.tolist(), "fx": intr["fx"], "fy": intr["fy"],
                  "u0": intr["cx"], "v0": intr["cy"], "baseline": 0.0}
        cs = cs_paths(root, frame)
        write_json(cs["camera"], {
            "baseline": 0.0,
            "extrinsic": {"baseline": 0.0, "x": c[0], "y": c[1], "z": c[2],
                          "yaw": math.radians(mount["yaw_deg"]),
                          "pitch": -math.radians(mount["pitch_deg"]),
                          "roll": math.radians(mount["roll_deg"])},
            "intrinsic": {k: sensor[k] for k in ("fx", "fy", "u0", "v0")}})
        objects = [{"2d": {"modal": [0, 0, 1, 1], "amodal": [0, 0, 1, 1]},
                    "3d": {"center": [v["x"], v["y"], v["z"]],
                           "dimensions": [v["length"], v["width"], v["height"]],
                           "rotation": [math.cos(v["yaw"] / 2), 0.0, 0.0, math.sin(v["yaw"] / 2)],
                           "type": LABEL_NAMES[v["label"]], "format": "CRS_ISO8855"},
                    "occlusion": 0.0, "truncation": 0.0, "instanceId": j,
                    "label": LABEL_NAMES[v["label"]], "score": 1.0, "in_view": v["in_view"]}
                   for j, v in enumerate(vehicles)]
        write_json(cs["gt"], {"imgWidth": width, "imgHeight": height, "sensor": sensor,
                              "objects": objects, "ignore": []})
        os.makedirs(os.path.dirname(cs["image"]), exist_ok=True)
        shutil.copyfile(paths["image"], cs["image"])


def mutate(root, path_key, frame, change):
    path = cs_paths(root, frame)[path_key] if path_key in ("camera", "gt") else \
        native_paths(root, frame)[path_key]
    value = load_json(path)
    change(value)
    write_json(path, value)


def swap_dims(gt):
    d = gt["objects"][1]["3d"]["dimensions"]
    d[0], d[1] = d[1], d[0]


# Each must be refused by `check` (name, file, change).
CORRUPTIONS = [
    ("camera.json pitch sign flipped", "camera",
     lambda v: v["extrinsic"].update(pitch=-v["extrinsic"]["pitch"])),
    ("gtBbox3d length and width swapped", "gt", swap_dims),
    ("gtBbox3d yaw quaternion conjugated", "gt",
     lambda v: v["objects"][2]["3d"].update(rotation=[q * s for q, s in zip(
         v["objects"][2]["3d"]["rotation"], [1, 1, 1, -1])])),
    ("gtBbox3d label changed", "gt",
     lambda v: v["objects"][0].update(label="truck" if v["objects"][0]["label"] != "truck" else "car")),
    ("gtBbox3d in_view flipped", "gt",
     lambda v: v["objects"][0].update(in_view=not v["objects"][0]["in_view"])),
    ("gtBbox3d object dropped", "gt", lambda v: v["objects"].pop()),
    ("native calibration roll changed", "calibration",
     lambda v: v["mount"].update(roll_deg=v["mount"]["roll_deg"] + 0.5)),
]

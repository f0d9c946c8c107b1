"""A live run whose ego motion came from gpsd against the drive it was made from.

Usage: compare_gps_run.py LIVE_SIDECAR DRIVE_DIR DRIVE_SIDECAR

- Ego motion: every processed frame after the first fix has an ego speed (arc length / dt) within
  0.3 m/s of location.csv's speed, and a turn rate (dyaw / dt) within 0.5 deg/s of location.csv's
  course rate (negated: course turns clockwise, yaw counter-clockwise) somewhere within 1.5 s of
  the frame: gpsfake and the video sender start within about a second of each other, and the
  drive's course rate steps from 0 to -2.6 deg/s part-way. At least 90 % of frames must hold.
- Tracks: the drive run (motion.csv + location.csv) is matched frame by frame (the constant pts
  offset of MPEG-TS estimated first). A confirmed live track matches the nearest drive track of the
  same frame within 1.0 m + 5 % of range, and its velocity over ground agrees within 4 m/s. At
  least 80 % of live tracks must match (with a stationary ego, velocities would be off by the ego's
  16 m/s).
"""
import csv
import json
import math
import sys


def sidecar(path):
    lines = [json.loads(line) for line in open(path)]
    assert lines[0].get("kind") == "periphery-replay", path
    return [line for line in lines[1:] if "index" in line]


def offset(live, drive):
    """The constant pts shift from the drive to the live run. Every shift by a whole frame lines the
    timestamps up equally well, so the content decides: the shift whose raw detections lie closest."""
    by_pts = {round(d["pts"], 3): d for d in drive}

    def distance(shift):
        total, count = 0.0, 0
        for line in live:
            twin = by_pts.get(round(line["pts"] - shift, 3))
            for box in (line["raw"] if twin else []):
                total += min((math.hypot(box[2] - b[2], box[3] - b[3]) for b in twin["raw"]), default=10.0)
                count += 1
        return total / count if count >= 0.5 * len(live) else math.inf

    candidates = {round(live[0]["pts"] - d["pts"], 4) for d in drive}
    return min(candidates, key=distance)


def main():
    live, drive_dir, drive = sidecar(sys.argv[1]), sys.argv[2], sidecar(sys.argv[3])
    rows = [(float(r["t"]), float(r["speed"]), float(r["course"])) for r in csv.DictReader(open(f"{drive_dir}/location.csv"))]
    rates = [((a[0] + b[0]) / 2, -(((b[2] - a[2] + 180) % 360) - 180) / (b[0] - a[0])) for a, b in zip(rows, rows[1:])]
    shift = offset(live, drive)
    ego_ok = ego_all = 0
    fixed = False
    for line in live:
        dx, dy, dyaw, dt = line["ego"]
        fixed = fixed or dx != 0
        if dt <= 0 or line.get("gap_s") or not fixed:
            continue  # the first frame, or before the first fix
        t = line["pts"] - shift
        half = dyaw / 2
        speed = math.hypot(dx, dy) / dt * (half / math.sin(half) if abs(half) > 1e-9 else 1)
        truth = min(rows, key=lambda r: abs(r[0] - t))[1]
        rate = math.degrees(dyaw / dt)
        near = [r for s, r in rates if abs(s - t) <= 1.5] or [min(rates, key=lambda sr: abs(sr[0] - t))[1]]
        ego_all += 1
        ego_ok += abs(speed - truth) <= 0.3 and any(abs(rate - r) <= 0.5 for r in near)
    by_pts = {round(d["pts"], 3): d for d in drive}
    tracks_ok = tracks_all = 0
    for line in live:
        twin = by_pts.get(round(line["pts"] - shift, 3))
        if twin is None:
            continue
        for track in line["tracks"]:
            tracks_all += 1
            x, y, v = track[1], track[2], track[14]
            near = min(twin["tracks"], key=lambda d: math.hypot(d[1] - x, d[2] - y), default=None)
            if near is None or math.hypot(near[1] - x, near[2] - y) > 1.0 + 0.05 * math.hypot(x, y):
                continue
            if v is not None and near[14] is not None and math.hypot(v[0] - near[14][0], v[1] - near[14][1]) > 4.0:
                continue
            tracks_ok += 1
    print(f"compare_gps_run: pts offset {shift:.3f} s; ego within 0.3 m/s and 0.5 deg/s on {ego_ok}/{ego_all} frames; "
          f"{tracks_ok}/{tracks_all} live tracks match the drive run's (1.0 m + 5 % of range, 4 m/s)")
    assert ego_all >= 10 and ego_ok >= 0.9 * ego_all, "ego motion from gpsd does not follow location.csv"
    assert tracks_all >= 10 and tracks_ok >= 0.8 * tracks_all, "tracks differ from the drive run's"


if __name__ == "__main__":
    main()

"""Rules that hold the replay sidecar of one run to another's (docs/guides/video.md, docs/guides/live.md).

- `compare_sidecars`: the raw detections of two sidecars of the same frames, one from a compressed
  video and one from the drive's lossless frames. In each frame the detections of the two runs are
  paired greedily, nearest centres first, same class, within `match_radius` metres. Compression moves
  scores a little, so a detection near the score threshold may be found in one run only; a confident
  one (score at least `sure_score`) must be paired. Of the pairs, at least `min_share` must lie
  within `max_distance` metres plus `range_share` of the range (monocular depth moves with range:
  0.3 m + 2 % is 0.5 m at 10 m, 0.9 m at 30 m).
- `compare_live`: the raw detections of a live run against a file run of the same clip. A live run
  processes only some frames, and its frame times are the stream's clock: MPEG-TS starts about 1.4 s
  later than the MP4, RTSP wherever its sender began. The constant offset is found first: of the
  candidates live_pts[0] - file_pts[j], the ones that put the most live frames within
  `pts_tolerance` of a file frame. At a constant frame rate that is rarely one candidate: every
  whole-frame shift that keeps the live frames inside the file's span matches as many, so of those
  the one whose detections agree best is taken (a wrong shift pairs almost nothing). Each matched
  live frame is then held to its file frame: the detections of the two are paired greedily, nearest
  centres first, same class, and a pair holds when its centres lie within `max_distance` metres plus
  `range_share` of the range (the video bound above). A frame agrees when every detection of each
  run is paired; at least `min_share` of the matched frames must agree, at least `min_matched` of
  the live frames must find their file frame, and at least `min_frames` must. A sender that loops
  the clip (ffmpeg -stream_loop) goes on counting time; `period` (the clip's length in seconds)
  folds its later rounds onto the first.
- `compare_gps_run`: a live run whose ego motion came from gpsd against the drive it was made from.
  Ego motion: every processed frame after the first fix has an ego speed (arc length / dt) within
  0.3 m/s of location.csv's speed, and a turn rate (dyaw / dt) within 0.5 deg/s of location.csv's
  course rate (negated: course turns clockwise, yaw counter-clockwise) somewhere within 1.5 s of the
  frame: gpsfake and the video sender start within about a second of each other, and the drive's
  course rate steps from 0 to -2.6 deg/s part-way. At least 90 % of frames must hold. Tracks: the
  drive run (motion.csv + location.csv) is matched frame by frame (the constant pts offset of
  MPEG-TS estimated first). A confirmed live track matches the nearest drive track of the same frame
  within 1.0 m + 5 % of range, and its velocity over ground agrees within 4 m/s. At least 80 % of
  live tracks must match (with a stationary ego, velocities would be off by the ego's 16 m/s).

Each returns a line that says what it measured and fails (AssertionError) when a bound does not hold.
"""

from __future__ import annotations

import bisect
import csv
import json
import math
from pathlib import Path


def frames(path) -> list:
    """The frame lines of a replay sidecar (the header and the summary left out)."""
    lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    assert lines and lines[0].get("kind") == "periphery-replay", f"{path}: not a replay sidecar"
    return [line for line in lines[1:] if "index" in line]


def pair(a, b, radius, range_share=0.0):
    """Greedy nearest same-class pairs (distance, i, j) whose centres lie within RADIUS plus
    RANGE_SHARE of a's range."""
    candidates = sorted(
        (math.dist(p[2:4], q[2:4]), i, j) for i, p in enumerate(a) for j, q in enumerate(b) if p[1] == q[1])
    used_a, used_b, pairs = set(), set(), []
    for distance, i, j in candidates:
        if i in used_a or j in used_b:
            continue
        if distance <= radius + range_share * math.hypot(*a[i][2:4]):
            used_a.add(i)
            used_b.add(j)
            pairs.append((distance, i, j))
    return pairs


def compare_sidecars(a_path, b_path, match_radius=1.0, sure_score=0.6, max_distance=0.3, range_share=0.02,
                     min_share=0.95) -> str:
    a, b = frames(a_path), frames(b_path)
    assert len(a) == len(b), f"{len(a)} frames against {len(b)}"
    failures, distances, lonely = [], [], 0
    for x, y in zip(a, b):
        pairs = pair(x["raw"], y["raw"], match_radius)
        distances += [d - range_share * math.hypot(*x["raw"][i][2:4]) for d, i, _ in pairs]
        paired_a, paired_b = {i for _, i, _ in pairs}, {j for _, _, j in pairs}
        for side, detections, paired in (("first", x["raw"], paired_a), ("second", y["raw"], paired_b)):
            for k, d in enumerate(detections):
                if k in paired:
                    continue
                lonely += 1
                if d[0] >= sure_score:
                    failures.append(f"frame {x['index']}: a detection of score {d[0]:.3f} only in the {side} run")
    close = sum(d <= max_distance for d in distances)
    share = close / len(distances) if distances else 0.0
    bound = f"{max_distance} m + {range_share:.0%} of range"
    if share < min_share:
        failures.append(f"only {share:.1%} of pairs within {bound} (need {min_share:.0%})")
    assert not failures, "; ".join(failures)
    return f"{len(a)} frames, {len(distances)} pairs, {share:.1%} within {bound}, {lonely} unpaired detections"


def _nearest(times, t):
    """Index of the time in sorted `times` nearest to t, and its distance."""
    k = bisect.bisect_left(times, t)
    best = min((j for j in (k - 1, k) if 0 <= j < len(times)), key=lambda j: abs(times[j] - t))
    return best, abs(times[best] - t)


def _locate(file_pts, t, period):
    """The file frame nearest to t (a live time less the offset; folded by the period when there
    is one), and its distance."""
    if not period:
        return _nearest(file_pts, t)
    folded = t % period
    return min((_nearest(file_pts, u) for u in (folded, folded - period)), key=lambda hit: hit[1])


def compare_live(file_path, live_path, period=None, max_distance=0.3, range_share=0.02, min_share=0.9, min_matched=0.9,
                 min_frames=5, pts_tolerance=0.001) -> str:
    reference, live = frames(file_path), frames(live_path)
    assert reference and live, f"{len(reference)} file frames and {len(live)} live frames: nothing to compare"
    reference.sort(key=lambda f: f["pts"])
    file_pts = [f["pts"] for f in reference]

    def held(offset):
        """Matched, agreeing, boxes, unpaired and a description of each frame that disagrees."""
        matched = agreeing = boxes = unpaired = 0
        disagreeing = []
        for frame in live:
            j, distance = _locate(file_pts, frame["pts"] - offset, period)
            if distance > pts_tolerance:
                continue
            matched += 1
            a, b = reference[j]["raw"], frame["raw"]
            pairs = pair(a, b, max_distance, range_share)
            boxes += len(a) + len(b)
            lonely = len(a) + len(b) - 2 * len(pairs)
            unpaired += lonely
            if lonely == 0:
                agreeing += 1
            else:
                disagreeing.append(f"live frame {frame['index']} (pts {frame['pts']:.3f}) against file pts "
                                   f"{reference[j]['pts']:.3f}: {len(a)} file boxes, {len(b)} live, {len(pairs)} paired")
        return matched, agreeing, boxes, unpaired, disagreeing

    # The offsets that match the most live frames by time; of those, the one that agrees best.
    hits = {}
    for candidate in {live[0]["pts"] - p for p in file_pts}:
        hits[candidate] = sum(_locate(file_pts, f["pts"] - candidate, period)[1] <= pts_tolerance for f in live)
    most = max(hits.values())
    tied = sorted(c for c, n in hits.items() if n == most)
    results = {c: held(c) for c in tied}
    offset = max(tied, key=lambda c: (results[c][1], -results[c][3], -abs(c)))
    matched, agreeing, boxes, unpaired, disagreeing = results[offset]
    if period:
        offset = (offset + period / 2) % period - period / 2

    bound = f"{max_distance} m + {range_share:.0%} of range"
    matched_share = matched / len(live)
    share = agreeing / matched if matched else 0.0
    folded = f", folded every {period:g} s" if period else ""
    measured = (f"{len(live)} live frames, {matched} ({matched_share:.0%}) matched to file frames at a pts offset of "
                f"{offset:+.3f} s ({len(tied)} offsets matched as many{folded}); {agreeing} of them ({share:.1%}) with every "
                f"box paired both ways within {bound} ({boxes} boxes, {unpaired} unpaired)")
    failures = []
    if matched < min_frames:
        failures.append(f"only {matched} live frames matched a file frame (need {min_frames})")
    if matched_share < min_matched:
        failures.append(f"only {matched_share:.0%} of live frames matched a file frame (need {min_matched:.0%})")
    if share < min_share:
        failures.append(f"only {share:.1%} of matched frames agree (need {min_share:.0%}); " + "; ".join(disagreeing[:5]))
    assert not failures, measured + ": " + "; ".join(failures)
    return measured


def _gps_offset(live, drive):
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


def compare_gps_run(live_path, drive_dir, drive_path) -> str:
    live, drive = frames(live_path), frames(drive_path)
    with open(Path(drive_dir) / "location.csv") as f:
        rows = [(float(r["t"]), float(r["speed"]), float(r["course"])) for r in csv.DictReader(f)]
    rates = [((a[0] + b[0]) / 2, -(((b[2] - a[2] + 180) % 360) - 180) / (b[0] - a[0])) for a, b in zip(rows, rows[1:])]
    shift = _gps_offset(live, drive)
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
    measured = (f"pts offset {shift:.3f} s; ego within 0.3 m/s and 0.5 deg/s on {ego_ok}/{ego_all} frames; "
                f"{tracks_ok}/{tracks_all} live tracks match the drive run's (1.0 m + 5 % of range, 4 m/s)")
    assert ego_all >= 10 and ego_ok >= 0.9 * ego_all, f"ego motion from gpsd does not follow location.csv: {measured}"
    assert tracks_all >= 10 and tracks_ok >= 0.8 * tracks_all, f"tracks differ from the drive run's: {measured}"
    return measured

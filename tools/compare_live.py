"""Compares the raw detections of a live run with those of a file run of the same clip (docs/guides/live.md).

A live run (a stream, or a file with --realtime) processes only some frames, and its frame times are
the stream's clock: MPEG-TS starts about 1.4 s later than the MP4, RTSP wherever its sender began.
The constant offset is found first: of the candidates live_pts[0] - file_pts[j], the ones that put
the most live frames within --pts-tolerance of a file frame. At a constant frame rate that is rarely
one candidate: every whole-frame shift that keeps the live frames inside the file's span matches as
many, so of those the one whose detections agree best is taken (a wrong shift pairs almost nothing).
Each matched live frame is then held to its file frame: the detections of the two are paired
greedily, nearest centres first, same class, and a pair holds when its centres lie within
--max-distance metres plus --range-share of the range (the video bound of compare_sidecars.py:
0.3 m + 2 %). A frame agrees when every detection of each run is paired; at least --min-share of
the matched frames must agree, at least --min-matched of the live frames must find their file
frame, and at least --min-frames must. A sender that loops the clip (ffmpeg -stream_loop) goes on
counting time; --period (the clip's length in seconds) folds its later rounds onto the first.

Usage: compare_live.py FILE_SIDECAR LIVE_SIDECAR [--max-distance 0.3] [--range-share 0.02]
                       [--min-share 0.9] [--min-matched 0.9] [--min-frames 5] [--pts-tolerance 0.001]
                       [--period S]
"""

import argparse
import bisect
import json
import math
import sys


def frames(path):
    """The frame lines of a replay sidecar (the header and the summary left out)."""
    lines = [json.loads(line) for line in open(path) if line.strip()]
    if not lines or lines[0].get("kind") != "periphery-replay":
        sys.exit(f"compare_live: {path}: not a replay sidecar")
    return [line for line in lines[1:] if "index" in line]


def nearest(times, t):
    """Index of the time in sorted `times` nearest to t, and its distance."""
    k = bisect.bisect_left(times, t)
    best = min((j for j in (k - 1, k) if 0 <= j < len(times)), key=lambda j: abs(times[j] - t))
    return best, abs(times[best] - t)


def locate(file_pts, t, period):
    """The file frame nearest to t (a live time less the offset; folded by the period when there
    is one), and its distance."""
    if not period:
        return nearest(file_pts, t)
    folded = t % period
    return min((nearest(file_pts, u) for u in (folded, folded - period)), key=lambda hit: hit[1])


def pair(a, b, max_distance, range_share):
    """Greedy nearest same-class pairs (i, j) whose centres lie within the bound of a's range."""
    candidates = sorted(
        (math.dist(p[2:4], q[2:4]), i, j) for i, p in enumerate(a) for j, q in enumerate(b) if p[1] == q[1])
    used_a, used_b, pairs = set(), set(), []
    for distance, i, j in candidates:
        if i in used_a or j in used_b:
            continue
        if distance <= max_distance + range_share * math.hypot(*a[i][2:4]):
            used_a.add(i)
            used_b.add(j)
            pairs.append((i, j))
    return pairs


def compare(reference, file_pts, live, offset, args):
    """The live frames held to the file frames at `offset`: matched, agreeing, boxes, unpaired and
    a description of each frame that disagrees."""
    matched = agreeing = boxes = unpaired = 0
    disagreeing = []
    for frame in live:
        j, distance = locate(file_pts, frame["pts"] - offset, args.period)
        if distance > args.pts_tolerance:
            continue
        matched += 1
        a, b = reference[j]["raw"], frame["raw"]
        pairs = pair(a, b, args.max_distance, args.range_share)
        boxes += len(a) + len(b)
        lonely = len(a) + len(b) - 2 * len(pairs)
        unpaired += lonely
        if lonely == 0:
            agreeing += 1
        else:
            disagreeing.append(f"live frame {frame['index']} (pts {frame['pts']:.3f}) against file pts {reference[j]['pts']:.3f}: "
                               f"{len(a)} file boxes, {len(b)} live, {len(pairs)} paired")
    return matched, agreeing, boxes, unpaired, disagreeing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file_sidecar")
    parser.add_argument("live_sidecar")
    parser.add_argument("--max-distance", type=float, default=0.3)
    parser.add_argument("--range-share", type=float, default=0.02)
    parser.add_argument("--min-share", type=float, default=0.9, help="share of matched frames whose boxes all pair")
    parser.add_argument("--min-matched", type=float, default=0.9, help="share of live frames that find a file frame")
    parser.add_argument("--min-frames", type=int, default=5, help="fewest matched frames")
    parser.add_argument("--pts-tolerance", type=float, default=0.001)
    parser.add_argument("--period", type=float, help="seconds after which a looping sender repeats the clip")
    args = parser.parse_args()
    reference, live = frames(args.file_sidecar), frames(args.live_sidecar)
    if not reference or not live:
        sys.exit(f"compare_live: {len(reference)} file frames and {len(live)} live frames: nothing to compare")
    reference.sort(key=lambda f: f["pts"])
    file_pts = [f["pts"] for f in reference]

    # The offsets that match the most live frames by time; of those, the one that agrees best.
    hits = {}
    for candidate in {live[0]["pts"] - p for p in file_pts}:
        hits[candidate] = sum(locate(file_pts, f["pts"] - candidate, args.period)[1] <= args.pts_tolerance for f in live)
    most = max(hits.values())
    tied = sorted(c for c, n in hits.items() if n == most)
    results = {c: compare(reference, file_pts, live, c, args) for c in tied}
    offset = max(tied, key=lambda c: (results[c][1], -results[c][3], -abs(c)))
    matched, agreeing, boxes, unpaired, disagreeing = results[offset]
    if args.period:
        offset = (offset + args.period / 2) % args.period - args.period / 2

    bound = f"{args.max_distance} m + {args.range_share:.0%} of range"
    matched_share = matched / len(live)
    share = agreeing / matched if matched else 0.0
    folded = f", folded every {args.period:g} s" if args.period else ""
    print(f"compare_live: {len(live)} live frames, {matched} ({matched_share:.0%}) matched to file frames at a pts offset of "
          f"{offset:+.3f} s ({len(tied)} offsets matched as many{folded}); {agreeing} of them ({share:.1%}) with every box "
          f"paired both ways within {bound} ({boxes} boxes, {unpaired} unpaired)")
    failures = []
    if matched < args.min_frames:
        failures.append(f"only {matched} live frames matched a file frame (need {args.min_frames})")
    if matched_share < args.min_matched:
        failures.append(f"only {matched_share:.0%} of live frames matched a file frame (need {args.min_matched:.0%})")
    if share < args.min_share:
        failures.append(f"only {share:.1%} of matched frames agree (need {args.min_share:.0%}); " + "; ".join(disagreeing[:5]))
    if failures:
        sys.exit("compare_live: " + "; ".join(failures))


if __name__ == "__main__":
    main()

"""Compares the raw detections of two replay sidecars of the same frames (docs/guides/video.md).

Holds detections from a compressed video to those from the drive's lossless frames. In each frame
the detections of the two runs are paired greedily, nearest centres first, same class, within
--match-radius metres. Compression moves scores a little, so a detection near the score threshold
may be found in one run only; a confident one (score at least --sure-score) must be paired. Of the
pairs, at least --min-share must lie within --max-distance metres plus --range-share of the range
(monocular depth moves with range: 0.3 m + 2 % is 0.5 m at 10 m, 0.9 m at 30 m).

Usage: compare_sidecars.py A.jsonl B.jsonl [--max-distance 0.3] [--range-share 0.02] [--min-share 0.95]
                           [--same-times]
"""

import argparse
import json
import math
import sys


def frames(path):
    lines = [json.loads(line) for line in open(path)]
    assert lines and lines[0].get("kind") == "periphery-replay", f"{path}: not a replay sidecar"
    return [line for line in lines[1:] if "summary" not in line]


def pair(a, b, radius):
    """Greedy nearest pairs (distance, i, j) of same-label detections within radius."""
    candidates = sorted(
        (math.dist(p[2:4], q[2:4]), i, j) for i, p in enumerate(a) for j, q in enumerate(b) if p[1] == q[1])
    used_a, used_b, pairs = set(), set(), []
    for distance, i, j in candidates:
        if distance <= radius and i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.append((distance, i, j))
    return pairs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--match-radius", type=float, default=1.0)
    parser.add_argument("--sure-score", type=float, default=0.6)
    parser.add_argument("--max-distance", type=float, default=0.3)
    parser.add_argument("--range-share", type=float, default=0.02)
    parser.add_argument("--min-share", type=float, default=0.95)
    parser.add_argument("--same-times", action="store_true", help="also require equal frame times (1e-6 s)")
    args = parser.parse_args()
    a, b = frames(args.a), frames(args.b)
    failures = []
    if len(a) != len(b):
        sys.exit(f"compare_sidecars: {len(a)} frames against {len(b)}")
    distances, lonely = [], 0
    for x, y in zip(a, b):
        if args.same_times and abs(x["pts"] - y["pts"]) > 1e-6:
            failures.append(f"frame {x['index']} at {x['pts']} s against {y['pts']} s")
        pairs = pair(x["raw"], y["raw"], args.match_radius)
        distances += [d - args.range_share * math.hypot(*x["raw"][i][2:4]) for d, i, _ in pairs]
        paired_a, paired_b = {i for _, i, _ in pairs}, {j for _, _, j in pairs}
        for side, detections, paired in (("first", x["raw"], paired_a), ("second", y["raw"], paired_b)):
            for k, d in enumerate(detections):
                if k in paired:
                    continue
                lonely += 1
                if d[0] >= args.sure_score:
                    failures.append(f"frame {x['index']}: a detection of score {d[0]:.3f} only in the {side} run")
    close = sum(d <= args.max_distance for d in distances)
    share = close / len(distances) if distances else 0.0
    bound = f"{args.max_distance} m + {args.range_share:.0%} of range"
    print(f"compare_sidecars: {len(a)} frames, {len(distances)} pairs, {share:.1%} within {bound}, "
          f"{lonely} unpaired detections" + ("" if failures else f", all below score {args.sure_score}"))
    if share < args.min_share:
        failures.append(f"only {share:.1%} of pairs within {bound} (need {args.min_share:.0%})")
    if failures:
        sys.exit("compare_sidecars: " + "; ".join(failures))


if __name__ == "__main__":
    main()

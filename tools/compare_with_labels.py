#!/usr/bin/env python3
"""Matches `periphery detect --json` output with a synthetic frame's labels by the evaluation rule
(`docs/guides/evaluation.md`: vehicles, 0–40 m × ±10 m, score ≥ 0.60, nearest centre < 2.0 m) and
prints each labelled vehicle with the detection that found it. Labels with "in_view": false (outside
the network's crop) are don't care, as in `periphery eval`. `make demo` runs it, and the end-to-end
tests hold detect's output to it (`recall_of`, Tests/e2e/test_cli.py).

    tools/compare_with_labels.py DETECTIONS.json LABELS.json [--min-recall R]

Exit status 1 when fewer than R of the labelled vehicles are found (default 0: report only).
"""
import argparse
import json
import math
import sys


def recall_of(detections_path, labels_path):
    """The share of labelled vehicles in view that the detections find, and the report's lines."""
    inside = lambda b: 0 <= b["x"] <= 40 and -10 <= b["y"] <= 10  # noqa: E731
    with open(detections_path) as f:
        dets = sorted((d for d in json.load(f) if d["score"] >= 0.6 and d["label"] in (0, 1, 2) and inside(d)),
                      key=lambda d: -d["score"])
    with open(labels_path) as f:
        labels = json.load(f)["vehicles"]
    truth = [v for v in labels if v["label"] in (0, 1, 2) and inside(v) and v.get("in_view", True)]
    dont_care = [v for v in labels if not v.get("in_view", True)]
    found, false = {}, 0
    for d in dets:
        best = min((j for j in range(len(truth)) if j not in found), default=None,
                   key=lambda j: math.hypot(d["x"] - truth[j]["x"], d["y"] - truth[j]["y"]))
        if best is not None and math.hypot(d["x"] - truth[best]["x"], d["y"] - truth[best]["y"]) < 2.0:
            found[best] = d
        elif all(math.hypot(d["x"] - v["x"], d["y"] - v["y"]) >= 2.0 for v in dont_care):
            false += 1
    report = []
    for j, v in enumerate(truth):
        d = found.get(j)
        where = (f"found at {math.hypot(d['x'] - v['x'], d['y'] - v['y']):.2f} m, score {d['score']:.2f}"
                 if d else "missed")
        report.append(f"  {v['class']:14s} x {v['x']:5.1f} y {v['y']:5.1f}: {where}")
    for v in dont_care:
        report.append(f"  {v['class']:14s} x {v['x']:5.1f} y {v['y']:5.1f}: outside the network's view (don't care)")
    report.append(f"compare: {len(found)}/{len(truth)} labelled vehicles in view found, {false} false detections")
    return (len(found) / len(truth) if truth else 1.0), "\n".join(report)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("detections")
    ap.add_argument("labels")
    ap.add_argument("--min-recall", type=float, default=0.0)
    args = ap.parse_args()
    recall, report = recall_of(args.detections, args.labels)
    print(report)
    return 0 if recall >= args.min_recall else 1


if __name__ == "__main__":
    sys.exit(main())

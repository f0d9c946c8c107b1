"""Proves mount calibration from motion on synthetic drives with known mounts (docs/results/calibration-accuracy.md).

For each seed: `periphery synth --sequence` renders a drive (random mount, curves, bumps, a gyro
with noise and bias), then `periphery calibrate --json` estimates pitch and yaw three ways — with
the gyro bias estimate (the default), de-rotating with the raw gyro (`--no-gyro-bias`), and without
de-rotation (the estimator's diagnostic) — and the errors against the drive's truth are tabulated.

    periphery-eval-calibration --bin .build/release/periphery --out DIR [--seeds 31 32 33 34 35]
        [--seconds 62] [--fps 30] [--width 448] [--height 252] [--json RESULT.json]

Standard library only. Drives already rendered in DIR are reused.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional


def calibrate(args, drive: Path, *extra: str) -> Dict:
    out = subprocess.run([str(args.bin), "calibrate", str(drive), "--json", "--out", str(drive / "estimated.json"), *extra],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def curve_share(truth: Dict) -> float:
    """Share of the drive's frames turning faster than 0.3°/s (on an arc)."""
    rates = [abs(f["yaw_rate"]) * 180 / math.pi for f in truth["trajectory"]]
    return sum(r > 0.3 for r in rates) / max(len(rates), 1)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", type=Path, default=Path(".build/release/periphery"))
    ap.add_argument("--out", type=Path, required=True, help="directory for the drives")
    ap.add_argument("--seeds", type=int, nargs="+", default=[31, 32, 33, 34, 35])
    ap.add_argument("--seconds", type=float, default=62)
    ap.add_argument("--fps", type=float, default=30)
    ap.add_argument("--width", type=int, default=448)
    ap.add_argument("--height", type=int, default=252)
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args(argv)

    rows: List[Dict] = []
    for seed in args.seeds:
        drive = args.out / f"drive-{seed}"
        if not (drive / "truth.json").exists():
            frames = int(args.seconds * args.fps)
            subprocess.run([str(args.bin), "synth", "--sequence", "--fps", str(args.fps), "--frames", str(frames),
                            "--seed", str(seed), "--width", str(args.width), "--height", str(args.height),
                            "--out", str(drive)], check=True, capture_output=True)
        truth = json.loads((drive / "truth.json").read_text())
        mount = truth["mount"]
        est = calibrate(args, drive)
        raw = calibrate(args, drive, "--no-gyro-bias")
        row = {
            "seed": seed, "pitch_true": mount["pitch_deg"], "yaw_true": mount["yaw_deg"],
            "speed": truth["ego_speed_m_s"], "curve_share": curve_share(truth), "samples": est["samples"],
            "accept_rate": est["accept_rate"], "converged": est["converged"], "ms_per_pair": est["ms_per_pair"],
            "pitch_err": est["pitch_deg"] - mount["pitch_deg"], "yaw_err": est["yaw_deg"] - mount["yaw_deg"],
            "pitch_err_raw_gyro": raw["pitch_deg"] - mount["pitch_deg"], "yaw_err_raw_gyro": raw["yaw_deg"] - mount["yaw_deg"],
            "pitch_err_no_derotation": est["pitch_without_derotation_deg"] - mount["pitch_deg"],
            "gyro_bias_true": truth["gyro_bias_rad_s"], "gyro_bias_est": est["gyro_bias_rad_s"],
        }
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    print("| drive | speed m/s | on curves | pairs | accept | pitch err | yaw err | pitch err, raw gyro | "
          "pitch err, no de-rotation | ms/pair |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['seed']} | {r['speed']:.1f} | {100 * r['curve_share']:.0f} % | {r['samples']} | {r['accept_rate']:.2f} | "
              f"{r['pitch_err']:+.3f}° | {r['yaw_err']:+.3f}° | {r['pitch_err_raw_gyro']:+.3f}° | "
              f"{r['pitch_err_no_derotation']:+.3f}° | {r['ms_per_pair']:.0f} |")
    mae = lambda key: statistics.fmean(abs(r[key]) for r in rows)  # noqa: E731
    print(f"\nmean absolute error over {len(rows)} drives: pitch {mae('pitch_err'):.3f}°, yaw {mae('yaw_err'):.3f}°; "
          f"raw gyro: pitch {mae('pitch_err_raw_gyro'):.3f}°, yaw {mae('yaw_err_raw_gyro'):.3f}°; "
          f"without de-rotation: pitch {mae('pitch_err_no_derotation'):.3f}°")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

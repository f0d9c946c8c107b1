"""Live runs under overload and underload: drops, latency and frame age, measured side by side.

Two cases, alternated round by round in one run, each a clip sent over UDP MPEG-TS by `ffmpeg -re`
(real time) to `periphery run udp://...`:
- underload: the engine is faster than the source (the clip at --slow-fps);
- overload: the engine is slower than the source (the clip at 1080p, 30 frames/s, --threads 1).
Every periphery command runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed from its
environment (users do not set them). Per round it reads the sidecar: drops, p95 latency, p95 age
(arrival to the start of processing), and the engine's median time per frame (preprocess +
inference, from the sidecar's timings). Decoding time per frame comes from `ffmpeg -threads 1 -benchmark` on each clip.

The checks of docs/guides/live.md: underload has no drops and p95 latency <= engine median + 20 ms;
overload has drops and p95 age < two frame intervals + one decode. Prints each round and medians.

Usage: bench_live.py --binary BIN --drive DRIVE (a `synth --sequence` drive of 960x540 frames)
       [--rounds 3] [--seconds 12] [--slow-fps 5] [--weights W]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def env_without_openblas():
    return {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}


def decode_ms(clip, frames):
    result = subprocess.run(["ffmpeg", "-v", "info", "-benchmark", "-threads", "1", "-i", clip, "-f", "null", "-"],
                            capture_output=True, text=True, check=True)
    match = re.search(r"utime=([\d.]+)s", result.stdout + result.stderr)
    return float(match.group(1)) * 1000 / frames if match else float("nan")


def live_round(binary, clip, calibration, port, seconds, extra, out):
    run = subprocess.Popen([binary, "run", f"udp://127.0.0.1:{port}", "--calibration", calibration, "--out", out,
                            "--duration", str(seconds + 2), *extra], env=env_without_openblas(),
                           stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1)
        subprocess.run(["ffmpeg", "-v", "error", "-re", "-i", clip, "-c", "copy", "-f", "mpegts",
                        f"udp://127.0.0.1:{port}?pkt_size=1316"], check=True, timeout=seconds + 20)
        _, errors = run.communicate(timeout=seconds + 30)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    if run.returncode != 0:
        sys.exit(f"bench_live: run failed ({run.returncode}):\n{errors}")
    lines = [json.loads(line) for line in open(os.path.join(out, "replay-safety40-v1.jsonl"))]
    summary, frames = lines[-1]["summary"], lines[1:-1]
    engine = statistics.median(f["timing_ms"][0] + f["timing_ms"][1] for f in frames)
    return summary, engine


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--drive", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=12)
    parser.add_argument("--slow-fps", type=float, default=5)
    parser.add_argument("--weights", default="Weights/safety40-synthetic-int8.safetensors")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="bench-live-")
    calibration = json.load(open(os.path.join(args.drive, "calibration.json")))
    k = calibration["intrinsics"]
    big = dict(calibration, intrinsics={key: (value * 2 if key in ("fx", "fy", "cx", "cy", "width", "height") else value)
                                        for key, value in k.items()})
    json.dump(big, open(os.path.join(scratch, "calibration-1080.json"), "w"))
    frames = os.path.join(args.drive, "images", "%06d.png")
    count = len(os.listdir(os.path.join(args.drive, "images")))
    slow, fast = os.path.join(scratch, "slow.ts"), os.path.join(scratch, "fast.ts")
    encode = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "0", "-tune", "zerolatency", "-crf", "18"]
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-framerate", str(args.slow_fps), "-i", frames, "-t", str(args.seconds),
                    "-g", str(int(args.slow_fps)), *encode, slow], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-framerate", "30", "-stream_loop", "-1", "-i", frames, "-t", str(args.seconds),
                    "-vf", "scale=1920:1080", "-g", "30", *encode, fast], check=True)
    cases = {
        "underload": (slow, os.path.join(args.drive, "calibration.json"), 1 / args.slow_fps, decode_ms(slow, args.seconds * args.slow_fps), []),
        "overload": (fast, os.path.join(scratch, "calibration-1080.json"), 1 / 30, decode_ms(fast, args.seconds * 30), ["--threads", "1"]),
    }
    results = {name: [] for name in cases}
    for r in range(args.rounds):
        for name, (clip, cal, interval, decode, extra) in cases.items():
            summary, engine = live_round(args.binary, clip, cal, 18700 + r, args.seconds, ["--weights", args.weights, *extra],
                                         os.path.join(scratch, f"{name}-{r}"))
            row = dict(received=summary["received"], processed=summary["processed"], dropped=summary["dropped"],
                       corrupt=summary["corrupt"], latency_p95=summary["latency_ms"]["p95"], age_p95=summary["age_ms"]["p95"],
                       engine=engine, bound_age=2 * interval * 1000 + decode, bound_latency=engine + 20)
            results[name].append(row)
            print(f"round {r + 1} {name:9s}: {row['processed']}/{row['received']} processed, {row['dropped']} dropped, "
                  f"latency p95 {row['latency_p95']:.0f} ms, age p95 {row['age_p95']:.0f} ms, engine median {engine:.0f} ms "
                  f"(decode {decode:.1f} ms/frame)", flush=True)
    for name, rows in results.items():
        med = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
        if name == "underload":
            verdict = "holds" if all(r["dropped"] == 0 and r["latency_p95"] <= r["bound_latency"] for r in rows) else "FAILS"
            print(f"{name}: median drops {med['dropped']:.0f}, p95 latency {med['latency_p95']:.0f} ms against engine median + 20 ms "
                  f"= {med['bound_latency']:.0f} ms: {verdict}")
        else:
            verdict = "holds" if all(r["dropped"] > 0 and r["age_p95"] < r["bound_age"] for r in rows) else "FAILS"
            print(f"{name}: median drops {med['dropped']:.0f} of {med['received']:.0f}, p95 age {med['age_p95']:.0f} ms against two "
                  f"intervals + one decode = {med['bound_age']:.0f} ms: {verdict}")


if __name__ == "__main__":
    main()

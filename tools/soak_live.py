"""Resident memory of a live run over a long soak: flat, or the run leaks.

A synthetic clip, looped without end by `ffmpeg -stream_loop -1 -re`, streams over UDP MPEG-TS to
`periphery run udp://...` for --minutes; the run's resident memory (VmRSS) is sampled every
--every seconds. After a warm-up minute the samples must stay within --tolerance (default 5 %) of
the first one. Prints the samples and the growth; exit 1 if it grew. Loopback only; both processes
are stopped at the end, also on failure. Not part of `make test`: it is a command to run by hand.

Usage: soak_live.py --binary BIN --clip CLIP.mp4 --calibration C.json [--minutes 10] [--every 10]
       [--threads T] [--weights W]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--clip", required=True)
    parser.add_argument("--calibration", required=True)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--every", type=float, default=10)
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--threads", default=None)
    parser.add_argument("--weights", default="Weights/safety40-synthetic-int8.safetensors")
    parser.add_argument("--port", type=int, default=18800)
    args = parser.parse_args()
    out = tempfile.mkdtemp(prefix="soak-live-")
    seconds = args.minutes * 60
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    command = [args.binary, "run", f"udp://127.0.0.1:{args.port}", "--calibration", args.calibration, "--out", out,
               "--duration", str(seconds), "--weights", args.weights] + (["--threads", args.threads] if args.threads else [])
    run = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    sender = None
    samples = []
    try:
        time.sleep(1)
        sender = subprocess.Popen(["ffmpeg", "-v", "error", "-stream_loop", "-1", "-re", "-i", args.clip, "-c", "copy", "-f",
                                   "mpegts", f"udp://127.0.0.1:{args.port}?pkt_size=1316"])
        start = time.monotonic()
        while run.poll() is None and time.monotonic() - start < seconds - args.every:
            time.sleep(args.every)
            if run.poll() is None:
                samples.append((time.monotonic() - start, rss_mib(run.pid)))
                print(f"{samples[-1][0]:6.0f} s  {samples[-1][1]:7.1f} MiB", flush=True)
        _, errors = run.communicate(timeout=60)
    finally:
        for process in (sender, run):
            if process and process.poll() is None:
                process.kill()
                process.wait()
    summary = [json.loads(line) for line in open(os.path.join(out, "replay-safety40-v1.jsonl"))][-1]["summary"]
    warm = [(t, m) for t, m in samples if t >= 60]
    if run.returncode != 0 or len(warm) < 2:
        sys.exit(f"soak_live: the run failed ({run.returncode}) or too few samples:\n{errors}")
    base, peak, last = warm[0][1], max(m for _, m in warm), warm[-1][1]
    growth = (peak - base) / base
    print(f"soak_live: {summary['processed']} frames processed, {summary['dropped']} dropped in {summary['seconds']:.0f} s; "
          f"RSS after warm-up {base:.1f} MiB, peak {peak:.1f}, last {last:.1f} ({growth * 100:+.1f} %)")
    if growth > args.tolerance:
        sys.exit(f"soak_live: resident memory grew by {growth * 100:.1f} %")


if __name__ == "__main__":
    main()

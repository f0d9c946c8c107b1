"""Throughput of `periphery run` on a video file against the same frames as raw rgb24 on stdin.

Three ways in, alternated round by round in one run: the video file itself; raw frames from a file
decoded beforehand (the engine alone, the strict baseline); raw frames piped live from `ffmpeg`
(the workflow a video file replaces, decoding in a second process on the same cores). Every command runs with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE removed from its environment (users do not set them). Frames per second are the
ones `run` reports (engine, tracker and sidecar; decoding included for the video). Prints each
round, the medians and the median of the per-round ratios.

Usage: bench_video.py --binary BIN --video CLIP.mp4 --calibration C.json [--rounds 5] [--precision int8]
The raw frames are decoded once by ffmpeg into a scratch file first. The video is read through a link
in the scratch folder, so that motion.csv or location.csv beside the clip cannot give the video run
work (mount calibration from motion) that the raw runs do not have.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile


def frames_per_second(command, stdin=None):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    result = subprocess.run(command, stdin=stdin, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench_video: {' '.join(command)} failed:\n{result.stderr}")
    match = re.search(r"(\d+) frames in [\d.]+ s \(([\d.]+) frames/s\)", result.stderr)
    if not match:
        sys.exit(f"bench_video: no rate in the output of {' '.join(command)}:\n{result.stderr}")
    return int(match.group(1)), float(match.group(2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--video", required=True)
    parser.add_argument("--calibration", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--precision", default="int8")
    args = parser.parse_args()
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,avg_frame_rate",
         "-of", "csv=p=0", args.video], capture_output=True, text=True, check=True).stdout.strip().split(",")
    width, height = int(probe[0]), int(probe[1])
    num, den = probe[2].split("/")
    fps = float(num) / float(den)
    with tempfile.TemporaryDirectory() as scratch:
        raw = os.path.join(scratch, "frames.raw")
        subprocess.run(["ffmpeg", "-v", "error", "-i", args.video, "-f", "rawvideo", "-pix_fmt", "rgb24", raw], check=True)
        clip = os.path.join(scratch, "clip" + os.path.splitext(args.video)[1])
        os.symlink(os.path.abspath(args.video), clip)
        common = ["--calibration", args.calibration, "--precision", args.precision]
        video_rates, raw_rates, ratios, pipe_rates, pipe_ratios = [], [], [], [], []
        for round_ in range(args.rounds):
            n_video, video = frames_per_second(
                [args.binary, "run", clip, "--out", os.path.join(scratch, "video")] + common)
            with open(raw, "rb") as stdin:
                n_raw, raw_rate = frames_per_second(
                    [args.binary, "run", "--stdin-raw", f"{width}x{height}", "--fps", str(fps), "--out",
                     os.path.join(scratch, "raw")] + common, stdin=stdin)
            decoder = subprocess.Popen(
                ["ffmpeg", "-v", "error", "-i", args.video, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], stdout=subprocess.PIPE)
            n_pipe, pipe = frames_per_second(
                [args.binary, "run", "--stdin-raw", f"{width}x{height}", "--fps", str(fps), "--out",
                 os.path.join(scratch, "pipe")] + common, stdin=decoder.stdout)
            decoder.wait()
            if not n_video == n_raw == n_pipe:
                sys.exit(f"bench_video: {n_video} video frames against {n_raw} raw and {n_pipe} piped frames")
            pipe_rates.append(pipe)
            pipe_ratios.append(video / pipe)
            video_rates.append(video)
            raw_rates.append(raw_rate)
            ratios.append(video / raw_rate)
            print(f"round {round_ + 1}: video {video:.2f} frames/s, raw stdin {raw_rate:.2f} (ratio {video / raw_rate:.3f}), "
                  f"ffmpeg pipe {pipe:.2f} (ratio {video / pipe:.3f})")
    print(f"{n_video} frames of {width}x{height}, {args.precision}: video median {statistics.median(video_rates):.2f} frames/s, "
          f"raw stdin median {statistics.median(raw_rates):.2f} frames/s, video/raw median ratio {statistics.median(ratios):.3f} "
          f"(range {min(ratios):.3f}-{max(ratios):.3f}); ffmpeg pipe median {statistics.median(pipe_rates):.2f} frames/s, "
          f"video/pipe median ratio {statistics.median(pipe_ratios):.3f} (range {min(pipe_ratios):.3f}-{max(pipe_ratios):.3f})")


if __name__ == "__main__":
    main()

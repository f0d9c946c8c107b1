"""Video in and out through the CLI (docs/guides/video.md): a synthetic drive encoded by ffmpeg as H.264,
H.265, MJPEG and a variable-frame-rate clip (tools/make_sample_video.sh); the sidecar, the H.264 render
and the MCAP of a video run; detections against the drive's own PNG frames (sidecars.py states the
bounds); a part of a video and one frame of it; bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import MCAP_MAGIC, SIDECAR, fails, ffprobe_frames, cut_in_half, line_count, run
from sidecars import compare_sidecars

FRAMES = 30


@pytest.fixture(scope="module")
def sample(sample_video) -> Path:
    return sample_video(FRAMES)


@pytest.fixture(scope="module")
def png_run(periphery, sample, tmp_path_factory) -> Path:
    """The run of the drive's lossless frames: the reference for every video's detections."""
    out = tmp_path_factory.mktemp("png") / "png"
    run([periphery, "run", sample / "drive", "--out", out])
    return out / SIDECAR


@pytest.fixture(scope="module")
def h264_run(periphery, sample, tmp_path_factory) -> tuple[Path, str]:
    """`run clip.mp4` with an MCAP, an H.264 render and --progress; its folder and stderr."""
    out = tmp_path_factory.mktemp("h264") / "h264"
    done = run([periphery, "run", sample / "video/clip.mp4", "--out", out, "--mcap", out / "run.mcap",
                "--render-video", out / "run.mp4", "--progress"])
    return out, done.stderr


def test_run_video_shows_progress_although_stderr_is_a_file(h264_run):
    assert "frames/s, ETA" in h264_run[1]


def test_run_video_writes_sidecar_render_and_mcap_complete(h264_run):
    out, _ = h264_run
    assert line_count(out / SIDECAR) == FRAMES + 2  # header, frames, summary
    probe = run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                 "stream=codec_name,pix_fmt,nb_read_frames", "-of", "csv=p=0", out / "run.mp4"]).stdout.strip()
    assert probe == f"h264,yuv420p,{FRAMES}", f"run.mp4: {probe}"
    data = (out / "run.mcap").read_bytes()
    assert data[:8] == MCAP_MAGIC and data[-8:] == MCAP_MAGIC, "run.mcap: no MCAP magic at both ends"
    assert not (out / "run.mcap.partial").exists() and not (out / "run.mp4.partial").exists()


def test_h264_detections_match_the_lossless_frames(png_run, h264_run):
    compare_sidecars(png_run, h264_run[0] / SIDECAR)


@pytest.mark.parametrize("clip", ["clip-h265.mp4", "clip-mjpeg.avi", "clip-vfr.mkv"])
def test_video_detections_match_the_lossless_frames(periphery, sample, png_run, clip, tmp_path):
    run([periphery, "run", sample / "video" / clip, "--out", tmp_path / "run"])
    compare_sidecars(png_run, tmp_path / "run" / SIDECAR)


def test_variable_frame_rate_clip_keeps_its_timestamps(periphery, sample, tmp_path):
    clip = sample / "video/clip-vfr.mkv"
    run([periphery, "run", clip, "--out", tmp_path / "run"])
    probe = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time",
                 "-of", "csv=p=0", clip]).stdout
    pts = [json.loads(line)["pts"] for line in (tmp_path / "run" / SIDECAR).read_text().splitlines()[1:-1]]
    times = [float(line.strip().strip(",")) for line in probe.splitlines() if line.strip()]
    assert len(pts) == len(times) and all(abs(p - t) < 1e-6 for p, t in zip(pts, times)), (pts, times)
    steps = {round(b - a, 3) for a, b in zip(pts, pts[1:])}
    assert steps == {0.1, 0.2}, steps


def test_run_part_of_a_video_every_second_frame(periphery, sample, tmp_path):
    run([periphery, "run", sample / "video/clip.mp4", "--out", tmp_path / "part", "--start", "1", "--duration", "1", "--every", "2"])
    assert line_count(tmp_path / "part" / SIDECAR) == 7


def test_detect_at_a_time_of_a_video_finds_what_the_png_frame_has(periphery, sample, tmp_path):
    calibration = sample / "video/calibration.json"
    run([periphery, "detect", sample / "video/clip.mp4", "--time", "0.7", "--calibration", calibration, "--json", tmp_path / "t07.json"])
    run([periphery, "detect", sample / "drive/images/000007.png", "--calibration", calibration, "--json", tmp_path / "f07.json"])
    a, b = (json.loads((tmp_path / name).read_text()) for name in ("t07.json", "f07.json"))
    assert len(a) > 0 and abs(len(a) - len(b)) <= 1, (len(a), len(b))


def test_run_refuses_a_file_that_is_not_a_video(periphery, sample, tmp_path):
    fails([periphery, "run", "Tests/cli/detections.jsonl", "--calibration", sample / "video/calibration.json", "--out", tmp_path / "bad"],
          1, "Tests/cli/detections.jsonl: not a readable video")


def test_run_refuses_a_calibration_of_another_size(periphery, sample, tmp_path):
    fails([periphery, "run", sample / "video/clip.mp4", "--calibration", "Tests/cli/drive/calibration.json", "--out", tmp_path / "bad"],
          1, "clip.mp4: frames are 640x400, the calibration's 320x200")


def test_a_clip_cut_in_half_keeps_and_finishes_its_first_frames_and_exits_3(periphery, sample, tmp_path):
    cut = tmp_path / "cut"
    cut.mkdir()
    shutil.copy(sample / "video/calibration.json", cut)
    cut_in_half(sample / "video/clip-vfr.mkv", cut / "cut.mkv")
    fails([periphery, "run", cut / "cut.mkv", "--out", cut, "--mcap", cut / "run.mcap", "--render-video", cut / "run.mp4"],
          3, "cut.mkv: the video ends at")
    kept = line_count(cut / SIDECAR) - 2
    assert 3 < kept < FRAMES, kept
    assert ffprobe_frames(cut / "run.mp4") == str(kept), f"cut run.mp4 holds {ffprobe_frames(cut / 'run.mp4')} frames, the sidecar {kept}"

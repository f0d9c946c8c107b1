"""The MCAP of a video run, of a run whose clip was cut in half and of one stopped by SIGINT (each
closed with a valid summary), read by the `mcap` package and parsed into Foxglove's protobuf types
(mcap_files.verify_mcap)."""

from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import pytest

from helpers import SIDECAR, cut_in_half, json_lines, line_count, run
from mcap_files import verify_mcap

FRAMES = 12


@pytest.fixture(scope="module")
def video(sample_video) -> Path:
    return sample_video(FRAMES) / "video"


def test_mcap_of_a_video_run_reads_with_the_mcap_package_and_foxglove_types(periphery, video, tmp_path):
    run([periphery, "run", video / "clip.mp4", "--out", tmp_path / "run", "--mcap", tmp_path / "run/run.mcap"])
    verify_mcap(tmp_path / "run/run.mcap", FRAMES)


def test_mcap_of_a_clip_cut_in_half_is_closed_with_the_frames_kept(periphery, video, tmp_path):
    cut = tmp_path / "cut"
    cut.mkdir()
    shutil.copy(video / "calibration.json", cut)
    cut_in_half(video / "clip-vfr.mkv", cut / "cut.mkv")
    done = run([periphery, "run", cut / "cut.mkv", "--out", cut, "--mcap", cut / "run.mcap"], check=False)
    assert done.returncode == 3, f"the cut clip exited {done.returncode}, not 3"
    verify_mcap(cut / "run.mcap", line_count(cut / SIDECAR) - 2)


def test_mcap_of_a_run_stopped_by_sigint_has_every_processed_frame(periphery, video, processes, ffmpeg_encode, tmp_path):
    # Its MCAP closed with the summary section, one message per topic for each frame the sidecar's
    # summary counts as processed (docs/guides/live.md).
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    ffmpeg_encode("-stream_loop", "5", "-i", video / "clip.mp4", "-c", "copy", stopped / "long.mp4")  # 7.2 s
    process = processes.start([periphery, "run", stopped / "long.mp4", "--realtime", "--calibration", video / "calibration.json",
                               "--out", stopped, "--mcap", stopped / "run.mcap"], tmp_path / "stopped.log", 60)
    time.sleep(4)
    processes.signal(process, signal.SIGINT)
    status = processes.finish(process)
    assert status == 0, f"the stopped run exited {status}, not 0"
    processed = json_lines(stopped / SIDECAR)[-1]["summary"]["processed"]
    verify_mcap(stopped / "run.mcap", processed)

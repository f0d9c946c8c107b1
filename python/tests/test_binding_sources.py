"""periphery.open against `periphery run`: on the test drive, on a video and on a scripted drive
that warns (NHTSA's LVM, `periphery synth --scenario lvm`), every frame's detections, tracks,
timestamp, tracker reset and safety events equal the line of the sidecar the CLI writes
(replay-safety40-v1.jsonl; binding_support.py states the rule), and the frames' pixels equal the
drive's PNGs as Pillow reads them. Options, refusals, a video cut short, and the engine's hand-over.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import periphery
from binding_support import DRIVE, INT8_WEIGHTS, WEIGHTS, cli, frame_differences, read_rgb, run_cli, sidecar


@pytest.fixture(scope="module")
def drive(tmp_path_factory) -> Path:
    """The test drive, copied (`periphery run` writes into the drive by default), and its sidecar."""
    root = tmp_path_factory.mktemp("drive")
    shutil.copytree(DRIVE, root / "drive")
    run_cli("run", str(root / "drive"), "--weights", str(WEIGHTS), "--out", str(root / "cli"))
    return root


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> Path:
    """A 12-frame synthetic drive encoded as H.264 at 10 frames/s (as tools/make_sample_video.sh
    does), with its calibration.json and motion.csv beside it, and the CLI's sidecar of it."""
    root = tmp_path_factory.mktemp("video")
    run_cli("synth", "--sequence", "--frames", "12", "--width", "320", "--height", "200", "--seed", "31", "--out", str(root / "drive"))
    (root / "video").mkdir()
    for name in ("calibration.json", "motion.csv"):
        shutil.copy(root / "drive" / name, root / "video" / name)
    encode = ["ffmpeg", "-v", "error", "-y", "-framerate", "10", "-i", str(root / "drive" / "images" / "%06d.png")]
    subprocess.run([*encode, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "12", str(root / "video" / "clip.mp4")], check=True)
    subprocess.run([*encode, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "12", str(root / "video" / "clip.mkv")], check=True)
    # One thread, as the binding's run below: on some CPUs (AMD Zen 3, AVX2) FP32's boxes differ in
    # their last bits between one thread and two.
    run_cli("run", str(root / "video" / "clip.mp4"), "--weights", str(WEIGHTS), "--threads", "1", "--out", str(root / "cli"))
    return root


def compare(frames: list, lines: list[dict]) -> None:
    assert len(frames) == len(lines), f"{len(frames)} frames, the sidecar has {len(lines)}"
    problems = [p for frame, line in zip(frames, lines) for p in frame_differences(line, frame)]
    assert problems == [], "\n".join(problems[:10])


def test_the_drive_gives_the_sidecar(drive):
    with periphery.open(drive / "drive", weights=WEIGHTS) as source:
        frames = list(source)
    assert source.closed and source.engine.closed  # the engine open() made goes with the source
    lines = sidecar(drive / "cli" / "replay-safety40-v1.jsonl")
    compare(frames, lines)
    assert sum(len(f.tracks) for f in frames) > 0, "no tracks: the comparison would prove little"
    pngs = sorted(DRIVE.glob("*.png"))
    for frame, png in zip(frames, pngs):
        assert isinstance(frame, periphery.Frame)
        assert Path(frame.name).name == png.name
        assert frame.image.dtype == np.uint8 and frame.image.flags.writeable
        assert np.array_equal(frame.image, read_rgb(png)), png.name


def test_a_video_gives_the_sidecar(video):
    frames = list(periphery.open(video / "video" / "clip.mp4", weights=WEIGHTS, threads=1))
    compare(frames, sidecar(video / "cli" / "replay-safety40-v1.jsonl"))
    assert all(f.image.shape == (200, 320, 3) for f in frames)
    assert [f.index for f in frames] == list(range(12))
    assert sum(len(f.detections) for f in frames) > 0


def test_a_scripted_drive_gives_the_sidecars_events(tmp_path):
    """Result.events of every frame equal the sidecar's events, and the drive warns: the lead 40 m
    ahead at 20 mph, the ego at 45 mph."""
    run_cli("synth", "--sequence", "--scenario", "lvm", "--gap", "40", "--frames", "40", "--seed", "1", "--out", str(tmp_path / "drive"))
    run_cli("run", str(tmp_path / "drive"), "--weights", str(INT8_WEIGHTS), "--out", str(tmp_path / "cli"))
    frames = list(periphery.open(tmp_path / "drive", weights=INT8_WEIGHTS))
    compare(frames, sidecar(tmp_path / "cli" / "replay-safety40-v1.jsonl"))
    reports = [e for f in frames for e in f.events]
    assert any(e.type == "forward_collision" and e.phase == "start" for e in reports), reports
    assert all(isinstance(e, periphery.SafetyEventReport) for e in reports)


def test_an_engine_of_ones_own_and_the_options(drive, tmp_path):
    """max_frames and calibration against `periphery run --max-frames --calibration`; the engine
    is the source's while it is open, and free again after."""
    run_cli("run", str(drive / "drive"), "--weights", str(WEIGHTS), "--max-frames", "3",
            "--calibration", str(DRIVE / "calibration.json"), "--out", str(tmp_path))
    engine = periphery.Engine(WEIGHTS)
    calibration = periphery.Calibration.load(DRIVE / "calibration.json")
    image = read_rgb(DRIVE / "000000.png")
    source = periphery.open(drive / "drive", engine=engine, calibration=DRIVE / "calibration.json", max_frames=3)
    first = next(source)
    with pytest.raises(periphery.BusyError) as caught:
        engine.process(image, calibration, 0.0)
    assert caught.value.status == -7 and "engine" in str(caught.value)
    with pytest.raises(periphery.BusyError):
        periphery.open(drive / "drive", engine=engine)
    frames = [first, *source]
    assert source.closed and not engine.closed
    compare(frames, sidecar(tmp_path / "replay-safety40-v1.jsonl"))
    engine.process(image, calibration, 0.0)  # free again

    # Closed mid-run: the source stops, the engine is free.
    source = periphery.open(drive / "drive", engine=engine, calibration=calibration)
    next(source)
    source.close()
    assert list(source) == []
    engine.process(image, calibration, 0.0)
    # Closing the engine closes a source open on it first.
    source = periphery.open(drive / "drive", engine=engine)
    next(source)
    engine.close()
    assert source.closed and engine.closed


def test_a_video_cut_short_gives_its_frames_then_the_error(video, tmp_path):
    whole = video / "video" / "clip.mkv"
    cut = tmp_path / "cut.mkv"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    shutil.copy(video / "video" / "calibration.json", tmp_path / "calibration.json")
    done = subprocess.run([cli(), "run", str(cut), "--weights", str(WEIGHTS), "--out", str(tmp_path / "cli")], capture_output=True, text=True)
    assert done.returncode == 3, done.stderr  # the input failed; what came before is kept
    lines = sidecar(tmp_path / "cli" / "replay-safety40-v1.jsonl")
    assert 0 < len(lines) < 12
    frames = []
    with pytest.raises(periphery.SourceError) as caught:
        for frame in periphery.open(cut, weights=WEIGHTS):
            frames.append(frame)
    assert "cut.mkv" in str(caught.value) and caught.value.status == -5
    compare(frames, lines)


def test_bad_sources_and_options_name_the_argument(drive, tmp_path):
    error = pytest.raises(periphery.SourceError, periphery.open, "/nonexistent/drive", weights=WEIGHTS).value
    assert "/nonexistent/drive" in str(error) and isinstance(error, OSError)
    not_video = tmp_path / "notes.txt"
    not_video.write_text("not a video")
    shutil.copy(DRIVE / "calibration.json", tmp_path / "calibration.json")
    assert "notes.txt" in str(pytest.raises(periphery.SourceError, periphery.open, not_video, weights=WEIGHTS).value)
    bad = {
        "source": (TypeError, dict(source=3, weights=WEIGHTS)),
        "weights": (TypeError, dict(source=drive / "drive")),
        "fps": (ValueError, dict(source=drive / "drive", weights=WEIGHTS, fps=0)),
        "max_frames": (ValueError, dict(source=drive / "drive", weights=WEIGHTS, max_frames=0)),
        "calibration": (TypeError, dict(source=drive / "drive", weights=WEIGHTS, calibration=3)),
        "engine": (TypeError, dict(source=drive / "drive", engine="engine")),
        "threads": (ValueError, dict(source=drive / "drive", weights=WEIGHTS, threads=-1)),
    }
    for argument, (kind, kwargs) in bad.items():
        source = kwargs.pop("source")
        with pytest.raises(kind) as caught:
            periphery.open(source, **kwargs)
        assert str(caught.value).startswith(argument), f"{caught.value!r} does not name {argument}"
    with periphery.Engine(WEIGHTS) as engine:
        with pytest.raises(ValueError, match="^weights"):
            periphery.open(drive / "drive", engine=engine, weights=WEIGHTS)

"""Live sources through the CLI (docs/guides/live.md), on loopback only: a synthetic drive encoded as
H.264 and sent by ffmpeg as MPEG-TS over UDP, over HTTP (the sender up only after the run started) and
over RTSP (the run listening); a 1080p 30 frames/s stream the engine cannot keep up with; a sender
lost for a while and one lost for good; SIGINT and SIGTERM during live and file runs; a cut MPEG-TS
file and a lossy UDP relay; V4L2 errors. The live runs' detections are held to a file run of the same
clip (sidecars.compare_live). Every background process (senders, relay, runs) runs under `timeout`
and is killed when its test ends, pass or fail (the `processes` fixture)."""

from __future__ import annotations

import json
import re
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from helpers import (ROOT, SIDECAR, ffprobe_frames, finished_sidecar, processed_at_least, port_open, run, summary_of,
                     wait_for)
from mcap_files import assert_mcap_finished
from sidecars import compare_live

FRAMES = 90  # of the clip: 6 s at 15 frames/s
GOP = 15
SECONDS = FRAMES // 15
SENT = 2 * FRAMES  # the streams send the clip twice over (-stream_loop 1; the engine may be slow)
RELAY = ROOT / "Tests/e2e/lossy_udp_relay.py"


@pytest.fixture(scope="module")
def media(periphery, media_cache, tmp_path_factory) -> Path:
    """A synthetic drive at 15 frames/s encoded as H.264 with a keyframe every second (clip.mp4), and
    the same frames as a 1080p clip at 30 frames/s (clip1080.mp4), kept between runs in
    .build/e2e-media/live (rendering the drive takes a while); the drive's calibration.json, and
    calibration1080.json: the drive's scaled ×2."""
    folder = media_cache / "live"
    if not (folder / f"done-{FRAMES}").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        run([periphery, "synth", "--sequence", "--frames", FRAMES, "--fps", "15", "--width", "960", "--height", "540", "--seed", "31",
             "--out", folder / "drive"], timeout=900)
        shutil.copy(folder / "drive/calibration.json", folder / "calibration.json")
        frames = folder / "drive/images/%06d.png"
        run(["ffmpeg", "-v", "error", "-y", "-framerate", "15", "-i", frames, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", GOP,
             "-bf", "0", "-tune", "zerolatency", "-crf", "18", folder / "clip.mp4"], timeout=300)
        run(["ffmpeg", "-v", "error", "-y", "-framerate", "30", "-i", frames, "-vf", "scale=1920:1080", "-c:v", "libx264",
             "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "30", "-bf", "0", "-tune", "zerolatency", "-crf", "23",
             folder / "clip1080.mp4"], timeout=300)
        shutil.rmtree(folder / "drive/images")
        (folder / f"done-{FRAMES}").write_text(f"{FRAMES} frames\n")
    calibration = json.loads((folder / "calibration.json").read_text())
    for key in ("fx", "fy", "cx", "cy", "width", "height"):
        calibration["intrinsics"][key] *= 2
    out = tmp_path_factory.mktemp("live-media")
    (out / "calibration1080.json").write_text(json.dumps(calibration, indent=2))
    for name in ("clip.mp4", "clip1080.mp4", "calibration.json"):
        (out / name).symlink_to(folder / name)
    assert ffprobe_frames(out / "clip.mp4") == str(FRAMES), f"clip.mp4 holds {ffprobe_frames(out / 'clip.mp4')} frames, not {FRAMES}"
    return out


@pytest.fixture(scope="module")
def file_run(periphery, media, tmp_path_factory) -> Path:
    """The reference: a file run of clip.mp4, which processes every frame. Its sidecar."""
    out = tmp_path_factory.mktemp("live-file") / "file"
    run([periphery, "run", media / "clip.mp4", "--calibration", media / "calibration.json", "--out", out])
    return out / SIDECAR


def expect(folder: Path, status: int, want: int) -> tuple[dict, list]:
    """The run in FOLDER exited WANT (its status STATUS) and left its sidecar finished
    (helpers.finished_sidecar); its summary and frame lines, the summary printed."""
    log = folder.with_name(folder.name + ".err")
    assert status == want, f"{folder.name}: exit {status}, not {want}\n{log.read_text()[-3000:] if log.exists() else ''}"
    summary, frames = finished_sidecar(folder)
    print(f"{folder.name}: received {summary['received']}, processed {summary['processed']}, dropped {summary['dropped']}, "
          f"corrupt {summary['corrupt']}, ended {summary['ended']}")
    return summary, frames


def accounted(summary) -> int:
    return summary["processed"] + summary["dropped"] + summary["corrupt"]


def outputs_finished(folder: Path) -> None:
    """The run's MCAP is complete and its MP4 has one frame per processed frame."""
    assert not (folder / "run.mcap.partial").exists() and not (folder / "run.mp4.partial").exists(), f"{folder}: an output left as .partial"
    assert_mcap_finished(folder / "run.mcap")
    processed = summary_of(folder)["processed"]
    got = ffprobe_frames(folder / "run.mp4")
    assert got == str(processed), f"{folder}/run.mp4 holds {got} frames, the sidecar {processed}"


def sender(*arguments) -> list:
    return ["ffmpeg", "-v", "error", "-re", *arguments]


def http_sender_killed_after_a_frame(processes, media, url, out, log, pause):
    """An HTTP sender of the clip, killed outright once the run in OUT has written a frame (and PAUSE
    seconds have passed)."""
    send = processes.start(sender("-i", media / "clip.mp4", "-c", "copy", "-f", "mpegts", "-listen", "1", url), log, 60)
    time.sleep(pause)
    wait_for(30, f"the first frame of the run in {out.name}", lambda: processed_at_least(out, 1))
    processes.signal(send, signal.SIGKILL)
    processes.finish(send)


def assert_stream_run(folder, status, file_run):
    """A stream run must account for every frame sent but the first GOP (lost while probing a stream
    joined part-way), and find what the file run found in the frames it processed."""
    summary, _ = expect(folder, status, 0)
    assert summary["ended"] == "duration" and summary["processed"] >= 5, summary
    assert SENT - GOP <= accounted(summary) <= SENT, summary
    print(compare_live(file_run, folder / SIDECAR, period=SECONDS))


def test_live_reference_file_run_processes_every_frame(file_run):
    summary, _ = expect(file_run.parent, 0, 0)
    assert summary["processed"] == FRAMES and summary["ended"] == "end-of-input", summary


# ---------------------------------------------------------------------------------------- streams

def test_live_udp_stream_accounts_for_every_frame_and_matches_the_file_run(periphery, media, file_run, processes, tmp_path):
    out = tmp_path / "udp"
    run_ = processes.start([periphery, "run", "udp://127.0.0.1:18101", "--calibration", media / "calibration.json", "--out", out,
                            "--duration", 2 * SECONDS + 5], tmp_path / "udp.err", 60)
    wait_for(30, "the UDP run to bind port 18101", lambda: port_open("udp", 18101))
    status = processes.to_end(sender("-stream_loop", "1", "-i", media / "clip.mp4", "-c", "copy", "-f", "mpegts",
                                     "udp://127.0.0.1:18101?pkt_size=1316"), tmp_path / "sender.err", 60)
    assert status == 0, f"sender: {(tmp_path / 'sender.err').read_text()}"
    assert_stream_run(out, processes.finish(run_), file_run)


def test_live_http_stream_up_after_the_run_started_matches_the_file_run(periphery, media, file_run, processes, tmp_path):
    out = tmp_path / "http"
    run_ = processes.start([periphery, "run", "http://127.0.0.1:18102/live.ts", "--calibration", media / "calibration.json",
                            "--out", out, "--duration", 2 * SECONDS + 9], tmp_path / "http.err", 60)
    time.sleep(2)  # the source is not up yet: the run keeps trying
    assert not port_open("tcp", 18102), "port 18102 in use"
    send = processes.start(sender("-stream_loop", "1", "-i", media / "clip.mp4", "-c", "copy", "-f", "mpegts", "-listen", "1",
                                  "http://127.0.0.1:18102/live.ts"), tmp_path / "http-sender.err", 60)
    status = processes.finish(run_)
    processes.finish(send)
    assert_stream_run(out, status, file_run)


def test_live_rtsp_stream_to_a_listening_run_matches_the_file_run(periphery, media, file_run, processes, tmp_path):
    out = tmp_path / "rtsp"
    run_ = processes.start([periphery, "run", "rtsp://127.0.0.1:18103/live", "--listen", "--calibration", media / "calibration.json",
                            "--out", out, "--duration", 2 * SECONDS + 6], tmp_path / "rtsp.err", 60)
    wait_for(30, "the RTSP run to listen on port 18103", lambda: port_open("tcp", 18103))
    status = processes.to_end(sender("-stream_loop", "1", "-i", media / "clip.mp4", "-c", "copy", "-f", "rtsp",
                                     "-rtsp_transport", "tcp", "rtsp://127.0.0.1:18103/live"), tmp_path / "sender.err", 60)
    assert status == 0, f"sender: {(tmp_path / 'sender.err').read_text()}"
    assert_stream_run(out, processes.finish(run_), file_run)


def test_live_overload_drops_frames_and_queues_none(periphery, media, processes, tmp_path):
    # 1080p at 30 frames/s on one worker thread: frames are dropped, none queue.
    out = tmp_path / "overload"
    run_ = processes.start([periphery, "run", "udp://127.0.0.1:18104", "--calibration", media / "calibration1080.json", "--out", out,
                            "--threads", 1, "--duration", SECONDS // 2 + 5], tmp_path / "overload.err", 60)
    wait_for(30, "the overloaded run to bind port 18104", lambda: port_open("udp", 18104))
    status = processes.to_end(sender("-i", media / "clip1080.mp4", "-c", "copy", "-f", "mpegts",
                                     "udp://127.0.0.1:18104?pkt_size=1316"), tmp_path / "sender.err", 60)
    assert status == 0, f"sender: {(tmp_path / 'sender.err').read_text()}"
    summary, _ = expect(out, processes.finish(run_), 0)
    assert summary["ended"] == "duration" and summary["dropped"] > 0 and summary["processed"] > 0, summary
    assert accounted(summary) <= FRAMES, summary  # the same frames at 30 frames/s


# ---------------------------------------------------------------------------------------- a sender lost

def test_live_sender_back_after_a_gap_resets_the_tracker_and_the_run_goes_on(periphery, media, file_run, processes, tmp_path):
    # The HTTP sender is killed about 4 s in and back 3 s later, sending the clip from the start again.
    # The first frame after the gap carries it, the tracker starts afresh, and the run goes on to its duration.
    out = tmp_path / "reconnect"
    url = "http://127.0.0.1:18105/live.ts"
    run_ = processes.start([periphery, "run", url, "--calibration", media / "calibration.json", "--out", out, "--duration", 16],
                           tmp_path / "reconnect.err", 60)
    http_sender_killed_after_a_frame(processes, media, url, out, tmp_path / "reconnect-sender1.err", 4)
    time.sleep(3)
    send = processes.start(sender("-stream_loop", "2", "-i", media / "clip.mp4", "-c", "copy", "-f", "mpegts", "-listen", "1", url),
                           tmp_path / "reconnect-sender2.err", 60)
    status = processes.finish(run_)
    processes.signal(send, signal.SIGKILL, gone_ok=True)
    processes.finish(send)
    summary, frames = expect(out, status, 0)
    assert summary["ended"] == "duration" and summary["reconnects"] >= 1, summary
    gaps = [k for k, f in enumerate(frames) if f.get("gap_s", 0) >= 2]
    assert gaps, "no frame line with gap_s >= 2: " + str([f["gap_s"] for f in frames if "gap_s" in f])
    k = gaps[0]
    assert any(f.get("tracker_reset") for f in frames[k:k + 2]), \
        f"no tracker_reset on the frame after the gap (index {frames[k]['index']}) or the next"
    assert len(frames) - k >= 5, f"only {len(frames) - k} frames processed from the gap on"
    # The sender restarted the clip with the same timestamps: one offset holds both sides of the gap.
    print(compare_live(file_run, out / SIDECAR, period=SECONDS))


def test_live_sender_lost_for_good_exits_3_and_finishes_every_output(periphery, media, processes, tmp_path):
    # The run gives up after --reconnect-timeout, exits 3 and finishes every output.
    out = tmp_path / "lost"
    url = "http://127.0.0.1:18106/live.ts"
    run_ = processes.start([periphery, "run", url, "--calibration", media / "calibration.json", "--out", out, "--reconnect-timeout", 3,
                            "--mcap", out / "run.mcap", "--render-video", out / "run.mp4"], tmp_path / "lost.err", 60)
    http_sender_killed_after_a_frame(processes, media, url, out, tmp_path / "lost-sender.err", 3)
    summary, _ = expect(out, processes.finish(run_), 3)
    assert summary["ended"] == "timeout" and summary["processed"] > 0, summary
    outputs_finished(out)
    log = (tmp_path / "lost.err").read_text()
    assert "127.0.0.1:18106" in log, f"the error does not name the source: {log}"


# ---------------------------------------------------------------------------------------- stops

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_live_udp_run_stopped_by_a_signal_exits_0_with_every_output_finished(periphery, media, processes, tmp_path, sig):
    out = tmp_path / "stop-udp"
    run_ = processes.start([periphery, "run", "udp://127.0.0.1:18107", "--calibration", media / "calibration.json", "--out", out,
                            "--mcap", out / "run.mcap", "--render-video", out / "run.mp4"], tmp_path / "stop-udp.err", 60)
    wait_for(30, "the UDP run to bind port 18107", lambda: port_open("udp", 18107))
    send = processes.start(sender("-stream_loop", "1", "-i", media / "clip.mp4", "-c", "copy", "-f", "mpegts",
                                  "udp://127.0.0.1:18107?pkt_size=1316"), tmp_path / "stop-sender.err", 60)
    wait_for(30, "3 frames of the UDP run", lambda: processed_at_least(out, 3))
    processes.signal(run_, sig)
    status = processes.finish(run_)
    processes.signal(send, signal.SIGKILL, gone_ok=True)
    processes.finish(send)
    summary, _ = expect(out, status, 0)
    assert summary["ended"] == "stopped", summary
    outputs_finished(out)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_live_file_run_stopped_by_a_signal_exits_0_with_every_output_finished(periphery, media, processes, tmp_path, sig):
    out = tmp_path / "stop-file"
    run_ = processes.start([periphery, "run", media / "clip.mp4", "--calibration", media / "calibration.json", "--out", out,
                            "--threads", 1, "--mcap", out / "run.mcap", "--render-video", out / "run.mp4"], tmp_path / "stop-file.err", 120)
    began = time.monotonic()
    wait_for(60, "3 frames of the file run", lambda: processed_at_least(out, 3))
    while time.monotonic() - began < 5:  # about 5 s in
        time.sleep(0.2)
    processes.signal(run_, sig)
    summary, _ = expect(out, processes.finish(run_), 0)
    assert summary["ended"] == "stopped" and summary["processed"] < FRAMES, summary
    outputs_finished(out)


# ---------------------------------------------------------------------------------------- damaged input

def test_live_ts_file_cut_inside_a_packet_fails_naming_the_file_and_frame(periphery, media, tmp_path):
    run(["ffmpeg", "-v", "error", "-y", "-i", media / "clip.mp4", "-t", "2", "-c", "copy", "-f", "mpegts", tmp_path / "whole.ts"],
        timeout=60)
    data = (tmp_path / "whole.ts").read_bytes()
    cut = len(data) * 6 // 10
    if cut % 188 == 0:
        cut += 94
    (tmp_path / "cut.ts").write_bytes(data[:cut])
    done = run([periphery, "run", tmp_path / "cut.ts", "--calibration", media / "calibration.json", "--out", tmp_path / "cut"],
               check=False, timeout=300)
    (tmp_path / "cut.err").write_text(done.stderr)
    summary, _ = expect(tmp_path / "cut", done.returncode, 3)
    assert summary["ended"] == "input-failed" and summary["processed"] > 0, summary
    assert re.search(r"cut\.ts: .*ends inside frame", done.stderr), done.stderr


@pytest.mark.parametrize("keep", [False, True], ids=["corrupt-skipped", "keep-corrupt"])
def test_live_lossy_udp_relay_skips_or_marks_damaged_frames(periphery, media, processes, tmp_path, keep):
    # A UDP relay that loses 1 % of the datagrams: damaged frames are skipped and counted, or with
    # --keep-corrupt processed and marked. (At 3 % nearly every frame is damaged: a run skipping them
    # processed 2 of 75. At 1 % about four in five are, and the loss is the same every run: the
    # sender's datagrams and the relay's seeded choice do not change.)
    out = tmp_path / "lossy"
    run_ = processes.start([periphery, "run", "udp://127.0.0.1:18109", "--calibration", media / "calibration.json", "--out", out,
                            "--duration", SECONDS + 5, *(["--keep-corrupt"] if keep else [])], tmp_path / "lossy.err", 60)
    wait_for(30, "the lossy run to bind port 18109", lambda: port_open("udp", 18109))
    relay = processes.start([sys.executable, RELAY, "--listen", "127.0.0.1:18108", "--to", "127.0.0.1:18109", "--drop", "0.01",
                             "--seed", "1", "--seconds", SECONDS + 5], tmp_path / "relay.out", 60)
    wait_for(30, "the relay to bind port 18108", lambda: port_open("udp", 18108))
    status = processes.to_end(sender("-i", media / "clip.mp4", "-c", "copy", "-f", "mpegts",
                                     "udp://127.0.0.1:18108?pkt_size=1316"), tmp_path / "sender.err", 60)
    assert status == 0, f"sender: {(tmp_path / 'sender.err').read_text()}"
    status = processes.finish(run_)
    processes.signal(relay, signal.SIGTERM, gone_ok=True)
    processes.finish(relay)
    summary, frames = expect(out, status, 0)
    assert summary["ended"] == "duration", summary
    if keep:
        # Kept, a damaged frame is processed, marked in its line and counted in corrupt_kept.
        assert summary["corrupt"] == 0 and summary["corrupt_kept"] > 0, summary
        assert summary["corrupt_kept"] == sum(f.get("corrupt") is True for f in frames), summary
    else:
        assert summary["corrupt"] > 0 and summary["processed"] > 0, summary
        assert not any("corrupt" in f for f in frames), summary
    print((tmp_path / "relay.out").read_text())


# ---------------------------------------------------------------------------------------- V4L2

@pytest.mark.parametrize("device, options, messages", [
    ("/dev/video99", [], ["/dev/video99", "no such device"]),
    ("/dev/null", [], ["/dev/null", "not a V4L2 capture device"]),
    ("/dev/video99", ["--video-size", "12x"], ["--video-size"]),
], ids=["missing-device", "not-a-camera", "bad-video-size"])
def test_live_v4l2_errors_name_the_device_and_the_option(periphery, media, tmp_path, device, options, messages):
    done = run([periphery, "run", device, *options, "--calibration", media / "calibration.json", "--out", tmp_path / "v4l2"],
               check=False, timeout=60)
    assert done.returncode != 0, f"exit 0: run {device}"
    for message in messages:
        assert message in done.stdout + done.stderr, f"no {message!r} from run {device}: {done.stderr}"


# ---------------------------------------------------------------------------------------- the README's example

def test_live_stream_example_of_the_readme_runs_a_udp_stream(periphery, media, processes, tmp_path):
    # Examples/LiveStream/main.swift (the README's second Swift block, built as periphery-live-example):
    # a UDP stream through a PerceptionSession for its duration, its sidecar live-replay.jsonl finished.
    example = periphery.parent / "periphery-live-example"
    assert example.is_file(), f"no {example}: build the package (swift build -c release -Xswiftc -enable-testing)"
    (tmp_path / "Weights").symlink_to(ROOT / "Weights")  # the example loads Weights/… from its folder
    process = processes.start([example, "udp://127.0.0.1:18110", media / "calibration.json", SECONDS + 5], tmp_path / "example.log", 60,
                              cwd=tmp_path)
    wait_for(30, "the example to bind port 18110", lambda: port_open("udp", 18110))
    status = processes.to_end(sender("-i", media / "clip.mp4", "-c", "copy", "-f", "mpegts", "udp://127.0.0.1:18110?pkt_size=1316"),
                              tmp_path / "sender.err", 60)
    assert status == 0, f"sender: {(tmp_path / 'sender.err').read_text()}"
    status = processes.finish(process)
    output = (tmp_path / "example.log").read_text()
    assert status == 0 and "summary: " in output, f"the example exited {status}:\n{output[-3000:]}"
    lines = [json.loads(line) for line in (tmp_path / "live-replay.jsonl").read_text().splitlines()]
    summary = lines[-1]["summary"]
    assert lines[0]["kind"] == "periphery-replay" and summary["processed"] >= 5, summary
    assert len(lines) - 2 == summary["processed"], summary

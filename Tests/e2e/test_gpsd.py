"""Live ego motion from a real gpsd (docs/guides/live.md): `gpsfake` replays NMEA written from a
synthetic drive's location.csv (tools/nmea_from_location.py) while the drive's clip streams over UDP
in real time; the run's ego motion follows the GPS speed and course, and its tracks match the drive
run with its own CSVs (sidecars.compare_gps_run states the bounds). Then a gpsd that has no fix to
give: the run falls back to the stationary rule and counts it. Loopback only; gpsfake and the gpsd it
starts share a process group, which is killed when the test ends, pass or fail."""

from __future__ import annotations

import functools
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ROOT, SIDECAR, json_lines, port_open, run, wait_for
from sidecars import compare_gps_run

WEIGHTS = "Weights/safety40-synthetic-int8.safetensors"


@pytest.fixture(scope="module")
def gps_drive(periphery, tmp_path_factory) -> Path:
    """A synthetic drive (150 frames at 15 frames/s) as clip.mp4, its run with its own CSVs
    (drive-run), its location.csv as NMEA (drive.nmea) and the same sentences marked void (nofix.nmea:
    RMC status V, GGA quality 0, a gpsd without a fix)."""
    out = tmp_path_factory.mktemp("gpsd")
    run([periphery, "synth", "--sequence", "--frames", "150", "--fps", "15", "--width", "640", "--height", "360", "--seed", "31",
         "--out", out / "drive"])
    run(["ffmpeg", "-v", "error", "-y", "-framerate", "15", "-i", out / "drive/images/%06d.png", "-c:v", "libx264", "-pix_fmt", "yuv420p",
         "-g", "15", "-bf", "0", "-tune", "zerolatency", "-crf", "18", out / "clip.mp4"])
    run([sys.executable, ROOT / "tools/nmea_from_location.py", out / "drive/location.csv", "--out", out / "drive.nmea"])
    run([periphery, "run", out / "drive", "--out", out / "drive-run", "--weights", WEIGHTS])
    with open(out / "nofix.nmea", "w") as nofix:
        for line in (out / "drive.nmea").read_text().splitlines():
            fields = line.strip()[1:].split("*")[0].split(",")
            if fields[0].endswith("RMC"):
                fields[2] = "V"
            elif fields[0].endswith("GGA"):
                fields[6] = "0"
            body = ",".join(fields)
            nofix.write(f"${body}*{functools.reduce(lambda a, c: a ^ ord(c), body, 0):02X}\r\n")
    return out


def gpspipe(port, count) -> bool:
    """`gpspipe -w -n COUNT` got COUNT reports from the gpsd on PORT (within 10 s)."""
    try:
        return subprocess.run(["gpspipe", "-w", "-n", str(count), f"127.0.0.1:{port}"], capture_output=True, timeout=10).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def wait_for_report(port, count, limit, what, match) -> None:
    """Reads the gpsd on PORT with `gpspipe -w -n COUNT`, again and again, until a report line
    satisfies MATCH; fails after LIMIT seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        reader = subprocess.Popen(["gpspipe", "-w", "-n", str(count), f"127.0.0.1:{port}"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        try:
            pending = b""
            while (left := deadline - time.monotonic()) > 0 and select.select([reader.stdout], [], [], left)[0]:
                chunk = os.read(reader.stdout.fileno(), 65536)
                if not chunk:
                    break  # gpspipe ended
                *lines, pending = (pending + chunk).split(b"\n")
                if any(match(line.decode(errors="replace")) for line in lines):
                    return
        finally:
            reader.kill()
            reader.wait()
        time.sleep(0.1)
    raise AssertionError(f"waited {limit} s for {what}")


def gpsfake(processes, nmea, port, log, limit):
    """gpsfake replaying NMEA on PORT (-c 0.5: an RMC and a GGA sentence every 0.5 s, one fix a
    second, as location.csv has them); its group, gpsd included, is killed at the end of the test."""
    return processes.start(["gpsfake", "-q", "-P", port, "-c", "0.5", nmea], log, limit)


def stop_gpsfake(processes, process, port) -> None:
    processes.kill_group(process)
    wait_for(10, f"the gpsd on port {port} to go", lambda: not port_open("tcp", port))


def test_gpsd_ego_motion_and_tracks_follow_the_gps_of_the_drive(periphery, gps_drive, processes, tmp_path):
    gps_port, video_port = 18947, 18611
    # gpsd must be up before the run connects to it, so its log leads in with 4 s of void fixes; the
    # run starts meanwhile, and the clip is sent as the first real fix arrives.
    nofix = (gps_drive / "nofix.nmea").read_text().splitlines(keepends=True)
    (tmp_path / "lead-in.nmea").write_text("".join(nofix[:8]) + (gps_drive / "drive.nmea").read_text())
    fake = gpsfake(processes, tmp_path / "lead-in.nmea", gps_port, tmp_path / "gpsfake.log", 60)
    wait_for(10, "gpsd to answer", lambda: gpspipe(gps_port, 2))
    live = tmp_path / "live"
    run_ = processes.start([periphery, "run", f"udp://127.0.0.1:{video_port}", "--gpsd", f"127.0.0.1:{gps_port}",
                            "--calibration", gps_drive / "drive/calibration.json", "--out", live, "--duration", 16, "--weights", WEIGHTS],
                           tmp_path / "live.err", 40)
    wait_for_report(gps_port, 12, 15, "a TPV report with a speed", lambda line: re.search(r'"class":"TPV".*"speed":', line))
    sent = processes.to_end(["ffmpeg", "-v", "error", "-re", "-i", gps_drive / "clip.mp4", "-c", "copy", "-f", "mpegts",
                             f"udp://127.0.0.1:{video_port}?pkt_size=1316"], tmp_path / "sender.err", 20)
    assert sent == 0, f"sender: {(tmp_path / 'sender.err').read_text()}"
    status = processes.finish(run_)
    assert status == 0, f"the live run failed: {(tmp_path / 'live.err').read_text()[-3000:]}"
    stop_gpsfake(processes, fake, gps_port)
    print(compare_gps_run(live / SIDECAR, gps_drive / "drive", gps_drive / "drive-run" / SIDECAR))


def test_gpsd_without_a_fix_falls_back_to_the_stationary_rule(periphery, gps_drive, processes, tmp_path):
    gps_port, video_port = 18948, 18612
    fake = gpsfake(processes, gps_drive / "nofix.nmea", gps_port, tmp_path / "gpsfake-nofix.log", 40)
    wait_for(10, "gpsd to answer", lambda: gpspipe(gps_port, 3), interval=0.2)
    out = tmp_path / "nofix"
    run_ = processes.start([periphery, "run", f"udp://127.0.0.1:{video_port}", "--gpsd", f"127.0.0.1:{gps_port}",
                            "--calibration", gps_drive / "drive/calibration.json", "--out", out, "--duration", 8, "--weights", WEIGHTS],
                           tmp_path / "nofix.err", 40)
    time.sleep(1)
    processes.to_end(["ffmpeg", "-v", "error", "-re", "-t", "5", "-i", gps_drive / "clip.mp4", "-c", "copy", "-f", "mpegts",
                      f"udp://127.0.0.1:{video_port}?pkt_size=1316"], tmp_path / "sender.err", 20)
    status = processes.finish(run_)
    log = (tmp_path / "nofix.err").read_text()
    assert status == 0, f"the run without a fix failed: {log[-3000:]}"
    assert "no GPS fix" in log, f"no warning for the missing fix: {log[-3000:]}"
    stop_gpsfake(processes, fake, gps_port)
    summary = json_lines(out / SIDECAR)[-1]["summary"]
    assert summary["processed"] >= 3 and summary["ego_fallbacks"] >= summary["processed"] - 1, summary

"""What the end-to-end tests share: the repository's paths, the CLI run to its end, background
processes that are always stopped, loopback ports, and readers of the files the CLI writes.

Standard library only: every test module imports it.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIDECAR = "replay-safety40-v1.jsonl"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
MCAP_MAGIC = b"\x89MCAP0\r\n"


def run(command, *, timeout=600, check=True, **kwargs) -> subprocess.CompletedProcess:
    """COMMAND to its end in the repository's root, its output captured as text; with `check`, an
    exit status other than 0 fails the test with the command and the end of its stderr."""
    done = subprocess.run([str(c) for c in command], cwd=kwargs.pop("cwd", ROOT), capture_output=True,
                          text=kwargs.pop("text", True), timeout=timeout, **kwargs)
    if check and done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}: {' '.join(map(str, command))}\n{done.stderr[-3000:]!s}")
    return done


def fails(command, status=None, *patterns, timeout=600, **kwargs) -> str:
    """COMMAND exits non-zero (STATUS when given) and its stderr holds every PATTERN; returns stderr."""
    done = run(command, timeout=timeout, check=False, **kwargs)
    if status is None:
        assert done.returncode != 0, f"accepted: {' '.join(map(str, command))}"
    else:
        assert done.returncode == status, f"exit {done.returncode}, not {status}: {' '.join(map(str, command))}\n{done.stderr}"
    for pattern in patterns:
        assert pattern in done.stderr, f"no {pattern!r} from {' '.join(map(str, command))}:\n{done.stderr}"
    return done.stderr


# ------------------------------------------------------------------------------------------ files

def json_lines(path) -> list:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def line_count(path) -> int:
    return len(Path(path).read_text().splitlines())


def png_size(path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR; fails when the file is not a PNG."""
    head = Path(path).read_bytes()[:24]
    assert head[:8] == PNG_MAGIC and head[12:16] == b"IHDR", f"{path}: not a PNG"
    return struct.unpack(">II", head[16:24])


def summary_of(folder) -> dict:
    """The summary line (the last) of the sidecar in FOLDER."""
    return json_lines(Path(folder) / SIDECAR)[-1]["summary"]


def finished_sidecar(folder) -> tuple[dict, list]:
    """The sidecar in FOLDER, left under its final name (no .partial) with the header first and the
    summary last, one frame line per processed frame, and every frame received processed, dropped or
    skipped as corrupt. Returns the summary and the frame lines."""
    path = Path(folder) / SIDECAR
    assert not path.with_name(SIDECAR + ".partial").exists(), f"{path}.partial left behind"
    assert path.exists(), f"no {path}"
    lines = json_lines(path)
    summary = lines[-1].get("summary")
    assert lines[0].get("kind") == "periphery-replay" and summary is not None, f"{path}: no header or no summary last"
    frames = lines[1:-1]
    shown = {k: v for k, v in summary.items() if k not in ("latency_ms", "age_ms")}
    assert len(frames) == summary["processed"], shown
    assert summary["received"] == summary["processed"] + summary["dropped"] + summary["corrupt"], shown
    return summary, frames


def ffprobe_frames(path) -> str:
    """The frames ffprobe counts in the first video stream of PATH (as it prints them)."""
    return run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", path], timeout=60).stdout.strip()


def cut_in_half(source, target) -> None:
    data = Path(source).read_bytes()
    Path(target).write_bytes(data[:len(data) // 2])


# -------------------------------------------------------------------------------------- processes

class Processes:
    """Background commands, each under `timeout` (SIGTERM after its limit, SIGKILL 10 s later) as the
    leader of a process group of its own; `stop_all` kills every group, whatever way a test ends."""

    def __init__(self):
        self.started = []

    def start(self, command, log, limit, cwd=ROOT) -> subprocess.Popen:
        with open(log, "wb") as handle:
            process = subprocess.Popen(["timeout", "-k", "10", str(int(limit)), *map(str, command)], cwd=cwd,
                                       stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
        self.started.append(process)
        return process

    def finish(self, process) -> int:
        """Waits for a background command (its `timeout` ends it); its exit status."""
        return process.wait(timeout=600)

    def to_end(self, command, log, limit) -> int:
        return self.finish(self.start(command, log, limit))

    @staticmethod
    def child(process):
        """The command under a `timeout` process, or None when it has ended."""
        try:
            with open(f"/proc/{process.pid}/task/{process.pid}/children") as f:
                children = f.read().split()
        except OSError:
            return None
        return int(children[0]) if children else None

    def signal(self, process, sig, gone_ok=False) -> None:
        """SIG to the command under the timeout PROCESS, not to the timeout (which would pass it on to
        the whole group, and a second SIGINT makes periphery exit at once). Fails when the command has
        already ended, unless gone_ok."""
        child = self.child(process)
        if child is None:
            assert gone_ok, f"no process under timeout {process.pid} to send {signal.Signals(sig).name}"
            return
        try:
            os.kill(child, sig)
        except ProcessLookupError:
            assert gone_ok, f"cannot send {signal.Signals(sig).name} to {child}"

    @staticmethod
    def kill_group(process) -> None:
        """SIGKILL to PROCESS's whole group (what it started too), then its exit awaited."""
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()

    def stop_all(self) -> None:
        for process in self.started:
            if process.poll() is None:
                self.kill_group(process)


def wait_for(limit, what, predicate, interval=0.1) -> None:
    """Polls PREDICATE every INTERVAL seconds until it holds; fails after LIMIT seconds."""
    deadline = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < deadline, f"waited {limit} s for {what}"
        time.sleep(interval)


def port_open(protocol, port) -> bool:
    """A socket is bound (udp) or listening (tcp) on PORT, as /proc/net says."""
    wanted = f":{port:04X}"
    for name in (protocol, protocol + "6"):
        try:
            rows = Path(f"/proc/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            # Columns: sl, local address (hex IP:PORT), remote address, state (0A: listening).
            fields = row.split()
            if fields[1].endswith(wanted) and (protocol != "tcp" or fields[3] == "0A"):
                return True
    return False


def processed_at_least(folder, n) -> bool:
    """The run in FOLDER has written N frame lines so far."""
    count = 0
    for name in (SIDECAR + ".partial", SIDECAR):
        try:
            count += sum('"index"' in line for line in Path(folder, name).read_text().splitlines())
        except OSError:
            pass
    return count >= n

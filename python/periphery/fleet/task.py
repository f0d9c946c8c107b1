"""What runs on a worker for one input: `periphery run` into a temporary folder, renamed into place
when the input is complete.

Layout under the output folder DIR:

- `DIR/<id>/`: a complete input: the sidecar `replay-safety40-v1.jsonl`, `run.mcap` and `run.mp4`
  when asked for, `periphery.log` (the CLI's standard error) and `fleet-row.json`, the input's row
  of the fleet table, which marks the folder complete. The folder appears in one rename, so it is
  complete or absent.
- `DIR/.fleet/partial/<id>.<attempt>-<random>/`: an attempt in progress, with `attempt.json`
  (worker PID, node, the CLI's PID) while it runs. An attempt whose worker dies leaves its folder
  behind; the driver removes these when it ends.

Two attempts of one input (a retry of a worker that was lost after it had published, or a node
that was cut off but still ran) never leave two copies: the rename onto a complete `DIR/<id>/`
fails, and the later attempt discards its folder and reports the published row.
"""

import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid

SIDECAR = "replay-safety40-v1.jsonl"
MARKER = "fleet-row.json"
LOG = "periphery.log"
STATE = ".fleet"


def state_dir(out):
    """The driver's and the tasks' working folder under DIR."""
    return os.path.join(out, STATE)


def partial_root(out):
    return os.path.join(state_dir(out), "partial")


def read_json(path):
    """A JSON file's value, or None when it is absent or unreadable."""
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError):
        return None


def write_json(path, value):
    """Writes `value` to `path` through a temporary name, flushed to disk, then renamed."""
    temporary = f"{path}.{uuid.uuid4().hex[:8]}.tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(value, file, sort_keys=True)
        file.write("\n")
        file.flush()
        os.fsync(file.fileno())
    os.rename(temporary, path)


def _fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sidecar_stats(path):
    """What the fleet table takes from a replay sidecar: frames (received), processed, detections
    (raw detections summed over frames), tracks_born (distinct ids of confirmed tracks), frame_lines,
    ended and the CLI's own seconds, and from the summary's ``events`` (docs/guides/events.md) the
    columns of `event_columns`.

    Raises ValueError naming the file when it is not a complete sidecar (no header or no summary).
    """
    detections, track_ids, frame_lines, summary, header = 0, set(), 0, None, None
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                raise ValueError(f"{path}:{number}: not JSON") from None
            if header is None:
                header = value
                if value.get("kind") != "periphery-replay":
                    raise ValueError(f"{path}: not a replay sidecar")
            elif "summary" in value:
                summary = value["summary"]
            else:
                frame_lines += 1
                detections += len(value.get("raw", ()))
                track_ids.update(track[0] for track in value.get("tracks", ()))
    if summary is None:
        raise ValueError(f"{path}: no summary line (the run did not finish)")
    return {
        "frames": int(summary.get("received", 0)),
        "processed": int(summary.get("processed", 0)),
        "detections": detections,
        "tracks_born": len(track_ids),
        "frame_lines": frame_lines,
        "ended": summary.get("ended"),
        "cli_seconds": float(summary.get("seconds", 0.0)),
        **event_columns(path, summary),
    }


#: The summary's event types, by the column that counts each.
EVENT_COUNT_COLUMNS = {
    "forward_collisions": "forward_collision",
    "close_followings": "close_following",
    "cut_ins": "cut_in",
}


#: The fleet table's event columns, in order.
EVENT_COLUMNS = (*EVENT_COUNT_COLUMNS, "min_ttc_s", "min_headway_s", "events_per_hour")


def event_columns(path, summary):
    """The fleet table's event columns from a sidecar summary's ``events`` object: the count per
    type (EVENT_COUNT_COLUMNS), min_ttc_s, min_headway_s and events_per_hour. All None for a sidecar
    written before events were (it has no ``events``); a figure the run never had is None too.

    Raises ValueError naming the file when ``events`` is there but not of that form.
    """
    events = summary.get("events")
    if events is None:
        return dict.fromkeys(EVENT_COLUMNS)
    counts = events.get("counts") if isinstance(events, dict) else None
    if not isinstance(counts, dict):
        raise ValueError(f"{path}: the summary's events have no counts")
    columns = {}
    for column, kind in EVENT_COUNT_COLUMNS.items():
        count = counts.get(kind)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"{path}: the summary's events.counts.{kind} is {count!r}, not a count")
        columns[column] = count
    for column, key in (("min_ttc_s", "min_ttc_s"), ("min_headway_s", "min_headway_s"), ("events_per_hour", "per_hour")):
        value = events.get(key)
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)):
            raise ValueError(f"{path}: the summary's events.{key} is {value!r}, not a number")
        columns[column] = None if value is None else float(value)
    return columns


def outputs_of(spec):
    """The files an input's folder holds for these options, beside the sidecar."""
    return (["run.mcap"] if spec.get("mcap") else []) + (["run.mp4"] if spec.get("render_video") else [])


def satisfies(row, spec):
    """Whether a published row was made with these options: the same calibration and weights, and
    every output asked for now."""
    return (
        isinstance(row, dict)
        and row.get("status") == "complete"
        and row.get("calibration") == spec.get("calibration")
        and row.get("weights") == spec.get("weights")
        and set(outputs_of(spec)) <= set(row.get("outputs", ()))
    )


def published_row(out, ident):
    """The row of a complete `DIR/<id>/`, or None."""
    return read_json(os.path.join(out, ident, MARKER))


def _node():
    """(Ray node id, host name) of this process."""
    host = socket.gethostname()
    try:
        import ray

        if ray.is_initialized():
            return ray.get_runtime_context().get_node_id(), host
    except Exception:  # noqa: BLE001 - outside Ray (tests of this module), no node id
        pass
    return "", host


_LIBC = ctypes.CDLL(None, use_errno=True)
_PRCTL = _LIBC.prctl
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """In the CLI's process before exec: SIGKILL it when the worker that started it dies, so a
    worker killed mid-input leaves no orphan writing into its folder."""
    _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _base_row(spec, attempt):
    node, host = _node()
    return {
        "input": spec["id"], "path": spec["path"], "kind": spec["kind"], "calibration": spec.get("calibration"),
        "weights": spec.get("weights"), "status": "error", "frames": None, "processed": None, "detections": None,
        "tracks_born": None, "seconds": None, "node": node, "host": host, "attempts": attempt, "error": None,
        "outputs": [], "ended": None,
    }


def _error_message(log_path, returncode):
    """The CLI's own error line (the last `error:` line of its log), or how it ended."""
    try:
        lines = [line.strip() for line in open(log_path, encoding="utf-8", errors="replace")]
    except OSError:
        lines = []
    errors = [line for line in lines if line.startswith("error:")]
    if returncode < 0:
        how = f"periphery run was killed by signal {signal.Signals(-returncode).name}"
        return how + (f" ({errors[-1]})" if errors else "")
    if errors:
        return errors[-1][len("error:"):].strip()
    tail = [line for line in lines if line]
    return f"periphery run exited {returncode}" + (f": {tail[-1]}" if tail else "")


def command(spec, folder):
    """The `periphery run` command line of an input writing into `folder`."""
    cmd = [spec["periphery"], "run", spec["path"], "--out", folder, "--threads", str(spec["threads"])]
    if spec.get("calibration"):
        cmd += ["--calibration", spec["calibration"]]
    if spec.get("weights"):
        cmd += ["--weights", spec["weights"]]
    if spec.get("mcap"):
        cmd += ["--mcap", os.path.join(folder, "run.mcap")]
    if spec.get("render_video"):
        cmd += ["--render-video", os.path.join(folder, "run.mp4")]
    return cmd


def _publish(out, ident, folder, spec):
    """Renames `folder` to `DIR/<id>`; returns the row published there by another attempt with
    these options if one was first (then `folder` is discarded), else None."""
    final = os.path.join(out, ident)
    for _ in range(3):
        try:
            os.rename(folder, final)
            _fsync_dir(out)
            return None
        except OSError:
            other = published_row(out, ident)
            if satisfies(other, spec):
                shutil.rmtree(folder, ignore_errors=True)
                return other
            # An incomplete folder of that name, or a complete one made with other options that
            # this attempt replaces: moved aside in one rename, then the new one renamed in.
            trash = os.path.join(state_dir(out), "trash", f"{ident}.{uuid.uuid4().hex[:8]}")
            os.makedirs(os.path.dirname(trash), exist_ok=True)
            try:
                os.rename(final, trash)
            except FileNotFoundError:
                pass
            shutil.rmtree(trash, ignore_errors=True)
    raise OSError(f"{final}: could not rename {folder} into place")


def run_input(spec, attempt):
    """Runs one input (attempt number `attempt`, from 1) and returns its row of the fleet table.

    `spec`: id, path, kind, calibration, out, periphery, threads, mcap, render_video, weights,
    dry_run. The row's status is "complete" (published under DIR/<id>/, or found published by an
    earlier attempt), "dry-run", or "error" with the message in "error" (the driver retries or
    marks the input failed). Raises only if this process is interrupted (the attempt's folder and
    the CLI are cleaned up first).
    """
    row = _base_row(spec, attempt)
    out, ident = spec["out"], spec["id"]
    if spec.get("dry_run"):
        row.update(status="dry-run", seconds=0.0, frames=0, processed=0, detections=0, tracks_born=0)
        row["error"] = None if os.path.exists(spec["path"]) else f"{spec['path']}: not found on {row['host']}"
        return row
    existing = published_row(out, ident)
    if satisfies(existing, spec):
        return existing
    binary = spec["periphery"]
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        row["error"] = (f"{binary}: no periphery executable on node {row['host']} (the binary, its weights and "
                        "the inputs must be on storage every node sees at the same path)")
        return row
    folder = os.path.join(partial_root(out), f"{ident}.{attempt}-{uuid.uuid4().hex[:8]}")
    os.makedirs(folder)
    log_path = os.path.join(folder, LOG)
    started = time.monotonic()
    process = None
    try:
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command(spec, folder), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                       cwd=folder, preexec_fn=_die_with_parent)
        write_json(os.path.join(folder, "attempt.json"), {
            "input": ident, "attempt": attempt, "pid": os.getpid(), "cli_pid": process.pid, "node": row["node"],
            "host": row["host"], "started": time.time()})
        returncode = process.wait()
        seconds = time.monotonic() - started
        row["seconds"] = round(seconds, 3)
        sidecar = os.path.join(folder, SIDECAR)
        if returncode != 0:
            row["error"] = _error_message(log_path, returncode)
        elif not os.path.isfile(sidecar):
            row["error"] = f"periphery run wrote no {SIDECAR}"
        else:
            try:
                stats = sidecar_stats(sidecar)
            except (OSError, ValueError) as error:
                row["error"] = str(error)
            else:
                row["ended"] = stats["ended"]
                if stats["ended"] != "end-of-input":
                    row["error"] = f"periphery run ended {stats['ended']!r} before the end of the input"
                else:
                    missing = [name for name in outputs_of(spec) if not os.path.isfile(os.path.join(folder, name))]
                    if missing:
                        row["error"] = f"periphery run wrote no {', '.join(missing)}"
                    else:
                        for key in ("frames", "processed", "detections", "tracks_born", *EVENT_COLUMNS):
                            row[key] = stats[key]
                        row.update(status="complete", outputs=outputs_of(spec))
        if row["status"] != "complete":
            shutil.rmtree(folder, ignore_errors=True)
            return row
        os.remove(os.path.join(folder, "attempt.json"))
        write_json(os.path.join(folder, MARKER), row)
        _fsync_dir(folder)
        other = _publish(out, ident, folder, spec)
        return other if other is not None else row
    except BaseException:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)
        raise

"""`periphery-fleet run` on a real two-node Ray cluster on this machine (issue 34, docs/guides/fleet.md).

A head and one worker node (ray.cluster_utils.Cluster, each with its own temporary folder) run the
fleet over 12 inputs: ten synthetic clips (seven with calibration.json beside them, found by the
glob; three listed in a manifest with calibrations of their own), a copy of Tests/cli/drive and a
corrupt video (an MP4 cut to its first 2 KiB). The reference is `periphery run INPUT --threads 1` on
each input alone, run here without Ray.

What is compared with the reference: the sidecar's header, and per frame every field except the
wall-clock ones (`timing_ms`, `arrival`, `latency_ms`): index, pts, raw_count, track_count, ego,
calibration, raw detections, tracks (ids, boxes, states, trails) and dropped; the summary except
`seconds`, `latency_ms` and `age_ms`. Tolerance: none (equality), because both runs are the same
binary with the same weights, input and thread count, which is deterministic.

Faults: the worker running the longest clip is killed with SIGKILL after its first frame (the
task writes its worker's PID to attempt.json); the worker node is removed while it runs inputs.
A rerun of the first command must run nothing.

Needs PERIPHERY (the CLI) and a network namespace of its own with only loopback up, so that every
Ray process binds 127.0.0.1: run it through `make test-fleet`. The cluster is shut down when the
module ends, also when a test fails; `make test-fleet` also runs it in a PID namespace of its own,
so nothing it started outlives it even if pytest is killed.
"""

import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

# Only under `make test-fleet`, which gives it the namespaces, the venv and the CLI; a plain
# `pytest python/tests` elsewhere reports it skipped with this reason.
if os.environ.get("PERIPHERY_FLEET_TEST") != "1":
    pytest.skip("the fleet's cluster test runs through `make test-fleet`", allow_module_level=True)

import pyarrow.parquet as pq  # noqa: E402

from periphery.fleet.inputs import input_id  # noqa: E402

SIDECAR = "replay-safety40-v1.jsonl"
PR_SET_CHILD_SUBREAPER = 36
CLIP_FRAMES, LONG_FRAMES = 8, 30
FRAME_TIMING = ("timing_ms", "arrival", "latency_ms")
SUMMARY_TIMING = ("seconds", "latency_ms", "age_ms")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLEET = os.path.join(os.path.dirname(sys.executable), "periphery-fleet")


def _require_loopback_only():
    interfaces = sorted(name for _, name in socket.if_nameindex())
    if interfaces != ["lo"]:
        pytest.fail(f"network interfaces {interfaces}: run this test through `make test-fleet` (a network "
                    "namespace with loopback only), so that Ray binds 127.0.0.1 alone")


def _periphery():
    path = os.environ.get("PERIPHERY")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("set PERIPHERY to the periphery CLI (make test-fleet does)")
    return os.path.abspath(path)


def _sh(*cmd, **kwargs):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)


@pytest.fixture(scope="module")
def work():
    _require_loopback_only()
    # Short: Ray's Unix sockets live under it.
    folder = tempfile.mkdtemp(prefix="pf-", dir="/tmp")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def data(work):
    """The 12 inputs, the command-line arguments naming them and the reference sidecar of each."""
    periphery = _periphery()
    clips = []
    for seed in range(1, 11):
        frames = LONG_FRAMES if seed == 1 else CLIP_FRAMES
        synth = os.path.join(work, "synth", str(seed))
        _sh(periphery, "synth", "--sequence", "--frames", str(frames), "--width", "320", "--height", "200",
            "--seed", str(seed), "--out", synth)
        folder = os.path.join(work, "clips", f"clip{seed:02d}") if seed <= 7 else os.path.join(work, "listed")
        os.makedirs(folder, exist_ok=True)
        name = "clip.mp4" if seed <= 7 else f"clip{seed:02d}.mp4"
        video = os.path.join(folder, name)
        _sh("ffmpeg", "-v", "error", "-y", "-framerate", "10", "-i", os.path.join(synth, "images", "%06d.png"),
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "12", video)
        if seed <= 7:
            calibration = None
            shutil.copy(os.path.join(synth, "calibration.json"), folder)
        else:
            calibration = os.path.join(work, "calibrations", f"clip{seed:02d}.json")
            os.makedirs(os.path.dirname(calibration), exist_ok=True)
            shutil.copy(os.path.join(synth, "calibration.json"), calibration)
        clips.append({"path": video, "calibration": calibration})
    manifest = os.path.join(work, "listed.jsonl")
    with open(manifest, "w") as file:
        for clip in clips[7:]:
            file.write(json.dumps({"path": os.path.relpath(clip["path"], work),
                                   "calibration": os.path.relpath(clip["calibration"], work)}) + "\n")
    drive = os.path.join(work, "drive")
    shutil.copytree(os.path.join(REPO, "Tests", "cli", "drive"), drive)
    corrupt = os.path.join(work, "bad", "corrupt.mp4")
    os.makedirs(os.path.dirname(corrupt))
    with open(clips[1]["path"], "rb") as source, open(corrupt, "wb") as target:
        target.write(source.read(2048))
    shutil.copy(os.path.join(work, "clips", "clip02", "calibration.json"), os.path.dirname(corrupt))
    good = clips + [{"path": drive, "calibration": None}]
    # The reference: `periphery run` on each input alone, two at a time, from a folder without
    # Weights/ (as the fleet's tasks run), so both find the weights beside the binary.
    reference = {}
    running = []
    for item in good:
        ident = input_id(item["path"])
        out = os.path.join(work, "reference", ident)
        cmd = [periphery, "run", item["path"], "--out", out, "--threads", "1"]
        if item["calibration"]:
            cmd += ["--calibration", item["calibration"]]
        running.append(subprocess.Popen(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        reference[ident] = os.path.join(out, SIDECAR)
        if len(running) == 2:
            assert running.pop(0).wait() == 0
    for process in running:
        assert process.wait() == 0
    args = [os.path.join(work, "clips", "*", "clip.mp4"), manifest, drive, corrupt]
    return {"args": args, "reference": reference, "long": input_id(clips[0]["path"]),
            "corrupt": input_id(corrupt), "periphery": periphery}


@pytest.fixture(scope="module")
def cluster(work):
    """A head (2 CPUs) and a worker node (2 CPUs) on 127.0.0.1, each with its own temporary folder;
    shut down when the module ends, whatever happened, and then no process this test started may
    be left (this process is their subreaper, so orphans are found too)."""
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    os.environ["RAY_TMPDIR"] = os.path.join(work, "ray")  # where Ray's default files would go
    os.makedirs(os.path.join(work, "ray", "ray"))
    from ray.cluster_utils import Cluster

    common = {"node_ip_address": "127.0.0.1", "num_cpus": 2, "object_store_memory": 80 * 1024 * 1024,
              "include_dashboard": False}
    # A dead node is noticed within about 3 s instead of Ray's default 15 s.
    system = {"health_check_period_ms": 1000, "health_check_failure_threshold": 3}
    nodes = Cluster()
    try:
        nodes.add_node(**common, temp_dir=os.path.join(work, "ray-head"), _system_config=system)
        worker = nodes.add_node(**common, temp_dir=os.path.join(work, "ray-worker"))
        nodes.wait_for_nodes()
        yield {"cluster": nodes, "address": nodes.address, "head": nodes.head_node.node_id,
               "worker": worker, "worker_id": worker.node_id}
    finally:
        nodes.shutdown()
        deadline = time.monotonic() + 10
        while (left := _descendants()) and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        assert not left, f"processes left after the cluster's shutdown: {[_cmdline(pid) for pid in left]}"


def _descendants():
    """The live processes below this one (zombies reaped first)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                parents[int(name)] = int(open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = [], [os.getpid()]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return [pid for pid in found if _alive(pid)]


def _cmdline(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return f"pid {pid} (gone)"


def _alive(pid):
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _sigint_default():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _fleet(data, cluster, out, args=None, *extra):
    cmd = [FLEET, "run", *(args or data["args"]), "--out", out, "--address", cluster["address"],
           "--threads-per-task", "1", "--retries", "1", "--periphery", data["periphery"], *extra]
    # SIGINT as at a terminal: a suite started as a background job (`make test &`, as CI may) has it
    # ignored, and the driver would inherit that and never see the Ctrl-C test's signal.
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=_sigint_default)


def _finish(process, timeout=300):
    try:
        output, _ = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    print(output)
    return process.returncode, output


def _attempts_running(out, predicate, timeout, process):
    """Waits for running attempts (attempt.json in their partial folder, the sidecar past its first
    frame) that satisfy predicate; returns them."""
    deadline = time.monotonic() + timeout
    partial = os.path.join(out, ".fleet", "partial")
    while time.monotonic() < deadline:
        assert process.poll() is None, "the driver ended before the fault could be injected"
        found = []
        for name in os.listdir(partial) if os.path.isdir(partial) else []:
            attempt = os.path.join(partial, name, "attempt.json")
            sidecar = os.path.join(partial, name, SIDECAR + ".partial")
            try:
                record = json.load(open(attempt))
                frames = sum(1 for _ in open(sidecar)) - 1
            except (OSError, ValueError):
                continue
            if frames >= 1 and predicate(record):
                found.append(record)
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no running attempt as wanted in {timeout} s")


def _strip(line, fields):
    return {key: value for key, value in line.items() if key not in fields}


def assert_same_sidecar(got_path, reference_path):
    got = [json.loads(line) for line in open(got_path)]
    ref = [json.loads(line) for line in open(reference_path)]
    assert len(got) == len(ref), f"{got_path}: {len(got)} lines, the reference {len(ref)}"
    assert got[0] == ref[0], f"{got_path}: header differs"
    for g, r in zip(got[1:-1], ref[1:-1]):
        assert _strip(g, FRAME_TIMING) == _strip(r, FRAME_TIMING), f"{got_path}: frame {r['index']} differs"
    assert _strip(got[-1]["summary"], SUMMARY_TIMING) == _strip(ref[-1]["summary"], SUMMARY_TIMING)


def check_outputs(out, data, rows):
    """Every complete input: one folder with exactly its files, its sidecar equal to the reference;
    nothing else under DIR but the fleet's own files."""
    complete = {row["input"] for row in rows if row["status"] == "complete"}
    assert set(os.listdir(out)) == complete | {".fleet", "fleet.jsonl", "fleet.parquet"}
    assert not os.path.exists(os.path.join(out, ".fleet", "partial")), "attempt folders left behind"
    for ident in complete:
        assert sorted(os.listdir(os.path.join(out, ident))) == ["fleet-row.json", "periphery.log", SIDECAR]
        assert_same_sidecar(os.path.join(out, ident, SIDECAR), data["reference"][ident])
    # The Parquet table is the JSON-lines one.
    lines = [json.loads(line) for line in open(os.path.join(out, "fleet.jsonl"))]
    assert pq.read_table(os.path.join(out, "fleet.parquet")).to_pylist() == lines


def test_fleet_with_a_killed_worker(work, data, cluster):
    """12 inputs: 11 complete and equal to the reference, the corrupt video failed with its message;
    the worker of the longest clip, killed mid-input, is retried and completes exactly once."""
    out = os.path.join(work, "out")
    driver = _fleet(data, cluster, out)
    try:
        victim = _attempts_running(out, lambda r: r["input"] == data["long"], 120, driver)[0]
        os.kill(victim["pid"], signal.SIGKILL)
    finally:
        status, output = _finish(driver)
    assert status == 1, "exit status 1: one input failed"
    rows = [json.loads(line) for line in open(os.path.join(out, "fleet.jsonl"))]
    assert len(rows) == 12
    by_id = {row["input"]: row for row in rows}
    assert sum(row["status"] == "complete" for row in rows) == 11
    bad = by_id[data["corrupt"]]
    assert bad["status"] == "failed" and bad["attempts"] == 2, bad  # --retries 1: two attempts
    assert bad["error"].endswith("corrupt.mp4: not a readable video (Invalid data found when processing input)"), bad
    long = by_id[data["long"]]
    assert long["status"] == "complete" and long["attempts"] == 2 and long["frames"] == LONG_FRAMES, long
    assert f"{data['long']}: attempt 1 lost" in output
    for ident, row in by_id.items():
        if ident not in (data["long"], data["corrupt"]):
            assert row["status"] == "complete" and row["attempts"] == 1, row
        if row["status"] == "complete":
            assert row["frames"] == row["processed"] > 0 and row["detections"] > 0 and row["seconds"] > 0
            # The event columns of the sidecar's summary (test_fleet_table.py holds them to it).
            assert all(isinstance(row[c], int) and row[c] >= 0 for c in ("forward_collisions", "close_followings", "cut_ins")), row
            assert row["node"] in (cluster["head"], cluster["worker_id"])
    check_outputs(out, data, rows)
    # The killed worker's CLI died with it.
    deadline = time.monotonic() + 10
    while _alive(victim["cli_pid"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(victim["cli_pid"]), "the killed worker's periphery run outlived it"


def test_rerun_runs_nothing(work, data, cluster):
    """The same command again: every input done in the first run, nothing started, nothing changed."""
    out = os.path.join(work, "out")
    before = {name: os.stat(os.path.join(out, name, SIDECAR)) for name in os.listdir(out)
              if os.path.isfile(os.path.join(out, name, SIDECAR))}
    assert len(before) == 11
    status, output = _finish(_fleet(data, cluster, out))
    assert status == 1
    assert "fleet: 12 inputs, 12 done in an earlier run, 0 to run" in output
    rows = [json.loads(line) for line in open(os.path.join(out, "fleet.jsonl"))]
    assert all(row["resumed"] and row["attempts"] == 0 for row in rows)
    assert sum(row["status"] == "complete" for row in rows) == 11
    for name, stat in before.items():
        now = os.stat(os.path.join(out, name, SIDECAR))
        assert (now.st_ino, now.st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)
    check_outputs(out, data, rows)


def test_fleet_with_a_lost_node(work, data, cluster):
    """The worker node is stopped while it runs inputs: every input still completes, on the head."""
    out = os.path.join(work, "out-node")
    driver = _fleet(data, cluster, out, data["args"][:-1])  # all but the corrupt video
    try:
        victims = _attempts_running(out, lambda r: r["node"] == cluster["worker_id"], 120, driver)
        cluster["cluster"].remove_node(cluster["worker"], allow_graceful=False)
    finally:
        status, output = _finish(driver)
    assert status == 0, "every input complete"
    rows = [json.loads(line) for line in open(os.path.join(out, "fleet.jsonl"))]
    assert len(rows) == 11 and all(row["status"] == "complete" for row in rows), rows
    by_id = {row["input"]: row for row in rows}
    for victim in victims:
        row = by_id[victim["input"]]
        assert row["attempts"] >= 2 and row["node"] == cluster["head"], row
        assert not _alive(victim["cli_pid"]), "a periphery run of the lost node outlived it"
    check_outputs(out, data, rows)


def test_ctrl_c_keeps_completed_inputs_and_a_rerun_resumes(work, data, cluster):
    """SIGINT to the driver once an input is complete and the longest clip is mid-input: exit 130,
    the complete inputs intact, the rest `cancelled` with nothing of theirs left; the same command
    again runs only those and skips the others (the head node alone runs it)."""
    out = os.path.join(work, "out-cancel")
    args = [os.path.join(work, "clips", "clip01", "clip.mp4"), data["args"][1], data["args"][2]]  # 5 inputs
    driver = _fleet(data, cluster, out, args)
    running = []
    try:
        deadline = time.monotonic() + 120
        while not any(os.path.isfile(os.path.join(out, name, "fleet-row.json"))
                      for name in (os.listdir(out) if os.path.isdir(out) else [])):
            assert time.monotonic() < deadline and driver.poll() is None, "no input completed"
            time.sleep(0.05)
        running = _attempts_running(out, lambda r: r["input"] == data["long"], 60, driver)
        # The long clip's CLI is frozen, so that it is still mid-input when the driver acts on the
        # signal: a clip of 30 small frames can otherwise end in the second the driver takes.
        for record in running:
            os.kill(record["cli_pid"], signal.SIGSTOP)
        driver.send_signal(signal.SIGINT)
    finally:
        status, output = _finish(driver)
        deadline = time.monotonic() + 10
        while any(_alive(record["cli_pid"]) for record in running) and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = [record["cli_pid"] for record in running if _alive(record["cli_pid"])]
        for pid in survivors:  # the cancel should have killed it; never leave one frozen
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert not survivors, "a cancelled input's periphery run outlived the cancel"
    assert status == 130 and "cancelling" in output
    rows = [json.loads(line) for line in open(os.path.join(out, "fleet.jsonl"))]
    assert len(rows) == 5 and {row["status"] for row in rows} == {"complete", "cancelled"}, rows
    assert next(row for row in rows if row["input"] == data["long"])["status"] == "cancelled"
    check_outputs(out, data, rows)
    first = {row["input"] for row in rows if row["status"] == "complete"}
    status, output = _finish(_fleet(data, cluster, out, args))
    assert status == 0 and f"5 inputs, {len(first)} done in an earlier run, {5 - len(first)} to run" in output
    rows = [json.loads(line) for line in open(os.path.join(out, "fleet.jsonl"))]
    assert all(row["status"] == "complete" and row["resumed"] == (row["input"] in first) for row in rows), rows
    check_outputs(out, data, rows)

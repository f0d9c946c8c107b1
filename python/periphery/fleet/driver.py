"""The driver of a fleet run: resume, submission, retries, progress, Ctrl-C and the fleet table.

Attempts are counted here, not by Ray: every task is submitted with `max_retries=0`, and the driver
resubmits. An attempt ends one of three ways:

- complete: the task published `DIR/<id>/` (or found it published by an earlier attempt);
- error: `periphery run` failed on the input (a corrupt video, a missing calibration). The input
  is tried again while it has failed at most `--retries` times, so it gets `--retries` + 1 attempts
  at most and is then `failed` with the CLI's message; a rerun skips it unless `--retry-failed`;
- lost: the worker process or its node died (SIGKILL, OOM killer, a node gone). Lost attempts do
  not use up `--retries`: an input is resubmitted after up to `LOST_RETRIES` losses (Ray's own
  default for system failures), then `failed`; a rerun tries it again.

The table's `attempts` is the number of attempts this run started for the input.
"""

import fcntl
import os
import resource
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field

from . import task as fleet_task
from .errors import FleetError
from .table import write_table

LOST_RETRIES = 3


@dataclass
class Options:
    """How a fleet run runs; see `periphery-fleet run --help`."""

    out: str
    periphery: str = ""
    threads: int = 1
    mcap: bool = False
    render_video: bool = False
    weights: str | None = None
    retries: int = 2
    retry_failed: bool = False
    dry_run: bool = False
    address: str | None = None
    verbose: bool = False
    lost_retries: int = LOST_RETRIES
    ray_init: dict = field(default_factory=dict)


@dataclass
class _State:
    spec: dict
    size: int = 0
    attempts: int = 0
    errors: int = 0
    lost: int = 0


class Progress:
    """The driver's progress on standard error: a line per finished, retried or failed input (per
    failure and retry only, above 100 inputs), and a status line at most every few seconds."""

    def __init__(self, total, stream, verbose):
        self.total, self.stream, self.verbose = total, stream, verbose
        self.started = time.monotonic()
        self.last = 0.0
        self.done = self.failed = self.frames = self.retried = 0
        self.shown = None
        self.done_before = 0

    def say(self, text):
        print(f"fleet: {text}", file=self.stream, flush=True)

    def event(self, text, always=False):
        if always or self.verbose or self.total <= 100:
            self.say(text)

    def status(self, running, force=False):
        now = time.monotonic()
        if not force and now - self.last < 5.0:
            return
        self.last = now
        elapsed = now - self.started
        rate = self.frames / elapsed if elapsed > 0 else 0.0
        left, finished = self.total - self.done - self.failed, self.done - self.done_before
        eta = f", ETA {left / (finished / elapsed):.0f} s" if finished > 0 and left else ""
        counts = (self.done, self.failed, running, self.retried)
        if counts != self.shown:
            self.shown = counts
            self.say(f"{self.done}/{self.total} complete, {self.failed} failed, {running} in flight, "
                     f"{self.retried} retried, {self.frames} frames at {rate:.1f} frames/s{eta}")


def _lock(out):
    """Holds DIR/.fleet/lock for this process (released when it ends, however it ends)."""
    os.makedirs(fleet_task.state_dir(out), exist_ok=True)
    handle = open(os.path.join(fleet_task.state_dir(out), "lock"), "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise FleetError(f"{out}: another periphery-fleet run is using this output folder") from None
    return handle


def _failed_path(out, ident):
    return os.path.join(fleet_task.state_dir(out), "failed", f"{ident}.json")


def _same_failure(record, spec):
    return (isinstance(record, dict) and record.get("path") == spec["path"]
            and record.get("calibration") == spec.get("calibration") and record.get("weights") == spec.get("weights"))


class Driver:
    """One fleet run over `inputs` (FleetInput) with `options` (Options)."""

    def __init__(self, inputs, options, stream=None):
        self.inputs, self.options = inputs, options
        self.stream = stream or sys.stderr
        self.rows = {}
        self.measure = {}

    def _spec(self, item):
        o = self.options
        return {
            "id": item.id, "path": item.path, "kind": item.kind, "calibration": item.calibration, "out": o.out,
            "periphery": o.periphery, "threads": o.threads, "mcap": o.mcap, "render_video": o.render_video,
            "weights": o.weights, "dry_run": o.dry_run,
        }

    def _finish(self, ident, row, resumed=False, attempts=None):
        row = dict(row)
        row["resumed"] = resumed
        if attempts is not None:
            row["attempts"] = attempts
        self.rows[ident] = row

    def _resume(self, states):
        """Marks the inputs already complete (or failed with the same options) done; returns the rest."""
        todo = []
        for state in states:
            spec = state.spec
            if not self.options.dry_run:
                row = fleet_task.published_row(self.options.out, spec["id"])
                if fleet_task.satisfies(row, spec):
                    self._finish(spec["id"], row, resumed=True, attempts=0)
                    continue
                record = fleet_task.read_json(_failed_path(self.options.out, spec["id"]))
                if not self.options.retry_failed and _same_failure(record, spec):
                    self._finish(spec["id"], record, resumed=True, attempts=0)
                    continue
            todo.append(state)
        return todo

    def run(self):
        """Runs the fleet; returns the exit status: 0 every input complete, 1 some failed, 130
        cancelled (Ctrl-C or SIGTERM)."""
        import ray

        o = self.options
        os.makedirs(o.out, exist_ok=True)
        lock = _lock(o.out)
        try:
            return self._run(ray)
        finally:
            lock.close()

    def _run(self, ray):
        o = self.options
        states = [_State(self._spec(item), item.size) for item in self.inputs]
        todo = self._resume(states)
        progress = Progress(len(states), self.stream, o.verbose)
        resumed = len(states) - len(todo)
        progress.done = sum(row["status"] == "complete" for row in self.rows.values())
        progress.failed = sum(row["status"] == "failed" for row in self.rows.values())
        progress.done_before = progress.done
        shutil.rmtree(fleet_task.partial_root(o.out), ignore_errors=True)
        shutil.rmtree(os.path.join(fleet_task.state_dir(o.out), "trash"), ignore_errors=True)
        progress.say(f"{len(states)} inputs, {resumed} done in an earlier run, {len(todo)} to run"
                     + (" (dry run)" if o.dry_run else ""))
        cancelled = False
        previous = signal.signal(signal.SIGTERM, _sigterm)
        try:
            if todo:
                cancelled = self._dispatch(ray, todo, progress)
        finally:
            signal.signal(signal.SIGTERM, previous)
            for state in states:
                if state.spec["id"] not in self.rows:
                    row = fleet_task.published_row(o.out, state.spec["id"])
                    if fleet_task.satisfies(row, state.spec):
                        self._finish(state.spec["id"], row, attempts=state.attempts)
                    else:
                        row = fleet_task._base_row(state.spec, state.attempts)
                        row.update(status="cancelled", error="cancelled before the input was complete", node="",
                                   host="")
                        self._finish(state.spec["id"], row)
            shutil.rmtree(fleet_task.partial_root(o.out), ignore_errors=True)
            started = time.perf_counter()
            write_table(o.out, [self.rows[state.spec["id"]] for state in states])
            self.measure["table_seconds"] = time.perf_counter() - started
        rows = list(self.rows.values())
        complete = sum(row["status"] == "complete" for row in rows)
        failed = [row for row in rows if row["status"] == "failed"]
        frames = sum(row.get("frames") or 0 for row in rows if row["status"] == "complete")
        progress.say(f"{complete} complete, {len(failed)} failed"
                     + (f", {sum(r['status'] == 'cancelled' for r in rows)} cancelled" if cancelled else "")
                     + (f", {sum(r['status'] == 'dry-run' for r in rows)} dry-run" if o.dry_run else "")
                     + f", {frames} frames; table {os.path.join(o.out, 'fleet.parquet')} and fleet.jsonl")
        for row in failed:
            progress.say(f"failed: {row['input']} ({row['path']}): {row['error']}")
        if cancelled:
            return 130
        return 1 if failed else 0

    def _dispatch(self, ray, todo, progress):
        """Submits and watches the attempts; returns True when cancelled."""
        o = self.options
        init = dict(o.ray_init)
        init.setdefault("log_to_driver", False)
        init.setdefault("logging_level", "warning")
        if o.address:
            init["address"] = o.address
        else:
            init.setdefault("include_dashboard", False)
        try:
            ray.init(**init)
        except Exception as error:  # noqa: BLE001 - Ray's own errors name the address
            raise FleetError(f"--address {o.address or '(local)'}: cannot start or join a Ray cluster: {error}") from None
        remote = ray.remote(fleet_task.run_input).options(
            num_cpus=o.threads, max_retries=0, retry_exceptions=False, name="periphery-fleet")
        # The largest inputs first (the queue is taken from its end): the run ends soonest when the
        # long ones do not start last. Retries go on the end, so they start next.
        queue = sorted(todo, key=lambda s: s.size)
        pending = {}
        window, checked = 8, 0.0
        rusage0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        submitted = 0
        try:
            while queue or pending:
                now = time.monotonic()
                if now - checked > 2.0:
                    slots = int(ray.cluster_resources().get("CPU", 0) // max(o.threads, 1))
                    window, checked = max(8, 4 * slots), now
                while queue and len(pending) < window:
                    state = queue.pop()
                    state.attempts += 1
                    pending[remote.remote(state.spec, state.attempts)] = state
                    submitted += 1
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                if ready:
                    ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
                for ref in ready:
                    state = pending.pop(ref)
                    self._settle(ray, ref, state, queue, progress)
                progress.status(len(pending))
        except KeyboardInterrupt:
            progress.say(f"cancelling {len(pending)} inputs in flight; completed inputs stay as they are")
            for ref in pending:
                ray.cancel(ref, force=True)
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=30)
            for ref in ready:
                try:
                    row = ray.get(ref)
                except Exception:  # noqa: BLE001 - cancelled or lost: the input is not complete
                    continue
                if row.get("status") == "complete":
                    self._finish(row["input"], row, attempts=pending[ref].attempts)
            return True
        finally:
            rusage1, wall1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            self.measure.update(
                tasks=submitted, wall_seconds=wall1 - wall0,
                driver_cpu_seconds=(rusage1.ru_utime - rusage0.ru_utime) + (rusage1.ru_stime - rusage0.ru_stime),
                cluster_cpus=ray.cluster_resources().get("CPU", 0) if ray.is_initialized() else 0)
            progress.status(len(pending), force=True)
            ray.shutdown()
        return False

    def _settle(self, ray, ref, state, queue, progress):
        """Takes one finished attempt: done, or back in the queue, or failed."""
        o, ident = self.options, state.spec["id"]
        try:
            row = ray.get(ref)
            lost = None
        except ray.exceptions.RayTaskError as error:
            row, lost = fleet_task._base_row(state.spec, state.attempts), None
            row["error"] = f"the task raised {type(error.cause).__name__}: {error.cause}"
        except ray.exceptions.RayError as error:
            first = (str(error).splitlines() or [""])[0]
            row, lost = None, f"{type(error).__name__}: {first.split('. ')[0][:200]}"
        if lost is not None:
            state.lost += 1
            if state.lost <= o.lost_retries:
                progress.retried += 1
                progress.event(f"{ident}: attempt {state.attempts} lost ({lost}); trying again", always=True)
                queue.append(state)
                return
            row = fleet_task._base_row(state.spec, state.attempts)
            row.update(status="failed", node="", host="", error=f"lost {state.lost} times, last: {lost}")
            self._finish(ident, row, attempts=state.attempts)
            progress.failed += 1
            progress.event(f"{ident}: failed: {row['error']}", always=True)
            return
        if row["status"] in ("complete", "dry-run"):
            self._finish(ident, row, attempts=state.attempts)
            progress.done += 1
            progress.frames += row.get("frames") or 0
            try:
                os.remove(_failed_path(o.out, ident))
            except OSError:
                pass
            if row["status"] == "complete":
                progress.event(f"{ident}: complete, {row['frames']} frames, {row['detections']} detections in "
                               f"{row['seconds']} s on {row['host']} {row['node'][:8]} (attempt {state.attempts})")
            return
        state.errors += 1
        if state.errors <= o.retries:
            progress.retried += 1
            progress.event(f"{ident}: attempt {state.attempts} failed ({row['error']}); trying again", always=True)
            queue.append(state)
            return
        row["status"] = "failed"
        self._finish(ident, row, attempts=state.attempts)
        os.makedirs(os.path.dirname(_failed_path(o.out, ident)), exist_ok=True)
        fleet_task.write_json(_failed_path(o.out, ident), self.rows[ident])
        progress.failed += 1
        progress.event(f"{ident}: failed after {state.attempts} attempts: {row['error']}", always=True)


def _sigterm(signum, frame):
    raise KeyboardInterrupt

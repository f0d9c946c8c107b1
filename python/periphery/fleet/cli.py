"""`periphery-fleet`: Periphery over a Ray cluster (docs/guides/fleet.md).

    periphery-fleet run INPUTS... --out DIR [--address ADDR] [--calibration C.json]
                        [--threads-per-task T] [--mcap] [--render-video] [--retries N] [...]
    periphery-fleet bench --inputs N [--address ADDR] [--out DIR]

Exit status of `run`: 0 every input complete, 1 some input failed, 2 bad arguments or input (the
message names the file), 130 cancelled (Ctrl-C or SIGTERM; completed inputs stay complete).
"""

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time

from .driver import LOST_RETRIES, Driver, Options
from .errors import FleetError
from .inputs import expand_inputs


def _positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: must be at least 1")
    return value


def _non_negative(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: must be 0 or more")
    return value


def resolve_periphery(given):
    """The absolute path of the `periphery` CLI: --periphery, else $PERIPHERY, else PATH."""
    candidate = given or os.environ.get("PERIPHERY") or shutil.which("periphery")
    if not candidate:
        raise FleetError("no periphery CLI: give --periphery PATH, set PERIPHERY, or put periphery on PATH")
    path = os.path.abspath(candidate if os.sep in candidate else (shutil.which(candidate) or candidate))
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise FleetError(f"{path}: not an executable periphery CLI")
    return path


def _parser():
    parser = argparse.ArgumentParser(prog="periphery-fleet", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run", help="run `periphery run` over many inputs on a Ray cluster",
        description="Runs `periphery run` on every input as one Ray task, into DIR/<input id>/, and writes the "
                    "fleet table DIR/fleet.parquet and DIR/fleet.jsonl. Inputs complete in an earlier run are "
                    "skipped. The CLI, its weights and the inputs must be at the same paths on every node "
                    "(shared storage).")
    run.add_argument("inputs", nargs="+", metavar="INPUT",
                     help="a video file, a drive directory, a glob of either, or a .jsonl manifest")
    run.add_argument("--out", required=True, metavar="DIR", help="output folder")
    run.add_argument("--address", metavar="ADDR",
                     help="the Ray cluster (host:port of its head, or 'auto'); default: start a local one")
    run.add_argument("--calibration", metavar="C.json",
                     help="calibration for inputs without their own (default: calibration.json in the drive or "
                          "beside the video)")
    run.add_argument("--threads-per-task", type=_positive, default=1, metavar="T",
                     help="CPUs each task takes from Ray and threads it gives the engine (default 1)")
    run.add_argument("--mcap", action="store_true", help="also write DIR/<id>/run.mcap")
    run.add_argument("--render-video", action="store_true", help="also write DIR/<id>/run.mp4")
    run.add_argument("--retries", type=_non_negative, default=2, metavar="N",
                     help="times an input that failed is tried again before it is marked failed (default 2, "
                          f"so 3 attempts at most); a lost worker or node does not count (up to {LOST_RETRIES})")
    run.add_argument("--retry-failed", action="store_true",
                     help="try inputs that failed in an earlier run again (by default a rerun skips them)")
    run.add_argument("--periphery", metavar="PATH", help="the periphery CLI (default: $PERIPHERY, else PATH)")
    run.add_argument("--weights", metavar="W", help="weights file passed to periphery run")
    run.add_argument("--dry-run", action="store_true",
                     help="dispatch a task per input that only checks the input exists (measures dispatch)")
    run.add_argument("--verbose", action="store_true", help="a line per input however many there are")

    bench = commands.add_parser(
        "bench", help="measure per-task dispatch and the driver's cost per input (dry run over N tiny inputs)")
    bench.add_argument("--inputs", type=_positive, default=10000, metavar="N", help="inputs (default 10000)")
    bench.add_argument("--address", metavar="ADDR", help="the Ray cluster; default: start a local one")
    bench.add_argument("--threads-per-task", type=_positive, default=1, metavar="T")
    bench.add_argument("--out", metavar="DIR", help="working folder (default: a temporary one, removed)")
    return parser


def _run(args):
    inputs = expand_inputs(args.inputs, args.calibration)
    options = Options(
        out=os.path.abspath(args.out), periphery="" if args.dry_run else resolve_periphery(args.periphery),
        threads=args.threads_per_task, mcap=args.mcap, render_video=args.render_video,
        weights=os.path.abspath(args.weights) if args.weights else None, retries=args.retries,
        retry_failed=args.retry_failed, dry_run=args.dry_run, address=args.address, verbose=args.verbose)
    if options.weights and not os.path.isfile(options.weights):
        raise FleetError(f"{options.weights}: --weights: no such file")
    return Driver(inputs, options).run()


def _cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


# The README's example camera: any valid calibration serves a dry run, which decodes nothing.
_BENCH_CALIBRATION = {
    "intrinsics": {"fx": 910, "fy": 910, "cx": 582, "cy": 437, "width": 1164, "height": 874},
    "mount": {"pitch_deg": -3.659, "roll_deg": 0, "yaw_deg": 0, "height_m": 1.2, "forward_of_origin_m": 1.65},
}


def _bench(args):
    """Dry-runs N tiny inputs (empty files in a manifest) and prints what dispatch costs."""
    work = os.path.abspath(args.out) if args.out else tempfile.mkdtemp(prefix="periphery-fleet-bench-")
    try:
        folder = os.path.join(work, "inputs")
        os.makedirs(folder, exist_ok=True)
        manifest = os.path.join(work, "inputs.jsonl")
        # A video needs a calibration (the input check asks the library): one beside them all.
        with open(os.path.join(folder, "calibration.json"), "w") as file:
            json.dump(_BENCH_CALIBRATION, file)
        with open(manifest, "w") as file:
            for i in range(args.inputs):
                path = os.path.join(folder, f"{i:06d}.mp4")
                open(path, "w").close()
                file.write(json.dumps({"path": path}) + "\n")
        usage0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        inputs = expand_inputs([manifest])
        usage1, wall1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        options = Options(out=os.path.join(work, "out"), threads=args.threads_per_task, dry_run=True,
                          address=args.address)
        driver = Driver(inputs, options)
        status = driver.run()
        m, n = driver.measure, len(inputs)
        slots = int(m["cluster_cpus"] // args.threads_per_task)
        result = {
            "cpu": _cpu_name(), "logical_cpus": os.cpu_count(), "inputs": n, "tasks": m["tasks"],
            "ray_cpus": m["cluster_cpus"], "task_slots": slots,
            "dispatch_wall_s": round(m["wall_seconds"], 3),
            "tasks_per_s": round(m["tasks"] / m["wall_seconds"], 1),
            "slot_ms_per_task": round(1000 * m["wall_seconds"] * slots / m["tasks"], 3),
            "driver_cpu_ms_per_input": round(1000 * m["driver_cpu_seconds"] / n, 3),
            "expand_ms_per_input": round(1000 * (wall1 - wall0) / n, 4),
            "expand_cpu_ms_per_input": round(1000 * ((usage1.ru_utime - usage0.ru_utime)
                                                     + (usage1.ru_stime - usage0.ru_stime)) / n, 4),
            "table_ms_per_input": round(1000 * m["table_seconds"] / n, 4),
        }
        print(json.dumps(result))
        return status
    finally:
        if not args.out:
            shutil.rmtree(work, ignore_errors=True)


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        return (_run if args.command == "run" else _bench)(args)
    except FleetError as error:
        print(f"periphery-fleet: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("periphery-fleet: cancelled", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""Periphery over a Ray cluster: `periphery-fleet run INPUTS… --out DIR` (docs/guides/fleet.md).

One Ray task per input (a video file or a drive directory) runs `periphery run` on it with
`num_cpus` = `--threads-per-task`, into a temporary folder that is renamed to `DIR/<input id>/`
when the input is complete, so an input's outputs are complete or absent. The driver retries
inputs whose worker or node was lost and inputs that failed, up to `--retries`, skips inputs that
are already complete (a rerun resumes), and writes the fleet table `DIR/fleet.jsonl` and
`DIR/fleet.parquet`, one row per input.

Modules: `inputs` (what the command line names, and their ids), `task` (what runs on a worker),
`table` (the fleet table), `driver` (submission, retries, progress, Ctrl-C), `cli`.
"""

from .errors import FleetError, InputError
from .inputs import FleetInput, expand_inputs

__all__ = ["FleetError", "FleetInput", "InputError", "expand_inputs"]

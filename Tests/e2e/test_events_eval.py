"""`periphery eval-events` end to end: one short scripted LVM drive and one free-flow drive, run with
the INT8 weights, whose JSON report and per-frame comparison must agree with the drives' truth.json
and with `periphery run`'s tracks; and the typed errors for drives without the scenario truth."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from helpers import SIDECAR, fails, json_lines, run

# A lead 20 m ahead, closing at 11.2 m/s (NHTSA's LVM speeds): about 1.8 s, 18 frames.
LVM = ["--scenario", "lvm", "--gap", "20", "--frames", "40", "--seed", "7"]
FREE = ["--scenario", "free", "--frames", "12", "--seed", "8"]


@pytest.fixture(scope="module")
def evaluated(periphery, tmp_path_factory):
    """The two drives, eval-events' JSON report and its --frames lines."""
    folder = tmp_path_factory.mktemp("events-eval")
    drives = [folder / "lvm", folder / "free"]
    for drive, options in zip(drives, (LVM, FREE)):
        run([periphery, "synth", "--sequence", *options, "--out", drive])
    run([periphery, "eval-events", "--data", *drives, "--precision", "int8", "--json", folder / "report.json",
         "--frames", folder / "frames.jsonl"])
    truths = [json.loads((drive / "truth.json").read_text()) for drive in drives]
    return drives, truths, json.loads((folder / "report.json").read_text()), json_lines(folder / "frames.jsonl")


def entry_at(truth, time):
    """The truth's trajectory entry at a frame time."""
    entries = [e for e in truth["trajectory"] if abs(e["t"] - time) < 1e-6]
    assert len(entries) == 1, time
    return entries[0]


def close(a, b):
    """Equal within 1e-9 (both None counts): the report's numbers went through Foundation's JSON
    reader and writer, which may end a double's digits one unit of the last place apart."""
    return (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= 1e-9 * max(1, abs(b)))


def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def test_eval_events_reports_each_drive_against_its_truth(evaluated):
    drives, truths, report, _ = evaluated
    assert set(report) == {"drives", "tests", "free_flow", "cut_ins", "error_window_ttc_s", "ttc_error", "headway_error",
                           "headway_error_in_window"}
    assert report["cut_ins"] == {"drives": 0, "in_time": 0, "tolerance_s": 1, "delays_s": []}
    assert all(d["cut_in"] is None for d in report["drives"])
    lvm, free = report["drives"]
    assert [d["drive"] for d in report["drives"]] == [str(d) for d in drives]
    for drive, truth in zip(report["drives"], truths):
        assert drive["scenario"]["name"] == truth["scenario"]["name"] and drive["lead_id"] == truth["lead_id"]
        assert drive["frames"] == len(truth["trajectory"]) and abs(drive["seconds"] - drive["frames"] / truth["fps"]) < 1e-9
    assert lvm["scenario"] == {"name": "lvm", "ego_speed_m_s": 20.1168, "lead_speed_m_s": 8.9408, "gap_m": 20, "lead_decel_m_s2": None}
    assert lvm["required_ttc_s"] == 2.0 and free["required_ttc_s"] is None and free["in_time"] is None
    # The lead comes into sight within the detector's 40 m, at the true range of that frame.
    assert lvm["first_sight_s"] is not None
    assert close(lvm["first_sight_range_m"], entry_at(truths[0], lvm["first_sight_s"])["in_path_lead"]["range_m"])
    warning = lvm["warning"]
    if warning is None:
        assert lvm["in_time"] is False
    else:
        lead = entry_at(truths[0], warning["time_s"])["in_path_lead"]
        assert lead["id"] == truths[0]["lead_id"]
        assert close(warning["true_ttc_s"], lead["ttc_s"]) and close(warning["true_range_m"], lead["range_m"])
        assert lvm["in_time"] == (warning["true_ttc_s"] is not None and warning["true_ttc_s"] >= 2.0)
    (test,) = report["tests"]
    assert test["scenario"] == lvm["scenario"] and test["trials"] == 1 and test["required_ttc_s"] == 2.0
    assert test["in_time"] == int(lvm["in_time"]) and test["passed"] == lvm["in_time"]
    assert test["warning_true_ttc_s"] == [warning["true_ttc_s"] if warning else None]
    hours = free["frames"] / truths[1]["fps"] / 3600
    assert report["free_flow"]["drives"] == 1 and abs(report["free_flow"]["hours"] - hours) < 1e-12
    assert report["free_flow"]["warnings"] == free["warnings"] == free["other_warnings"]
    assert abs(report["free_flow"]["warnings_per_hour"] - free["warnings"] / hours) < 1e-6


def test_eval_events_errors_are_those_of_the_frames_against_truth(evaluated):
    """Frames + missed count every truth frame with the figure; the medians and p90 are those of the
    per-frame lines' errors, recomputed here."""
    _, truths, report, frames = evaluated
    window = report["error_window_ttc_s"]
    assert window == 4
    truth_frames = [e for truth in truths for e in truth["trajectory"] if e["in_path_lead"]]
    assert len([f for f in frames if f["true_lead"]]) == len(truth_frames)
    with_ttc = [e for e in truth_frames if e["in_path_lead"]["ttc_s"] is not None and e["in_path_lead"]["ttc_s"] < window]
    with_headway = [e for e in truth_frames if e["in_path_lead"]["headway_s"] is not None]
    ttc, headway = report["ttc_error"], report["headway_error"]
    assert ttc["frames"] + ttc["missed"] == len(with_ttc) and headway["frames"] + headway["missed"] == len(with_headway)
    assert ttc["frames"] > 0 and headway["frames"] > 0, report
    ttc_errors, headway_errors = [], []
    for f in frames:
        lead, true = f["lead"], f["true_lead"]
        if not (f["is_true_lead"] and true):
            continue
        if true["ttc_s"] is not None and true["ttc_s"] < window and lead["ttc_s"] is not None:
            ttc_errors.append(lead["ttc_s"] - true["ttc_s"])
        if true["headway_s"] is not None and lead["headway_s"] is not None:
            headway_errors.append(lead["headway_s"] - true["headway_s"])
    for spread, errors in ((ttc, ttc_errors), (headway, headway_errors)):
        absolute = sorted(abs(e) for e in errors)
        assert spread["frames"] == len(errors)
        assert abs(spread["median_s"] - median(absolute)) < 1e-9 and abs(spread["bias_s"] - median(errors)) < 1e-9
        assert abs(spread["p90_s"] - absolute[math.ceil(0.9 * len(absolute)) - 1]) < 1e-9
    # The true lead of each line is the truth's in-path lead of its frame.
    for f in frames:
        truth = truths[0] if f["drive"].endswith("lvm") else truths[1]
        lead = entry_at(truth, f["time_s"])["in_path_lead"]
        assert close((f["true_lead"] or {}).get("ttc_s"), (lead or {}).get("ttc_s")), (f, lead)
        assert (f["true_lead"] or {}).get("id") == (lead or {}).get("id"), (f, lead)


def test_eval_events_runs_the_drive_as_run_does(periphery, evaluated, tmp_path):
    """Our lead's range at each frame is the bumper range of the same track in `periphery run`'s sidecar."""
    drives, _, _, frames = evaluated
    run([periphery, "run", drives[0], "--precision", "int8", "--out", tmp_path])
    tracks = {round(line["pts"], 6): {t[0]: t for t in line["tracks"]} for line in json_lines(tmp_path / SIDECAR) if "pts" in line}
    leads = [f for f in frames if f["drive"] == str(drives[0]) and f["lead"]]
    assert leads
    for f in leads:
        track = tracks[round(f["time_s"], 6)][f["lead"]["track"]]
        x, length, width, yaw = track[1], track[4], track[5], track[7]
        bumper = x - length / 2 * abs(math.cos(yaw)) - width / 2 * abs(math.sin(yaw)) - 3.7
        assert abs(bumper - f["lead"]["range_m"]) < 1e-6, (f, track)


def test_eval_events_names_the_missing_truth(periphery, tmp_path):
    drive = tmp_path / "plain"
    run([periphery, "synth", "--sequence", "--frames", "2", "--seed", "3", "--width", "320", "--height", "200", "--out", drive])
    fails([periphery, "eval-events", "--data", drive], 1, f"{drive}/truth.json: scenario must be")
    (drive / "truth.json").unlink()
    fails([periphery, "eval-events", "--data", drive], 1, f"{drive}/truth.json: no such file")

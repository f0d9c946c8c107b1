"""Safety events everywhere a run's results go (docs/guides/events.md#where-events-appear).

A scripted drive that must warn (conftest's `warning_drive`): NHTSA's LVM scenario with the lead 40 m
ahead (the ego at 45 mph closing on it at 11.2 m/s; `periphery synth --scenario lvm --gap 40`),
640 × 400, run with the INT8 weights and `--mcap`. Held to:
- the sidecar's lines: each event's reports come in consecutive frames as start, update…, end on one
  track, the end of an event still on at the end of the run in the summary's `final_reports`; a
  report's `range_m` is its track's bumper range in the same line (the smallest x of the box's
  footprint less truth.json's `ego_front_m`, to 1e-9 m), its `headway_s` that range over the line's
  ego speed (dx / dt), its `ttc_s` within 0.3 s + 25 % of that range over the scenario's true closing
  speed (LVM's speeds are constant; the fitted closing speed lags at first); at least one
  forward-collision warning;
- the summary: counts per type equal the events of the lines; `finished` lists them with the start
  and end times of their lines; `per_hour` is their number per hour of the frames' span; the worst
  TTC is at most the warning threshold; the CLI prints the counts;
- the MCAP, read with the `mcap` package (mcap_files.verify_mcap checks the file and its channels):
  `/perception/events` holds per frame exactly the line's events, and last the summary's final
  reports.
`--events FILE` with a lower warning threshold starts the warning later, at a TTC under that threshold,
and a file with a bad or unknown setting is refused naming the file and the field.
A drive that must not warn (`--scenario following --gap 25`: the lead at 1.24 s headway, no closing)
has no `events` key in any line (so a run without events writes the lines it always wrote), counts
of 0 and a worst headway within 0.3 s of truth.json's.
"""

from __future__ import annotations

import json
import math
import pytest

from helpers import fails, finished_sidecar, run
from mcap_files import events_messages, verify_mcap

WEIGHTS = "Weights/safety40-synthetic-int8.safetensors"
TYPES = ("forward_collision", "close_following", "cut_in")
TTC_THRESHOLD_S = 3.5  # SafetyEventConfiguration's forwardCollision.timeToCollisionSeconds
TTC_TOLERANCE_S, TTC_TOLERANCE_SHARE = 0.3, 0.25


@pytest.fixture(scope="module")
def closing(warning_drive):
    """conftest's warning drive: its truth, the sidecar's summary and frame lines, the MCAP and the CLI's standard error."""
    summary, lines = finished_sidecar(warning_drive["run"])
    truth = json.loads((warning_drive["drive"] / "truth.json").read_text())
    return {"mcap": warning_drive["run"] / "run.mcap", "truth": truth, "summary": summary, "lines": lines, "stderr": warning_drive["stderr"]}


def episodes(lines, final_reports):
    """The events of the lines as [{type, track, reports: [(line, report)], start, end}], checking
    that each goes start, update…, end in consecutive frames on one track; an event still on after
    the last line must be ended by one of FINAL_REPORTS, and each of those must end one."""
    open_events, done = {}, []
    for line in lines:
        for report in line.get("events", []):
            key = (report["type"], report["track"])
            assert report["type"] in TYPES and report["phase"] in ("start", "update", "end"), report
            assert set(report) == {"type", "phase", "track", "ttc_s", "headway_s", "range_m"}, report
            if report["phase"] == "start":
                assert key not in open_events, f"frame {line['index']}: {key} starts again while on"
                open_events[key] = {"type": key[0], "track": key[1], "reports": [], "start": line["pts"], "end": None}
            else:
                assert key in open_events, f"frame {line['index']}: {report['phase']} of {key}, which is not on"
                previous = open_events[key]["reports"][-1][0]
                assert previous["index"] == line["index"] - 1, f"{key}: reported at frames {previous['index']} and {line['index']}"
            open_events[key]["reports"].append((line, report))
            if report["phase"] == "end":
                event = open_events.pop(key)
                event["end"] = line["pts"]
                done.append(event)
    for report in final_reports:
        key = (report["type"], report["track"])
        assert report["phase"] == "end" and key in open_events, f"final report {report} ends no event that is on"
        assert open_events[key]["reports"][-1][0] is lines[-1], f"{key} was not reported in the last line"
        event = open_events.pop(key)
        event["end"] = lines[-1]["pts"]
        done.append(event)
    assert not open_events, f"events never ended: {sorted(open_events)}"
    return done


def bumper_range(track, ego_front):
    """The smallest x of a sidecar track's box footprint less the bumper (docs/guides/events.md#definitions)."""
    x, length, width, yaw = track[1], track[4], track[5], track[7]
    return x - length / 2 * abs(math.cos(yaw)) - width / 2 * abs(math.sin(yaw)) - ego_front


def test_sidecar_events_run_start_to_end_on_one_track_with_their_tracks_figures(closing):
    lines, summary, truth = closing["lines"], closing["summary"], closing["truth"]
    events = episodes(lines, summary["events"]["final_reports"])
    warnings = [e for e in events if e["type"] == "forward_collision"]
    assert warnings, "no forward-collision warning on an LVM drive"
    closing_speed = truth["scenario"]["ego_speed_m_s"] - truth["scenario"]["lead_speed_m_s"]
    checked = 0
    for event in events:
        for line, report in event["reports"]:
            track = next((t for t in line["tracks"] if t[0] == report["track"]), None)
            if track is None:
                assert report["phase"] == "end" and report["range_m"] is None, (line["index"], report)
                continue
            assert abs(report["range_m"] - bumper_range(track, truth["ego_front_m"])) < 1e-9, (line["index"], report, track)
            dx, _, _, dt = line["ego"]
            assert report["headway_s"] is not None and abs(report["headway_s"] - report["range_m"] / (dx / dt)) < 1e-9, report
            if event["type"] == "forward_collision" and report["phase"] != "end":
                assert report["ttc_s"] <= TTC_THRESHOLD_S + 0.5, report  # on until past the threshold plus hysteresis
                expected = report["range_m"] / closing_speed
                bound = TTC_TOLERANCE_S + TTC_TOLERANCE_SHARE * expected
                assert abs(report["ttc_s"] - expected) <= bound, f"frame {line['index']}: {report}, range / v = {expected:.2f} s"
                checked += 1
    assert checked >= 3, f"only {checked} warning reports had their vehicle"
    names = ", ".join(f"{e['type']} #{e['track']}" for e in events)
    print(f"events: {len(events)} ({names}); {checked} TTCs checked")


def test_summary_counts_the_events_of_the_lines(closing):
    lines, events_summary = closing["lines"], closing["summary"]["events"]
    events = episodes(lines, events_summary["final_reports"])
    assert events_summary["counts"] == {kind: sum(e["type"] == kind for e in events) for kind in TYPES}
    finished = sorted((e["type"], e["track"], e["start_s"], e["end_s"]) for e in events_summary["finished"])
    assert finished == sorted((e["type"], e["track"], e["start"], e["end"]) for e in events)
    for event in events_summary["finished"]:
        assert event["onset_s"] <= event["start_s"] <= event["end_s"], event
    span = lines[-1]["pts"] - lines[0]["pts"]
    assert abs(events_summary["duration_s"] - span) < 1e-9
    assert abs(events_summary["per_hour"] - len(events) * 3600 / span) < 1e-6
    assert events_summary["min_ttc_s"] is not None and 0 < events_summary["min_ttc_s"] <= TTC_THRESHOLD_S, events_summary
    counts = events_summary["counts"]
    assert (f"events: {counts['forward_collision']} forward collision, {counts['close_following']} close following, "
            f"{counts['cut_in']} cut-in") in closing["stderr"], closing["stderr"]


def test_mcap_events_channel_holds_the_sidecars_events(closing):
    lines, summary, path = closing["lines"], closing["summary"], closing["mcap"]
    verify_mcap(path, len(lines))
    messages = events_messages(path)
    final = summary["events"]["final_reports"]
    assert len(messages) == len(lines) + (1 if final else 0)
    for line, message in zip(lines, messages):
        assert (message["index"], message["pts"], message["end_of_run"]) == (line["index"], line["pts"], False)
        assert message["events"] == line.get("events", []), f"frame {line['index']}"
    if final:
        assert messages[-1]["end_of_run"] and messages[-1]["index"] == lines[-1]["index"] and messages[-1]["events"] == final
    assert sum(len(m["events"]) for m in messages) > 0


def test_a_drive_without_events_writes_no_events(periphery, tmp_path):
    drive = tmp_path / "drive"
    run([periphery, "synth", "--sequence", "--scenario", "following", "--gap", "25", "--frames", "30", "--seed", "1", "--out", drive])
    run([periphery, "run", drive, "--out", tmp_path / "run", "--weights", WEIGHTS])
    summary, lines = finished_sidecar(tmp_path / "run")
    truth = json.loads((drive / "truth.json").read_text())
    assert all("events" not in line for line in lines), [line["index"] for line in lines if "events" in line]
    events = summary["events"]
    assert events["counts"] == dict.fromkeys(TYPES, 0) and events["finished"] == [] and events["final_reports"] == []
    assert events["per_hour"] == 0
    true_headway = min(frame["in_path_lead"]["headway_s"] for frame in truth["trajectory"] if frame.get("in_path_lead"))
    assert events["min_headway_s"] is not None and abs(events["min_headway_s"] - true_headway) <= 0.3, (events, true_headway)


def test_events_option_sets_the_rules_and_refuses_a_bad_field(periphery, warning_drive, closing, tmp_path):
    default_starts = [r["ttc_s"] for line in closing["lines"] for r in line.get("events", []) if r["phase"] == "start"]
    late = tmp_path / "late.json"
    late.write_text(json.dumps({"forwardCollision": {"timeToCollisionSeconds": 1.0}}))
    run([periphery, "run", warning_drive["drive"], "--out", tmp_path / "run", "--weights", warning_drive["weights"], "--events", late])
    _, lines = finished_sidecar(tmp_path / "run")
    starts = [r["ttc_s"] for line in lines for r in line.get("events", []) if r["phase"] == "start" and r["type"] == "forward_collision"]
    assert starts and all(ttc <= 1.0 for ttc in starts), starts
    assert any(ttc > 1.0 for ttc in default_starts), f"the default run's warnings start at {default_starts}: the test would prove little"
    for settings, field in (({"forwardCollision": {"timeToCollisionSeconds": -1}}, "forwardCollision.timeToCollisionSeconds"),
                            ({"forwardColision": {"timeToCollisionSeconds": 2}}, "forwardColision"),
                            ({"cutIn": {"confirmationFrames": 2.5}}, "cutIn.confirmationFrames")):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(settings))
        fails([periphery, "run", warning_drive["drive"], "--out", tmp_path / "bad", "--max-frames", "1", "--events", bad], None,
              str(bad), f"'{field}'")

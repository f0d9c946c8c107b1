"""The fleet table's columns from a sidecar (periphery.fleet.task.sidecar_stats and
periphery.fleet.table), without a cluster: test_fleet.py runs the whole fleet on Ray.

The sidecars are written here line by line in the format of docs/guides/events.md and
docs/reference/contract.md §13, so that every expected column is worked out by hand: the counts per
event type, the worst TTC and headway and the events per hour as the summary's `events` states them,
the detections and tracks from the frame lines. A sidecar from before events (no `events` in its
summary) gives null event columns; a malformed `events` is refused naming the file and the field.
"""

from __future__ import annotations

import json

import pytest

from periphery.fleet.table import COLUMNS, table_rows
from periphery.fleet.task import EVENT_COLUMNS, sidecar_stats

HEADER = {"schema": 1, "kind": "periphery-replay", "checkpoint": "test", "tracker": "safety40-tracker-v1"}
REPORT = {"type": "forward_collision", "phase": "start", "track": 4, "ttc_s": 2.75, "headway_s": 1.25, "range_m": 25.5}


def frame(index, raw, tracks, events=None):
    line = {"index": index, "pts": index / 10, "raw_count": raw, "track_count": len(tracks), "raw": [[0.9, 0] + [0.0] * 7] * raw,
            "tracks": [[track] + [0.0] * 16 for track in tracks]}
    if events:
        line["events"] = events
    return line


def write_sidecar(path, summary):
    lines = [HEADER, frame(0, 3, []), frame(1, 2, [4, 7], [REPORT]), frame(2, 1, [4], [dict(REPORT, phase="end")]),
             {"summary": summary}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def summary_with(events):
    summary = {"received": 3, "processed": 3, "dropped": 0, "corrupt": 0, "ended": "end-of-input", "seconds": 1.5}
    if events is not None:
        summary["events"] = events
    return summary


EVENTS = {
    "counts": {"forward_collision": 1, "close_following": 0, "cut_in": 2},
    # 3 events over the 0.2 s the frames spanned: 3 · 3600 / 0.2 = 54000 an hour.
    "per_hour": 54000.0, "min_ttc_s": 2.75, "min_headway_s": None, "duration_s": 0.2, "finished": [], "final_reports": [],
}


def test_event_columns_come_from_the_summary(tmp_path):
    stats = sidecar_stats(write_sidecar(tmp_path / "run.jsonl", summary_with(EVENTS)))
    assert {name: stats[name] for name in EVENT_COLUMNS} == {
        "forward_collisions": 1, "close_followings": 0, "cut_ins": 2, "min_ttc_s": 2.75, "min_headway_s": None,
        "events_per_hour": 54000.0,
    }
    assert (stats["frames"], stats["processed"], stats["detections"], stats["tracks_born"], stats["frame_lines"]) == (3, 3, 6, 2, 3)
    row = table_rows([{"input": "a", **stats}])[0]
    assert list(row) == [name for name, _ in COLUMNS]
    assert [row[name] for name in EVENT_COLUMNS] == [1, 0, 2, 2.75, None, 54000.0]


def test_a_sidecar_from_before_events_has_null_event_columns(tmp_path):
    stats = sidecar_stats(write_sidecar(tmp_path / "old.jsonl", summary_with(None)))
    assert all(stats[name] is None for name in EVENT_COLUMNS) and stats["detections"] == 6


@pytest.mark.parametrize("events, field", [
    ({**EVENTS, "counts": {"forward_collision": 1, "close_following": 0}}, "events.counts.cut_in"),
    ({**EVENTS, "counts": {"forward_collision": -1, "close_following": 0, "cut_in": 0}}, "events.counts.forward_collision"),
    ({**EVENTS, "min_ttc_s": "short"}, "events.min_ttc_s"),
    ({**EVENTS, "per_hour": True}, "events.per_hour"),
    ({key: value for key, value in EVENTS.items() if key != "counts"}, "events have no counts"),
])
def test_malformed_events_are_refused_naming_the_file_and_field(tmp_path, events, field):
    path = write_sidecar(tmp_path / "bad.jsonl", summary_with(events))
    with pytest.raises(ValueError) as caught:
        sidecar_stats(path)
    assert str(path) in str(caught.value) and field in str(caught.value)

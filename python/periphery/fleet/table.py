"""The fleet table: `DIR/fleet.jsonl` and `DIR/fleet.parquet`, one row per input, each file written
under a temporary name and renamed, so either is the whole table of one run or the previous one.

Columns (docs/guides/fleet.md): input (the id), path, kind (video or drive), calibration, status
(complete, failed, cancelled, dry-run), resumed (complete before this run started), frames (decoded),
processed, detections (raw detections over all frames), tracks_born (distinct confirmed tracks),
seconds (wall time of the attempt that completed, CLI start to end), node (Ray node id), host,
attempts (attempts this run; 0 when resumed), error (the message of the last failure); from the
sidecar summary's safety events (docs/guides/events.md): forward_collisions, close_followings and
cut_ins (counts), min_ttc_s and min_headway_s (the worst time to collision and headway, seconds) and
events_per_hour (every type, per hour of the input's frames), null where the run had none of the
figure or wrote no events.
"""

import json
import os
import uuid

COLUMNS = [
    ("input", "string"), ("path", "string"), ("kind", "string"), ("calibration", "string"), ("status", "string"),
    ("resumed", "bool"), ("frames", "int64"), ("processed", "int64"), ("detections", "int64"),
    ("tracks_born", "int64"), ("seconds", "float64"), ("node", "string"), ("host", "string"),
    ("attempts", "int64"), ("error", "string"),
    ("forward_collisions", "int64"), ("close_followings", "int64"), ("cut_ins", "int64"), ("min_ttc_s", "float64"),
    ("min_headway_s", "float64"), ("events_per_hour", "float64"),
]


def table_rows(rows):
    """The rows with exactly the table's columns, in order."""
    return [{name: row.get(name) for name, _ in COLUMNS} for row in rows]


def _replace(path, write):
    temporary = f"{path}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        write(temporary)
        os.rename(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_table(out, rows):
    """Writes DIR/fleet.jsonl and DIR/fleet.parquet (pyarrow) from `rows`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = table_rows(rows)

    def jsonl(path):
        with open(path, "w", encoding="utf-8") as file:
            for row in rows:
                file.write(json.dumps(row) + "\n")
            file.flush()
            os.fsync(file.fileno())

    types = {"string": pa.string(), "bool": pa.bool_(), "int64": pa.int64(), "float64": pa.float64()}
    schema = pa.schema([(name, types[kind]) for name, kind in COLUMNS])
    table = pa.Table.from_pylist(rows, schema=schema)
    _replace(os.path.join(out, "fleet.jsonl"), jsonl)
    _replace(os.path.join(out, "fleet.parquet"), lambda path: pq.write_table(table, path))


def read_table(out):
    """The rows of DIR/fleet.jsonl, or [] when there is none."""
    try:
        with open(os.path.join(out, "fleet.jsonl"), encoding="utf-8") as file:
            return [json.loads(line) for line in file if line.strip()]
    except OSError:
        return []

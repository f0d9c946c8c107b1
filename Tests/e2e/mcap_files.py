"""Readers of the MCAP files `periphery run --mcap` writes (docs/guides/mcap.md).

- `assert_mcap_finished` (standard library only): the file was finished, as a run that was stopped
  or failed must still leave it: the magic at both ends; a Footer (opcode 0x02, length 20) just
  before the closing magic that points at a summary section (summary_start > 0) and whose CRC, when
  not zero, matches; and a Statistics record (opcode 0x0B) in that section counting more than zero
  messages. Returns the message count.
- `verify_mcap` (the `mcap` package and `foxglove-schemas-protobuf`, imported when called): the
  `mcap` reader reads the file twice, through its summary and indexes (seeking reader) and record by
  record with CRC validation (non-seeking reader). Every message on a Foxglove channel is parsed
  into the matching Foxglove protobuf type, which rejects unknown field names and wrong types; every
  property of each channel's JSON Schema must be a field of that type. Every channel has one message
  per frame, at the frames' times, except that `/perception/events` may have one more at the last
  frame's time, its `end_of_run` message (docs/guides/mcap.md); a message of ours has exactly the
  properties its schema lists.
- `events_messages`: the `/perception/events` messages of a file in log-time order.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

MAGIC = b"\x89MCAP0\r\n"
FOOTER, STATISTICS = 0x02, 0x0B
TIME_TYPES = {"google.protobuf.Timestamp", "google.protobuf.Duration"}
EVENTS = "/perception/events"


def assert_mcap_finished(path) -> int:
    data = Path(path).read_bytes()
    assert len(data) >= 2 * len(MAGIC) + 29, f"{path}: {len(data)} bytes: too short for an MCAP file"
    assert data[:8] == MAGIC, f"{path}: does not start with the MCAP magic"
    assert data[-8:] == MAGIC, f"{path}: does not end with the MCAP magic (not finished)"
    footer = len(data) - 8 - 29
    opcode, length = struct.unpack_from("<BQ", data, footer)
    assert opcode == FOOTER and length == 20, f"{path}: no Footer before the closing magic (opcode 0x{opcode:02x}, length {length})"
    summary_start, summary_offset_start, crc = struct.unpack_from("<QQI", data, footer + 9)
    assert summary_start != 0, f"{path}: the Footer has no summary section (summary_start 0)"
    assert 8 <= summary_start <= footer and (summary_offset_start == 0 or summary_start <= summary_offset_start <= footer), (
        f"{path}: the Footer points outside the file (summary {summary_start}, offsets {summary_offset_start}, footer {footer})")
    assert crc == 0 or zlib.crc32(data[summary_start:footer + 9 + 16]) == crc, f"{path}: the summary section's CRC does not match"
    end = summary_offset_start or footer
    at, messages = summary_start, None
    while at < end:
        assert at + 9 <= end, f"{path}: a record header at {at} runs past the summary section"
        opcode, length = struct.unpack_from("<BQ", data, at)
        assert at + 9 + length <= end, f"{path}: record 0x{opcode:02x} at {at} runs past the summary section"
        if opcode == STATISTICS:
            (messages,) = struct.unpack_from("<Q", data, at + 9)
        at += 9 + length
    assert messages is not None, f"{path}: no Statistics record in the summary section"
    assert messages > 0, f"{path}: the Statistics record counts no messages"
    return messages


def foxglove_types() -> dict:
    """Topic → the Foxglove protobuf type of its messages."""
    from foxglove_schemas_protobuf.CameraCalibration_pb2 import CameraCalibration
    from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
    from foxglove_schemas_protobuf.FrameTransform_pb2 import FrameTransform
    from foxglove_schemas_protobuf.PosesInFrame_pb2 import PosesInFrame
    from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate

    return {
        "/camera/image": CompressedImage,
        "/camera/calibration": CameraCalibration,
        "/tf": FrameTransform,
        "/perception/scene": SceneUpdate,
        "/ego/path": PosesInFrame,
    }


def to_protobuf_json(value, descriptor):
    """Foxglove's JSON (times as {sec, nsec}) in protobuf's JSON mapping (times as strings)."""
    from google.protobuf.duration_pb2 import Duration
    from google.protobuf.timestamp_pb2 import Timestamp

    out = {}
    for key, item in value.items():
        field = descriptor.fields_by_name.get(key)
        if field is None:
            out[key] = item  # ParseDict reports it
            continue
        message = field.message_type
        if message is not None and message.full_name == "google.protobuf.Timestamp":
            out[key] = Timestamp(seconds=item["sec"], nanos=item["nsec"]).ToJsonString()
        elif message is not None and message.full_name == "google.protobuf.Duration":
            out[key] = Duration(seconds=item["sec"], nanos=item["nsec"]).ToJsonString()
        elif message is not None and isinstance(item, list):
            out[key] = [to_protobuf_json(element, message) for element in item]
        elif message is not None:
            out[key] = to_protobuf_json(item, message)
        else:
            out[key] = item
    return out


def parse_foxglove(topic, body, types) -> None:
    """BODY (a message's JSON) parsed into the Foxglove type of TOPIC; fails on any unknown field or wrong type."""
    from google.protobuf import json_format

    json_format.ParseDict(to_protobuf_json(body, types[topic].DESCRIPTOR), types[topic]())


def _schema_fields_exist(schema, descriptor, where):
    """Every property of a JSON Schema object is a field of the protobuf message."""
    for name, sub in schema.get("properties", {}).items():
        field = descriptor.fields_by_name.get(name)
        assert field is not None, f"{where}: schema property {name!r} is not a field of {descriptor.full_name}"
        inner = sub.get("items", sub) if sub.get("type") == "array" else sub
        if field.message_type is not None and field.message_type.full_name not in TIME_TYPES and inner.get("properties"):
            _schema_fields_exist(inner, field.message_type, f"{where}.{name}")


def verify_mcap(path, frames) -> str:
    """The checks above for a run that processed FRAMES frames; returns what was read."""
    from mcap.reader import NonSeekingReader, make_reader

    types = foxglove_types()
    with open(path, "rb") as f:
        records = sum(1 for _ in NonSeekingReader(f, validate_crcs=True).iter_messages())
    with open(path, "rb") as f:
        reader = make_reader(f, validate_crcs=True)
        summary = reader.get_summary()
        assert summary is not None and summary.statistics is not None, "no summary section"
        topics = {channel.topic: channel for channel in summary.channels.values()}
        assert set(topics) == set(types) | {"/perception/result", "/perception/stats", EVENTS}, sorted(topics)
        properties = {}
        for topic, channel in topics.items():
            count = summary.statistics.channel_message_counts.get(channel.id, 0)
            assert count == frames or (topic == EVENTS and count == frames + 1), f"{topic}: {count} messages for {frames} frames"
            schema = summary.schemas[channel.schema_id]
            properties[topic] = set(json.loads(schema.data).get("properties", {}))
            assert schema.encoding == "jsonschema" and channel.message_encoding == "json", topic
            if topic in types:
                assert schema.name == types[topic].DESCRIPTOR.full_name, (topic, schema.name)
                _schema_fields_exist(json.loads(schema.data), types[topic].DESCRIPTOR, schema.name)
        assert summary.chunk_indexes, "no chunk indexes"
        seen = {topic: [] for topic in topics}
        end_of_run = []
        for _, channel, message in reader.iter_messages(log_time_order=True):
            body = json.loads(message.data)
            if channel.topic == EVENTS and body.get("end_of_run"):
                end_of_run.append(message.log_time)
            else:
                seen[channel.topic].append(message.log_time)
            if channel.topic in types:
                parse_foxglove(channel.topic, body, types)
            else:
                assert body["index"] == len(seen[channel.topic]) - 1 or body.get("end_of_run"), body["index"]
                if channel.topic == "/perception/stats":
                    assert body["processed"] == body["index"] + 1 and body["dropped"] >= 0 and body["fps"] >= 0, body
                if channel.topic != "/perception/result":  # the sidecar's line: its keys are the contract's (sidecars.py)
                    assert set(body) == properties[channel.topic], (channel.topic, sorted(body), sorted(properties[channel.topic]))
    times = seen["/camera/image"]
    assert times == sorted(times) and all(seen[t] == times for t in seen), "channels disagree on frame times"
    assert end_of_run in ([], times[-1:]), f"end-of-run events at {end_of_run}, the last frame at {times[-1:]}"
    assert records == len(times) * len(topics) + len(end_of_run), (records, len(times))
    return f"{path}: {len(times)} frames on {len(topics)} channels, CRCs and indexes valid"


def events_messages(path) -> list:
    """The `/perception/events` messages of the MCAP at PATH, in log-time order (the end-of-run one last)."""
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        return [json.loads(message.data) for _, channel, message in make_reader(f).iter_messages(log_time_order=True)
                if channel.topic == EVENTS]

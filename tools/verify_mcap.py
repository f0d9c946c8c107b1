"""Checks a `periphery run --mcap` recording with independent readers (docs/guides/mcap.md).

The `mcap` package from PyPI reads the file twice: through its summary and indexes (seeking reader)
and record by record with CRC validation (non-seeking reader). Every message on a Foxglove channel is
parsed into the matching `foxglove-schemas-protobuf` type, which rejects unknown field names and
wrong types; every property of each channel's JSON Schema must be a field of that type.

Usage: verify_mcap.py RUN.mcap --frames N
"""

import argparse
import json
import sys

from google.protobuf import json_format
from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from mcap.reader import NonSeekingReader, make_reader
from foxglove_schemas_protobuf.CameraCalibration_pb2 import CameraCalibration
from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
from foxglove_schemas_protobuf.FrameTransform_pb2 import FrameTransform
from foxglove_schemas_protobuf.PosesInFrame_pb2 import PosesInFrame
from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate

TYPES = {
    "/camera/image": CompressedImage,
    "/camera/calibration": CameraCalibration,
    "/tf": FrameTransform,
    "/perception/scene": SceneUpdate,
    "/ego/path": PosesInFrame,
}
TIME_TYPES = {"google.protobuf.Timestamp", "google.protobuf.Duration"}


def to_protobuf_json(value, descriptor):
    """Foxglove's JSON (times as {sec, nsec}) in protobuf's JSON mapping (times as strings)."""
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


def schema_fields_exist(schema, descriptor, where):
    """Every property of a JSON Schema object is a field of the protobuf message."""
    for name, sub in schema.get("properties", {}).items():
        field = descriptor.fields_by_name.get(name)
        assert field is not None, f"{where}: schema property {name!r} is not a field of {descriptor.full_name}"
        inner = sub.get("items", sub) if sub.get("type") == "array" else sub
        if field.message_type is not None and field.message_type.full_name not in TIME_TYPES and inner.get("properties"):
            schema_fields_exist(inner, field.message_type, f"{where}.{name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mcap")
    parser.add_argument("--frames", type=int, required=True, help="frames the run processed")
    args = parser.parse_args()

    with open(args.mcap, "rb") as f:
        records = sum(1 for _ in NonSeekingReader(f, validate_crcs=True).iter_messages())
    with open(args.mcap, "rb") as f:
        reader = make_reader(f, validate_crcs=True)
        summary = reader.get_summary()
        assert summary is not None and summary.statistics is not None, "no summary section"
        topics = {channel.topic: channel for channel in summary.channels.values()}
        assert set(topics) == set(TYPES) | {"/perception/result", "/perception/stats"}, sorted(topics)
        for topic, channel in topics.items():
            count = summary.statistics.channel_message_counts.get(channel.id, 0)
            assert count == args.frames, f"{topic}: {count} messages for {args.frames} frames"
            schema = summary.schemas[channel.schema_id]
            assert schema.encoding == "jsonschema" and channel.message_encoding == "json", topic
            if topic in TYPES:
                assert schema.name == TYPES[topic].DESCRIPTOR.full_name, (topic, schema.name)
                schema_fields_exist(json.loads(schema.data), TYPES[topic].DESCRIPTOR, schema.name)
        assert summary.chunk_indexes, "no chunk indexes"
        seen = {topic: [] for topic in topics}
        for schema, channel, message in reader.iter_messages(log_time_order=True):
            body = json.loads(message.data)
            seen[channel.topic].append(message.log_time)
            if channel.topic in TYPES:
                kind = TYPES[channel.topic]
                json_format.ParseDict(to_protobuf_json(body, kind.DESCRIPTOR), kind())
            else:
                assert body["index"] == len(seen[channel.topic]) - 1, body["index"]
                if channel.topic == "/perception/stats":
                    assert body["processed"] == body["index"] + 1 and body["dropped"] >= 0 and body["fps"] >= 0, body
    times = seen["/camera/image"]
    assert times == sorted(times) and all(seen[t] == times for t in seen), "channels disagree on frame times"
    assert records == len(times) * len(topics), (records, len(times))
    print(f"{args.mcap}: {len(times)} frames on {len(topics)} channels, CRCs and indexes valid, "
          f"every Foxglove message parses as its protobuf type")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        sys.exit(f"verify_mcap: {error}")

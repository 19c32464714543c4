"""datetime ↔ protobuf Timestamp."""

from __future__ import annotations

from datetime import datetime

from google.protobuf import timestamp_pb2


def timestamp(value: datetime | None) -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    if value is not None:
        ts.FromDatetime(value)
    return ts

"""Python dicts ↔ `google.protobuf.Struct`, for document metadata and filter values.

Struct numbers are doubles: integers beyond 2**53 lose precision, and every number read back is
a float unless it is whole (then it comes back as an int, which is what was most likely sent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf import struct_pb2


def to_struct(values: Mapping[str, Any]) -> struct_pb2.Struct:
    """A Struct holding `values` (nested dicts, lists, str, int, float, bool, None)."""
    struct = struct_pb2.Struct()
    struct.update(dict(values))
    return struct


def to_value(value: Any) -> struct_pb2.Value:
    """One JSON value as a `google.protobuf.Value`."""
    message = struct_pb2.Value()
    if value is None:
        message.null_value = struct_pb2.NULL_VALUE
    elif isinstance(value, bool):
        message.bool_value = value
    elif isinstance(value, int | float):
        message.number_value = float(value)
    elif isinstance(value, str):
        message.string_value = value
    elif isinstance(value, Mapping):
        message.struct_value.CopyFrom(to_struct(value))
    elif isinstance(value, list | tuple):
        message.list_value.extend(list(value))
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")
    return message


def to_dict(struct: struct_pb2.Struct) -> dict[str, Any]:
    """The Struct as plain Python values; whole numbers come back as int."""
    return {key: from_value(value) for key, value in struct.fields.items()}


def from_value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return to_dict(value.struct_value)
    if kind == "list_value":
        return [from_value(item) for item in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        return int(number) if number.is_integer() and abs(number) <= 2**53 else number
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    return None


__all__ = ["from_value", "to_dict", "to_struct", "to_value"]

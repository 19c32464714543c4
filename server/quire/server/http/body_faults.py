"""The refusal of a request body that does not fit its message: one short sentence naming the
field (`config.parallel_tuple_cost`, `alternatives[1]`) or, for text that is not JSON, the
position, as INVALID_REQUEST with its field violation when a field is at fault.

protobuf-python's own messages describe its parser ("Failed to parse limit field: invalid
literal for int() with base 10") and name fields by their JSON names. Rather than read those
messages, the culprit is found by asking protobuf itself: each field of the object is parsed
alone, and a failing message field or list is searched one level further down. That costs a
parse per field, only on a body that failed already.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message_factory import GetMessageClass

from quire.server.contract.bounds import BOUNDS
from quire.server.failures import QuireError, invalid
from quire.v1 import errors_pb2

_INTEGER_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
_NUMBERS = {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT}
# Well-known types written in JSON as something other than an object of their fields: what
# the value must be, in words and as the bound.
_WELL_KNOWN = {
    "google.protobuf.Timestamp": ("an RFC 3339 timestamp", "timestamp"),
    "google.protobuf.Duration": ('a duration such as "1.5s"', "duration"),
    "google.protobuf.Struct": ("a JSON object", "object"),
    "google.protobuf.ListValue": ("a JSON array", "array"),
    "google.protobuf.Value": ("a JSON value", "value"),
}


def not_json(exc: ValueError) -> QuireError:
    """A body that is not JSON text: where the parser stopped."""
    if isinstance(exc, json.JSONDecodeError):
        where = f"line {exc.lineno} column {exc.colno}"
        return QuireError(
            errors_pb2.ERROR_CODE_INVALID_REQUEST, f"the body is not JSON: {exc.msg} at {where}"
        )
    return QuireError(errors_pb2.ERROR_CODE_INVALID_REQUEST, "the body is not UTF-8 JSON text")


def too_deep() -> QuireError:
    return QuireError(errors_pb2.ERROR_CODE_INVALID_REQUEST, "the body is nested too deeply")


def not_binary(descriptor: Descriptor) -> QuireError:
    """A protobuf binary body that does not decode as its message."""
    return QuireError(
        errors_pb2.ERROR_CODE_INVALID_REQUEST,
        f"the body is not a {descriptor.full_name} in protobuf binary",
    )


def not_an_object(descriptor: Descriptor) -> QuireError:
    return QuireError(
        errors_pb2.ERROR_CODE_INVALID_REQUEST,
        f"the body must be a JSON object (a {descriptor.full_name})",
    )


def misfit(descriptor: Descriptor, value: dict[str, Any]) -> QuireError:
    """The refusal of `value`, a JSON object protobuf could not read as a `descriptor`."""
    found = _fault(descriptor, value, "")
    if found is None:  # every field reads alone; together they do not (a oneof set twice)
        return QuireError(
            errors_pb2.ERROR_CODE_INVALID_REQUEST,
            f"the body is not a valid {descriptor.full_name} (a oneof given twice?)",
        )
    return found


def _reads(descriptor: Descriptor, value: dict[str, Any]) -> bool:
    try:
        json_format.ParseDict(value, GetMessageClass(descriptor)(), ignore_unknown_fields=False)
    except Exception:  # protobuf raises ParseError, but also TypeError, ValueError, ...
        return False
    return True


def _fault(descriptor: Descriptor, value: dict[str, Any], prefix: str) -> QuireError | None:
    by_name = {f.json_name: f for f in descriptor.fields} | {f.name: f for f in descriptor.fields}
    for key, item in value.items():
        field = by_name.get(key)
        if field is None:
            return invalid(f"{prefix}{key}", f"not a field of {descriptor.full_name}")
        if _reads(descriptor, {key: item}):
            continue
        path = f"{prefix}{field.name}"
        inner = field.message_type
        is_map = inner is not None and inner.GetOptions().map_entry
        if field.is_repeated and not is_map and isinstance(item, list):
            for index, element in enumerate(item):
                if not _reads(descriptor, {key: [element]}):
                    return _element_fault(field, element, f"{path}[{index}]")
        elif inner is not None and not is_map and inner.full_name not in _WELL_KNOWN:
            nested = _fault(inner, item, f"{path}.") if isinstance(item, dict) else None
            if nested is not None:
                return nested
        if field.is_repeated and not isinstance(item, list if not is_map else dict):
            return invalid(path, "must be a JSON object" if is_map else "must be a JSON array")
        return _element_fault(field, item, path)
    return None


def _element_fault(field: FieldDescriptor, value: Any, path: str) -> QuireError:
    """The refusal of one value of `field` (an element, for a repeated field)."""
    if field.type in _INTEGER_RANGES:
        owner = field.containing_type.full_name if field.containing_type else ""
        bounds = BOUNDS.get(owner, {}).get(field.name)
        low, high = _INTEGER_RANGES[field.type]
        if bounds is not None and bounds.min is not None and bounds.max is not None:
            low, high = bounds.min, bounds.max
        return invalid(path, f"must be an integer {low}–{high}", f"{low}–{high}")
    if field.type in _NUMBERS:
        return invalid(path, "must be a number", "number")
    if field.type == FieldDescriptor.TYPE_BOOL:
        return invalid(path, "must be true or false", "boolean")
    if field.type == FieldDescriptor.TYPE_STRING:
        if isinstance(value, str):
            return invalid(path, "must be valid Unicode text (no lone surrogate)", "string")
        return invalid(path, "must be a JSON string", "string")
    if field.type == FieldDescriptor.TYPE_BYTES:
        return invalid(path, "must be base64 text", "base64")
    if field.type == FieldDescriptor.TYPE_ENUM:
        names = ", ".join(v.name for v in field.enum_type.values) if field.enum_type else ""
        return invalid(path, f"must be one of: {names}", names)
    kind = field.message_type.full_name if field.message_type else ""
    expected, bound = _WELL_KNOWN.get(kind, ("a JSON object", "object"))
    return invalid(path, f"must be {expected}", bound)

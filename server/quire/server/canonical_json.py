"""The canonical JSON of a result: what output budgets count.

Protobuf's JSON mapping with proto field names, every field present, keys sorted, compact
separators and UTF-8 (not \\u-escaped). Budgets are in bytes of this encoding, so an agent
that receives the JSON gets at most that many bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from json.encoder import encode_basestring  # what json.dumps quotes with, ensure_ascii=False
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from quire.client.proto_json import canonical_dict

Sizer = Callable[[Any], int]
# (attribute, bytes of `"key":`, size of one value, repeated, has presence)
SizePlan = tuple[tuple[str, int, Sizer, bool, bool], ...]


def as_dict(message: Message) -> dict[str, Any]:
    """Protobuf's JSON mapping with those options (json_format's result, made faster)."""
    value: dict[str, Any] = canonical_dict(message)
    return value


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def size(message: Message) -> int:
    """`len(dumps(as_dict(message)))`, exactly. Every search sizes each hit for its budget, so
    a message whose fields are all strings, numbers, booleans or such messages is sized from
    its field values without building the dict or the text; any other is encoded."""
    plan = _plan(message.DESCRIPTOR)
    if plan is None:
        return len(dumps(as_dict(message)))
    return _sized(message, plan)


def _sized(message: Any, plan: SizePlan) -> int:
    total = 1  # the braces, less the comma the first member does not need
    for attribute, key, value_size, repeated, presence in plan:
        if presence and not message.HasField(attribute):
            continue
        value = getattr(message, attribute)
        if repeated:
            total += key + 2 + sum(map(value_size, value)) + max(len(value) - 1, 0) + 1
        else:
            total += key + value_size(value) + 1
    return total if total > 1 else 2  # "{}"


def _string(value: str) -> int:
    return len(encode_basestring(value).encode())


def _double(value: float) -> int:
    if math.isfinite(value):
        return len(repr(value))  # json.dumps writes float.__repr__
    return 5 if math.isnan(value) else (10 if value > 0 else 11)  # "NaN", "Infinity", "-Infinity"


_SCALARS: dict[int, Sizer] = {
    FieldDescriptor.CPPTYPE_BOOL: lambda value: 4 if value else 5,
    FieldDescriptor.CPPTYPE_INT32: lambda value: len(str(value)),
    FieldDescriptor.CPPTYPE_UINT32: lambda value: len(str(value)),
    # 64-bit integers are JSON strings in protobuf's mapping.
    FieldDescriptor.CPPTYPE_INT64: lambda value: len(str(value)) + 2,
    FieldDescriptor.CPPTYPE_UINT64: lambda value: len(str(value)) + 2,
    FieldDescriptor.CPPTYPE_DOUBLE: _double,
}

_plans: dict[str, SizePlan | None] = {}


def _plan(descriptor: Any) -> SizePlan | None:
    """The size plan of a message type, made once; None when a field is of a kind sized only
    by encoding (enums, floats, bytes, maps, the well-known types)."""
    name = descriptor.full_name
    if name not in _plans:
        _plans[name] = None  # a recursive type is encoded
        _plans[name] = _make_plan(descriptor)
    return _plans[name]


def _make_plan(descriptor: Descriptor) -> SizePlan | None:
    if descriptor.full_name.startswith("google.protobuf.") or descriptor.extension_ranges:
        return None  # the well-known types have JSON forms of their own
    plan = []
    for field in descriptor.fields:
        value_size = _value_size(field)
        if value_size is None:
            return None
        key = len(encode_basestring(field.name).encode()) + 1
        plan.append((field.name, key, value_size, field.is_repeated, field.has_presence))
    return tuple(plan)


def _value_size(field: FieldDescriptor) -> Sizer | None:
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        return _string if field.type != FieldDescriptor.TYPE_BYTES else None
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        nested: Any = field.message_type
        if nested.GetOptions().map_entry:
            return None
        plan = _plan(nested)
        if plan is None:
            return None
        return lambda value: _sized(value, plan)
    return _SCALARS.get(cpp)

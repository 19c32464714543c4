"""Protobuf's JSON mapping with proto field names and every field present, made quickly.

`canonical_dict(message)` returns exactly what
`json_format.MessageToDict(message, preserving_proto_field_name=True,
always_print_fields_with_no_presence=True)` returns, for the messages of quire.v1: the tool
results (tool_result.py) and the server's output budgets count bytes of this form, on every
search and read. `json_format` walks each message by reflection, field by field, in Python;
here each message type's fields are read once into a plan (name, how the value converts,
whether the field has presence) and a message converts by running its plan. What a plan does
not cover (maps, extensions, `float`, closed enums, the well-known types' own JSON forms) is
left to `json_format` for that message or field, so the result stays the same.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

Convert = Callable[[Any], Any]
# (field name, conversion of one value or None when the value is kept as it is, repeated,
# has presence)
Plan = tuple[tuple[str, Convert | None, bool, bool], ...]

_plans: dict[str, Plan | None] = {}
_INT64 = (
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT64,
)


def _slow(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def _double(value: float) -> Any:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _enum(field: FieldDescriptor) -> Convert | None:
    enum_type: Any = field.enum_type
    if enum_type.is_closed or enum_type.full_name == "google.protobuf.NullValue":
        return None
    names = {}
    for value in enum_type.values:
        if value.GetOptions().ListFields():  # a json_name option: json_format's business
            return None
        names[value.number] = value.name

    def name(number: int) -> Any:
        return names.get(number, number)

    return name


def _conversion(field: FieldDescriptor) -> tuple[bool, Convert | None]:
    """(covered, conversion): whether the plan can convert this field, and how."""
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        message_type: Any = field.message_type
        if message_type.GetOptions().map_entry:
            return False, None
        return True, canonical_dict
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        convert = _enum(field)
        return convert is not None, convert
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        if field.type == FieldDescriptor.TYPE_BYTES:
            return True, lambda value: base64.b64encode(value).decode("utf-8")
        return True, None
    if cpp in _INT64:
        return True, str
    if cpp == FieldDescriptor.CPPTYPE_DOUBLE:
        return True, _double
    if cpp == FieldDescriptor.CPPTYPE_FLOAT:  # shortest float repr: json_format's
        return False, None
    return True, None  # bool, int32, uint32: the value itself


def _plan(descriptor: Any) -> Plan | None:
    full_name = descriptor.full_name
    if full_name.startswith("google.protobuf.") or descriptor.extension_ranges:
        return None  # the well-known types have their own JSON forms
    plan = []
    for field in descriptor.fields:
        covered, convert = _conversion(field)
        if not covered:
            return None
        plan.append((field.name, convert, field.is_repeated, field.has_presence))
    return tuple(plan)


def canonical_dict(message: Message) -> Any:
    """`message` as protobuf's JSON mapping: proto field names, fields without presence always
    printed (the same value as `json_format.MessageToDict` with those two options)."""
    descriptor = message.DESCRIPTOR
    key = descriptor.full_name
    if key in _plans:
        plan = _plans[key]
    else:
        plan = _plans[key] = _plan(descriptor)
    if plan is None:
        return _slow(message)
    out: dict[str, Any] = {}
    for name, convert, repeated, presence in plan:
        if presence and not message.HasField(name):
            continue
        value = getattr(message, name)
        if repeated:
            out[name] = list(value) if convert is None else [convert(v) for v in value]
        else:
            out[name] = value if convert is None else convert(value)
    return out

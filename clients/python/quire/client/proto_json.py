"""Protobuf's JSON mapping of quire.v1 messages, made quickly.

`canonical_dict(message)` returns exactly what
`json_format.MessageToDict(message, preserving_proto_field_name=True,
always_print_fields_with_no_presence=True)` returns: the tool results (tool_result.py) and the
server's output budgets count bytes of this form, on every search and read. `json_dict` returns
what `json_format.MessageToDict(message)` does (the Connect listener's JSON responses).
`json_format` walks each message by reflection, field by field, in Python; here each message
type's fields are read once into a plan (key, how the value converts, whether the field has
presence) and a message converts by running its plan. What a plan does not cover (maps,
extensions, `float`, closed enums, enum values with JSON names, the well-known types' own
JSON forms) is left to `json_format` for that message, so the result stays the same
(tests/unit/test_proto_json.py compares both on every message of the contract).
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
# (attribute, JSON key, conversion of one value or None when the value is kept as it is,
# repeated, has presence)
Plan = tuple[tuple[str, str, Convert | None, bool, bool], ...]

_INT64 = (
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT64,
)


class _Form:
    """One JSON form: the canonical one (proto field names, fields without presence always
    printed) or protobuf's default one (lowerCamelCase names, fields at their default left
    out), each with its plans by message type."""

    def __init__(self, canonical: bool) -> None:
        self.canonical = canonical
        self.plans: dict[str, Plan | None] = {}

    def slow(self, message: Message) -> Any:
        if self.canonical:
            return json_format.MessageToDict(
                message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
            )
        return json_format.MessageToDict(message)

    def plan(self, descriptor: Any) -> Plan | None:
        full_name = descriptor.full_name
        if full_name.startswith("google.protobuf.") or descriptor.extension_ranges:
            return None  # the well-known types have their own JSON forms
        plan = []
        # json_format lists the fields set in field-number order (ListFields); the canonical
        # form sorts its keys anyway.
        for field in sorted(descriptor.fields, key=lambda f: f.number):
            covered, convert = _conversion(field, self)
            if not covered:
                return None
            key = field.name if self.canonical else field.json_name
            plan.append((field.name, key, convert, field.is_repeated, field.has_presence))
        return tuple(plan)

    def convert(self, message: Message) -> Any:
        descriptor = message.DESCRIPTOR
        name = descriptor.full_name
        if name in self.plans:
            plan = self.plans[name]
        else:
            plan = self.plans[name] = self.plan(descriptor)
        if plan is None:
            return self.slow(message)
        out: dict[str, Any] = {}
        every = self.canonical
        for attribute, key, convert, repeated, presence in plan:
            if presence:
                if not message.HasField(attribute):
                    continue
                value = getattr(message, attribute)
            else:
                value = getattr(message, attribute)
                if not every and _default(value):
                    continue
            if repeated:
                out[key] = list(value) if convert is None else [convert(v) for v in value]
            else:
                out[key] = value if convert is None else convert(value)
        return out


def _default(value: Any) -> bool:
    """Whether a field without presence holds its default (json_format leaves it out): empty,
    zero or false; -0.0 is not the default (its bits differ, and protobuf lists it)."""
    if value:
        return False
    return not (isinstance(value, float) and math.copysign(1.0, value) < 0)


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


def _conversion(field: FieldDescriptor, form: _Form) -> tuple[bool, Convert | None]:
    """(covered, conversion): whether a plan can convert this field, and how."""
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        message_type: Any = field.message_type
        if message_type.GetOptions().map_entry:
            return False, None
        return True, form.convert
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


_CANONICAL = _Form(canonical=True)
_DEFAULT = _Form(canonical=False)


def canonical_dict(message: Message) -> Any:
    """`message` as protobuf's JSON mapping: proto field names, fields without presence always
    printed (the same value as `json_format.MessageToDict` with those two options)."""
    return _CANONICAL.convert(message)


def json_dict(message: Message) -> Any:
    """`message` as `json_format.MessageToDict(message)` gives it: lowerCamelCase names,
    fields at their default left out, in field-number order."""
    return _DEFAULT.convert(message)

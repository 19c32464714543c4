"""`proto_json` must give exactly json_format's results for every message of quire.v1, empty
and filled field by field: the canonical form (proto names, fields without presence printed)
and the default one, byte for byte as the Connect listener writes it."""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

import quire.v1
from quire.client.proto_json import canonical_dict, json_dict
from quire.server.http.codecs import StrictCompactJson

STRINGS = ["", 'quo"te \\ é 漢 🙂 \n\t\x01', "plain"]
NUMBERS = [0, 1, 7, 2**31 - 1]
DOUBLES = [0.0, -0.0, 1.0, -2.5, 1e-7, 3.141592653589793, float("inf"), float("nan")]


def message_classes() -> list[type[Message]]:
    found: dict[str, type[Message]] = {}

    def walk(descriptor: Any, module: Any) -> None:
        cls = getattr(module, descriptor.name, None)
        if cls is None:
            return
        found[descriptor.full_name] = cls
        for nested in descriptor.nested_types:
            if not nested.GetOptions().map_entry:
                walk(nested, cls)

    for info in pkgutil.iter_modules(quire.v1.__path__):
        if not info.name.endswith("_pb2"):
            continue
        module = importlib.import_module(f"quire.v1.{info.name}")
        for descriptor in module.DESCRIPTOR.message_types_by_name.values():
            walk(descriptor, module)
    return [found[name] for name in sorted(found)]


def value_for(field: FieldDescriptor, seed: int) -> Any:
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values]  # type: ignore[union-attr]
        return numbers[seed % len(numbers)]
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        if field.type == FieldDescriptor.TYPE_BYTES:
            return STRINGS[seed % 3].encode()
        return STRINGS[seed % 3]
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return seed % 2 == 1
    if cpp in (FieldDescriptor.CPPTYPE_DOUBLE, FieldDescriptor.CPPTYPE_FLOAT):
        return DOUBLES[seed % len(DOUBLES)]
    if cpp in (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64):
        return 2**40 + seed
    return NUMBERS[seed % len(NUMBERS)]


def fill(message: Message, seed: int, depth: int = 0) -> None:
    for i, field in enumerate(message.DESCRIPTOR.fields):
        if (seed + i) % 5 == 0:
            continue  # some fields left unset
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            continue  # no maps in quire.v1 results; json_format covers them
        if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            if depth >= 3 or field.message_type.full_name.startswith("google.protobuf."):  # type: ignore[union-attr]
                if field.message_type.full_name == "google.protobuf.Timestamp":  # type: ignore[union-attr]
                    getattr(message, field.name).FromSeconds(1_700_000_000 + seed)
                continue
            if field.is_repeated:
                for k in range(2):
                    fill(getattr(message, field.name).add(), seed + k + 1, depth + 1)
            else:
                fill(getattr(message, field.name), seed + 1, depth + 1)
            continue
        if field.is_repeated:
            getattr(message, field.name).extend([value_for(field, seed + k) for k in range(2)])
        else:
            setattr(message, field.name, value_for(field, seed + i))


def slow(message: Message) -> Any:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


CLASSES = message_classes()


def test_every_message_of_the_contract_is_covered() -> None:
    assert len(CLASSES) > 50


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.DESCRIPTOR.full_name)
def test_canonical_dict_equals_json_format(cls: type[Message]) -> None:
    for seed in range(8):
        message = cls()
        if seed:
            fill(message, seed)
        fast, expected = canonical_dict(message), slow(message)
        # Compared as JSON text (sorted keys): NaN is the string "NaN" in both.
        assert json.dumps(fast, sort_keys=True) == json.dumps(expected, sort_keys=True)
        # The default form in json_format's key order: the Connect response bytes.
        connect = StrictCompactJson().encode(message)
        assert connect == json_format.MessageToJson(message, indent=None).encode()
        assert json.dumps(json_dict(message)) == json.dumps(json_format.MessageToDict(message))

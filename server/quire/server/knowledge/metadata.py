"""Documents' user metadata: a bounded JSON object (docs/knowledge.md, "Metadata").

`from_struct` turns the request's google.protobuf.Struct into plain Python values and checks
every bound, naming the offending path ("metadata.customer.tier", "metadata.tags[3]");
`merge_patch` applies an RFC 7396 patch for UpdateDocumentMetadata, whose result goes through
`checked` again. The stored form is `Metadata.json`: compact JSON with sorted keys, which is
also what the 16 KiB bound counts.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from google.protobuf import struct_pb2

from quire.server.failures import invalid

MAX_BYTES = 16 * 1024
MAX_DEPTH = 4
MAX_KEYS = 128
MAX_STRING_CHARS = 4096
MAX_LIST_ITEMS = 256
KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
KEY_BOUND = "1–64 characters of [A-Za-z0-9_-], not starting with _"
# Struct numbers are doubles; integral ones up to 2**53 are written as JSON integers.
EXACT_INTEGERS = 2**53

JsonValue = Any  # None | bool | int | float | str | list[JsonValue] | dict[str, JsonValue]


@dataclass(frozen=True)
class Metadata:
    """A checked metadata object and its canonical JSON (what is stored and compared)."""

    value: dict[str, JsonValue]
    json: str


def canonical_json(value: dict[str, JsonValue]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def from_struct(struct: struct_pb2.Struct, field: str = "metadata") -> Metadata:
    """The request's metadata as checked Python values; INVALID_REQUEST on any bound."""
    return checked(_struct_value(struct, field), field)


def checked(value: dict[str, JsonValue], field: str = "metadata") -> Metadata:
    _check(value, field, 1)
    text = canonical_json(value)
    size = len(text.encode())
    if size > MAX_BYTES:
        raise invalid(
            field, f"at most {MAX_BYTES} bytes as compact JSON (got {size})", f"{MAX_BYTES} bytes"
        )
    return Metadata(value, text)


def parse_stored(text: str | None) -> dict[str, JsonValue]:
    """A stored metadata column (jsonb as text) as Python values."""
    value = json.loads(text) if text else {}
    return value if isinstance(value, dict) else {}


def to_struct(value: dict[str, JsonValue]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(value)
    return struct


def merge_patch(target: JsonValue, patch: JsonValue) -> JsonValue:
    """RFC 7396: an object patch merges key by key (null removes the key), anything else
    replaces the target."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, change in patch.items():
        if change is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), change)
    return merged


def _struct_value(struct: struct_pb2.Struct, path: str) -> dict[str, JsonValue]:
    return {key: _value(item, _child(path, key)) for key, item in struct.fields.items()}


def _value(item: struct_pb2.Value, path: str) -> JsonValue:
    kind = item.WhichOneof("kind")
    if kind == "struct_value":
        return _struct_value(item.struct_value, path)
    if kind == "list_value":
        return [_value(v, f"{path}[{i}]") for i, v in enumerate(item.list_value.values)]
    if kind == "number_value":
        number = item.number_value
        if math.isfinite(number) and number.is_integer() and abs(number) <= EXACT_INTEGERS:
            return int(number)
        return number
    if kind == "string_value":
        return item.string_value
    if kind == "bool_value":
        return item.bool_value
    return None  # null_value, or a Value with nothing set (JSON null)


def _child(path: str, key: str) -> str:
    return f"{path}.{key}"


def _check(value: JsonValue, path: str, depth: int) -> None:
    if isinstance(value, dict | list) and depth > MAX_DEPTH:
        raise invalid(
            path,
            f"at most {MAX_DEPTH} levels of objects and lists (the metadata object is level 1)",
            f"{MAX_DEPTH} levels",
        )
    if isinstance(value, dict):
        if len(value) > MAX_KEYS:
            raise invalid(
                path, f"at most {MAX_KEYS} keys per object (got {len(value)})", f"{MAX_KEYS} keys"
            )
        for key, item in value.items():
            if not isinstance(key, str) or not KEY.fullmatch(key) or key.startswith("_"):
                raise invalid(_child(path, str(key)), f"key must be {KEY_BOUND}", KEY_BOUND)
            _check(item, _child(path, key), depth + 1)
    elif isinstance(value, list):
        if len(value) > MAX_LIST_ITEMS:
            raise invalid(
                path,
                f"at most {MAX_LIST_ITEMS} items per list (got {len(value)})",
                f"{MAX_LIST_ITEMS} items",
            )
        for i, item in enumerate(value):
            _check(item, f"{path}[{i}]", depth + 1)
    elif isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            raise invalid(
                path,
                f"strings are at most {MAX_STRING_CHARS} characters (got {len(value)})",
                f"{MAX_STRING_CHARS} characters",
            )
        if "\x00" in value:  # PostgreSQL's jsonb cannot hold U+0000
            raise invalid(path, "must not contain NUL", "no U+0000")
    elif isinstance(value, float) and not math.isfinite(value):
        raise invalid(path, "numbers must be finite (no NaN or Infinity)", "finite numbers")
    elif value is not None and not isinstance(value, bool | int | float):
        raise invalid(path, "must be a JSON value", "JSON")

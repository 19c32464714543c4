"""The tool schemas generated from the proto accept and refuse what the hand-written ones did.

`HAND_WRITTEN` is the last hand-kept version of `quire.server.pages.tools` (before the schemas
were generated from the contract). Every argument is tried on edge values, one at a time,
against both. The only values judged differently are ones the old schemas let through and the
server refuses anyway (INVALID_REQUEST), now refused by the schema too: they are listed in
`TIGHTENED` with the bound that refuses them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError, validators

from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError
from quire.server.pages.tools import ToolCaller, tool_definitions
from quire.server.validation import name_field

_NAMESPACE = {"type": "string", "description": "The namespace to use.", "minLength": 1}
HAND_WRITTEN: dict[str, dict[str, Any]] = {
    "search_pages": {
        "type": "object",
        "properties": {
            "namespace": _NAMESPACE,
            "query": {"type": "string", "minLength": 1, "maxLength": 500},
            "alternatives": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": 500},
                "maxItems": 3,
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 10},
        },
        "required": ["namespace", "query"],
        "additionalProperties": False,
    },
    "read_page": {
        "type": "object",
        "properties": {
            "namespace": _NAMESPACE,
            "path": {"type": "string", "pattern": "^/", "maxLength": 1024},
            "revision": {"type": "string"},
            "offset": {"type": "integer", "minimum": 0, "default": 0},
            "max_chars": {"type": "integer", "minimum": 1, "maximum": 24000, "default": 12000},
        },
        "required": ["namespace", "path"],
        "additionalProperties": False,
    },
    "query_pages": {
        "type": "object",
        "properties": {
            "namespace": _NAMESPACE,
            "command": {"type": "string", "minLength": 1, "maxLength": 1024},
        },
        "required": ["namespace", "command"],
        "additionalProperties": False,
    },
    "search_knowledge": {
        "type": "object",
        "properties": {
            "agent_id": {"type": "string", "minLength": 1, "maxLength": 128},
            "query": {"type": "string", "maxLength": 500},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 8},
        },
        "required": ["agent_id", "query"],
        "additionalProperties": False,
    },
    "read_document": {
        "type": "object",
        "properties": {
            "agent_id": {"type": "string", "minLength": 1, "maxLength": 128},
            "document_id": {"type": "string", "minLength": 1},
            "offset": {"type": "integer", "minimum": 0, "default": 0},
            "max_chars": {"type": "integer", "minimum": 1, "maximum": 4000, "default": 4000},
        },
        "required": ["agent_id", "document_id"],
        "additionalProperties": False,
    },
}


def _ecmascript_pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    # JSON Schema patterns are ECMAScript, where `$` is the end of the string; jsonschema uses
    # Python's `re`, where `$` also matches before a final newline ("a\n" would pass).
    if isinstance(instance, str):
        python = pattern[:-1] + r"\Z" if pattern.endswith("$") else pattern
        if not re.search(python, instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")


Validator = validators.extend(Draft202012Validator, {"pattern": _ecmascript_pattern})

# A valid call of each tool, the base every edge value is tried on.
VALID: dict[str, dict[str, Any]] = {
    "search_pages": {"namespace": "docs", "query": "dependency injection"},
    "read_page": {"namespace": "docs", "path": "/tutorial/index.md"},
    "query_pages": {"namespace": "docs", "command": "ls /"},
    "search_knowledge": {"agent_id": "agent:support", "query": "refund policy"},
    "read_document": {"agent_id": "agent:support", "document_id": "0b7c…"},
}

_LENGTHS = (0, 1, 127, 128, 129, 255, 256, 499, 500, 501, 1023, 1024, 1025, 4000, 24001)
_STRINGS = [
    "",
    " ",
    "/",
    "a",
    "/a",
    "a b",
    "a\n",
    "a/b",
    "é",
    "docs.v2-x_1",
    "agent:support",
    *("a" * n for n in _LENGTHS),
    *("/" + "a" * (n - 1) for n in _LENGTHS if n),
]
_INTEGERS = [-1, 0, 1, 3, 8, 10, 19, 20, 21, 49, 50, 51, 3999, 4000, 4001, 23999, 24000, 24001]
_INTEGERS += [2**31 - 1, 2**31, 2**63]
_WRONG_TYPES = [None, True, 1.5, "10", 10, [], {}]


def _edge_values(schema: dict[str, Any]) -> Iterator[Any]:
    yield from _WRONG_TYPES
    kind = schema.get("type")
    if kind == "string":
        yield from _STRINGS
    elif kind == "integer":
        yield from _INTEGERS
    elif kind == "array":
        for n in (0, 1, 3, 4):
            yield ["x"] * n
        for item in _STRINGS:
            yield [item]


# The hand-written schemas allowed search_knowledge's `limit` up to the contract's 50: compare
# with the definitions for an organisation whose policy was raised that far.
RAISED = ToolCaller(search_limit=50)


def _schemas() -> dict[str, dict[str, Any]]:
    return {t.name: json.loads(t.input_schema_json) for t in tool_definitions(RAISED)}


def _differences() -> set[tuple[str, str, str]]:
    """(tool, argument, repr(value)) of every edge value the two schemas judge differently."""
    generated = _schemas()
    out = set()
    for tool, old_schema in HAND_WRITTEN.items():
        old = Validator(old_schema)
        new = Validator(generated[tool])
        cases: list[tuple[str, dict[str, Any]]] = [
            ("", VALID[tool]),
            ("extra", {**VALID[tool], "x": 1}),
        ]
        for argument, schema in old_schema["properties"].items():
            without = {k: v for k, v in VALID[tool].items() if k != argument}
            cases.append((argument, without))
            for value in _edge_values(schema):
                cases.append((argument + "=" + repr(value), {**VALID[tool], argument: value}))
        for label, call in cases:
            if old.is_valid(call) != new.is_valid(call):
                assert old.is_valid(call), f"{tool}: the generated schema accepts {label}"
                out.add((tool, label.split("=", 1)[0], label.split("=", 1)[-1]))
    return out


def _tightened() -> set[tuple[str, str, str]]:
    """What the generated schemas refuse beyond the hand-written ones, and why."""
    namespaces = [s for s in _STRINGS if s]  # the hand-written schemas refused only ""

    bad_names = set()
    for value in namespaces:
        try:
            name_field("namespace", value)
        except QuireError:
            bad_names.add(repr(value))
    out = set()
    for tool in ("search_pages", "read_page", "query_pages"):
        out |= {(tool, "namespace", v) for v in bad_names}
    longest_revision = contract_bounds.ReadPageRequest.revision.max_chars
    assert longest_revision is not None
    out |= {("read_page", "revision", repr(s)) for s in _STRINGS if len(s) > longest_revision}
    for tool, bounds in (
        ("read_page", contract_bounds.ReadPageRequest.offset),
        ("read_document", contract_bounds.ReadDocumentRequest.offset),
    ):
        assert bounds.max is not None
        out |= {(tool, "offset", repr(n)) for n in _INTEGERS if n > bounds.max}
    return out


def test_generated_schemas_judge_edge_values_as_the_hand_written_ones() -> None:
    assert _differences() == _tightened()


def test_every_tightening_is_a_value_the_server_refuses() -> None:
    # Namespaces: the schema's pattern and length are the server's own check.
    for _tool, argument, value in _tightened():
        if argument == "namespace":
            with pytest.raises(QuireError):
                name_field("namespace", eval(value))  # a repr of a str from _STRINGS


def test_tools_are_listed_in_the_order_they_were() -> None:
    # list_pages and grep_pages came later, in their RPCs' places.
    names = [t.name for t in tool_definitions(RAISED) if t.name in HAND_WRITTEN]
    assert names == list(HAND_WRITTEN)


def test_schemas_are_draft_2020_12_objects_without_extra_arguments() -> None:
    for tool, schema in _schemas().items():
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["additionalProperties"] is False
        if tool not in HAND_WRITTEN:
            continue
        assert schema["required"] == HAND_WRITTEN[tool]["required"]
        assert list(schema["properties"]) == list(HAND_WRITTEN[tool]["properties"])


def test_every_argument_is_described_for_a_model() -> None:
    for tool, schema in _schemas().items():
        for argument, prop in schema["properties"].items():
            assert prop.get("description"), f"{tool}.{argument} has no description"
            # The first paragraph of the field comment only: no wire details for a model.
            assert "collection_ids" not in prop["description"]


def test_defaults_are_the_hand_written_ones() -> None:
    generated = _schemas()
    for tool, old_schema in HAND_WRITTEN.items():
        for argument, prop in old_schema["properties"].items():
            assert generated[tool]["properties"][argument].get("default") == prop.get("default")

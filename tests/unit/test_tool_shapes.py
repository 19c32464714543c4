"""DescribeTools' shapes: effective bounds, bindings, and the MCP, OpenAI strict and Anthropic
forms of every tool; the client's runner checks a model's arguments the same way."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types
import pytest
from jsonschema import Draft202012Validator

from quire.client.exceptions import InvalidRequest
from quire.client.tools import TOOL_METHODS, ToolRunner, checked_arguments, plain
from quire.server.pages.tool_schemas import TOOLS
from quire.server.pages.tools import ToolCaller, tool_definitions
from quire.v1 import pages_pb2

DEFAULT = ToolCaller(search_limit=8)
# Keywords OpenAI's strict mode refuses on a property.
REFUSED_BY_STRICT = {
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "default",
    "maxItems",
}


def by_name(caller: ToolCaller) -> dict[str, pages_pb2.ToolDefinition]:
    return {d.name: d for d in tool_definitions(caller)}


def test_every_tool_has_a_client_method() -> None:
    assert set(TOOL_METHODS) == {name for name, _, _ in TOOLS}
    assert [name for name, _, _ in TOOLS] == [
        "search_pages",
        "read_page",
        "list_pages",
        "grep_pages",
        "query_pages",
        "search_knowledge",
        "read_document",
    ]


@pytest.mark.parametrize(("bound", "default"), [(8, 8), (20, 8), (5, 5), (50, 8)])
def test_search_knowledge_limit_is_the_organisations_bound(bound: int, default: int) -> None:
    limit = plain(by_name(ToolCaller(search_limit=bound))["search_knowledge"].input_schema)[
        "properties"
    ]["limit"]
    assert limit["maximum"] == bound and limit["default"] == default
    assert f"1–{bound}" in limit["description"]


def test_the_string_and_the_object_are_the_same_schema() -> None:
    for tool in tool_definitions(DEFAULT):
        assert json.loads(tool.input_schema_json) == plain(tool.input_schema)
        Draft202012Validator.check_schema(plain(tool.input_schema))


def test_binding_removes_namespace_and_agent_id() -> None:
    bound = by_name(ToolCaller(search_limit=8, namespace="docs", agent_id="bot"))
    for name, tool in bound.items():
        schema = plain(tool.input_schema)
        assert "namespace" not in schema["properties"] and "agent_id" not in schema["properties"]
        assert set(schema["required"]) <= set(schema["properties"]), name
    only_pages = by_name(ToolCaller(search_limit=8, namespace="docs"))
    assert "agent_id" in plain(only_pages["read_document"].input_schema)["properties"]


def test_mcp_shape_is_an_sdk_tool() -> None:
    for tool in tool_definitions(DEFAULT):
        parsed = mcp_types.Tool.model_validate(plain(tool.mcp_tool))
        assert parsed.name == tool.name and parsed.description == tool.description
        assert parsed.input_schema == plain(tool.input_schema)
        assert parsed.annotations is not None and parsed.annotations.read_only_hint


def _walk(schema: dict[str, Any]) -> list[dict[str, Any]]:
    out = [schema]
    for value in schema.get("properties", {}).values():
        out += _walk(value)
    if isinstance(schema.get("items"), dict):
        out += _walk(schema["items"])
    return out


def test_openai_shape_is_strict_mode() -> None:
    for tool in tool_definitions(DEFAULT):
        shape = plain(tool.openai_tool)
        assert shape["type"] == "function"
        function = shape["function"]
        assert function["strict"] is True and function["name"] == tool.name
        parameters = function["parameters"]
        assert parameters["additionalProperties"] is False
        # A Struct is a JSON object: its keys come back sorted, not in the schema's order.
        assert sorted(parameters["required"]) == sorted(parameters["properties"])
        for node in _walk(parameters):
            assert not REFUSED_BY_STRICT & set(node), (tool.name, node)
        # Optional arguments accept null; required ones do not.
        required = set(plain(tool.input_schema)["required"])
        for argument, value in parameters["properties"].items():
            assert ("null" in value["type"]) is (argument not in required), (tool.name, argument)
        Draft202012Validator.check_schema(parameters)


def test_anthropic_shape_is_the_schema_without_the_dialect() -> None:
    for tool in tool_definitions(DEFAULT):
        shape = plain(tool.anthropic_tool)
        assert set(shape) == {"name", "description", "input_schema"}
        schema = plain(tool.input_schema)
        del schema["$schema"]
        assert shape["input_schema"] == schema


def test_descriptions_are_written_for_a_model() -> None:
    for tool in tool_definitions(DEFAULT):
        assert len(tool.description) > 40
        for argument, value in plain(tool.input_schema)["properties"].items():
            assert value.get("description"), (tool.name, argument)


SCHEMA = plain(by_name(DEFAULT)["search_pages"].input_schema)


@pytest.mark.parametrize(
    ("arguments", "field", "bound"),
    [
        ({"namespace": "d"}, "query", "required"),
        ({"namespace": "d", "query": "q", "size": 3}, "size", None),
        ({"namespace": "d", "query": 3}, "query", "string"),
        ({"namespace": "d", "query": "q", "limit": True}, "limit", "integer"),
        ({"namespace": "d", "query": "q", "limit": "3"}, "limit", "integer"),
        ({"namespace": "d", "query": "q", "alternatives": [1]}, "alternatives", "array of string"),
    ],
)
def test_runner_refuses_malformed_arguments_naming_the_field(
    arguments: dict[str, Any], field: str, bound: str | None
) -> None:
    with pytest.raises(InvalidRequest) as info:
        checked_arguments(SCHEMA, arguments)
    error = info.value.tool_error_object()
    assert json.loads(info.value.to_tool_error()) == error
    assert error["error"] == "invalid_request" and error["field"] == field
    assert error["message"].startswith(f"{field}: ")
    assert error["bound"] == bound if bound else error["bound"].startswith("one of: ")


def test_runner_treats_null_as_not_given() -> None:
    given = {"namespace": "d", "query": "q", "limit": None, "alternatives": None}
    assert checked_arguments(SCHEMA, given) == {"namespace": "d", "query": "q"}


class _Client:
    """Just DescribeTools, for the runner's own checks (no call reaches a method)."""

    async def describe_tools(self, *, namespace: str, agent_id: str) -> list[Any]:
        return tool_definitions(ToolCaller(8, namespace, agent_id))


async def test_runner_answers_an_unknown_tool_with_a_tool_error() -> None:
    runner = ToolRunner(_Client(), namespace="docs")  # type: ignore[arg-type]
    outcome = await runner.call("drop_database", {})
    assert outcome.is_error
    assert json.loads(outcome.text)["field"] == "name"
    bound = await runner.call("search_pages", {"namespace": "other", "query": "q"})
    assert json.loads(bound.text)["field"] == "namespace"


async def test_a_cancelled_call_is_cancelled_not_answered() -> None:
    """An MCP client that goes away cancels the handler: the runner must let the cancellation
    through (to the gRPC call it awaits), never turn it into a tool error."""
    started = asyncio.Event()

    class _Slow(_Client):
        async def search_pages(self, **arguments: Any) -> Any:
            started.set()
            await asyncio.Event().wait()  # a call that would never end on its own

    runner = ToolRunner(_Slow(), namespace="docs")  # type: ignore[arg-type]
    call = asyncio.create_task(runner.call("search_pages", {"query": "q"}))
    await started.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call


async def test_runner_shapes_list_arguments_in_the_schemas_order() -> None:
    runner = ToolRunner(_Client())  # type: ignore[arg-type]
    shapes = {s["name"]: s for s in await runner.shapes("mcp_tool")}
    assert list(shapes["search_pages"]["inputSchema"]["properties"]) == [
        "namespace",
        "query",
        "alternatives",
        "limit",
    ]
    openai = {s["function"]["name"]: s for s in await runner.shapes("openai_tool")}
    assert list(openai["read_page"]["function"]["parameters"]["properties"])[:2] == [
        "namespace",
        "path",
    ]


class _Wire(_Client):
    """DescribeTools as a client gets it: the definitions through their bytes."""

    async def describe_tools(self, *, namespace: str, agent_id: str) -> list[Any]:
        listed = await super().describe_tools(namespace=namespace, agent_id=agent_id)
        return [pages_pb2.ToolDefinition.FromString(d.SerializeToString()) for d in listed]


async def test_runner_lists_the_arguments_in_the_schemas_order() -> None:
    """The refusal of an unknown argument reads as the TypeScript and Java runners' (a Struct's
    keys come in no set order; the schema's JSON keeps the order the model saw)."""
    outcome = await ToolRunner(_Wire()).call("search_pages", {"namespace": "d", "qurey": "x"})  # type: ignore[arg-type]
    assert outcome.text == (
        '{"schema_version":1,"error":"invalid_request","message":"qurey: not an argument of this '
        'tool","field":"qurey","bound":"one of: namespace, query, alternatives, limit"}'
    )

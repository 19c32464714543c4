"""Quire's agent tools for a model: the definitions to register and the runner of its calls.

`ToolRunner(client, namespace=..., agent_id=...)` asks DescribeTools once for the tools bound
to that namespace and agent (so the model never chooses them) and runs a model's tool call
by name: the arguments are checked against the tool's schema, the call goes through the
client, and the answer is text for the model. A result is `to_tool_result` JSON; any failure,
the server's or a malformed call's, is `tool_error` JSON with `field` and `bound` when an
argument was at fault. The MCP server (`quire mcp`) and the examples in docs/agents.md run
every call through it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message

from quire.client.aio import AsyncQuireClient
from quire.client.exceptions import InvalidRequest, to_tool_error
from quire.client.tool_result import to_tool_result
from quire.v1 import errors_pb2, pages_pb2

# Tool name -> client method. The tools' argument names are the methods' keyword names.
TOOL_METHODS = {
    "search_pages": "search_pages",
    "read_page": "read_page",
    "list_pages": "list_pages",
    "grep_pages": "grep_pages",
    "query_pages": "run_command",
    "search_knowledge": "search_knowledge",
    "read_document": "read_document",
}
_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list, tuple),
}


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call gives the model: result JSON, or tool_error JSON when `is_error`."""

    text: str
    is_error: bool


def plain(struct: struct_pb2.Struct) -> dict[str, Any]:
    """A Struct as JSON-ready Python values. Struct numbers are doubles: whole ones come back
    as int, as they were written."""

    def whole(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, dict):
            return {k: whole(v) for k, v in value.items()}
        if isinstance(value, list):
            return [whole(v) for v in value]
        return value

    result: dict[str, Any] = whole(json_format.MessageToDict(struct))
    return result


def in_order(value: Any, order: list[str]) -> Any:
    """`value` with every `properties` object that holds the arguments listed in `order`."""
    if isinstance(value, list):
        return [in_order(v, order) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: in_order(v, order) for k, v in value.items()}
    properties = out.get("properties")
    if isinstance(properties, dict) and set(properties) == set(order):
        out["properties"] = {name: properties[name] for name in order}
    return out


def argument_error(field: str, description: str, bound: str) -> InvalidRequest:
    """The INVALID_REQUEST the server would send, for a call refused before it is sent."""
    violation = errors_pb2.FieldViolation(field=field, description=description, bound=bound)
    detail = errors_pb2.ErrorDetail(
        code=errors_pb2.ERROR_CODE_INVALID_REQUEST,
        message=f"{field}: {description}",
        field_violations=[violation],
    )
    return InvalidRequest(detail.message, detail=detail)


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        # JSON Schema counts a number without a fraction (5.0) as an integer; a bool is an
        # int in Python, not in JSON.
        if isinstance(value, float):
            return value.is_integer()
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, _PYTHON_TYPES.get(kind, (object,)))


def _range_error(name: str, value: int, schema: Mapping[str, Any]) -> InvalidRequest | None:
    """The refusal of an integer outside the schema's minimum–maximum, worded as the server
    words its own (validation.py). 0 is the request field's unset value, which the server
    reads as the default, so it passes where the schema gives one. Checked here because a
    value outside the request field's type (a negative or a 2**40 limit) cannot even be sent."""
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is None or high is None or low <= value <= high:
        return None
    default = schema.get("default")
    zero_is_default = default is not None and low > 0
    if value == 0 and zero_is_default:
        return None
    description = f"must be {low}–{high}" + (f" (0 means {default})" if zero_is_default else "")
    return argument_error(name, description, f"{low}–{high}")


def checked_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The call's arguments, checked for names, presence, JSON types and the integers'
    minimum and maximum (the server checks every bound again). A null is "not given", as
    OpenAI's strict mode sends optional arguments."""
    given = {k: v for k, v in arguments.items() if v is not None}
    properties: Mapping[str, Any] = schema["properties"]
    for name in given:
        if name not in properties:
            allowed = ", ".join(properties)
            raise argument_error(name, "not an argument of this tool", f"one of: {allowed}")
    for name in schema.get("required", ()):
        if name not in given:
            raise argument_error(name, "is required", "required")
    for name, value in given.items():
        kind = properties[name].get("type", "")
        if not _is_type(value, kind):
            raise argument_error(name, f"must be a JSON {kind}", kind)
        if kind == "integer":
            given[name] = value = int(value)
            if (refused := _range_error(name, value, properties[name])) is not None:
                raise refused
        items = properties[name].get("items", {}).get("type")
        if kind == "array" and items and not all(_is_type(v, items) for v in value):
            raise argument_error(name, f"every item must be a JSON {items}", f"array of {items}")
    return given


class ToolRunner:
    """Runs Quire's tools for a model, bound to one namespace and one agent when given."""

    def __init__(
        self, client: AsyncQuireClient, *, namespace: str = "", agent_id: str = ""
    ) -> None:
        self.client = client
        self.namespace = namespace
        self.agent_id = agent_id
        self._definitions: dict[str, pages_pb2.ToolDefinition] | None = None
        # Per shape field, the plain dicts (converting Structs costs more than a search's JSON).
        self._shapes: dict[str, list[dict[str, Any]]] = {}
        self._schemas: dict[str, dict[str, Any]] = {}

    async def definitions(self) -> list[pages_pb2.ToolDefinition]:
        """The tools as DescribeTools gives them for this key and these bindings (asked once)."""
        if self._definitions is None:
            listed = await self.client.describe_tools(
                namespace=self.namespace, agent_id=self.agent_id
            )
            self._definitions = {d.name: d for d in listed}
        return list(self._definitions.values())

    def _bindings(self, method: str) -> dict[str, str]:
        """The argument the runner pins (the bound schemas leave it out, so a model that
        passes it anyway is refused as for any unknown argument)."""
        if method in _PAGES_METHODS:
            return {"namespace": self.namespace} if self.namespace else {}
        return {"agent_id": self.agent_id} if self.agent_id else {}

    async def shapes(self, field: str) -> list[dict[str, Any]]:
        """Every tool in one ready-made shape: "mcp_tool", "openai_tool" or "anthropic_tool",
        its arguments in the schema's order (a Struct sorts its keys; a model reads the
        arguments in the order they are listed)."""
        if field not in self._shapes:
            self._shapes[field] = [
                in_order(
                    plain(getattr(d, field)), list(json.loads(d.input_schema_json)["properties"])
                )
                for d in await self.definitions()
            ]
        return self._shapes[field]

    def _schema(self, definition: pages_pb2.ToolDefinition) -> dict[str, Any]:
        if definition.name not in self._schemas:
            # The JSON text keeps the schema's order (a Struct's keys come in no set order), so
            # a refusal lists the arguments as the model saw them, as the other clients do.
            self._schemas[definition.name] = json.loads(definition.input_schema_json)
        return self._schemas[definition.name]

    async def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> ToolOutcome:
        """Runs one tool call; never raises for a failed call (cancellation propagates)."""
        try:
            await self.definitions()
            definitions = self._definitions or {}
            if name not in definitions:
                raise argument_error(
                    "name", f"no tool {name!r}", f"one of: {', '.join(definitions)}"
                )
            schema = self._schema(definitions[name])
            method_name = TOOL_METHODS[name]
            args = checked_arguments(schema, arguments or {})
            args.update(self._bindings(method_name))
            method: Callable[..., Awaitable[Message]] = getattr(self.client, method_name)
            return ToolOutcome(to_tool_result(await method(**args)), is_error=False)
        except Exception as exc:  # typed QuireError, or anything else as `internal`
            return ToolOutcome(to_tool_error(exc), is_error=True)


_PAGES_METHODS = {"search_pages", "read_page", "list_pages", "grep_pages", "run_command"}

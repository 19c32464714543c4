"""Tool definitions an agent runtime registers to use Quire (DescribeTools).

The tools, their descriptions and argument schemas are generated from the contract
(`tool_schemas.py`, from `option (quire.v1.tool)` and the request fields' comments and
bounds). What is added here is what depends on the caller or on a model vendor:

- the caller's effective bounds: search_knowledge's `limit` stops at the organisation's
  retrieval policy (`max_search_limit`, 8 unless an admin raised it), not at the contract's 50;
- binding: a request that names a namespace (an agent) drops `namespace` (`agent_id`) from the
  tools that take it, so a model cannot choose another one;
- the shapes: JSON Schema draft 2020-12 with `additionalProperties: false`, an MCP `Tool`, an
  OpenAI strict-mode function and an Anthropic tool, all from the same schema.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from google.protobuf import struct_pb2

from quire.server.pages.tool_schemas import TOOLS
from quire.v1 import pages_pb2

DIALECT = "https://json-schema.org/draft/2020-12/schema"
# The argument a binding removes, and the tools that take it.
NAMESPACE_ARGUMENT = "namespace"
AGENT_ARGUMENT = "agent_id"
# Arguments whose upper bound is the organisation's retrieval policy, not the contract's.
POLICY_BOUNDED = {("search_knowledge", "limit")}
# The keywords OpenAI's strict mode accepts on a property (bounds, patterns and defaults are
# refused there; the descriptions state them in words).
_STRICT_KEYWORDS = ("type", "description", "items", "enum")
# Every Quire tool only reads, gives the same answer for the same state, and reaches nothing
# but the caller's own organisation.
_MCP_ANNOTATIONS = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}


@dataclass(frozen=True)
class ToolCaller:
    """Who the definitions are for: the organisation's search bound and the bindings."""

    search_limit: int
    namespace: str = ""
    agent_id: str = ""

    def binds(self, argument: str) -> bool:
        return bool(
            (argument == NAMESPACE_ARGUMENT and self.namespace)
            or (argument == AGENT_ARGUMENT and self.agent_id)
        )


def _policy_bounded(schema: dict[str, Any], search_limit: int) -> None:
    """Caps a policy-bounded integer at the organisation's bound, in keywords and in words."""
    default = min(int(schema.get("default", search_limit)), search_limit)
    schema["maximum"] = search_limit
    schema["default"] = default
    schema["description"] = (
        f"The most hits to return: 1–{search_limit}, default {default} "
        "(the organisation's bound; an admin may raise it up to 50)."
    )


def input_schema(name: str, schema: dict[str, Any], caller: ToolCaller) -> dict[str, Any]:
    """A generated argument schema with the caller's bounds and bindings applied."""
    properties = {
        argument: copy.deepcopy(value)
        for argument, value in schema["properties"].items()
        if not caller.binds(argument)
    }
    for argument, value in properties.items():
        if (name, argument) in POLICY_BOUNDED:
            _policy_bounded(value, caller.search_limit)
    return {
        "$schema": DIALECT,
        "type": "object",
        "properties": properties,
        "required": [a for a in schema["required"] if a in properties],
        "additionalProperties": False,
    }


def _strict_property(schema: dict[str, Any], nullable: bool) -> dict[str, Any]:
    value = {k: schema[k] for k in _STRICT_KEYWORDS if k in schema}
    if "items" in value:
        value["items"] = _strict_property(value["items"], nullable=False)
    if nullable:
        value["type"] = [value["type"], "null"]
    return value


def strict_parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI strict mode: every property required, the optional ones nullable (null means
    "not given"), no keyword strict mode refuses."""
    required = set(schema["required"])
    properties = {
        argument: _strict_property(value, nullable=argument not in required)
        for argument, value in schema["properties"].items()
    }
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(value)
    return message


def definition(name: str, description: str, schema: dict[str, Any]) -> pages_pb2.ToolDefinition:
    """One tool in every shape, from its (already bound) input schema."""
    plain = {k: v for k, v in schema.items() if k != "$schema"}
    return pages_pb2.ToolDefinition(
        name=name,
        description=description,
        input_schema_json=json.dumps(schema, separators=(",", ":"), ensure_ascii=False),
        input_schema=_struct(schema),
        mcp_tool=_struct(
            {
                "name": name,
                "description": description,
                "inputSchema": schema,
                "annotations": _MCP_ANNOTATIONS,
            }
        ),
        openai_tool=_struct(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": description,
                    "parameters": strict_parameters(schema),
                    "strict": True,
                },
            }
        ),
        anthropic_tool=_struct({"name": name, "description": description, "input_schema": plain}),
    )


def tool_definitions(caller: ToolCaller) -> list[pages_pb2.ToolDefinition]:
    return [
        definition(name, description, input_schema(name, schema, caller))
        for name, description, schema in TOOLS
    ]

"""Tool definitions (JSON Schema) an agent runtime registers to use Quire (DescribeTools).

The tools, their descriptions and argument schemas are generated from the contract
(`tool_schemas.py`, from `option (quire.v1.tool)` and the request fields' comments and
bounds); what is added here is not in the contract: the JSON Schema dialect, and that a tool
takes no arguments besides the ones listed.
"""

from __future__ import annotations

import json
from typing import Any

from quire.server.pages.tool_schemas import TOOLS
from quire.v1 import pages_pb2

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A generated argument schema as DescribeTools serves it."""
    return {"$schema": DIALECT, **schema, "additionalProperties": False}


def tool_definitions() -> list[pages_pb2.ToolDefinition]:
    return [
        pages_pb2.ToolDefinition(
            name=name,
            description=description,
            input_schema_json=json.dumps(input_schema(schema), separators=(",", ":")),
        )
        for name, description, schema in TOOLS
    ]

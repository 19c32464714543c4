"""Tool definitions (JSON Schema) an agent runtime registers to use Quire (DescribeTools)."""

from __future__ import annotations

import json
from typing import Any

from quire.v1 import pages_pb2

_NAMESPACE = {"type": "string", "description": "The namespace to use.", "minLength": 1}

TOOLS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "search_pages",
        "Search a documentation namespace (hybrid full-text + semantic). Returns up to `limit` "
        "chunks with their page path, URL, title and revision; at most 3 per page.",
        {
            "type": "object",
            "properties": {
                "namespace": _NAMESPACE,
                "query": {"type": "string", "minLength": 1, "maxLength": 500},
                "alternatives": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1, "maxLength": 500},
                    "maxItems": 3,
                    "description": "Other phrasings of the same need, fused with the query.",
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 10},
            },
            "required": ["namespace", "query"],
            "additionalProperties": False,
        },
    ),
    (
        "read_page",
        "Read a page's Markdown in slices of Unicode code points. Pass the `revision` from a "
        "search hit to read exactly that text; a stale revision returns page_changed with the "
        "current one.",
        {
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
    ),
    (
        "query_pages",
        "Run one read-only command over the namespace's pages as files: ls, tree [-L n], "
        "find [-name|-iname], cat, head/tail [-n N], wc [-l -w -c -m], grep/rg "
        "(-i -l -c -w -F -n -r -C/-A/-B n -e). No pipes, redirection or chaining.",
        {
            "type": "object",
            "properties": {
                "namespace": _NAMESPACE,
                "command": {"type": "string", "minLength": 1, "maxLength": 1024},
            },
            "required": ["namespace", "command"],
            "additionalProperties": False,
        },
    ),
    (
        "search_knowledge",
        "Search the knowledge collections attached to an agent. Returns documents (or chunks) "
        "with a snippet; read more with read_document.",
        {
            "type": "object",
            "properties": {
                "agent_id": {"type": "string", "minLength": 1, "maxLength": 128},
                "query": {"type": "string", "maxLength": 500},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 8},
            },
            "required": ["agent_id", "query"],
            "additionalProperties": False,
        },
    ),
    (
        "read_document",
        "Read up to 4,000 code points of a document's extracted text, starting at `offset`.",
        {
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
    ),
]


def tool_definitions() -> list[pages_pb2.ToolDefinition]:
    return [
        pages_pb2.ToolDefinition(
            name=name,
            description=description,
            input_schema_json=json.dumps(
                {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema},
                separators=(",", ":"),
            ),
        )
        for name, description, schema in TOOLS
    ]

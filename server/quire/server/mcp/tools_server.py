"""The MCP server: Quire's tools listed and called through a `ToolRunner`.

Which runner serves a request is the transport's business (`RunnerFor`): stdio has one, HTTP
one per API key and binding. A failed call is a tool result with `isError` whose text is the
tool_error JSON (code, message, field, bound), so the model reads it and can correct itself;
it is never a protocol error. A failure outside a call (the tools cannot be listed: the key,
the binding, the server) is a JSON-RPC error with a typed code (errors.py), never the SDK's
catch-all `code: 0` with a traceback. Cancelling the request (the client's
notifications/cancelled, or an HTTP client that goes away) cancels the handler, and with it
the gRPC call in flight.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from quire.client.tools import ToolRunner
from quire.server.mcp.errors import refusal

SERVER_NAME = "quire"
INSTRUCTIONS = (
    "Quire searches and reads published documentation (search_pages, read_page, list_pages, "
    "grep_pages, query_pages) and an agent's knowledge collections (search_knowledge, "
    "read_document). Results are JSON; a failed call returns a JSON error whose `field` and "
    "`bound` say which argument to fix."
)

RunnerFor = Callable[[ServerRequestContext[Any, Any]], Awaitable[ToolRunner]]


def tools_server(runner_for: RunnerFor, version: str = "") -> Server[Any]:
    # The listing of each live runner, built once: validating seven tools with their schemas
    # costs about as much as the HTTP round trip.
    listings: weakref.WeakKeyDictionary[ToolRunner, types.ListToolsResult] = (
        weakref.WeakKeyDictionary()
    )

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            runner = await runner_for(ctx)
            if runner not in listings:
                shapes = await runner.shapes("mcp_tool")
                listings[runner] = types.ListToolsResult(
                    tools=[types.Tool.model_validate(s) for s in shapes]
                )
        except Exception as exc:
            raise refusal(exc).protocol_error() from None
        return listings[runner]

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            runner = await runner_for(ctx)
        except Exception as exc:
            raise refusal(exc).protocol_error() from None
        outcome = await runner.call(params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(text=outcome.text)], is_error=outcome.is_error
        )

    return Server(
        SERVER_NAME,
        version=version,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )

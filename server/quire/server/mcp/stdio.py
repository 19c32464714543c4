"""`quire mcp`: Quire's tools for a desktop agent or an IDE, over stdin and stdout.

The process is a client of a Quire server (`--address`, key from `--api-key` or
$QUIRE_API_KEY); the agent starts it and speaks MCP on its pipes. Logs go to stderr: stdout
belongs to the protocol.

Before it speaks MCP, the process asks the server for the tools of its key and bindings: a
wrong key, a binding the server refuses or a server it cannot reach ends it at once with one
line on stderr and exit status 1 (`McpStartFailed`), rather than an agent finding out at its
first tools/list.
"""

from __future__ import annotations

from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.stdio import stdio_server

from quire.client import AsyncQuireClient
from quire.client.tools import ToolRunner
from quire.server.mcp.errors import refusal
from quire.server.mcp.tools_server import tools_server


class McpStartFailed(Exception):
    """The start-up check failed: the message says why, in one line."""


async def serve_stdio(
    address: str, *, api_key: str | None, namespace: str = "", agent_id: str = "", tls: bool = False
) -> None:
    async with AsyncQuireClient(address, api_key=api_key, tls=tls) as client:
        runner = ToolRunner(client, namespace=namespace, agent_id=agent_id)
        try:
            await runner.definitions()
        except Exception as exc:
            raise McpStartFailed(f"{refusal(exc).message} (server {address})") from None

        async def runner_for(ctx: ServerRequestContext[Any, Any]) -> ToolRunner:
            return runner

        server = tools_server(runner_for)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

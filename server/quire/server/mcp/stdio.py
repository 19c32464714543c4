"""`quire mcp`: Quire's tools for a desktop agent or an IDE, over stdin and stdout.

The process is a client of a Quire server (`--address`, key from `--api-key` or
$QUIRE_API_KEY); the agent starts it and speaks MCP on its pipes. Logs go to stderr: stdout
belongs to the protocol.
"""

from __future__ import annotations

from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.stdio import stdio_server

from quire.client import AsyncQuireClient
from quire.client.tools import ToolRunner
from quire.server.mcp.tools_server import tools_server


async def serve_stdio(
    address: str, *, api_key: str | None, namespace: str = "", agent_id: str = "", tls: bool = False
) -> None:
    async with AsyncQuireClient(address, api_key=api_key, tls=tls) as client:
        runner = ToolRunner(client, namespace=namespace, agent_id=agent_id)

        async def runner_for(ctx: ServerRequestContext[Any, Any]) -> ToolRunner:
            return runner

        server = tools_server(runner_for)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

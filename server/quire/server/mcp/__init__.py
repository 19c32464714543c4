"""Quire's tools over the Model Context Protocol, on the official `mcp` SDK.

- `tools_server.py`: the MCP server itself: tools/list and tools/call over a `ToolRunner`
  (the Python client's tool runner), whatever the transport.
- `stdio.py`: `quire mcp` — one runner for one key, namespace and agent, over stdin/stdout.
- `http.py`: the streamable-HTTP ASGI app (`/mcp`) with bearer authentication by Quire API key,
  and the small listener that serves it until the HTTP listener can mount it.

Every call goes through the gRPC API (loopback when served by `quire up`/`quire serve`), so
authentication, scopes, limits, deadlines and telemetry are the gRPC ones, and a result is the
same JSON a gRPC tool result serialises to.
"""

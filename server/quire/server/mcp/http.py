"""The streamable-HTTP MCP endpoint: an ASGI app, authenticated with Quire API keys.

`McpHttpApp` answers MCP at whatever path it is mounted on (the HTTP listener mounts it at
`/mcp`; until then `serve_mcp_http` serves it alone at `/mcp`). Each request must carry
`Authorization: Bearer <Quire API key>`; a missing or unknown key is answered 401 before any
MCP processing, with `WWW-Authenticate: Bearer`. Tools are bound by query parameters of the
endpoint URL: `?namespace=NAME` binds the pages tools, `?agent=NAME` the knowledge tools.

The app is stateless (no MCP session is kept between requests): a session would tie a
connection to one key, and nothing here needs server-side state. A client that closes its
request cancels the call (the SDK watches for the disconnect on its SSE-capable path). Tool
calls go to the gRPC server at `grpc_target` with the caller's own key, so scopes and limits
are the gRPC ones.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from quire.client import AsyncQuireClient
from quire.client.tools import ToolRunner
from quire.server.failures import QuireError
from quire.server.mcp.tools_server import tools_server
from quire.v1 import errors_pb2

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Verify = Callable[[str], Awaitable[object]]

MCP_PATH = "/mcp"
# How long a runner keeps its tool definitions (bounds follow a policy change within this).
DEFINITIONS_TTL_S = 30.0
# Runners kept (one per key and binding): bounds what many distinct bindings can hold.
MAX_RUNNERS = 1024
_UNAUTHENTICATED = (
    b'{"error":"unauthenticated","message":"send Authorization: Bearer <Quire API key>"}'
)
_UNAVAILABLE = b'{"error":"unavailable","message":"API keys cannot be checked now; retry"}'
# Checks a bearer token (an empty one too): raises QuireError, UNAUTHENTICATED for a bad key.


def bearer_token(scope: Scope) -> str:
    for key, value in scope.get("headers", ()):
        if key == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


async def _refuse(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="quire"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class McpHttpApp:
    """The MCP endpoint as one ASGI app: lifespan (the SDK's request manager), bearer check,
    then the SDK's streamable-HTTP handler."""

    def __init__(self, grpc_target: str, verify: Verify) -> None:
        self.grpc_target = grpc_target
        self.verify = verify
        # The SDK logs every stateless request at INFO ("Terminating session"); its warnings
        # and errors still reach the process's log.
        logging.getLogger("mcp").setLevel(logging.WARNING)
        # Not json_response: only the SSE-capable path watches for the client going away (and
        # cancels the call); a call that finishes quickly is still answered as plain JSON.
        self.sessions = StreamableHTTPSessionManager(
            app=tools_server(self._runner_for), stateless=True
        )
        # Keyed by the key's hash (never the key itself), one channel per key.
        self._clients: dict[str, AsyncQuireClient] = {}
        self._runners: dict[tuple[str, str, str], tuple[float, ToolRunner]] = {}
        self._stack = AsyncExitStack()

    def _client(self, token: str) -> tuple[str, AsyncQuireClient]:
        digest = hashlib.sha256(token.encode()).hexdigest()
        if digest not in self._clients:
            self._clients[digest] = AsyncQuireClient(self.grpc_target, api_key=token)
        return digest, self._clients[digest]

    async def _runner_for(self, ctx: ServerRequestContext[Any, Any]) -> ToolRunner:
        request = ctx.request
        if request is None:  # only HTTP requests reach this server
            raise RuntimeError("the MCP HTTP app got a request without HTTP")
        digest, client = self._client(bearer_token(request.scope))
        namespace = request.query_params.get("namespace", "")
        agent_id = request.query_params.get("agent", "")
        key = (digest, namespace, agent_id)
        now = time.monotonic()
        cached = self._runners.get(key)
        if cached is None or now - cached[0] > DEFINITIONS_TTL_S:
            if len(self._runners) >= MAX_RUNNERS:  # the oldest first: dicts keep insertion order
                del self._runners[next(iter(self._runners))]
            cached = (now, ToolRunner(client, namespace=namespace, agent_id=agent_id))
            self._runners.pop(key, None)
            self._runners[key] = cached
        return cached[1]

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self._stack.enter_async_context(self.sessions.run())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def aclose(self) -> None:
        await self._stack.aclose()
        for client in self._clients.values():
            await client.close()
        self._clients.clear()
        self._runners.clear()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        token = bearer_token(scope)
        try:
            await self.verify(token)
        except QuireError as exc:
            if exc.code == errors_pb2.ERROR_CODE_UNAUTHENTICATED:
                await _refuse(send, 401, _UNAUTHENTICATED)
            else:  # the key store cannot answer (database down): not the caller's fault
                await _refuse(send, 503, _UNAVAILABLE)
            return
        await self.sessions.asgi_app(scope, receive, send)


def at_path(path: str, app: ASGIApp) -> ASGIApp:
    """`app` at exactly `path` (404 elsewhere), its lifespan passed through."""

    async def routed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or scope.get("path", "").rstrip("/") == path:
            await app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    return routed


@dataclass
class McpListener:
    """The stand-in listener serving the app alone at /mcp (until the HTTP listener mounts
    it next to Connect)."""

    server: uvicorn.Server
    task: asyncio.Task[None]
    port: int

    async def stop(self) -> None:
        """Stops accepting; requests in flight finish (uvicorn's graceful shutdown)."""
        self.server.should_exit = True
        await self.task


async def start_mcp_listener(app: McpHttpApp, address: str) -> McpListener:
    """Serves `app` at /mcp on `address` ("host:port"; port 0 picks a free one)."""
    host, _, port = address.rpartition(":")
    config = uvicorn.Config(
        at_path(MCP_PATH, app),
        host=host.strip("[]") or "127.0.0.1",
        port=int(port),
        lifespan="on",
        log_config=None,  # the process's JSON logging stays in charge
        access_log=False,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # raises what stopped it
            raise RuntimeError(f"the MCP listener on {address} stopped while starting")
        await asyncio.sleep(0.01)
    bound = int(server.servers[0].sockets[0].getsockname()[1])
    log.info("serving mcp", extra={"address": address, "port": bound})
    return McpListener(server, task, bound)

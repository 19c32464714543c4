"""The streamable-HTTP MCP endpoint: an ASGI app, authenticated with Quire API keys.

`McpHttpApp` answers MCP at whatever path it is mounted on (the HTTP listener mounts it at
`/mcp`; until then `serve_mcp_http` serves it alone at `/mcp`). Each request must carry
`Authorization: Bearer <Quire API key>`; a missing or unknown key is answered 401 before any
MCP processing, with `WWW-Authenticate: Bearer`. Tools are bound by query parameters of the
endpoint URL: `?namespace=NAME` binds the pages tools, `?agent=NAME` the knowledge tools.
Binding confines the model, so a parameter the endpoint does not take (a misspelt
`?namespce=`), one given twice, or a binding the server refuses is answered 400 before any
MCP processing too, rather than leaving the tools unbound; so is any other failure to
describe the tools, with its own status (errors.py).

The app is stateless (no MCP session is kept between requests): a session would tie a
connection to one key, and nothing here needs server-side state. Each answer is one plain
JSON body (the SDK's `json_response`), as curl and docs/agents.md show it; the SDK watches for
a client going away only on its event-stream path, so the app does it itself
(http/disconnects.py): a client that closes its request cancels the call. Tool calls go to the
gRPC server at `grpc_target` with the caller's own key, so scopes and limits are the gRPC
ones.
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
from urllib.parse import parse_qsl

import uvicorn
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from quire.client import AsyncQuireClient
from quire.client.tools import ToolRunner
from quire.server.failures import QuireError
from quire.server.http.disconnects import run_until_disconnect
from quire.server.mcp.errors import Refusal, invalid_parameter, refusal
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
# The endpoint's query parameters: the binding of the pages tools and of the knowledge tools.
BINDINGS = {"namespace": "namespace", "agent": "agent_id"}
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


def binding(scope: Scope) -> dict[str, str] | Refusal:
    """The endpoint's binding by its query (`{"namespace": ..., "agent": ...}`, "" when not
    given), or the refusal of a parameter it does not take or takes once."""
    query = scope.get("query_string", b"").decode("latin-1")  # as Starlette reads it
    given: dict[str, str] = {}
    accepted = ", ".join(BINDINGS)
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name not in BINDINGS:
            return invalid_parameter(
                name, f"not a query parameter of this endpoint (it takes {accepted})", accepted
            )
        if name in given:
            return invalid_parameter(name, "given more than once", "once")
        given[name] = value
    return {name: given.get(name, "") for name in BINDINGS}


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
        # One plain JSON answer per request; the disconnect is watched in __call__.
        self.sessions = StreamableHTTPSessionManager(
            app=tools_server(self._runner_for), stateless=True, json_response=True
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

    def _runner(self, token: str, namespace: str, agent_id: str) -> ToolRunner:
        digest, client = self._client(token)
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

    async def _runner_for(self, ctx: ServerRequestContext[Any, Any]) -> ToolRunner:
        request = ctx.request
        if request is None:  # only HTTP requests reach this server
            raise RuntimeError("the MCP HTTP app got a request without HTTP")
        bound = binding(request.scope)
        if isinstance(bound, Refusal):  # refused in __call__ already
            raise bound.protocol_error()
        return self._runner(bearer_token(request.scope), bound["namespace"], bound["agent"])

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
        bound = binding(scope)
        if isinstance(bound, Refusal):
            await _refuse(send, bound.http_status, bound.http_body())
            return
        # The tools for this key and binding, as tools/list will give them (kept per runner):
        # a binding the server refuses fails here, before the client thinks it is connected.
        try:
            await self._runner(token, bound["namespace"], bound["agent"]).definitions()
        except Exception as exc:
            refused = refusal(exc)
            await _refuse(send, refused.http_status, refused.http_body())
            return
        await run_until_disconnect(self.sessions.asgi_app, scope, receive, send)


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

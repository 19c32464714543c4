"""The listener's ASGI application: mounted apps by path prefix, every other path to Connect.

Two things are added around the Connect application (connectrpc's `ConnectASGIApplication`):

- Only the Connect protocol is served here (`application/json`, `application/proto`,
  `application/connect+json`, `application/connect+proto`); gRPC clients use the gRPC port.
- Answers connectrpc gives with a bare HTTP status and no body (404 for an unknown procedure,
  405 for a wrong method, 415 for a content type it has no codec for) get the Connect error
  JSON body clients read, so every refusal names its cause.

Mounted apps (e.g. the MCP streamable-HTTP endpoint at `/mcp`) receive the request with
`root_path` set to their prefix and the full `path`, as Starlette's Mount passes it, and their
lifespan runs with the listener's (lifespan.py). An app mounted at `/` (the web console) gets
what no other mount takes and is not a Connect path (`/quire.v1.…`), so it can never shadow an
RPC.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from quire.server.http.disconnects import run_until_disconnect
from quire.server.http.endpoints import http_version
from quire.server.http.lifespan import run_lifespans

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONNECT_PREFIX = "/quire.v1."

CONNECT_CONTENT_TYPES = frozenset(
    {
        "application/json",
        "application/proto",
        "application/connect+json",
        "application/connect+proto",
    }
)

# The Connect code each bare refusal stands for, and what the caller should change.
_BARE_REFUSALS = {
    404: ("unimplemented", "no such procedure: the path is /quire.v1.<Service>/<Method>"),
    405: ("unimplemented", "use POST (or GET for side-effect-free calls)"),
    415: (
        "invalid_argument",
        "unsupported content type: send application/json or application/proto "
        "(application/connect+json or application/connect+proto for streams)",
    ),
}


def _media_type(scope: Scope) -> str:
    for key, value in scope.get("headers", ()):
        if key == b"content-type":
            return str(value.decode("latin-1").split(";", 1)[0].strip().lower())
    return ""


async def refuse(send: Send, status: int, code: str, message: str) -> None:
    """A Connect error response with the JSON body of the Connect protocol."""
    body = json.dumps({"code": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _with_error_body(send: Send) -> Send:
    """`send` that fills the empty body of a bare 404/405/415 with the Connect error JSON."""
    refusal: tuple[str, str] | None = None

    async def sending(message: Message) -> None:
        nonlocal refusal
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", ()))
            has_type = any(key.lower() == b"content-type" for key, _ in headers)
            refusal = None if has_type else _BARE_REFUSALS.get(message["status"])
            if refusal is not None:
                headers.append((b"content-type", b"application/json"))
                message = {**message, "headers": headers}
        elif message["type"] == "http.response.body" and refusal is not None:
            code, text = refusal
            message = {**message, "body": json.dumps({"code": code, "message": text}).encode()}
            refusal = None
        await send(message)

    return sending


class Router:
    """Dispatches by path: a mounted app when its prefix matches, else the Connect app.
    Calls of `full_duplex` paths (bidirectional streams) are cancelled when their client
    disconnects (disconnects.py)."""

    def __init__(
        self,
        connect_app: ASGIApp,
        mounts: Sequence[tuple[str, ASGIApp]],
        full_duplex: frozenset[str] = frozenset(),
    ) -> None:
        self.connect_app = connect_app
        # The root mount is tried last, whatever the order given, so a prefix always wins.
        ordered = sorted(mounts, key=lambda mount: mount[0].rstrip("/") == "")
        self.mounts = [(prefix.rstrip("/"), app) for prefix, app in ordered]
        self.full_duplex = full_duplex

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            apps = [self.connect_app, *(app for _, app in self.mounts)]
            await run_lifespans(apps, dict(scope), receive, send)
            return
        path = scope.get("path", "")
        for prefix, app in self.mounts:
            if prefix == "" and path.startswith(CONNECT_PREFIX):
                continue
            if path == prefix or path.startswith(prefix + "/"):
                root = scope.get("root_path", "") + prefix
                await app({**scope, "root_path": root}, receive, send)
                return
        if scope["type"] != "http":  # websockets: nothing here speaks them
            return
        media_type = _media_type(scope)
        if scope.get("method") == "POST" and media_type not in CONNECT_CONTENT_TYPES:
            await refuse(send, 415, *_BARE_REFUSALS[415])
            return
        http_version.set(scope.get("http_version", "1.1"))
        if path in self.full_duplex:
            await run_until_disconnect(self.connect_app, scope, receive, _with_error_body(send))
        else:
            await self.connect_app(scope, receive, _with_error_body(send))

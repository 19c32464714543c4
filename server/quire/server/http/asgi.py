"""The listener's ASGI application: mounted apps by path prefix, every other path to Connect.

Two things are added around the Connect application (connectrpc's `ConnectASGIApplication`):

- Only the Connect protocol is served here (`application/json`, `application/proto`,
  `application/connect+json`, `application/connect+proto`); gRPC clients use the gRPC port.
- Answers connectrpc gives with a bare HTTP status and no body (404 for an unknown procedure,
  405 for a wrong method, 415 for a content type it has no codec for) get the Connect error
  JSON body clients read, so every refusal names its cause.
- A request header that is not UTF-8 text (connectrpc and gRPC metadata read headers as text)
  is refused before anything reads it: `unauthenticated` for `authorization`, else
  `invalid_argument` naming the header. connectrpc would answer it with a 500 and Python's
  words.

Every refusal made here carries the `quire.v1.ErrorDetail` and `google.rpc.ErrorInfo` details
any other error has (failures.py builds them, servicer_context.py makes them Connect's).

Mounted apps (e.g. the MCP streamable-HTTP endpoint at `/mcp`) receive the request with
`root_path` set to their prefix and the full `path`, as Starlette's Mount passes it, and their
lifespan runs with the listener's (lifespan.py). An app mounted at `/` (the web console) gets
what no other mount takes and is not a Connect path (`/quire.v1.…`), so it can never shadow an
RPC.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from connectrpc._protocol import ConnectWireError

from quire.server.auth import unauthenticated
from quire.server.failures import QuireError
from quire.server.http.disconnects import run_until_disconnect
from quire.server.http.endpoints import http_version
from quire.server.http.lifespan import run_lifespans
from quire.server.http.servicer_context import connect_error
from quire.v1 import errors_pb2

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

# What each bare refusal of connectrpc stands for, and what the caller should change.
_BARE_REFUSALS = {
    404: QuireError(
        errors_pb2.ERROR_CODE_UNIMPLEMENTED,
        "no such procedure: the path is /quire.v1.<Service>/<Method>",
    ),
    405: QuireError(
        errors_pb2.ERROR_CODE_UNIMPLEMENTED, "use POST (or GET for side-effect-free calls)"
    ),
    415: QuireError(
        errors_pb2.ERROR_CODE_INVALID_REQUEST,
        "unsupported content type: send application/json or application/proto "
        "(application/connect+json or application/connect+proto for streams)",
    ),
}


def _media_type(scope: Scope) -> str:
    for key, value in scope.get("headers", ()):
        if key == b"content-type":
            return str(value.decode("latin-1").split(";", 1)[0].strip().lower())
    return ""


def unreadable_header(scope: Scope) -> QuireError | None:
    """The refusal of the first request header that is not text (a name that is not ASCII, a
    value that is not UTF-8), or None when every one is."""
    for key, value in scope.get("headers", ()):
        try:
            key.decode("ascii")
            value.decode("utf-8")
        except UnicodeDecodeError:
            name = key.decode("ascii", "backslashreplace")
            if name == "authorization":
                return unauthenticated()
            return QuireError(
                errors_pb2.ERROR_CODE_INVALID_REQUEST,
                f"header {name}: not UTF-8 text",
            )
    return None


def error_body(failure: QuireError) -> bytes:
    """The Connect error JSON of `failure`, details included (connectrpc's own encoder)."""
    return ConnectWireError.from_exception(connect_error(failure)).to_json_bytes()


async def refuse(send: Send, status: int, failure: QuireError) -> None:
    """A Connect error response with the JSON body of the Connect protocol."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": error_body(failure)})


def _with_error_body(send: Send) -> Send:
    """`send` that fills the empty body of a bare 404/405/415 with the Connect error JSON."""
    refusal: QuireError | None = None

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
            message = {**message, "body": error_body(refusal)}
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
        if (unreadable := unreadable_header(scope)) is not None:
            unauthorised = unreadable.code == errors_pb2.ERROR_CODE_UNAUTHENTICATED
            await refuse(send, 401 if unauthorised else 400, unreadable)
            return
        media_type = _media_type(scope)
        if scope.get("method") == "POST" and media_type not in CONNECT_CONTENT_TYPES:
            await refuse(send, 415, _BARE_REFUSALS[415])
            return
        http_version.set(scope.get("http_version", "1.1"))
        if path in self.full_duplex:
            await run_until_disconnect(self.connect_app, scope, receive, _with_error_body(send))
        else:
            await self.connect_app(scope, receive, _with_error_body(send))

"""The Connect listener's ASGI router (server/quire/server/http/asgi.py, lifespan.py): mounted
apps by prefix with their lifespans, Connect-only content types, and a JSON body on bare
refusals."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from quire.server.http.asgi import Router


class Recorder:
    """An ASGI app that records what it sees and answers 200 (or `status` with no body)."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.scopes: list[dict[str, Any]] = []
        self.lifespan: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                self.lifespan.append(message["type"])
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        self.scopes.append(scope)
        await send({"type": "http.response.start", "status": self.status, "headers": []})
        await send({"type": "http.response.body", "body": b"ok" if self.status == 200 else b""})


async def request(app: Router, path: str, content_type: str = "application/json") -> Any:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "root_path": "",
        "headers": [(b"content-type", content_type.encode())],
    }
    await app(scope, receive, send)
    start, body = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), body


async def test_mounted_apps_get_their_prefix_as_root_path() -> None:
    connect, mcp = Recorder(), Recorder()
    router = Router(connect, [("/mcp", mcp)])
    assert (await request(router, "/mcp/messages"))[0] == 200
    assert (await request(router, "/mcp"))[0] == 200
    assert (await request(router, "/quire.v1.PagesService/SearchPages"))[0] == 200
    assert [s["root_path"] for s in mcp.scopes] == ["/mcp", "/mcp"]
    assert [s["path"] for s in mcp.scopes] == ["/mcp/messages", "/mcp"]
    assert [s["path"] for s in connect.scopes] == ["/quire.v1.PagesService/SearchPages"]


async def test_every_app_runs_its_lifespan_with_the_listener() -> None:
    connect, mcp = Recorder(), Recorder()
    router = Router(connect, [("/mcp", mcp)])
    inbox = ["lifespan.startup", "lifespan.shutdown"]
    replies: list[str] = []

    async def receive() -> dict[str, Any]:
        return {"type": inbox.pop(0)}

    async def send(message: dict[str, Any]) -> None:
        replies.append(message["type"])

    await router({"type": "lifespan"}, receive, send)
    assert replies == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert mcp.lifespan == connect.lifespan == ["lifespan.startup", "lifespan.shutdown"]


async def test_other_content_types_are_refused_with_a_connect_error() -> None:
    connect = Recorder()
    status, headers, body = await request(Router(connect, []), "/quire.v1.X/Y", "text/plain")
    assert status == 415 and headers[b"content-type"] == b"application/json"
    assert json.loads(body)["code"] == "invalid_argument"
    assert connect.scopes == []


async def test_a_bare_refusal_gets_the_connect_error_body() -> None:
    status, headers, body = await request(Router(Recorder(status=404), []), "/nowhere")
    assert status == 404 and headers[b"content-type"] == b"application/json"
    assert json.loads(body)["code"] == "unimplemented"


async def test_a_full_duplex_call_is_cancelled_when_its_client_leaves() -> None:
    """The app never reads its request (as SyncPages while it syncs); the disconnect still
    reaches it, as a cancellation."""
    cancelled = asyncio.Event()

    async def busy(scope: Any, receive: Any, send: Any) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    events = [
        {"type": "http.request", "body": b"x", "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> dict[str, Any]:
        return events.pop(0) if events else await asyncio.Future()

    async def send(message: dict[str, Any]) -> None:
        del message

    path = "/quire.v1.PagesService/SyncPages"
    scope = {"type": "http", "method": "POST", "path": path, "root_path": "",
             "headers": [(b"content-type", b"application/connect+json")]}  # fmt: skip
    await asyncio.wait_for(Router(busy, [], frozenset({path}))(scope, receive, send), 5)
    assert cancelled.is_set()


async def test_a_root_mount_takes_only_what_no_prefix_nor_connect_takes() -> None:
    connect, mcp, console = Recorder(), Recorder(), Recorder()
    router = Router(connect, [("/", console), ("/mcp", mcp)])  # the root first on purpose
    await request(router, "/mcp/messages")
    await request(router, "/quire.v1.KnowledgeService/ListCollections")
    await request(router, "/")
    await request(router, "/console.js")
    assert [s["path"] for s in mcp.scopes] == ["/mcp/messages"]
    assert [s["path"] for s in connect.scopes] == ["/quire.v1.KnowledgeService/ListCollections"]
    assert [s["path"] for s in console.scopes] == ["/", "/console.js"]

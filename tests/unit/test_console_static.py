"""The console's asset server (server/quire/server/console/static.py): the built files from
the package, index.html for any other path, ETags, and GET only."""

from __future__ import annotations

from typing import Any

from quire.server.console.static import ConsoleApp


async def get(app: ConsoleApp, path: str, method: str = "GET", etag: bytes = b"") -> Any:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"if-none-match", etag)] if etag else []
    await app({"type": "http", "method": method, "path": path, "headers": headers}, receive, send)
    return sent[0]["status"], dict(sent[0]["headers"]), sent[1]["body"]


async def test_the_built_bundle_ships_in_the_package() -> None:
    app = ConsoleApp()
    status, headers, body = await get(app, "/")
    assert status == 200 and headers[b"content-type"].startswith(b"text/html")
    assert b'src="/console.js"' in body
    status, headers, body = await get(app, "/console.js")
    assert status == 200 and headers[b"content-type"].startswith(b"text/javascript")
    assert b"sessionStorage" in body  # the key is kept for the session only
    assert headers[b"x-frame-options"] == b"DENY"


async def test_other_paths_get_the_page_and_an_unchanged_asset_is_not_resent() -> None:
    app = ConsoleApp()
    assert (await get(app, "/collections/abc"))[2] == (await get(app, "/"))[2]
    _, headers, _ = await get(app, "/console.css")
    status, _, body = await get(app, "/console.css", etag=headers[b"etag"])
    assert status == 304 and body == b""


async def test_only_get_and_head_are_answered() -> None:
    app = ConsoleApp()
    assert (await get(app, "/", method="POST"))[0] == 405
    status, _, body = await get(app, "/", method="HEAD")
    assert status == 200 and body == b""

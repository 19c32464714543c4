"""Serves the console's built assets (assets/, written by console/build.mjs) over HTTP.

The files are read once into memory at start: the bundle is small, and the listener then
answers a page load without touching the disk. Any path that is not an asset gets
index.html, so a reload on a console URL such as `/collections/…` still opens the console.
Nothing here needs Node: the bundle is built ahead and shipped in the Python package.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources

from quire.server.http.asgi import Receive, Scope, Send

_TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".svg": b"image/svg+xml",
}
# Sent with every answer: the console holds an API key, so no other site may frame it, and
# it runs only its own script.
_SECURITY_HEADERS = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'",
    ),
]


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: bytes
    etag: bytes


def load_assets() -> dict[str, Asset]:
    """The built files by URL path (`/app.js`), read from the package."""
    root = resources.files("quire.server.console").joinpath("assets")
    found: dict[str, Asset] = {}
    for entry in root.iterdir():
        suffix = "." + entry.name.rsplit(".", 1)[-1]
        if not entry.is_file() or suffix not in _TYPES:
            continue
        body = entry.read_bytes()
        etag = b'"' + hashlib.sha256(body).hexdigest()[:16].encode() + b'"'
        found["/" + entry.name] = Asset(body, _TYPES[suffix], etag)
    return found


class ConsoleApp:
    """GET/HEAD of the console's files; index.html for every other path."""

    def __init__(self, assets: dict[str, Asset] | None = None) -> None:
        self.assets = load_assets() if assets is None else assets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # no lifespan: returning at once says so (lifespan.py)
            return
        if scope.get("method") not in ("GET", "HEAD"):
            await _answer(send, 405, b"text/plain", b"the console answers GET only\n")
            return
        path = scope.get("path", "/")
        asset = self.assets.get(path) or self.assets.get("/index.html")
        if asset is None:
            await _answer(send, 404, b"text/plain", b"the console was not built\n")
            return
        if _header(scope, b"if-none-match") == asset.etag:
            await _answer(send, 304, asset.content_type, b"", asset.etag)
            return
        body = b"" if scope.get("method") == "HEAD" else asset.body
        await _answer(send, 200, asset.content_type, body, asset.etag)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None


async def _answer(
    send: Send, status: int, content_type: bytes, body: bytes, etag: bytes | None = None
) -> None:
    headers = [(b"content-type", content_type), (b"cache-control", b"no-cache")]
    headers += _SECURITY_HEADERS
    if etag is not None:
        headers.append((b"etag", etag))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

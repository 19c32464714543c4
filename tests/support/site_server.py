"""A programmable loopback web server for page-source tests (fetching, discovery, sync).

Usage::

    from tests.support.site_server import Reply, SiteServer

    server = SiteServer(root=Path("site"))          # serve a directory (optional)
    server.route("/flaky.md", Reply(500), Reply(500), Reply.text("# ok"))  # a status sequence
    with server as base_url:                         # "http://127.0.0.1:<free port>"
        ...                                          # fetch f"{base_url}/flaky.md"
        assert server.count("/flaky.md") == 3        # requests seen for that path

``SiteServer(root=None, *, host="127.0.0.1")``
    A threaded HTTP/1.1 server (keep-alive) on a free loopback port. Entering the context starts
    it and returns the base URL (no trailing slash); ``server.url`` holds it too, ``server.origin``
    is the same string (use it for ``SourcePolicy(allow_origins=[server.origin])``). Leaving the
    context stops it and releases any hanging handlers. Routes may be added or replaced at any
    time, also while running.

``server.route(path, *replies)``
    Program ``path`` (exact match on the URL path, query ignored; percent-encoded as sent).
    Each request to ``path`` takes the next reply; the last one repeats forever. A reply may be
    a ``Reply`` or a callable ``(Request) -> Reply`` for dynamic answers. Routed paths win over
    files; ``server.unroute(path)`` removes a route.

Files under ``root`` are served for GET/HEAD (``/dir/`` serves ``/dir/index.html`` or
``/dir/index.md`` when present); anything else is 404. Content types: ``.md``/``.mdx``
``text/markdown``, ``.txt`` ``text/plain``, ``.xml`` ``application/xml``, ``.html``
``text/html`` (all UTF-8), else ``application/octet-stream``.

``Reply`` (a frozen dataclass; the class methods build the common faults):
    ``Reply(status=200, body=b"", headers={}, delay=0.0)``   plain response after ``delay`` s
    ``Reply.text(body, status=200, content_type=..., headers=None)``
    ``Reply.file()``                           the file under ``root`` for the requested path
                                               (404 when absent), e.g. after ``Reply(500)``
    ``Reply.redirect(location, status=302)``   same-origin (``"/x.md"``), off-origin (a full
                                               URL), loops (``/a`` → ``/b`` → ``/a``)
    ``Reply.retry_after(value, status=429)``   ``value`` seconds (int) or an HTTP date (str)
    ``Reply.slow(body, chunk_size=1024, chunk_delay=0.05)``   a body sent in delayed pieces
    ``Reply.hang()``                           accepts the request and never responds
    ``Reply.reset()``                          closes the connection with a TCP RST, no response
    ``Reply.truncated(body, missing=100)``     ``Content-Length`` = len(body)+missing, sends
                                               ``body`` and closes the connection
    ``Reply.endless(total, chunk_size=65536)`` a chunked body of ``total`` bytes (no
                                               Content-Length), e.g. just over 4 MiB

Observation:
    ``server.count(path)``     requests seen for ``path`` (routed, file or 404)
    ``server.total()``         all requests
    ``server.requests``        list of ``Request(method, path, query, headers)`` in arrival order
    ``server.reset_counts()``  clears both

Everything runs in daemon threads; nothing is reachable except from 127.0.0.1.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Literal
from urllib.parse import unquote, urlsplit

__all__ = ["Reply", "Request", "SiteServer", "wait_until"]

_CONTENT_TYPES = {
    ".md": "text/markdown; charset=utf-8",
    ".mdx": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
}

Mode = Literal["normal", "file", "hang", "reset", "truncated", "endless", "slow"]


@dataclass(frozen=True)
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    query: str
    headers: Mapping[str, str]


@dataclass(frozen=True)
class Reply:
    """What to answer to one request (see the module docstring)."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    mode: Mode = "normal"
    chunk_size: int = 65536
    chunk_delay: float = 0.0
    missing: int = 0
    total: int = 0

    @classmethod
    def text(
        cls,
        body: str | bytes,
        status: int = 200,
        *,
        content_type: str = "text/markdown; charset=utf-8",
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        data = body.encode("utf-8") if isinstance(body, str) else body
        return cls(status, data, {"Content-Type": content_type, **(headers or {})})

    @classmethod
    def file(cls) -> Reply:
        return cls(mode="file")

    @classmethod
    def redirect(cls, location: str, status: int = 302) -> Reply:
        return cls(status, b"", {"Location": location})

    @classmethod
    def retry_after(cls, value: int | str, status: int = 429) -> Reply:
        return cls(status, b"slow down", {"Retry-After": str(value)})

    @classmethod
    def slow(cls, body: str | bytes, chunk_size: int = 1024, chunk_delay: float = 0.05) -> Reply:
        data = body.encode("utf-8") if isinstance(body, str) else body
        return cls(200, data, mode="slow", chunk_size=chunk_size, chunk_delay=chunk_delay)

    @classmethod
    def hang(cls) -> Reply:
        return cls(mode="hang")

    @classmethod
    def reset(cls) -> Reply:
        return cls(mode="reset")

    @classmethod
    def truncated(cls, body: str | bytes, missing: int = 100) -> Reply:
        data = body.encode("utf-8") if isinstance(body, str) else body
        return cls(200, data, mode="truncated", missing=missing)

    @classmethod
    def endless(cls, total: int, chunk_size: int = 65536) -> Reply:
        return cls(200, mode="endless", total=total, chunk_size=chunk_size)


Responder = Reply | Callable[[Request], Reply]


class _Route:
    def __init__(self, replies: tuple[Responder, ...]) -> None:
        self._replies = list(replies)
        self._index = 0

    def next(self) -> Responder:
        reply = self._replies[min(self._index, len(self._replies) - 1)]
        self._index += 1
        return reply


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    site: SiteServer

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # resets and aborted clients are expected in fault tests


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle + delayed ACK add
        # ~40 ms to every keep-alive response.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._serve(head=False)

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def _serve(self, *, head: bool) -> None:
        site = self.server.site
        parts = urlsplit(self.path)
        request = Request(self.command, parts.path, parts.query, dict(self.headers.items()))
        responder = site._record(request)
        if responder is None:
            reply = Reply.file()
        elif isinstance(responder, Reply):
            reply = responder
        else:
            reply = responder(request)
        if reply.delay and site._stopping.wait(reply.delay):
            return
        if reply.mode == "file":
            reply = site._file_reply(parts.path)
        if reply.mode == "hang":
            site._stopping.wait(60.0)
            self.close_connection = True
            return
        if reply.mode == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        self.send_response(reply.status)
        headers = {k.lower(): v for k, v in reply.headers.items()}
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.mode == "endless":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if not head:
                self._send_endless(reply)
            return
        declared = len(reply.body) + (reply.missing if reply.mode == "truncated" else 0)
        if "content-length" not in headers:
            self.send_header("Content-Length", str(declared))
        if reply.mode == "truncated":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if head:
            return
        try:
            if reply.mode == "slow":
                for start in range(0, len(reply.body), max(1, reply.chunk_size)):
                    if site._stopping.wait(reply.chunk_delay):
                        return
                    self.wfile.write(reply.body[start : start + reply.chunk_size])
                    self.wfile.flush()
            else:
                self.wfile.write(reply.body)
        except OSError:
            self.close_connection = True

    def _send_endless(self, reply: Reply) -> None:
        sent = 0
        block = b"x" * max(1, reply.chunk_size)
        try:
            while sent < reply.total and not self.server.site._stopping.is_set():
                piece = block[: min(len(block), reply.total - sent)]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True


class SiteServer:
    """A loopback test web server; see the module docstring for the API."""

    def __init__(self, root: Path | str | None = None, *, host: str = "127.0.0.1") -> None:
        self.root = Path(root).resolve() if root is not None else None
        self.host = host
        self.url = ""
        self.requests: list[Request] = []
        self._routes: dict[str, _Route] = {}
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def origin(self) -> str:
        return self.url

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("server is not running")
        return int(self._server.server_address[1])

    def route(self, path: str, *replies: Responder) -> None:
        if not replies:
            raise ValueError("route needs at least one reply")
        with self._lock:
            self._routes[path] = _Route(replies)

    def unroute(self, path: str) -> None:
        with self._lock:
            self._routes.pop(path, None)

    def count(self, path: str) -> int:
        with self._lock:
            return self._counts.get(path, 0)

    def total(self) -> int:
        with self._lock:
            return sum(self._counts.values())

    def reset_counts(self) -> None:
        with self._lock:
            self._counts.clear()
            self.requests.clear()

    def start(self) -> str:
        if self._server is not None:
            return self.url
        self._stopping.clear()
        server = _Server((self.host, 0), _Handler)
        server.site = self
        self._server = server
        self.url = f"http://{self.host}:{server.server_address[1]}"
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self.url

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- used by the handler ---------------------------------------------------------------

    def _record(self, request: Request) -> Responder | None:
        with self._lock:
            self.requests.append(request)
            self._counts[request.path] = self._counts.get(request.path, 0) + 1
            route = self._routes.get(request.path)
            return route.next() if route is not None else None

    def _file_reply(self, raw_path: str) -> Reply:
        if self.root is None:
            return Reply.text("not found", 404, content_type="text/plain")
        relative = unquote(raw_path).lstrip("/")
        candidate = (self.root / relative).resolve()
        if candidate != self.root and self.root not in candidate.parents:
            return Reply.text("not found", 404, content_type="text/plain")
        if candidate.is_dir():
            for name in ("index.html", "index.md"):
                if (candidate / name).is_file():
                    candidate = candidate / name
                    break
        if not candidate.is_file():
            return Reply.text("not found", 404, content_type="text/plain")
        content_type = _CONTENT_TYPES.get(candidate.suffix.lower(), "application/octet-stream")
        return Reply.text(candidate.read_bytes(), 200, content_type=content_type)


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll ``predicate`` until true or ``timeout`` seconds pass (helper for thread races)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()

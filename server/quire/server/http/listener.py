"""The HTTP listener served beside gRPC by the same process: Connect for every RPC, plus any
mounted ASGI apps.

Hypercorn serves it in the server's own event loop, so the Connect endpoints call the very
servicer objects, key cache and organisation limiter the gRPC server uses. Hypercorn speaks
HTTP/1.1 and HTTP/2 on one port — h2c (cleartext HTTP/2 by prior knowledge or upgrade) without
TLS, ALPN with it — and HTTP/2 is what bidirectional streams need. The socket is bound here,
before Hypercorn takes it, so an ephemeral port (`:0`) is known at once and connections made
before the first accept wait in the backlog instead of being refused.

`mounts` is the hook for other HTTP endpoints of the process: (path prefix, ASGI app) pairs,
e.g. `("/mcp", mcp_app)`, routed before Connect (asgi.py) with their lifespans run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from connectrpc.server import ConnectASGIApplication
from google.protobuf.descriptor import ServiceDescriptor
from hypercorn.asyncio import serve
from hypercorn.config import Config

from quire.server.config import Settings
from quire.server.http import h2_guard
from quire.server.http.asgi import ASGIApp, Router
from quire.server.http.codecs import StrictCompactJson, StrictProtoBinary
from quire.server.http.endpoints import Handlers, Interceptors, endpoints

log = logging.getLogger(__name__)


class _QuireConnectApp(ConnectASGIApplication[object]):
    """Quire's services over Connect (connectrpc's generated apps are one per service; one
    app serving every endpoint by its full path needs no code generator)."""

    @property
    def path(self) -> str:
        return "/quire.v1."


def connect_app(
    services: Sequence[ServiceDescriptor],
    handlers: Handlers,
    interceptors: Interceptors,
    max_message_bytes: int,
) -> ASGIApp:
    """The Connect ASGI app: protobuf binary and JSON (codecs.py); a message over
    `max_message_bytes` is `resource_exhausted`."""
    app: Any = _QuireConnectApp(
        service=object(),
        endpoints=lambda _: endpoints(services, handlers, interceptors),
        read_max_bytes=max_message_bytes,
        codecs=[StrictProtoBinary(), StrictCompactJson()],
    )
    return app  # type: ignore[no-any-return]


def _bound_socket(address: str, reuse_port: bool) -> socket.socket:
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, int(port)))
        sock.listen(1024)
    except (OSError, ValueError) as exc:
        sock.close()
        raise RuntimeError(f"cannot listen for HTTP on {address}: {exc}") from None
    return sock


def _config(settings: Settings, fd: int) -> Config:
    config = Config()
    config.bind = [f"fd://{fd}"]
    config.graceful_timeout = settings.grace_seconds
    config.errorlog = logging.getLogger("hypercorn.error")
    config.accesslog = None
    config.include_server_header = False
    if settings.tls_cert_file:
        config.certfile = settings.tls_cert_file
        config.keyfile = settings.tls_key_file
        if settings.tls_client_ca_file:
            config.ca_certs = settings.tls_client_ca_file
            config.verify_mode = ssl.CERT_REQUIRED
    return config


@dataclass
class HttpListener:
    port: int
    stopping: asyncio.Event
    task: asyncio.Task[None]

    async def stop(self) -> None:
        """Stops accepting, lets requests in flight finish within the grace period."""
        self.stopping.set()
        # A failure was reported when it happened (_report_end); shutdown goes on.
        with contextlib.suppress(Exception):
            await self.task


def _report_end(stopping: asyncio.Event) -> Callable[[asyncio.Task[None]], None]:
    """A done-callback that logs the listener ending before it was asked to stop."""

    def report(task: asyncio.Task[None]) -> None:
        if stopping.is_set() or task.cancelled():
            return
        log.error("the HTTP listener stopped unexpectedly", exc_info=task.exception())

    return report


async def start_listener(
    settings: Settings,
    services: Sequence[ServiceDescriptor],
    handlers: Handlers,
    interceptors: Interceptors,
    mounts: Sequence[tuple[str, ASGIApp]] = (),
) -> HttpListener:
    """Serves Connect (and `mounts`) on `settings.http_address` until `stop`."""
    h2_guard.install()
    sock = _bound_socket(settings.http_address, settings.reuse_port)
    port = sock.getsockname()[1]
    full_duplex = frozenset(
        f"/{service.full_name}/{method.name}"
        for service in services
        for method in service.methods
        if method.client_streaming and method.server_streaming
    )
    connect = connect_app(services, handlers, interceptors, settings.max_message_bytes)
    app = Router(connect, mounts, full_duplex)
    stopping = asyncio.Event()
    config = _config(settings, sock.detach())  # Hypercorn owns the descriptor from here
    task = asyncio.create_task(serve(app, config, shutdown_trigger=stopping.wait, mode="asgi"))  # type: ignore[arg-type]
    task.add_done_callback(_report_end(stopping))
    log.info("serving http", extra={"address": settings.http_address, "port": port})
    return HttpListener(port, stopping, task)

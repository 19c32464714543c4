"""Finished spans in memory, from the process's global OpenTelemetry SDK tracer provider.

The server's tracers are API proxies, so spans reach whatever provider is global; a process
can set it once, so every test module that looks at spans shares one SDK provider.
"""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def in_memory_spans() -> InMemorySpanExporter:
    """An exporter collecting every span finished from now on (skips the test when another
    kind of provider is already global); `shutdown()` it when done."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    if trace.get_tracer_provider() is not provider:
        pytest.skip("another tracer provider is installed in this process")
    spans = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    return spans

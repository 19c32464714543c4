"""Telemetry set up from the standard OTEL_* variables: the console exporter, incoming W3C
`traceparent`, and nothing installed when no exporter is asked for.

Each case runs in a fresh interpreter: OpenTelemetry's global providers can be set only once
per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"

# A gRPC server with telemetry's interceptor and one Quire-named method, called once with a
# traceparent; prints nothing itself (the console exporter writes the spans to stdout).
SERVER_CALL = textwrap.dedent(
    f"""
    import asyncio

    import grpc
    from grpc import aio
    from opentelemetry import trace

    from quire.server import telemetry

    async def echo(request, context):
        return request

    async def main():
        telemetry.configure()
        server = aio.server(interceptors=[telemetry.rpc_interceptor()])
        handler = grpc.unary_unary_rpc_method_handler(echo)
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("quire.v1.Probe", {{"Echo": handler}}),)
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        async with aio.insecure_channel(f"127.0.0.1:{{port}}") as channel:
            call = channel.unary_unary("/quire.v1.Probe/Echo")
            await call(b"hi", metadata=(("traceparent", "00-{TRACE_ID}-{PARENT_ID}-01"),))
        await server.stop(None)
        # Flushes the batched spans (no-op providers have nothing to flush).
        getattr(trace.get_tracer_provider(), "shutdown", lambda: None)()

    asyncio.run(main())
    """
)


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def spans_in(stdout: str) -> list[dict[str, object]]:
    """The JSON objects the console span exporter printed (one pretty-printed span each)."""
    decoder = json.JSONDecoder()
    spans, at = [], 0
    while (start := stdout.find("{", at)) != -1:
        span, at = decoder.raw_decode(stdout, start)
        spans.append(span)
    return spans


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
def test_console_exporter_and_incoming_traceparent() -> None:
    done = run(SERVER_CALL, OTEL_TRACES_EXPORTER="console", OTEL_METRICS_EXPORTER="none")
    spans = spans_in(done.stdout)
    assert [s["name"] for s in spans] == ["/quire.v1.Probe/Echo"], done.stdout
    span = spans[0]
    assert span["kind"] == "SpanKind.SERVER"
    assert span["context"]["trace_id"] == "0x" + TRACE_ID  # type: ignore[index]
    assert span["parent_id"] == "0x" + PARENT_ID
    assert span["resource"]["attributes"]["service.name"] == "quire"  # type: ignore[index]


@pytest.mark.slow  # 1 s under load (`make test-fast` leaves it out)
def test_service_name_comes_from_the_environment() -> None:
    done = run(
        SERVER_CALL,
        OTEL_TRACES_EXPORTER="console",
        OTEL_METRICS_EXPORTER="none",
        OTEL_SERVICE_NAME="quire-eu",
    )
    (span,) = spans_in(done.stdout)
    assert span["resource"]["attributes"]["service.name"] == "quire-eu"  # type: ignore[index]


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
def test_nothing_is_installed_without_an_exporter() -> None:
    probe = (
        "from opentelemetry import metrics, trace\n"
        "from quire.server import telemetry\n"
        "telemetry.configure()\n"
        "print(type(trace.get_tracer_provider()).__name__,"
        " type(metrics.get_meter_provider()).__name__)\n"
    )
    assert run(probe).stdout.split() == ["ProxyTracerProvider", "_ProxyMeterProvider"]
    assert run(SERVER_CALL).stdout == ""

"""Observability: the span tree of a hybrid search, the per-method latency histogram, and the
one-JSON-object-a-line logs with trace ids.

In-memory exporters are installed as the process's global OpenTelemetry providers (the server's
tracer and meter are API proxies created at import time, so this is exactly the path an OTLP
deployment takes through `telemetry.configure()`).
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio
from opentelemetry import metrics, trace

from quire.server.telemetry import JsonFormatter
from quire.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    knowledge_pb2,
    knowledge_service_pb2_grpc,
)
from quire.v1 import knowledge_service_pb2 as kn
from tests.conftest import Harness, Keys, bearer
from tests.support.spans import in_memory_spans

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True
SEARCH = "/quire.v1.KnowledgeService/SearchKnowledge"


@pytest.fixture(scope="module")
def exporters() -> Any:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    spans = in_memory_spans()
    reader = InMemoryMetricReader()
    installed = metrics.get_meter_provider()
    if isinstance(installed, MeterProvider):  # e.g. the /metrics test's, earlier in the process
        installed.add_metric_reader(reader)
    else:
        metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    have_metrics = isinstance(metrics.get_meter_provider(), MeterProvider)
    yield spans, (reader if have_metrics else None)
    spans.clear()
    spans.shutdown()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def indexed(harness: Harness) -> AsyncIterator[tuple[Keys, str]]:
    keys = await harness.keys("otel-org")
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    made = await stub.CreateCollection(
        kn.CreateCollectionRequest(name="otel"), metadata=bearer(keys.all)
    )
    cid = made.collection.collection_id

    async def upload() -> AsyncIterator[kn.UploadDocumentRequest]:
        yield kn.UploadDocumentRequest(
            metadata=kn.UploadMetadata(collection_id=cid, file_name="pumps.md")
        )
        yield kn.UploadDocumentRequest(
            data=b"# Pumps\n\nCentrifugal pumps move water by spinning an impeller.\n"
        )

    await stub.UploadDocument(upload(), metadata=bearer(keys.all))
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        got = await stub.GetCollection(
            kn.GetCollectionRequest(collection_id=cid), metadata=bearer(keys.read)
        )
        if got.collection.serving_generation > 0:
            break
        await asyncio.sleep(0.2)
    else:
        pytest.fail("the worker did not index the document within 90 s")
    admin = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    await admin.SetRetrievalPolicy(
        admin_service_pb2.SetRetrievalPolicyRequest(mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID),
        metadata=bearer(keys.admin),
    )
    yield keys, cid


async def test_hybrid_search_span_tree(
    harness: Harness, exporters: Any, indexed: tuple[Keys, str]
) -> None:
    spans, _ = exporters
    keys, cid = indexed
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    spans.clear()
    reply = await stub.SearchKnowledge(
        kn.SearchKnowledgeRequest(
            query=f"impeller water {uuid.uuid4().hex[:6]}", collection_ids=[cid]
        ),
        metadata=bearer(keys.read),
        timeout=30,
    )
    assert reply.mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID and reply.hits
    finished = spans.get_finished_spans()
    roots = [s for s in finished if s.name == SEARCH]
    assert len(roots) == 1, [s.name for s in finished]
    root = roots[0]
    assert root.attributes["rpc.method"] == SEARCH
    children = {
        s.name: s
        for s in finished
        if s.parent is not None and s.parent.span_id == root.context.span_id
    }
    for name in ("embed.query", "search.fts", "search.vector", "search.fusion"):
        assert name in children, (name, sorted(children))
        assert children[name].context.trace_id == root.context.trace_id
    # The arms ran inside the RPC: the full-text arm while the query was embedded, the vector
    # arm (an exact scan of this small collection, on its own connection beside the full-text
    # arm) once the vector was there, then fusion after both.
    assert children["search.vector"].attributes["quire.exact"] is True
    assert children["embed.query"].end_time <= children["search.vector"].start_time
    assert children["search.fts"].end_time <= children["search.fusion"].start_time
    assert children["search.vector"].end_time <= children["search.fusion"].start_time
    assert root.start_time <= children["embed.query"].start_time
    assert children["search.fusion"].end_time <= root.end_time


async def test_rpc_duration_histogram_is_per_method(
    harness: Harness, exporters: Any, indexed: tuple[Keys, str]
) -> None:
    _, reader = exporters
    if reader is None:
        pytest.skip("a meter provider was already installed in this process")
    keys, cid = indexed
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    await stub.GetCollection(kn.GetCollectionRequest(collection_id=cid), metadata=bearer(keys.read))
    with pytest.raises(grpc.aio.AioRpcError):
        await stub.GetCollection(
            kn.GetCollectionRequest(collection_id="nope"), metadata=bearer(keys.read)
        )
    await stub.SearchKnowledge(
        kn.SearchKnowledgeRequest(query="pumps", collection_ids=[cid]), metadata=bearer(keys.read)
    )
    data = reader.get_metrics_data()
    points: dict[tuple[str, str], int] = {}
    for rm in data.resource_metrics:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                if metric.name != "quire.rpc.duration":
                    continue
                assert metric.unit == "ms"
                for p in metric.data.data_points:
                    key = (p.attributes["rpc.method"], p.attributes["rpc.code"])
                    points[key] = points.get(key, 0) + p.count
    get = "/quire.v1.KnowledgeService/GetCollection"
    assert points.get((get, "OK"), 0) >= 1, points
    assert points.get((get, "NOT_FOUND"), 0) >= 1, points
    assert points.get((SEARCH, "OK"), 0) >= 1, points


async def test_incoming_traceparent_continues_the_callers_trace(
    harness: Harness, exporters: Any, indexed: tuple[Keys, str]
) -> None:
    spans, _ = exporters
    keys, cid = indexed
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    spans.clear()
    await stub.GetCollection(
        kn.GetCollectionRequest(collection_id=cid),
        metadata=(*bearer(keys.read), ("traceparent", f"00-{trace_id}-{parent_id}-01")),
    )
    get = "/quire.v1.KnowledgeService/GetCollection"
    (server,) = [s for s in spans.get_finished_spans() if s.name == get]
    assert server.kind == trace.SpanKind.SERVER
    assert format(server.context.trace_id, "032x") == trace_id
    assert server.parent is not None and format(server.parent.span_id, "016x") == parent_id
    assert server.parent.is_remote


async def test_logs_are_json_lines_with_trace_ids(
    harness: Harness, exporters: Any, indexed: tuple[Keys, str]
) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    probe = logging.getLogger("quire.server.reliability-probe")
    probe.addHandler(handler)
    probe.setLevel(logging.INFO)
    try:
        tracer = trace.get_tracer("reliability")
        with tracer.start_as_current_span("probe") as span:
            probe.info("inside a span", extra={"rows": 3, "who": object()})
        probe.warning("outside\nwith a newline")
        try:
            raise ValueError("boom")
        except ValueError:
            probe.exception("failed")
    finally:
        probe.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3, lines  # one object a line, even with newlines in the message
    inside, outside, failed = (json.loads(line) for line in lines)
    assert inside["trace_id"] == format(span.get_span_context().trace_id, "032x")
    assert inside["span_id"] == format(span.get_span_context().span_id, "016x")
    assert inside["rows"] == 3 and isinstance(inside["who"], str)
    assert inside["level"] == "info" and inside["logger"] == "quire.server.reliability-probe"
    assert "trace_id" not in outside and outside["msg"] == "outside\nwith a newline"
    assert "ValueError: boom" in failed["exc"]

"""`/metrics` on the HTTP listener, scraped as Prometheus scrapes it: the `quire.*` instruments
in the Prometheus text format after real calls, for admin keys only (docs/operations.md,
Prometheus). Off by default: tests/integration/test_connect_http.py checks the 404."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio
from prometheus_client.parser import text_string_to_metric_families

from quire.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    knowledge_pb2,
    knowledge_service_pb2_grpc,
)
from quire.v1 import knowledge_service_pb2 as kn
from tests.conftest import Harness, bearer

# The module takes 3 s (a worker stopped at the end) under load (`make test-fast` leaves it out).
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
NEEDS_WORKER = True
HTTP_LISTENER = True
METRICS = True


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def scrape(harness: Harness) -> AsyncIterator[httpx.AsyncClient]:
    port = harness.running.http.port  # type: ignore[attr-defined]
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        yield client


async def samples(client: httpx.AsyncClient, key: str) -> dict[str, float]:
    """Every sample of the scrape summed by name (labels dropped), e.g.
    `quire_rpc_duration_milliseconds_count`, and by name and retrieval mode
    (`quire_cache_lookups_total/HYBRID_SHADOW`)."""
    got = await client.get("/metrics", headers={"authorization": f"Bearer {key}"})
    assert got.status_code == 200, got.text
    assert got.headers["content-type"].startswith("text/plain"), got.headers
    summed: dict[str, float] = {}
    for family in text_string_to_metric_families(got.text):
        for sample in family.samples:
            summed[sample.name] = summed.get(sample.name, 0.0) + sample.value
            if "mode" in sample.labels:  # the retrieval mode of knowledge searches
                moded = f"{sample.name}/{sample.labels['mode']}"
                summed[moded] = summed.get(moded, 0.0) + sample.value
    return summed


async def test_a_scrape_has_the_operations_metrics(
    harness: Harness, scrape: httpx.AsyncClient
) -> None:
    keys = await harness.keys("metrics-org")
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    made = await stub.CreateCollection(
        kn.CreateCollectionRequest(name="metrics"), metadata=bearer(keys.all)
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
    while (
        await stub.GetCollection(
            kn.GetCollectionRequest(collection_id=cid), metadata=bearer(keys.read)
        )
    ).collection.serving_generation == 0:
        assert time.monotonic() < deadline, "the worker did not index the document within 90 s"
        await asyncio.sleep(0.2)
    admin = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    await admin.SetRetrievalPolicy(
        admin_service_pb2.SetRetrievalPolicyRequest(
            mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID_SHADOW
        ),
        metadata=bearer(keys.admin),
    )
    query = f"impeller water {uuid.uuid4().hex[:6]}"
    for _ in range(2):  # the second is answered from the search cache
        reply = await stub.SearchKnowledge(
            kn.SearchKnowledgeRequest(query=query, collection_ids=[cid]),
            metadata=bearer(keys.read),
            timeout=30,
        )
        assert reply.hits

    # The shadow comparison runs after the reply: wait for it to be counted.
    deadline = time.monotonic() + 30
    while (got := await samples(scrape, keys.admin)).get("quire_shadow_top1_total", 0) == 0:
        assert time.monotonic() < deadline, sorted(got)
        await asyncio.sleep(0.1)
    for name in (
        "quire_rpc_duration_milliseconds_count",
        "quire_cache_lookups_total",
        "quire_shadow_overlap_count",
        "quire_indexing_documents_total",
        "quire_indexing_chunks_total",
    ):
        assert got.get(name, 0) > 0, (name, sorted(n for n in got if n.startswith("quire")))
    assert got.get("quire_cache_lookups_total/RETRIEVAL_MODE_HYBRID_SHADOW", 0) >= 2, sorted(got)
    assert "quire_jobs_queue_depth" in got, sorted(got)


async def test_a_scrape_needs_an_admin_key(harness: Harness, scrape: httpx.AsyncClient) -> None:
    keys = await harness.keys("metrics-refusals")
    anonymous = await scrape.get("/metrics")
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "unauthenticated"
    read_only = await scrape.get("/metrics", headers={"authorization": f"Bearer {keys.read}"})
    assert read_only.status_code == 403 and read_only.json()["code"] == "permission_denied"
    assert "quire_" not in anonymous.text + read_only.text

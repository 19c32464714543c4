"""SearchKnowledge with a metadata filter, end to end through the real worker and model: the
filter runs inside every arm of every mode, so a selective filter still fills the result with
the matching documents the unfiltered ranking buries; hits carry metadata when asked; the
filtered vector arm's HNSW path agrees with its exact scan."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from google.protobuf import json_format

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.v1 import knowledge_pb2
from tests.conftest import Harness
from tests.support.index_waits import wait_indexed

# The module takes 4 s under load, its corpus indexed by the worker (`make test-fast` leaves
# it out).
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
NEEDS_WORKER = True

MODES = [
    knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS,
    knowledge_pb2.RETRIEVAL_MODE_HYBRID_SHADOW,
    knowledge_pb2.RETRIEVAL_MODE_HYBRID,
]
# Thirty documents about apple orchards, owned by "globex"; four that mention apples once,
# owned by "acme". An unfiltered search for orchards ranks the globex ones first.
STRONG = (
    "Orchard report {i}: the apple orchard harvest this season, apple picking crews, apple "
    "storage and the orchard's cider pressing schedule."
)
WEAK = "Quarterly memo {i} on warehouse logistics; the canteen served apple pie on Friday."


@dataclasses.dataclass
class Corpus:
    collection_id: str
    metadata: dict[str, dict[str, Any]]  # document id → metadata

    def ids(self, **match: Any) -> set[str]:
        return {d for d, m in self.metadata.items() if all(m.get(k) == v for k, v in match.items())}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness) -> AsyncIterator[AsyncQuireClient]:
    keys = await harness.keys("filters-org")
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def search(client: AsyncQuireClient, **fields: Any) -> Any:
    return await client.search_knowledge(**fields)


def where(f: dict[str, Any]) -> knowledge_pb2.MetadataFilter:
    return json_format.ParseDict(f, knowledge_pb2.MetadataFilter())


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def corpus(client: AsyncQuireClient, harness: Harness) -> Corpus:
    collection = await client.create_collection(name="filtered")
    cid = collection.collection_id
    metadata: dict[str, dict[str, Any]] = {}
    for i in range(34):
        weak = i >= 30
        text = (WEAK if weak else STRONG).format(i=i)
        doc = await client.upload_document(
            collection_id=cid, file_name=f"doc-{i:02}.txt", data=text.encode()
        )
        metadata[doc.document_id] = {
            "customer": "acme" if weak else "globex",
            "year": 2020 + i % 5,
            "tags": ["memo"] if weak else ["orchard", "report"],
        }
    # Metadata written directly: this module tests the search, not the upload path.
    async with harness.pool.acquire() as conn:
        await conn.executemany(
            "UPDATE documents SET metadata = $2::jsonb WHERE document_id = $1",
            [(uuid.UUID(d), json.dumps(m)) for d, m in metadata.items()],
        )
    await wait_indexed(client, cid)
    return Corpus(cid, metadata)


@pytest.mark.parametrize("mode", MODES, ids=knowledge_pb2.RetrievalMode.Name)
async def test_a_selective_filter_fills_the_result_in_every_mode(
    client: AsyncQuireClient, corpus: Corpus, mode: int
) -> None:
    query = "apple orchard harvest"
    unfiltered = await search(
        client, collection_ids=[corpus.collection_id], query=query, limit=8, mode=mode
    )
    assert len(unfiltered.hits) == 8
    assert not {h.document_id for h in unfiltered.hits} & corpus.ids(customer="acme")
    result = await search(
        client,
        collection_ids=[corpus.collection_id],
        query=query,
        limit=8,
        mode=mode,
        filter=where({"field": {"field": "customer", "equals": "acme"}}),
        include_metadata=True,
    )
    assert {h.document_id for h in result.hits} == corpus.ids(customer="acme")
    for hit in result.hits:
        assert json_format.MessageToDict(hit.metadata) == corpus.metadata[hit.document_id]


@pytest.mark.parametrize("mode", MODES, ids=knowledge_pb2.RetrievalMode.Name)
async def test_combined_conditions_in_every_mode(
    client: AsyncQuireClient, corpus: Corpus, mode: int
) -> None:
    f = where(
        {
            "all": {
                "filters": [
                    {"field": {"field": "tags", "equals": "orchard"}},
                    {"field": {"field": "year", "numberRange": {"gte": 2022, "lt": 2024}}},
                    {"not": {"field": {"field": "year", "in": [2023]}}},
                ]
            }
        }
    )
    result = await search(
        client,
        collection_ids=[corpus.collection_id],
        query="apple orchard harvest",
        limit=8,
        mode=mode,
        filter=f,
    )
    expected = {
        d for d, m in corpus.metadata.items() if "orchard" in m["tags"] and m["year"] == 2022
    }
    assert {h.document_id for h in result.hits} == expected
    assert all(not h.HasField("metadata") for h in result.hits)


async def test_a_filter_nothing_matches_gives_no_hits(
    client: AsyncQuireClient, corpus: Corpus
) -> None:
    result = await search(
        client,
        collection_ids=[corpus.collection_id],
        query="apple",
        mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID,
        filter=where({"field": {"field": "customer", "exists": False}}),
    )
    assert list(result.hits) == []


async def test_filtered_results_are_cached_apart(client: AsyncQuireClient, corpus: Corpus) -> None:
    fields: dict[str, Any] = {
        "collection_ids": [corpus.collection_id],
        "query": "apple logistics memo",
        "mode": knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS,
    }
    acme = where({"field": {"field": "customer", "equals": "acme"}})
    globex = where({"field": {"field": "customer", "equals": "globex"}})
    for _ in range(2):  # the second round may come from the cache
        a = await search(client, filter=acme, **fields)
        g = await search(client, filter=globex, **fields)
        plain = await search(client, **fields)
        assert {h.document_id for h in a.hits} <= corpus.ids(customer="acme")
        assert {h.document_id for h in g.hits} <= corpus.ids(customer="globex")
        assert a.hits and g.hits and plain.hits


@pytest.mark.parametrize(
    ("f", "field", "bound"),
    [
        ({"field": {"field": "_x", "equals": 1}}, "filter.field.field", "not starting with _"),
        ({"any": {"filters": []}}, "filter.any.filters", "1–64 filters"),
        ({"field": {"field": "a", "in": [1, "1"]}}, "filter.field.in", "one type"),
        ({"field": {"field": "a", "numberRange": {}}}, "filter.field.number_range", "at least"),
    ],
)
async def test_bad_filters_are_refused_naming_the_part(
    client: AsyncQuireClient, corpus: Corpus, f: dict[str, Any], field: str, bound: str
) -> None:
    with pytest.raises(qe.InvalidRequest) as caught:
        await search(client, collection_ids=[corpus.collection_id], query="apple", filter=where(f))
    (violation,) = caught.value.detail.field_violations
    assert violation.field == field and bound in violation.bound


async def test_filtered_hnsw_agrees_with_the_exact_scan(
    harness: Harness, client: AsyncQuireClient, corpus: Corpus
) -> None:
    """The vector arm takes HNSW (with a filter) above the exact scan's bound: forced here
    with a bound of 0, its documents are the exact filtered scan's."""
    from quire.server.knowledge import reachable
    from quire.server.knowledge import search as engine
    from quire.server.storage.database import apply_settings

    state = harness.running.state  # type: ignore[attr-defined]
    org_id = await harness.pool.fetchval(
        "SELECT org_id FROM collections WHERE collection_id = $1", uuid.UUID(corpus.collection_id)
    )
    hnsw = dataclasses.replace(engine.DEFAULT_TUNING, exact_vector_max_chunks=0)
    f = where({"field": {"field": "year", "in": [2021, 2023]}})
    for query in ("apple orchard harvest", "warehouse logistics", "cider pressing"):
        vector = (await state.require_embeddings().embed_queries([query]))[0]
        found = {}
        for label, tuning in (("exact", engine.DEFAULT_TUNING), ("hnsw", hnsw)):
            async with harness.pool.acquire() as conn, conn.transaction(readonly=True):
                await apply_settings(conn, tuning.settings())
                collections = await reachable.resolve(conn, org_id, "", [corpus.collection_id])
                hits = await engine.hybrid(
                    conn, org_id, collections, query, vector, 50, tuning, where=f
                )
            found[label] = [h.document_id for h in hits]
        assert set(found["hnsw"]) == set(found["exact"]), query
        assert {corpus.metadata[d]["year"] for d in found["exact"]} <= {2021, 2023}

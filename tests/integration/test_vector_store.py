"""The content-addressed vector store (indexer/quire/indexer/ingest/vector_store.py) on a real
PostgreSQL, and through the real worker and model: a collection re-ingested by the same
organisation embeds nothing and ranks the same; rows are per organisation and per model,
bounded, and evicted rather than refused."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import numpy as np
import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer.ingest.vector_store import VectorStore
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys
from tests.support.index_waits import wait_indexed, wait_settled

# The module takes 3 s (a worker stopped at the end) under load (`make test-fast` leaves it out).
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
NEEDS_WORKER = True

FILES = {
    f"note-{i}.md": (
        f"# Note {i}\n\nThe pump station {i} moves water uphill with a centrifugal impeller.\n\n"
        f"## Maintenance {i}\n\nInspect the seals every {i + 2} months and log vibration.\n"
    ).encode()
    for i in range(6)
}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("vector-store-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


def _vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


async def test_lookup_returns_what_was_stored_for_that_organisation_and_model_only(
    harness: Harness,
) -> None:
    store = VectorStore(harness.pool)
    org, other = uuid.uuid4(), uuid.uuid4()
    texts = ["alpha", "beta", "gamma"]
    vectors = _vectors(3, 1)
    await store.remember(org, "model-a", texts, vectors)
    found = await store.lookup(org, "model-a", ["gamma", "delta", "alpha", "alpha"])
    assert sorted(found) == [0, 2, 3]
    np.testing.assert_array_equal(found[0], vectors[2])
    np.testing.assert_array_equal(found[2], vectors[0])
    assert await store.lookup(other, "model-a", texts) == {}  # never across organisations
    assert await store.lookup(org, "model-b", texts) == {}  # never another model's vector
    # A second write of the same text keeps the first row (vectors are a function of the text).
    await store.remember(org, "model-a", ["alpha"], _vectors(1, 2))
    np.testing.assert_array_equal((await store.lookup(org, "model-a", ["alpha"]))[0], vectors[0])


async def test_a_full_store_evicts_the_least_recently_used(harness: Harness) -> None:
    store = VectorStore(harness.pool, max_rows=10)
    org = uuid.uuid4()
    for start in range(0, 40, 4):
        texts = [f"text {i}" for i in range(start, start + 4)]
        await store.remember(org, "m", texts, _vectors(4, start))
        async with harness.pool.acquire() as conn:
            # Each write a little later than the last, so the order of use is explicit.
            await conn.execute(
                "UPDATE vector_store SET used_at = used_at - make_interval(secs => 40 - $2::int)"
                " WHERE org_id = $1 AND used_at > now() - interval '1 second'",
                org,
                start,
            )
    async with harness.pool.acquire() as conn:
        count = await conn.fetchval("SELECT count(*) FROM vector_store WHERE org_id = $1", org)
    assert 0 < count <= 10 + 1  # checked every tenth of the bound: at most one write over
    newest = await store.lookup(org, "m", [f"text {i}" for i in range(36, 40)])
    assert len(newest) == 4
    assert await store.lookup(org, "m", ["text 0", "text 1"]) == {}


async def test_reingesting_into_a_second_collection_embeds_nothing(
    harness: Harness, client: AsyncQuireClient
) -> None:
    stage = harness.running.state.embeddings.ingest_stage  # type: ignore[attr-defined]
    first = await client.create_collection(name="first")
    for name, data in FILES.items():
        await client.upload_document(collection_id=first.collection_id, file_name=name, data=data)
    await wait_indexed(client, first.collection_id, documents=len(FILES))
    embedded = stage.texts_embedded
    reused = stage.texts_reused
    second = await client.create_collection(name="second")
    for name, data in FILES.items():
        await client.upload_document(collection_id=second.collection_id, file_name=name, data=data)
    # All six, not only those extracted so far: the counts below are read right after.
    await wait_indexed(client, second.collection_id, documents=len(FILES))
    assert stage.texts_embedded == embedded, "re-ingestion embedded texts again"
    assert stage.texts_reused - reused >= len(FILES)
    # BM25 uses interim term statistics until the worker settles a collection: compare the
    # rankings once both hold exact statistics.
    for collection in (first, second):
        await wait_settled(harness.pool, collection.collection_id)

    def ranking(reply: object) -> list[tuple[str, int, float]]:
        return [(h.file_name, h.chunk_ordinal, h.score) for h in reply.hits]  # type: ignore[attr-defined]

    rankings = []
    for collection in (first, second):
        reply = await client.search_knowledge(
            query="how often are the seals inspected",
            collection_ids=[collection.collection_id],
            mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID,
        )
        rankings.append(ranking(reply))
    assert rankings[0] and rankings[0] == rankings[1]

"""The FTS baseline gate end to end over gRPC on the repository's judged set `mini`
(tests/fixtures/gate/mini: a split that passes and one that fails, by construction):
progress stream, recorded result, status by fingerprint, refusals and the cache rule. With
the shared data, also on a fixed SciFact subset (300 documents, 50 queries)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.v1 import admin_pb2, knowledge_pb2
from tests.conftest import Harness, Keys, shared_or_skip
from tests.support.waits import until

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True
MINI = "mini"  # served by the harness from tests/fixtures/gate
MINI_DOCUMENTS = 74


@dataclass
class Run:
    result: admin_pb2.GateResult
    legacy: admin_pb2.ModeMetrics
    hybrid: admin_pb2.ModeMetrics


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("gate-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def test_gate_status_is_empty_before_a_run(client: AsyncQuireClient) -> None:
    status = await client.get_gate_status()
    assert status.current_fingerprint and not status.HasField("result")


async def run(client: AsyncQuireClient, dataset: str, split: str, **bounds: int) -> Run:
    stages = []
    result = None
    async for message in client.run_gate(dataset=dataset, split=split, **bounds):
        if isinstance(message, admin_pb2.GateResult):
            result = message
        else:
            stages.append(message.stage)
    assert result is not None
    assert {"uploading", "indexing", "querying", "done"} <= set(stages)
    assert result.dataset == dataset and result.split == split
    by_label = {m.label: m for m in result.metrics}
    assert set(by_label) == {"legacy_fts", "hybrid", "vector_only"}
    for m in by_label.values():
        for value in (m.ndcg_at_10, m.recall_at_10, m.recall_at_100, m.mrr_at_10):
            assert 0.0 <= value <= 1.0
        assert m.recall_at_100 >= m.recall_at_10
    legacy, hybrid = by_label["legacy_fts"], by_label["hybrid"]
    assert result.passed == (
        hybrid.ndcg_at_10 >= legacy.ndcg_at_10 and hybrid.recall_at_100 >= legacy.recall_at_100
    )
    return Run(result, legacy, hybrid)


async def scratch_organisations(harness: Harness) -> int:
    async with harness.pool.acquire() as conn:
        left: int = await conn.fetchval(
            "SELECT count(*) FROM organisations WHERE name LIKE 'gate-scratch-%'"
        )
    return left


@pytest.mark.slow  # 5 s under load (`make test-fast` leaves it out)
async def test_a_split_where_hybrid_finds_what_the_baseline_cannot_passes(
    client: AsyncQuireClient, harness: Harness
) -> None:
    """`pass`: paraphrases sharing no word with their judged document (LEGACY_FTS cannot
    find it, the vector arm can), and two questions both modes answer."""
    gate = await run(client, MINI, "pass")
    assert gate.result.documents == MINI_DOCUMENTS and gate.result.queries == 6
    assert gate.result.passed
    assert gate.hybrid.ndcg_at_10 > gate.legacy.ndcg_at_10 + 0.3, (gate.hybrid, gate.legacy)
    assert gate.hybrid.recall_at_100 == 1.0
    status = await client.get_gate_status()
    assert status.result == gate.result
    assert status.result.fingerprint == status.current_fingerprint
    assert await scratch_organisations(harness) == 0


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_a_split_where_the_baseline_wins_fails(
    client: AsyncQuireClient, harness: Harness
) -> None:
    """`fail`: the judged document repeats one query word (ts_rank counts every occurrence:
    LEGACY_FTS ranks it first) while two decoys hold the other, rarer word (BM25 weighs
    rarity and counts a word once per chunk: HYBRID ranks them above it)."""
    gate = await run(client, MINI, "fail")
    assert gate.result.documents == MINI_DOCUMENTS and gate.result.queries == 4
    assert not gate.result.passed
    assert gate.legacy.ndcg_at_10 == 1.0
    assert gate.hybrid.ndcg_at_10 < gate.legacy.ndcg_at_10 - 0.2, (gate.hybrid, gate.legacy)
    # The latest result for the fingerprint is the one that counts: now a failed one.
    status = await client.get_gate_status()
    assert status.result == gate.result and not status.result.passed
    assert await scratch_organisations(harness) == 0


@pytest.mark.large_data
async def test_run_gate_on_a_scifact_subset(client: AsyncQuireClient, harness: Harness) -> None:
    shared_or_skip("data", "scifact")  # the harness serves the shared data sets by name too
    gate = await run(client, "scifact", "train", max_documents=300, max_queries=50)
    assert gate.result.documents == 300 and gate.result.queries == 50
    # Sanity: real retrieval on a subset that contains every judged document.
    assert gate.legacy.ndcg_at_10 > 0.4 and gate.hybrid.ndcg_at_10 > 0.4
    status = await client.get_gate_status()
    assert status.result == gate.result and status.result.fingerprint == status.current_fingerprint
    assert await scratch_organisations(harness) == 0


async def test_a_result_for_another_fingerprint_does_not_count(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    async with harness.pool.acquire() as conn:
        await conn.execute("DELETE FROM gate_results")
        await conn.execute(
            "INSERT INTO gate_results (org_id, fingerprint, dataset, split, passed, result) "
            "VALUES ($1, 'stale-fingerprint', 'x', 'train', true, $2)",
            keys.org_id,
            admin_pb2.GateResult(fingerprint="stale-fingerprint", passed=True).SerializeToString(),
        )
    status = await client.get_gate_status()
    assert not status.HasField("result")


async def test_hybrid_results_are_cached_only_with_a_passed_gate(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    collection = await client.create_collection(name="gated")
    await client.upload_document(
        collection_id=collection.collection_id, file_name="g.txt", data=b"the gecko climbs walls"
    )

    async def settled() -> bool:
        # Settled: indexed, statistics exact; only then may results be cached at all.
        return bool(
            await harness.pool.fetchval(
                "SELECT serving_generation > 0 AND settled_revision = revision FROM collections "
                "WHERE org_id = $1 AND collection_id = $2",
                keys.org_id,
                uuid.UUID(collection.collection_id),
            )
        )

    await until(settled, within_s=30, what="the collection never settled")
    await client.set_retrieval_policy(mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID)
    try:
        query = dict(collection_ids=[collection.collection_id], query="gecko")
        assert not (await client.search_knowledge(**query)).cached  # type: ignore[arg-type]
        assert not (await client.search_knowledge(**query)).cached  # type: ignore[arg-type]
        fp = (await client.get_gate_status()).current_fingerprint
        async with harness.pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO gate_results (org_id, fingerprint, dataset, split, passed, result) "
                "VALUES ($1, $2, 'x', 'train', true, $3)",
                keys.org_id,
                fp,
                admin_pb2.GateResult(fingerprint=fp, passed=True).SerializeToString(),
            )
        assert not (await client.search_knowledge(**query)).cached  # type: ignore[arg-type]
        assert (await client.search_knowledge(**query)).cached  # type: ignore[arg-type]
    finally:
        await client.set_retrieval_policy(mode=knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS)


async def test_gate_needs_admin_and_a_real_dataset(
    harness: Harness, client: AsyncQuireClient
) -> None:
    reader = await harness.keys("gate-reader")
    async with AsyncQuireClient(harness.address, api_key=reader.read) as c:
        with pytest.raises(qe.PermissionDenied):
            async for _ in c.run_gate(dataset=MINI, split="pass"):
                pass
    with pytest.raises(qe.NotFound):
        async for _ in client.run_gate(dataset="definitely-not-here", split="train"):
            pass
    with pytest.raises(qe.InvalidRequest):
        async for _ in client.run_gate(dataset=MINI, split="no-such-split"):
            pass


@pytest.mark.slow  # 4 s under load (`make test-fast` leaves it out)
async def test_a_second_index_of_a_data_set_embeds_nothing(
    harness: Harness, gate_datasets: Path
) -> None:
    """The gate files a data set's vectors under the organisation running it (each run indexes
    into a new scratch organisation, purged after): its next run looks every text up instead
    of embedding it again (issue 31), whichever worker indexes it (the gate's own or the
    server's, which claims some of the jobs here), and stores the same vectors."""
    from quire.server.gate import dataset, runner

    data = dataset.load(gate_datasets / MINI, "pass")
    keys = await harness.keys("gate-vectors-org")  # nothing filed under it yet
    embeddings = harness.running.state.embeddings  # type: ignore[attr-defined]
    server_stage = embeddings.ingest_stage
    runs = []
    for _ in range(2):
        before = server_stage.texts_embedded
        index = await runner.build_index(harness.pool, embeddings, data, vectors_of=keys.org_id)
        embedded = index.texts_embedded + server_stage.texts_embedded - before
        async with harness.pool.acquire() as conn:
            vectors = await conn.fetch(
                "SELECT content, embedding::text AS v FROM knowledge_chunks WHERE org_id = $1 "
                "ORDER BY content, embedding::text",
                index.org_id,
            )
            await runner.purge_organisation(conn, index.org_id)
        runs.append((embedded, [tuple(r) for r in vectors]))
    (first, first_vectors), (second, second_vectors) = runs
    assert first >= MINI_DOCUMENTS
    assert second == 0
    assert first_vectors and first_vectors == second_vectors

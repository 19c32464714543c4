"""The indexer worker's batch paths: claiming many jobs in one statement, a batch in which one
document fails extraction, and a generation build that meets documents already in the
pipeline. The worker is run by hand (`run_until_idle`), not in the background."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer.extraction import ExtractionPool
from quire.indexer.worker import jobs, other_models
from quire.indexer.worker.pipeline import Worker
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys
from tests.support.sample_files import CORRUPT, SAMPLES

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True  # the server holds the model; the worker below is started by each test


class CountingEmbedder:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.texts = 0

    @property
    def fingerprint(self) -> str:
        return self.inner.fingerprint  # type: ignore[attr-defined,no-any-return]

    async def embed_bulk(self, texts: list[str]) -> npt.NDArray[np.float32]:
        self.texts += len(texts)
        return await self.inner.embed_bulk(texts)  # type: ignore[attr-defined,no-any-return]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("worker-batches-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def test_claims_follow_the_model_a_job_names(harness: Harness, keys: Keys) -> None:
    """A job naming a model (a build, or a change for another model's generation) goes to that
    model's workers only, whatever model its collection serves; a job naming none follows its
    collection's."""
    collection_id, document_id = uuid.uuid4(), uuid.uuid4()
    async with harness.pool.acquire() as conn:
        await conn.execute(
            "INSERT INTO collections (org_id, collection_id, name) VALUES ($1, $2, 'claims')",
            keys.org_id,
            collection_id,
        )
        named = await jobs.enqueue(
            conn,
            keys.org_id,
            "test_noop",
            other_models.payload(collection_id, document_id, "bge-small-en-v1.5"),
        )
        unnamed = await jobs.enqueue(
            conn, keys.org_id, "test_noop", {"collection_id": str(collection_id)}
        )
        by_bge = await jobs.claim_batch(conn, "w:bge", 100, model="bge-small-en-v1.5")
        by_minilm = await jobs.claim_batch(conn, "w:minilm", 100, model="all-minilm-l6-v2")
    assert [j.job_id for j in by_bge if j.org_id == keys.org_id] == [named]
    assert [j.job_id for j in by_minilm if j.org_id == keys.org_id] == [unnamed]


def _loops(plan: dict[str, Any], alias: str) -> int:
    """How many times the plan ran its scans of the table under `alias`."""
    own = plan.get("Actual Loops", 0) if plan.get("Alias") == alias else 0
    return int(own) + sum(_loops(child, alias) for child in plan.get("Plans", []))


async def test_a_claim_reads_each_organisations_queue_once_whatever_the_statistics(
    harness: Harness, keys: Keys
) -> None:
    """A second bulk load, planned with the statistics of the first (every job done, none
    queued): the planner expects one queued job and, unless the organisations' turns are
    computed once, reads an organisation's queue again for every queued job. With 5,000 jobs
    a claim took 7 s (over the 60 s command timeout under load, so the worker "lost the
    database"); it takes milliseconds."""
    queued, limit = 2_000, 64
    insert = """
        INSERT INTO jobs (org_id, kind, payload, state)
        SELECT $1, 'test_noop', jsonb_build_object('i', i), $2 FROM generate_series(1, $3) i"""
    async with harness.pool.acquire() as conn:
        transaction = conn.transaction()  # rolled back: the jobs and the statistics go
        await transaction.start()
        try:
            await conn.execute(insert, keys.org_id, "done", queued)
            await conn.execute("ANALYZE jobs")
            await conn.execute(insert, keys.org_id, "queued", queued)
            organisations = await conn.fetchval(
                "SELECT count(DISTINCT org_id) FROM jobs WHERE state = 'queued'"
            )
            explained = await conn.fetchval(
                "EXPLAIN (ANALYZE, FORMAT JSON) " + jobs.CLAIM,
                "w:explain",
                limit,
                [],
                jobs.DEFAULT_MODEL,
                jobs.DEFAULT_MODEL,
            )
        finally:
            await transaction.rollback()
    plan = json.loads(explained)[0]["Plan"]
    assert plan["Actual Rows"] == limit
    assert _loops(plan, "q") <= organisations, "an organisation's queue was read many times"


async def test_claim_batch_takes_at_most_n_and_skips_locked_rows(
    harness: Harness, keys: Keys
) -> None:
    async with harness.pool.acquire() as conn:
        ids = [await jobs.enqueue(conn, keys.org_id, "test_noop", {"i": i}) for i in range(10)]
    async with harness.pool.acquire() as holder, harness.pool.acquire() as conn:
        async with holder.transaction():
            locked = ids[:3]  # another worker is claiming these right now
            await holder.execute(
                "SELECT 1 FROM jobs WHERE org_id = $1 AND job_id = ANY($2) FOR UPDATE",
                keys.org_id,
                locked,
            )
            first = await jobs.claim_batch(conn, "w:1", 5)
            rest = await jobs.claim_batch(conn, "w:1", 100)
        assert [j.job_id for j in first] == ids[3:8], "oldest first, locked rows skipped"
        assert [j.job_id for j in rest] == ids[8:]
        assert await jobs.claim_batch(conn, "w:1", 0) == []
        after = await jobs.claim_batch(conn, "w:2", 100)
        assert [j.job_id for j in after] == locked, "released rows are claimable again"
        rows = await conn.fetch(
            "SELECT state, attempts, locked_by FROM jobs WHERE org_id = $1 AND job_id = ANY($2)",
            keys.org_id,
            ids,
        )
        assert {(r["state"], r["attempts"]) for r in rows} == {("running", 1)}
        await jobs.finish_many(conn, [*first, *rest, *after])
        states = await conn.fetch(
            "SELECT DISTINCT state FROM jobs WHERE org_id = $1 AND job_id = ANY($2)",
            keys.org_id,
            ids,
        )
        assert [r["state"] for r in states] == ["done"]


async def test_one_failing_document_does_not_fail_its_batch(
    harness: Harness, keys: Keys, client: AsyncQuireClient, embeddings: object
) -> None:
    collection = await client.create_collection(name="mixed-batch")
    cid = collection.collection_id
    good = {
        "notes.txt": b"Valves and pumps keep the plant running.\n\nCheck them weekly.",
        "guide.md": b"# Guide\n\nPressure gauges read in bar.\n\n## Safety\n\nWear gloves.",
        "data.json": b'{"reactor": "cooling loop", "limit": 42}',
        "handbook.docx": SAMPLES["handbook.docx"].make(),
    }
    uploaded = {
        name: await client.upload_document(collection_id=cid, file_name=name, data=data)
        for name, data in good.items()
    }
    broken = await client.upload_document(
        collection_id=cid, file_name="broken.docx", data=CORRUPT["truncated.docx"]()
    )
    embedder = CountingEmbedder(embeddings)
    async with ExtractionPool() as extraction:
        worker = Worker(harness.pool, embedder, extraction)
        await worker.run_until_idle()
        for _ in range(jobs.MAX_ATTEMPTS - 1):  # the retries, without waiting for the backoff
            async with harness.pool.acquire() as conn:
                await conn.execute(
                    "UPDATE jobs SET run_after = now() WHERE org_id = $1 AND state = 'queued'",
                    keys.org_id,
                )
            await worker.run_until_idle()
    failed = await client.get_document(document_id=broken.document_id)
    assert failed.status == knowledge_pb2.DOCUMENT_STATUS_FAILED
    assert failed.extract_error
    async with harness.pool.acquire() as conn:
        serving = await conn.fetchval(
            "SELECT serving_generation FROM collections WHERE org_id = $1 AND collection_id = $2",
            keys.org_id,
            uuid.UUID(cid),
        )
        indexed = await conn.fetch(
            "SELECT document_id, count(*) AS chunks FROM knowledge_chunks "
            "WHERE org_id = $1 AND collection_id = $2 AND generation = $3 GROUP BY 1",
            keys.org_id,
            uuid.UUID(cid),
            serving,
        )
        states = await conn.fetch(
            "SELECT state, count(*) FROM jobs WHERE org_id = $1 AND kind <> 'test_noop' GROUP BY 1",
            keys.org_id,
        )
    assert serving > 0
    by_doc = {str(r["document_id"]): r["chunks"] for r in indexed}
    for name, doc in uploaded.items():
        current = await client.get_document(document_id=doc.document_id)
        assert current.status == knowledge_pb2.DOCUMENT_STATUS_READY, name
        assert by_doc.get(doc.document_id, 0) > 0, f"{name} is not indexed"
    assert broken.document_id not in by_doc
    # every extract job done or failed, and the first generation's build done
    assert {r["state"]: r["count"] for r in states} == {"done": len(good) + 1, "failed": 1}
    # The build of the first generation met the batch's documents in the pipeline and
    # waited for them instead of embedding them a second time.
    assert embedder.texts == sum(by_doc.values())


class StubbornEmbedder:
    """Never finishes a call and swallows cancellation until `release` is set: a stage that
    does not yield."""

    def __init__(self, fingerprint: str) -> None:
        self._fingerprint = fingerprint
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    async def embed_bulk(self, texts: list[str]) -> npt.NDArray[np.float32]:
        self.entered.set()
        while not self.release.is_set():
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                continue
        return np.zeros((len(texts), 384), dtype=np.float32)


async def test_stop_is_bounded_when_a_stage_does_not_yield(
    harness: Harness, keys: Keys, client: AsyncQuireClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quire.indexer.worker import pipeline

    monkeypatch.setattr(pipeline, "DRAIN_SECONDS", 0.5)
    monkeypatch.setattr(pipeline, "CANCEL_SECONDS", 0.5)
    cid = (await client.create_collection(name="stubborn")).collection_id
    doc = await client.upload_document(collection_id=cid, file_name="s.txt", data=b"never embedded")
    embedder = StubbornEmbedder(harness.running.state.embeddings.fingerprint)  # type: ignore[attr-defined]
    stop = asyncio.Event()
    async with ExtractionPool() as extraction:
        worker = Worker(harness.pool, embedder, extraction)
        running = asyncio.create_task(worker.run(stop))
        try:
            await asyncio.wait_for(embedder.entered.wait(), 30)
            stop.set()
            started = time.monotonic()
            # asyncio.wait, not wait_for: a regression must fail here, not hang the suite.
            await asyncio.wait({running}, timeout=10)
            assert running.done(), "stop did not end the worker"
            assert time.monotonic() - started < 3, "drain 0.5 s + cancel 0.5 s, not forever"
            async with harness.pool.acquire() as conn:
                job = await conn.fetchrow(
                    "SELECT state, attempts, locked_by FROM jobs "
                    "WHERE org_id = $1 AND payload->>'document_id' = $2",
                    keys.org_id,
                    doc.document_id,
                )
            # handed back at once, the attempt not counted: no one waits for the lease
            assert (job["state"], job["attempts"], job["locked_by"]) == ("queued", 0, None)
            await client.delete_document(document_id=doc.document_id)
        finally:
            embedder.release.set()
            if not running.done():
                running.cancel()


class RecordingWorker(Worker):
    """Records how many chunk writes run at once; a write containing `poison` fails the way a
    bad row fails its transaction."""

    def __init__(self, *args: object, poison: str, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.poison = uuid.UUID(poison)
        self.running = 0
        self.most_at_once = 0
        self.batches: list[int] = []

    async def _write(self, batch: list) -> bool:  # type: ignore[type-arg]
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        self.batches.append(len(batch))
        try:
            await asyncio.sleep(0.05)  # both parts of a split are in flight together
            if any(item.document_id == self.poison for item in batch):
                return False
            return await super()._write(batch)
        finally:
            self.running -= 1


async def test_the_last_batch_is_written_in_concurrent_parts_and_a_bad_document_fails_alone(
    harness: Harness,
    keys: Keys,
    client: AsyncQuireClient,
    embeddings: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quire.indexer.worker import writes

    monkeypatch.setattr(writes, "SPLIT_MIN_CHUNKS", 2)  # split batches of a few short texts
    cid = (await client.create_collection(name="split-writes")).collection_id
    uploaded = [
        await client.upload_document(
            collection_id=cid, file_name=f"n{i}.txt", data=f"Pump {i} runs at {i} bar.".encode()
        )
        for i in range(8)
    ]
    poison = uploaded[5].document_id
    async with ExtractionPool() as extraction:
        worker = RecordingWorker(harness.pool, embeddings, extraction, poison=poison)
        # Every document's vectors from the embedder, at once: store lookups (a round trip
        # each) would hand them to the write stage one by one, not as the group of 8 this
        # test splits.
        worker.embedding.store = None
        await worker.run_until_idle()
    assert worker.most_at_once == 2, f"writes {worker.batches} never overlapped"
    # one group of 8 → two parts of 4; the poisoned part is retried document by document
    assert sorted(worker.batches[:2]) == [4, 4]
    assert sorted(worker.batches[2:]) == [1, 1, 1, 1]
    async with harness.pool.acquire() as conn:
        indexed = {
            str(r["document_id"])
            for r in await conn.fetch(
                # The first generation's build waits for the failed document's retry, so
                # nothing serves yet; its chunks are written all the same.
                "SELECT DISTINCT document_id FROM knowledge_chunks "
                "WHERE org_id = $1 AND collection_id = $2",
                keys.org_id,
                uuid.UUID(cid),
            )
        }
        job = await conn.fetchrow(
            "SELECT state, attempts, last_error FROM jobs WHERE org_id = $1 "
            "AND kind = 'extract' AND payload->>'document_id' = $2",
            keys.org_id,
            poison,
        )
    assert indexed == {d.document_id for d in uploaded} - {poison}
    assert job["state"] == "queued" and job["last_error"] == "indexing failed", dict(job)

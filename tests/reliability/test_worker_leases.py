"""Job leases: a dead worker's jobs are taken over within 30 s, and a live worker's long job
is never taken over (its lease is renewed by a heartbeat while it runs).

A worker that dies leaves its claimed jobs `running` under its name with the lease it took at
claim time; that is what `claim_batch` under a name no live worker uses leaves behind, so the
tests make "a worker died right after claiming" that way. Before the heartbeat, a lease lasted
300 s and was renewed only between claims (a long batch could outlive it and run twice).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer.extraction import ExtractionPool
from quire.indexer.worker import jobs
from quire.indexer.worker.pipeline import Worker
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True

TAKEOVER_S = 30.0
JOBS_OF = """
SELECT job_id, state, attempts, locked_by FROM jobs
WHERE org_id = $1 AND kind = 'extract' AND payload->>'document_id' = ANY($2::text[])
"""


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("leases-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def upload(client: AsyncQuireClient, name: str, count: int) -> list[str]:
    cid = (await client.create_collection(name=name)).collection_id
    return [
        (
            await client.upload_document(
                collection_id=cid,
                file_name=f"{name}-{i}.txt",
                data=f"Note {i} of {name}: the relief valve opens at {i} bar.".encode(),
            )
        ).document_id
        for i in range(count)
    ]


async def test_a_dead_workers_jobs_are_taken_over_within_30_s(
    harness: Harness, keys: Keys, client: AsyncQuireClient, embeddings: Any
) -> None:
    documents = await upload(client, "orphans", 12)
    async with harness.pool.acquire() as conn:
        orphaned = await jobs.claim_batch(conn, "dead-host:4242:abcdef", 100)
    assert len(orphaned) == len(documents), "the dead worker held every job"
    died = time.monotonic()
    stop = asyncio.Event()
    async with ExtractionPool() as extraction:
        worker = Worker(harness.pool, embeddings, extraction)
        running = asyncio.create_task(worker.run(stop))
        try:
            taken_over = indexed = None
            while time.monotonic() - died < TAKEOVER_S + 30:
                async with harness.pool.acquire() as conn:
                    rows = await conn.fetch(JOBS_OF, keys.org_id, documents)
                if taken_over is None and not any(
                    r["locked_by"] == "dead-host:4242:abcdef" for r in rows
                ):
                    taken_over = time.monotonic() - died
                if all(r["state"] == "done" for r in rows):
                    indexed = time.monotonic() - died
                    break
                await asyncio.sleep(0.25)
        finally:
            stop.set()
            await asyncio.wait({running}, timeout=60)
    print(f"\ndead worker's jobs taken over after {taken_over} s, all indexed after {indexed} s")
    assert taken_over is not None and taken_over <= TAKEOVER_S, taken_over
    assert indexed is not None, "the taken-over jobs did not finish"
    for document_id in documents:
        doc = await client.get_document(document_id=document_id)
        assert doc.status == knowledge_pb2.DOCUMENT_STATUS_READY
    # Each job ran twice at most: once for the dead worker's claim, once after the take-over.
    assert {r["attempts"] for r in rows} == {2}


class SlowEmbedder:
    """The real embedder, after holding each call for `hold_s` (a long batch)."""

    def __init__(self, inner: Any, hold_s: float) -> None:
        self.inner = inner
        self.hold_s = hold_s
        self.calls = 0

    @property
    def fingerprint(self) -> str:
        return self.inner.fingerprint  # type: ignore[no-any-return]

    async def embed_bulk(self, texts: list[str]) -> npt.NDArray[np.float32]:
        self.calls += 1
        await asyncio.sleep(self.hold_s)
        return await self.inner.embed_bulk(texts)  # type: ignore[no-any-return]


async def test_a_long_job_keeps_its_lease_and_runs_once(
    harness: Harness,
    keys: Keys,
    client: AsyncQuireClient,
    embeddings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A short lease, so "longer than the lease" takes seconds; the heartbeat renews it.
    monkeypatch.setattr(jobs, "LEASE_SECONDS", 3.0)
    monkeypatch.setattr(jobs, "HEARTBEAT_SECONDS", 0.5)
    monkeypatch.setattr(jobs, "RECOVER_EVERY_SECONDS", 0.5)
    documents = await upload(client, "long-job", 1)
    stop = asyncio.Event()
    workers: list[asyncio.Task[None]] = []
    async with ExtractionPool() as extraction:
        slow = Worker(harness.pool, SlowEmbedder(embeddings, hold_s=8.0), extraction)
        workers.append(asyncio.create_task(slow.run(stop)))
        try:
            # Wait until the slow worker holds the job, then start a second, idle worker that
            # re-queues expired leases every 0.5 s.
            for _ in range(200):
                async with harness.pool.acquire() as conn:
                    rows = await conn.fetch(JOBS_OF, keys.org_id, documents)
                if rows and rows[0]["state"] == "running":
                    break
                await asyncio.sleep(0.05)
            assert rows[0]["locked_by"] == slow.worker_id
            other = Worker(harness.pool, embeddings, extraction)
            workers.append(asyncio.create_task(other.run(stop)))
            for _ in range(200):  # 8 s of embedding + the write, at most 20 s
                async with harness.pool.acquire() as conn:
                    rows = await conn.fetch(JOBS_OF, keys.org_id, documents)
                if rows[0]["state"] == "done":
                    break
                assert rows[0]["locked_by"] in (slow.worker_id, None), "taken over while alive"
                await asyncio.sleep(0.1)
        finally:
            stop.set()
            await asyncio.wait(workers, timeout=60)
    assert rows[0]["state"] == "done"
    assert rows[0]["attempts"] == 1, "the job ran twice: its lease expired while it ran"

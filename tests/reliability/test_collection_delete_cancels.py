"""Deleting a collection while its large document is being indexed stops the work within
seconds and purges the collection's rows (worker/cancel.py).

Before, the delete only marked the collection deleted and queued a purge of its chunks and
statistics: the worker went on embedding the document (a 15 MB file: minutes on 1.5 cores),
a build job of the deleted collection still ran, and the document's rows stayed in the
database for good.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer.extraction import ExtractionPool
from quire.indexer.ingest import embed_stage
from quire.indexer.worker import jobs
from quire.indexer.worker.pipeline import Worker
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True

# Rows of the collection, by table (documents' originals through their ids).
ROWS = {
    "documents": "SELECT count(*) FROM documents WHERE org_id = $1 AND collection_id = $2",
    "document_originals": """
        SELECT count(*) FROM document_originals WHERE org_id = $1 AND document_id = ANY($3)
          AND $2::uuid IS NOT NULL""",
    "knowledge_chunks": """
        SELECT count(*) FROM knowledge_chunks WHERE org_id = $1 AND collection_id = $2""",
    "index_generations": """
        SELECT count(*) FROM index_generations WHERE org_id = $1 AND collection_id = $2""",
    "lexeme_stats": "SELECT count(*) FROM lexeme_stats WHERE org_id = $1 AND collection_id = $2",
    "generation_stats": """
        SELECT count(*) FROM generation_stats WHERE org_id = $1 AND collection_id = $2""",
    "index_backlog": "SELECT count(*) FROM index_backlog WHERE org_id = $1 AND collection_id = $2",
    "jobs": """
        SELECT count(*) FROM jobs WHERE org_id = $1 AND kind <> 'purge_collection'
          AND (payload->>'collection_id' = $2::uuid::text
               OR payload->>'document_id' = ANY($3::uuid[]::text[]))""",
}
UNFINISHED_JOBS = """
SELECT count(*) FROM jobs WHERE org_id = $1 AND state IN ('queued', 'running')
  AND (payload->>'collection_id' = $2::uuid::text
       OR payload->>'document_id' = ANY($3::uuid[]::text[]))
"""


class CountingEmbedder:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts = 0

    @property
    def fingerprint(self) -> str:
        return self.inner.fingerprint  # type: ignore[no-any-return]

    async def embed_bulk(self, texts: list[str]) -> npt.NDArray[np.float32]:
        vectors = await self.inner.embed_bulk(texts)
        self.texts += len(texts)
        return vectors  # type: ignore[no-any-return]


async def until(check: Callable[[], Awaitable[bool]], within_s: float, what: str) -> float:
    """Seconds until `check()` holds; fails after `within_s`."""
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < within_s, what
        await asyncio.sleep(0.05)
    return time.monotonic() - started


def large_text(paragraphs: int) -> bytes:
    words = ["valve", "pressure", "gasket", "flange", "pump", "seal", "bearing", "rotor"]
    return "\n\n".join(
        f"Section {i}. The {words[i % 8]} of unit {i} was checked on day {i % 365}; "
        f"its reading was {i * 7 % 1000} and the {words[(i * 3) % 8]} next to it held at "
        f"{i % 97} bar. Maintenance notes for unit {i}: replace the {words[(i * 5) % 8]} "
        f"when the reading passes {i % 500 + 100}, and log the change in register {i}."
        for i in range(paragraphs)
    ).encode()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("delete-cancels-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


@pytest.mark.parametrize("heard", [True, False], ids=["notified", "notification-missed"])
async def test_deleting_a_collection_mid_indexing_stops_its_work_and_purges_it(
    harness: Harness,
    keys: Keys,
    client: AsyncQuireClient,
    embeddings: Any,
    monkeypatch: pytest.MonkeyPatch,
    heard: bool,
) -> None:
    if not heard:
        # A worker that missed the notification finds the delete at its next lease renewal.
        monkeypatch.setattr(Worker, "_on_cancel", lambda *_: None)
        monkeypatch.setattr(jobs, "HEARTBEAT_SECONDS", 1.0)
    cid = (await client.create_collection(name=f"doomed-{heard}")).collection_id
    data = large_text(8_000)  # ~2 MB, thousands of chunks: many seconds of embedding here
    doc = await client.upload_document(collection_id=cid, file_name="manual.txt", data=data)
    org, collection, documents = keys.org_id, uuid.UUID(cid), [uuid.UUID(doc.document_id)]

    async def count(query: str) -> int:
        async with harness.pool.acquire() as conn:
            args = (org, collection, documents) if "$3" in query else (org, collection)
            value: int = await conn.fetchval(query, *args)  # $3: the document ids
        return value

    counting = CountingEmbedder(embeddings)
    stop = asyncio.Event()
    async with ExtractionPool() as extraction:
        worker = Worker(harness.pool, counting, extraction)
        running = asyncio.create_task(worker.run(stop))
        try:

            async def embedding_under_way() -> bool:
                return counting.texts >= 200

            await until(embedding_under_way, 120, "the document's embedding did not start")
            assert worker._in_flight == 1, "the document is still being indexed"
            embedded_before = counting.texts
            deleted = time.monotonic()
            await client.delete_collection(collection_id=cid)

            async def dropped() -> bool:
                return (
                    worker._in_flight == 0
                    and not worker._builds
                    and worker.embedding.queued(worker).entries == 0
                    and not worker.embedding.busy
                )

            stopped_s = await until(dropped, 5, "the worker still works on the collection")
            embedded_then = counting.texts

            async def unfinished_jobs_gone() -> bool:
                return await count(UNFINISHED_JOBS) == 0

            await until(unfinished_jobs_gone, 5, "the collection's jobs were not cancelled")

            async def purged() -> bool:
                return all([await count(query) == 0 for query in ROWS.values()])

            purged_s = await until(purged, 10, "the collection's rows were not purged")
            # The worker is free for other work, and none of it goes to the deleted collection.
            other = (await client.create_collection(name=f"kept-{heard}")).collection_id
            kept = await client.upload_document(
                collection_id=other, file_name="kept.txt", data=b"The pump seal was replaced."
            )

            async def kept_indexed() -> bool:
                got = await client.get_document(document_id=kept.document_id)
                return got.index_state == knowledge_pb2.DOCUMENT_INDEX_STATE_INDEXED

            await until(kept_indexed, 60, "a document of another collection was not indexed")
        finally:
            stop.set()
            await asyncio.wait({running}, timeout=60)
    counts = {table: await count(query) for table, query in ROWS.items()}
    print(
        f"\n{'notified' if heard else 'at lease renewal'}: embedded {embedded_before} texts "
        "of the document before the delete, "
        f"{embedded_then - embedded_before} after it; work dropped {stopped_s:.2f} s and rows "
        f"purged {purged_s:.2f} s after the delete ({time.monotonic() - deleted:.1f} s in all)"
    )
    assert counts == dict.fromkeys(ROWS, 0), "no row of the collection came back"
    # After the delete only the groups already with the embedder were finished (a slice of a
    # group may be another document's; this test has none), and nothing after the drop but
    # the other collection's one-chunk document.
    ahead = embed_stage.GROUP_TEXTS * embed_stage.GROUPS_AHEAD
    if heard:  # a missed notification leaves up to a heartbeat of embedding
        assert embedded_then - embedded_before <= ahead
    assert counting.texts - embedded_then <= 1

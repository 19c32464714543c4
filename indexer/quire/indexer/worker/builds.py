"""Generation builds: every READY document of a collection indexed into a BUILDING
generation, then the flip to it.

A build job runs in a task of its own beside the claims (it waits for its documents to pass
the pipeline). It takes the collection's documents BUILD_PAGE at a time, skips those the
generation holds already (a build taken over from a worker that died), waits for those
already in this worker's pipeline for that generation rather than embed them twice, and
submits the others to the chunk stage. When every document is indexed it refreshes the
generation's statistics and flips to it; when some failed, the job is retried, and the
generation is FAILED once it cannot be. A deleted collection's build is cancelled (cancel.py).

A build job names the generation's embedding model (`build_payload`): only a worker of that
model claims it (jobs.CLAIM), so a rebuild onto another model is embedded by that model alone
while the serving generation's worker goes on with its own.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from quire.indexer.extraction import NO_TEXT_MARKER
from quire.indexer.worker import generations, jobs, lexical_stats
from quire.indexer.worker.faults import DATABASE_ERRORS
from quire.indexer.worker.in_flight import Document, InFlight

log = logging.getLogger(__name__)

BUILD = "build_generation"
# Documents read (and submitted) per statement.
BUILD_PAGE = 64
BUILD_TEXTS = """
SELECT document_id, file_name, extracted_text, extract_error, updated_at FROM documents
WHERE org_id = $1 AND document_id = ANY($2::uuid[]) AND deleted_at IS NULL
"""
INDEXED_DOCUMENTS = """
SELECT DISTINCT document_id FROM knowledge_chunks
WHERE org_id = $1 AND collection_id = $2 AND generation = $3
"""


def build_payload(collection_id: uuid.UUID, generation: int, model: str) -> dict[str, Any]:
    """A build job's payload; `model` routes it to that model's workers (jobs.CLAIM)."""
    return {"collection_id": str(collection_id), "generation": generation, "model": model}


async def stored_texts(
    conn: asyncpg.Connection, org_id: uuid.UUID, document_ids: list[uuid.UUID]
) -> list[asyncpg.Record]:
    """The stored texts of these documents (those not deleted), to index them again."""
    return list(await conn.fetch(BUILD_TEXTS, org_id, document_ids))


def stored_document(
    row: asyncpg.Record,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    generations: list[int],
    job: jobs.Job | None,
) -> Document:
    """A document whose stored text (a row of `stored_texts`) goes to `generations`."""
    no_text = row["extract_error"] == NO_TEXT_MARKER
    return Document(
        org_id=org_id,
        collection_id=collection_id,
        document_id=row["document_id"],
        file_name=row["file_name"],
        text="" if no_text else row["extracted_text"],
        text_as_of=row["updated_at"],
        generations=generations,
        job=job,
    )


class Builds:
    """The running builds; `submit` hands a document to the chunk stage."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        in_flight: InFlight,
        *,
        submit: Callable[[Document], Awaitable[None]],
    ) -> None:
        self.pool = pool
        self.in_flight = in_flight
        self._submit = submit
        self.running: set[asyncio.Task[None]] = set()
        # The (org, collection) each running build is for (a deleted collection's is cancelled).
        self.of: dict[asyncio.Task[None], tuple[uuid.UUID, uuid.UUID]] = {}

    def start(self, job: jobs.Job) -> None:
        task = asyncio.create_task(self._run(job))
        self.running.add(task)
        self.of[task] = (job.org_id, uuid.UUID(job.payload["collection_id"]))
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.running.discard(task)
        self.of.pop(task, None)

    def cancel(self, org_id: uuid.UUID, collection_id: uuid.UUID) -> int:
        """Cancels the collection's builds; returns how many there were."""
        builds = [task for task, of in self.of.items() if of == (org_id, collection_id)]
        for task in builds:
            task.cancel()
        return len(builds)

    async def _run(self, job: jobs.Job) -> None:
        try:
            await self._build(job)
        except DATABASE_ERRORS as exc:
            log.warning("job failed", extra={"job_id": job.job_id, "error": repr(exc)[:300]})
            await self.in_flight.retry([job], type(exc).__name__)

    async def _build(self, job: jobs.Job) -> None:
        collection_id = uuid.UUID(job.payload["collection_id"])
        generation = int(job.payload["generation"])
        async with self.pool.acquire() as conn:
            doc_ids = await generations.ready_documents(conn, job.org_id, collection_id)
            indexed = {
                r["document_id"]
                for r in await conn.fetch(INDEXED_DOCUMENTS, job.org_id, collection_id, generation)
            }
        pending = [d for d in doc_ids if d not in indexed]
        outcomes: list[asyncio.Future[bool]] = []
        for start in range(0, len(pending), BUILD_PAGE):
            page = []
            for document_id in pending[start : start + BUILD_PAGE]:
                active = self.in_flight.active.get((job.org_id, document_id))
                if active is not None and generation in active.generations:
                    outcomes.append(active.outcome)
                else:
                    page.append(document_id)
            if not page:
                continue
            async with self.pool.acquire() as conn:
                rows = await stored_texts(conn, job.org_id, page)
            for row in rows:
                document = stored_document(row, job.org_id, collection_id, [generation], None)
                outcomes.append(document.outcome)
                await self._submit(document)
        failures = sum(1 for ok in await asyncio.gather(*outcomes) if not ok)
        async with self.pool.acquire() as conn:
            if failures:
                error = f"{failures} document(s) failed to index"
                if await jobs.retry_or_fail(conn, job, error):
                    return
                await generations.fail(conn, job.org_id, collection_id, generation, error)
            else:
                # Statistics first: a generation never serves without them (BM25, and the
                # vector arm's exact-or-HNSW choice, read them).
                await lexical_stats.refresh(conn, job.org_id, collection_id, generation)
                await generations.flip(conn, job.org_id, collection_id, generation)
                await jobs.finish(conn, job)
        await self.in_flight.settle([(job.org_id, collection_id)])

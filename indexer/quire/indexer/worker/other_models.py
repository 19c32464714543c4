"""Document changes for the live generations of another embedding model than the worker's.

A collection may have generations of two models live at once: the serving one on model A while
a rebuild builds one on model B, or B serving with A retired (kept for rollback). A document
change's extract job goes to a worker of the collection's model (the serving generation's:
jobs.CLAIM), which stores the text and writes it into the live generations of its own model.
For every other model among the live generations it queues, in the same transaction, one
INDEX_FOR_MODEL job per document naming that model (`queue`); only that model's workers claim
it, read the stored text and write it into their model's live generations. So every change
reaches every live generation, and each generation's chunks come from its own model alone.

The job reads the text stored when it runs, with its version (`documents.updated_at`): a text
changed again meanwhile is written only if still current (generations.write_many_chunks), and its
own extraction queues a job of its own. A document deleted since, or a model with no live
generation left (a failed build), finishes the job with nothing written.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any

import asyncpg

from quire.indexer.worker import builds, generations, jobs
from quire.indexer.worker.faults import DATABASE_ERRORS
from quire.indexer.worker.in_flight import Document, InFlight

log = logging.getLogger(__name__)

INDEX_FOR_MODEL = "index_for_model"


def payload(collection_id: uuid.UUID, document_id: uuid.UUID, model: str) -> dict[str, Any]:
    """`model` routes the job to that model's workers (jobs.CLAIM)."""
    return {"collection_id": str(collection_id), "document_id": str(document_id), "model": model}


async def queue(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    document_ids: Sequence[uuid.UUID],
    models: Collection[str],
) -> None:
    """One job per document and model; run it in the transaction that stores the texts."""
    for model in sorted(models):
        for document_id in document_ids:
            await jobs.enqueue(
                conn, org_id, INDEX_FOR_MODEL, payload(collection_id, document_id, model)
            )


class OtherModels:
    """Runs claimed INDEX_FOR_MODEL jobs: each document's stored text to the chunk stage
    (`submit`), for the live generations of `model`, the job finished with the write."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        in_flight: InFlight,
        *,
        model: str,
        submit: Callable[[Document], Awaitable[None]],
    ) -> None:
        self.pool = pool
        self.in_flight = in_flight
        self.model = model
        self._submit = submit

    async def run(self, batch: list[jobs.Job]) -> None:
        try:
            documents = await self._documents(batch)
        except DATABASE_ERRORS as exc:
            log.warning("index for model batch failed", extra={"error": repr(exc)[:300]})
            await self.in_flight.retry(batch, type(exc).__name__)
            return
        for document in documents:
            await self._submit(document)

    async def _documents(self, batch: list[jobs.Job]) -> list[Document]:
        """The documents to index; the jobs with nothing to do are finished here."""
        done: list[jobs.Job] = []
        documents: dict[tuple[uuid.UUID, uuid.UUID], Document] = {}
        targets: dict[tuple[uuid.UUID, uuid.UUID], list[int]] = {}
        async with self.pool.acquire() as conn:
            for org_id in dict.fromkeys(job.org_id for job in batch):
                mine = [job for job in batch if job.org_id == org_id]
                ids = [uuid.UUID(job.payload["document_id"]) for job in mine]
                rows = {
                    r["document_id"]: r
                    for r in await builds.stored_texts(conn, org_id, list(dict.fromkeys(ids)))
                }
                for job, document_id in zip(mine, ids, strict=True):
                    collection_id = uuid.UUID(job.payload["collection_id"])
                    if (org_id, collection_id) not in targets:
                        live = await generations.live_generations(conn, org_id, collection_id)
                        targets[org_id, collection_id] = [
                            g.generation for g in live if g.embedding_model == self.model
                        ]
                    row = rows.get(document_id)
                    if (
                        row is None
                        or row["extracted_text"] is None
                        or not targets[org_id, collection_id]
                        or (org_id, document_id) in documents  # the same change twice
                    ):
                        done.append(job)
                        continue
                    documents[org_id, document_id] = builds.stored_document(
                        row, org_id, collection_id, targets[org_id, collection_id], job
                    )
            await jobs.finish_many(conn, done)
        return list(documents.values())

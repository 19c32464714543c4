"""Writing embedded documents' chunks, in batches of transactions.

The write stage takes what the embedder finished and writes up to WRITE_BATCH_DOCS documents
/ WRITE_BATCH_CHUNKS chunks in one transaction that also finishes their extract jobs and
notifies each collection once (`write_batch`). When the embedder has nothing left to do (the
end of a burst), a batch is split over WRITE_CONCURRENCY concurrent transactions
(`split_for_writers`) so its write uses the cores the embedder left. A document of more than
WRITE_BATCH_CHUNKS chunks is written by a task of its own, beside the batches. A failed batch
(or part) is retried document by document, so one bad row fails alone.

After a write, statistics drift is checked once per batch and collection, and a collection
with nothing left pending is settled (exact statistics, settle.py) before the batch's
documents count as done.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import asyncpg
from opentelemetry import metrics

from quire.indexer.ingest.embed_stage import Vectors
from quire.indexer.worker import generations, jobs, lexical_stats
from quire.indexer.worker.faults import DATABASE_ERRORS
from quire.indexer.worker.in_flight import Document, InFlight

log = logging.getLogger(__name__)
_meter = metrics.get_meter("quire.indexer")
indexed_documents = _meter.create_counter(
    "quire.indexing.documents", description="Documents indexed, by outcome"
)
indexed_chunks = _meter.create_counter("quire.indexing.chunks", description="Chunks written")

# Documents (and chunks) written per transaction.
WRITE_BATCH_DOCS = 512
WRITE_BATCH_CHUNKS = 4096
# When the embedder has nothing left to do, the write stage splits a batch of at least
# 2 × SPLIT_MIN_CHUNKS chunks over this many concurrent transactions: the last batch of a
# burst is written on every core instead of one while the others idle.
WRITE_CONCURRENCY = 2
SPLIT_MIN_CHUNKS = 128

Write = Callable[[list[Document]], Awaitable[bool]]


class ChunkWrites:
    """The write stage. `write` writes one batch in one transaction (True if it committed:
    `write_batch`); `embedder_idle` says whether the embedder has nothing left to do."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        in_flight: InFlight,
        *,
        write: Write,
        embedder_idle: Callable[[], bool],
    ) -> None:
        self.pool = pool
        self.in_flight = in_flight
        self._write = write
        self._embedder_idle = embedder_idle
        # Unbounded: the embedding stage must not wait for one owner's writes (page syncs share
        # it); what can be in it is bounded by the documents claimed (in_flight.py).
        self.queue: asyncio.Queue[Document] = asyncio.Queue()
        self.large: set[asyncio.Task[None]] = set()
        self.embedded_chunks = 0

    def put(self, document: Document) -> None:
        self.queue.put_nowait(document)

    async def run(self) -> None:
        while True:
            batch = [await self.queue.get()]
            if batch[0].outcome.done():  # its collection was deleted
                continue
            if len(batch[0].texts) > WRITE_BATCH_CHUNKS:
                self._write_apart(batch)
                continue
            chunks = len(batch[0].texts)
            while len(batch) < WRITE_BATCH_DOCS and chunks < WRITE_BATCH_CHUNKS:
                try:
                    document = self.queue.get_nowait()
                except asyncio.QueueEmpty:
                    break
                if document.outcome.done():
                    continue
                if len(document.texts) > WRITE_BATCH_CHUNKS:
                    self._write_apart([document])
                    continue
                batch.append(document)
                chunks += len(document.texts)
            parts = [batch]
            if self._embedder_idle():
                parts = split_for_writers(batch)
            results = await asyncio.gather(*(self._write_part(part) for part in parts))
            await self._written(batch, [ok for result in results for ok in result])

    def _write_apart(self, batch: list[Document]) -> None:
        """A large document's write (tens of seconds for 100,000 chunks) in a task of its own,
        so other documents' writes do not wait for it."""

        async def write() -> None:
            await self._written(batch, await self._write_part(batch))

        task = asyncio.create_task(write())
        self.large.add(task)
        task.add_done_callback(self.large.discard)

    async def _written(self, batch: list[Document], outcomes: list[bool]) -> None:
        """After a write: statistics drift, settling, and each document's outcome."""
        pairs = zip(batch, outcomes, strict=True)
        written = [(d.org_id, d.collection_id) for d, ok in pairs if ok]
        for org_id, collection_id in dict.fromkeys(written):
            try:
                async with self.pool.acquire() as conn:
                    await lexical_stats.refresh_if_drifted(conn, org_id, collection_id)
            except DATABASE_ERRORS:
                # Statistics only steer BM25; settling makes them exact later.
                log.warning("term statistics refresh failed", exc_info=True)
        # Before the documents count as done (`run_until_idle` returns when none is left),
        # so a worker that drains a collection leaves it settled.
        await self.in_flight.settle(written)
        for document, ok in zip(batch, outcomes, strict=True):
            self.embedded_chunks += len(document.texts) if ok else 0
            indexed_documents.add(1, {"ok": ok})
            if ok:
                indexed_chunks.add(len(document.texts))
            await self.in_flight.complete(document, ok)

    async def _write_part(self, batch: list[Document]) -> list[bool]:
        """Writes the documents in one transaction; when that fails, one by one, so only the
        document at fault fails."""
        if await self._write(batch):
            return [True] * len(batch)
        if len(batch) == 1:
            return [False]
        return [await self._write([document]) for document in batch]


async def write_batch(pool: asyncpg.Pool, batch: list[Document]) -> bool:
    """Writes the batch's chunks, finishes its extract jobs and notifies each collection
    once, all in one transaction; False (logged) when it failed."""
    try:
        async with pool.acquire() as conn, conn.transaction():
            await generations.write_many_chunks(
                conn,
                [
                    generations.DocumentChunks(
                        org_id=document.org_id,
                        collection_id=document.collection_id,
                        document_id=document.document_id,
                        text_as_of=document.text_as_of,
                        generations=document.generations,
                        rows=generations.ChunkRows(
                            document.contents, document.headings, _vectors(document), document.title
                        ),
                    )
                    for document in batch
                ],
            )
            await jobs.finish_many(conn, [d.job for d in batch if d.job is not None])
            await generations.notify_indexes(conn, [(d.org_id, d.collection_id) for d in batch])
        return True
    except DATABASE_ERRORS:
        log.exception("chunk write failed", extra={"documents": len(batch)})
        return False


def split_for_writers(batch: list[Document]) -> list[list[Document]]:
    """The batch in up to WRITE_CONCURRENCY consecutive parts of about equal chunk counts; a
    batch of fewer than 2 × SPLIT_MIN_CHUNKS chunks stays whole. Two parts may share a
    document only if it was queued twice: both lock its row in key order, so they wait for
    each other rather than deadlock."""
    total = sum(len(document.texts) for document in batch)
    parts = max(1, min(WRITE_CONCURRENCY, total // SPLIT_MIN_CHUNKS))
    if parts == 1:
        return [batch]
    out: list[list[Document]] = [[]]
    share, filled = total / parts, 0
    for document in batch:
        if filled >= share * len(out) and len(out) < parts:
            out.append([])
        out[-1].append(document)
        filled += len(document.texts)
    return out


def _vectors(document: Document) -> Vectors:
    assert document.vectors is not None
    return document.vectors

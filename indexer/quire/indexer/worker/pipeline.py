"""The worker: jobs → extraction → chunking → batched embedding → chunk writes.

`Worker` composes the stages, one module each, and runs them until stopped:

1. claims (claims.py): up to 64 jobs per statement, round robin across organisations, within
   the pipeline's bound (in_flight.py) and fairly when it is full; the worker's own
   connection hears of new jobs and deleted collections and renews the running jobs' leases
   (leases.py);
2. extraction (extraction_stage.py): plain text decoded at once and stored for the whole
   batch in one transaction, binary formats in the extraction processes a few at a time;
   generation builds (builds.py) feed a collection's stored texts in the same way, and so do
   the changes for live generations of another embedding model (other_models.py);
3. chunk and embed (chunk_and_embed.py): chunked (a large text in a thread), then embedded in
   the process's embedding stage (quire.indexer.ingest, shared with page syncs), round robin
   across organisations and collections;
4. writes (writes.py): batches of chunks written in transactions that finish the jobs, split
   over concurrent transactions when the embedder has nothing left to do.

The stages overlap: each hands its documents on and takes the next. A job is finished only
when its chunks are written; at-least-once, every write idempotent. A deleted collection's
work stops within seconds (cancel.py, `_cancel`). On stop, documents not yet given to the
embedder are handed back with their jobs, those being embedded or written get DRAIN_SECONDS
to finish, what is left is cancelled within CANCEL_SECONDS more, and every job the worker
still holds is released to the queue at once (leases.release_jobs).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from typing import cast

import asyncpg

from quire.indexer import fingerprint
from quire.indexer.extraction import ExtractionPool
from quire.indexer.ingest.embed_stage import BulkEmbedder, EmbedStage
from quire.indexer.ingest.vector_store import VectorStore
from quire.indexer.worker import jobs, settle, writes
from quire.indexer.worker.builds import BUILD, Builds
from quire.indexer.worker.chunk_and_embed import TITLE_MODE, ChunkAndEmbed
from quire.indexer.worker.claims import Claims
from quire.indexer.worker.extraction_stage import EXTRACT, ExtractionStage
from quire.indexer.worker.faults import DATABASE_ERRORS
from quire.indexer.worker.in_flight import Document, InFlight
from quire.indexer.worker.leases import Leases, release_jobs
from quire.indexer.worker.other_models import INDEX_FOR_MODEL, OtherModels

log = logging.getLogger(__name__)

# Quick jobs on a collection (settle.py), run inline by the claim loop.
SETTLE = settle.SETTLE
PURGE = settle.PURGE
# On stop, how long documents already in the pipeline get to finish (jobs left unfinished are
# re-queued when their lease expires).
DRAIN_SECONDS = 30.0
# After the drain, how long cancelled stages get to unwind before the worker returns anyway.
CANCEL_SECONDS = 10.0

__all__ = ["BUILD", "EXTRACT", "INDEX_FOR_MODEL", "PURGE", "SETTLE", "TITLE_MODE", "Worker"]


class Worker:
    """Runs jobs until stopped. `run_until_idle` processes what is queued, then returns."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        embedder: BulkEmbedder,
        extraction: ExtractionPool,
        *,
        index_version: str = "1",
        worker_id: str | None = None,
        title_mode: str = TITLE_MODE,
        embed_stage: EmbedStage | None = None,
        session_pool: asyncpg.Pool | None = None,
        embedding_model: str = jobs.DEFAULT_MODEL,
    ) -> None:
        """`embed_stage`: the process's shared one (page syncs embed there too); a worker
        given none embeds on a stage of its own. `session_pool` holds the worker's own
        connection (LISTEN): `pool` when none is given; direct connections when `pool` goes
        through a transaction pooler. `embedding_model`: the name of `embedder`'s model; the
        worker takes only the jobs of collections served with it and of generations built
        with it (jobs.CLAIM)."""
        self.pool = pool
        self.session_pool = session_pool or pool
        self.embedder = embedder
        self.embedding_model = embedding_model
        self.embedding = embed_stage or EmbedStage(embedder, VectorStore(pool))
        self.extraction = extraction
        self.index_version = index_version
        self.title_mode = title_mode
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        # New generations' text analysis, read once with the fingerprint it is part of.
        self.text_config = fingerprint.KNOWLEDGE_TEXT_CONFIG
        self.fingerprint = fingerprint.collection_fingerprint(
            embedder.fingerprint, index_version, self.text_config
        )
        self.in_flight = InFlight(pool)
        self.writes = writes.ChunkWrites(
            pool, self.in_flight, write=self._write, embedder_idle=self._embedder_idle
        )
        # The worker owns its entries in the embedding stage (`queued(worker)`).
        self.chunk_and_embed = ChunkAndEmbed(
            self.embedding,
            self.in_flight,
            owner=self,
            title_mode=title_mode,
            on_embedded=self.writes.put,
        )
        self.extraction_stage = ExtractionStage(
            pool,
            extraction,
            self.in_flight,
            submit=self.chunk_and_embed.submit,
            fingerprint=self.fingerprint,
            index_version=index_version,
            embedding_model=embedding_model,
            text_config=self.text_config,
        )
        self.builds = Builds(pool, self.in_flight, submit=self.chunk_and_embed.submit)
        self.other_models = OtherModels(
            pool, self.in_flight, model=embedding_model, submit=self.chunk_and_embed.submit
        )
        self.claims = Claims(
            pool,
            self.in_flight,
            self.embedding,
            owner=self,
            worker_id=self.worker_id,
            model=embedding_model,
            handle=self._handle_batch,
            extracting=lambda: len(self.extraction_stage.running),
            busy=lambda: bool(
                self.builds.running or self.extraction_stage.running or self.writes.large
            ),
        )
        self.leases = Leases(
            self.session_pool,
            self.worker_id,
            embedding_model,
            on_job=self.claims.on_job,
            on_cancel=self._on_cancel,
            on_deleted=self._cancel,
            held=self._held_collections,
        )

    @property
    def embedded_chunks(self) -> int:
        return self.writes.embedded_chunks

    @property
    def _in_flight(self) -> int:
        """Documents in the pipeline (tests watch it)."""
        return self.in_flight.docs

    @property
    def _builds(self) -> set[asyncio.Task[None]]:
        """The running generation builds (tests watch them)."""
        return self.builds.running

    def _embedder_idle(self) -> bool:
        return not self.embedding.busy and not self.embedding.queued(self).entries

    async def _write(self, batch: list[Document]) -> bool:
        """One write transaction (writes.write_batch); a subclass may wrap it."""
        return await writes.write_batch(self.pool, batch)

    async def _handle_batch(self, claimed: list[jobs.Job]) -> None:
        """Each claimed job to the stage that runs it."""
        extract: list[jobs.Job] = []
        other_models: list[jobs.Job] = []
        for job in claimed:
            if job.kind == EXTRACT:
                extract.append(job)
            elif job.kind == INDEX_FOR_MODEL:
                other_models.append(job)
            elif job.kind == BUILD:
                # A build waits for its documents to pass the pipeline; keep claiming meanwhile.
                self.builds.start(job)
            elif job.kind in (SETTLE, PURGE):
                await self._collection_job(job)
            else:
                await self.in_flight.retry([job], f"unknown job kind {job.kind!r}")
        if other_models:
            await self.other_models.run(other_models)
        if extract:
            await self.extraction_stage.extract(extract)

    async def _collection_job(self, job: jobs.Job) -> None:
        """A settle (after a document removal) or a purge (after a collection delete)."""
        collection_id = uuid.UUID(job.payload["collection_id"])
        try:
            async with self.pool.acquire() as conn:
                if job.kind == PURGE:
                    await settle.purge(conn, job.org_id, collection_id)
                else:
                    await settle.settle(conn, job.org_id, collection_id)
                await jobs.finish(conn, job)
        except DATABASE_ERRORS as exc:
            log.warning("job failed", extra={"job_id": job.job_id, "error": repr(exc)[:300]})
            await self.in_flight.retry([job], type(exc).__name__)

    def _on_cancel(self, org_id: uuid.UUID, collection_id: uuid.UUID) -> None:
        """A collection delete's notification (leases.py); a worker that misses it finds the
        delete at its next lease renewal instead."""
        self._cancel(org_id, collection_id)

    def _cancel(self, org_id: uuid.UUID, collection_id: uuid.UUID) -> None:
        """Drops what the worker holds of a deleted collection: its documents waiting for (or
        between) embedding slices, being chunked or waiting to be written, and its build. Their
        jobs are gone (cancel.py); groups already with the embedder finish and are ignored."""
        key = (org_id, collection_id)
        dropped = [
            cast(Document, e.subject) for e in self.embedding.clear(self, lane=collection_id)
        ]
        held = [d for d in self.in_flight.active.values() if (d.org_id, d.collection_id) == key]
        documents = [
            d for d in {id(d): d for d in [*dropped, *held]}.values() if not d.outcome.done()
        ]
        for document in documents:
            self.in_flight.leave(document)
            document.outcome.cancel()
        builds = self.builds.cancel(org_id, collection_id)
        if documents or builds:
            log.info(
                "dropped a deleted collection's work",
                extra={"collection_id": str(collection_id), "documents": len(documents)},
            )

    def _held_collections(self) -> list[tuple[uuid.UUID, uuid.UUID]]:
        held = [(d.org_id, d.collection_id) for d in self.in_flight.active.values()]
        return list(dict.fromkeys([*held, *self.builds.of.values()]))

    async def run(self, stop: asyncio.Event, *, until_idle: bool = False) -> None:
        self.in_flight.stopping = False  # a worker may be run again after it stopped
        await self.leases.open()
        await self.leases.beat()
        self.embedding.listeners.add(self.claims.on_embedder_turn)
        try:
            stages = [
                asyncio.create_task(self.writes.run()),
                asyncio.create_task(self.leases.heartbeat()),
            ]
            claiming = asyncio.create_task(self.claims.run(stop, until_idle))
            stopping = asyncio.create_task(stop.wait())
            try:
                # The claim loop sees `stop` between batches; a batch stuck in a claim or an
                # extraction must not hold shutdown, so stop also bounds it by the drain time.
                await asyncio.wait({claiming, stopping}, return_when=asyncio.FIRST_COMPLETED)
                # An idle claim loop waits up to IDLE_POLL_S for work: wake it to see `stop`.
                self.claims.wake.set()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(DRAIN_SECONDS):
                        await asyncio.wait({claiming})
                        # Documents not yet given to the embedder are handed back with their
                        # jobs; those embedded or being embedded finish their writes:
                        # cancelling a write midway would leave its connection mid-statement.
                        self.in_flight.stopping = True
                        self.in_flight.abandon(
                            [cast(Document, e.subject) for e in self.embedding.clear(self)]
                        )
                        if self.extraction_stage.running:
                            await asyncio.wait(set(self.extraction_stage.running))
                        await self.in_flight.drained.wait()
                if claiming.done() and not claiming.cancelled():
                    claiming.result()  # re-raises an error of the claim loop
            finally:
                self.in_flight.stopping = True
                tasks = [
                    claiming,
                    stopping,
                    *stages,
                    *self.builds.running,
                    *self.extraction_stage.running,
                    *self.chunk_and_embed.running,
                    *self.writes.large,
                ]
                for task in tasks:
                    task.cancel()
                _, pending = await asyncio.wait(tasks, timeout=CANCEL_SECONDS)
                if pending:
                    log.warning("worker tasks did not stop", extra={"tasks": len(pending)})
                await release_jobs(self.pool, self.worker_id, CANCEL_SECONDS)
        finally:
            self.embedding.listeners.discard(self.claims.on_embedder_turn)
            await self.leases.close()

    async def run_until_idle(self) -> None:
        await self.run(asyncio.Event(), until_idle=True)

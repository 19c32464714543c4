"""The worker: jobs → extraction → chunking → batched embedding → chunk writes.

Three stages joined by bounded queues overlap extraction, embedding and writing, and the
embedding stage batches chunks across documents so the model runs at bulk throughput. A job
is finished only when its chunks are written; a worker that dies leaves it to be re-queued
when its lease expires (at-least-once; every write is idempotent).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

import asyncpg
import numpy as np
import numpy.typing as npt
from opentelemetry import metrics

from quire.indexer import fingerprint
from quire.indexer.chunking import chunk_text, document_title, embedding_text
from quire.indexer.extraction import (
    NO_TEXT_MARKER,
    ExtractionFailed,
    ExtractionPool,
    resolve_type,
)
from quire.indexer.worker import documents, generations, jobs, lexical_stats
from quire.v1 import knowledge_pb2

log = logging.getLogger(__name__)
_meter = metrics.get_meter("quire.indexer")
queue_depth_gauge = _meter.create_gauge("quire.jobs.queue_depth", description="Queued jobs")
indexed_documents = _meter.create_counter(
    "quire.indexing.documents", description="Documents indexed, by outcome"
)
indexed_chunks = _meter.create_counter("quire.indexing.chunks", description="Chunks written")

EXTRACT = "extract"
BUILD = "build_generation"
CLAIM_BATCH = 16
EMBED_BATCH = 64
IDLE_POLL_S = 2.0
EXPIRE_CACHE = "DELETE FROM search_cache WHERE expires_at < now()"
# On stop, how long documents already in the pipeline get to finish (jobs left unfinished are
# re-queued when their lease expires).
DRAIN_SECONDS = 30.0
# What titles each chunk's embedding text (chunking.document_title; docs/retrieval-quality.md).
TITLE_MODE = "first_line"


class BulkEmbedder(Protocol):
    @property
    def fingerprint(self) -> str: ...

    async def embed_bulk(self, texts: list[str]) -> npt.NDArray[np.float32]: ...


@dataclass
class _Item:
    """One document to (re)index into some generations."""

    org_id: uuid.UUID
    collection_id: uuid.UUID
    document_id: uuid.UUID
    file_name: str
    text: str
    text_as_of: datetime
    generations: list[int]
    done: Callable[[bool], Awaitable[None]]
    texts: list[str] = field(default_factory=list)
    contents: list[str] = field(default_factory=list)
    headings: list[tuple[str, ...]] = field(default_factory=list)
    vectors: npt.NDArray[np.float32] | None = None


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
    ) -> None:
        self.pool = pool
        self.embedder = embedder
        self.extraction = extraction
        self.index_version = index_version
        self.title_mode = title_mode
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.fingerprint = fingerprint.collection_fingerprint(embedder.fingerprint, index_version)
        self._embed_q: asyncio.Queue[_Item] = asyncio.Queue(maxsize=64)
        self._write_q: asyncio.Queue[_Item] = asyncio.Queue(maxsize=64)
        self._in_flight = 0
        self._drained = asyncio.Event()
        self._drained.set()
        self._builds: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self.processed_documents = 0
        self.embedded_chunks = 0

    # --- stage 1: claim and extract ---------------------------------------------------------

    async def _claim(self) -> jobs.Job | None:
        async with self.pool.acquire() as conn:
            return await jobs.claim(conn, self.worker_id)

    async def _handle(self, job: jobs.Job) -> None:
        try:
            if job.kind == EXTRACT:
                await self._extract(job)
            elif job.kind == BUILD:
                await self._build(job)
            else:
                async with self.pool.acquire() as conn:
                    await jobs.retry_or_fail(conn, job, f"unknown job kind {job.kind!r}")
        except (asyncpg.PostgresError, OSError) as exc:
            log.warning("job failed", extra={"job_id": job.job_id, "error": repr(exc)[:300]})
            with contextlib.suppress(Exception):
                async with self.pool.acquire() as conn:
                    await jobs.retry_or_fail(conn, job, type(exc).__name__)

    async def _extract(self, job: jobs.Job) -> None:
        document_id = uuid.UUID(job.payload["document_id"])
        async with self.pool.acquire() as conn:
            original = await documents.load_original(conn, job.org_id, document_id)
            if original is None:
                await jobs.finish(conn, job)
                return
            await documents.mark(
                conn, job.org_id, document_id, knowledge_pb2.DOCUMENT_STATUS_PROCESSING
            )
        try:
            file_type = resolve_type(original.file_name, original.mime_type or None)
            extracted = await self.extraction.extract(original.content, file_type)
            text = extracted.text
        except (ExtractionFailed, ValueError) as exc:
            reason = str(exc) or type(exc).__name__
            async with self.pool.acquire() as conn, conn.transaction():
                retried = await jobs.retry_or_fail(conn, job, reason)
                status = (
                    knowledge_pb2.DOCUMENT_STATUS_PENDING
                    if retried
                    else knowledge_pb2.DOCUMENT_STATUS_FAILED
                )
                await documents.store_failure(conn, job.org_id, document_id, status, reason)
            return
        has_text = bool(text.strip()) and file_type.extracts_text
        stored_text = text if has_text else NO_TEXT_MARKER
        error = "" if has_text else NO_TEXT_MARKER
        async with self.pool.acquire() as conn, conn.transaction():
            as_of = await documents.store_text(conn, job.org_id, document_id, stored_text, error)
            if as_of is None:
                await jobs.finish(conn, job)
                return
            targets = await self._targets(conn, job.org_id, original.collection_id)

        async def done(ok: bool) -> None:
            async with self.pool.acquire() as conn:
                if ok:
                    await jobs.finish(conn, job)
                else:
                    await jobs.retry_or_fail(conn, job, "indexing failed")

        await self._submit(
            _Item(
                org_id=job.org_id,
                collection_id=original.collection_id,
                document_id=document_id,
                file_name=original.file_name,
                text=text if has_text else "",
                text_as_of=as_of,
                generations=targets,
                done=done,
            )
        )

    async def _targets(
        self, conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
    ) -> list[int]:
        """Generations a document change is written to; creates the first one if none."""
        live = await generations.live_generations(conn, org_id, collection_id)
        if not live:
            gen = await generations.create_generation(
                conn, org_id, collection_id, self.fingerprint, self.index_version
            )
            await jobs.enqueue(
                conn, org_id, BUILD, {"collection_id": str(collection_id), "generation": gen}
            )
            return [gen]
        return [g.generation for g in live]

    async def _build(self, job: jobs.Job) -> None:
        """Indexes every READY document into a BUILDING generation, then flips to it."""
        collection_id = uuid.UUID(job.payload["collection_id"])
        generation = int(job.payload["generation"])
        async with self.pool.acquire() as conn:
            doc_ids = await generations.ready_documents(conn, job.org_id, collection_id)
            indexed = {
                r["document_id"]
                for r in await conn.fetch(
                    "SELECT DISTINCT document_id FROM knowledge_chunks "
                    "WHERE org_id = $1 AND collection_id = $2 AND generation = $3",
                    job.org_id,
                    collection_id,
                    generation,
                )
            }
        pending = [d for d in doc_ids if d not in indexed]
        remaining = len(pending)
        failures = 0
        finished = asyncio.Event()
        if remaining == 0:
            finished.set()

        async def done(ok: bool) -> None:
            nonlocal remaining, failures
            remaining -= 1
            failures += 0 if ok else 1
            if remaining == 0:
                finished.set()

        for document_id in pending:
            async with self.pool.acquire() as conn:
                row = await conn.fetchrow(
                    "SELECT file_name, extracted_text, extract_error, updated_at FROM documents "
                    "WHERE org_id = $1 AND document_id = $2 AND deleted_at IS NULL",
                    job.org_id,
                    document_id,
                )
            if row is None:
                await done(True)
                continue
            no_text = row["extract_error"] == NO_TEXT_MARKER
            await self._submit(
                _Item(
                    org_id=job.org_id,
                    collection_id=collection_id,
                    document_id=document_id,
                    file_name=row["file_name"],
                    text="" if no_text else row["extracted_text"],
                    text_as_of=row["updated_at"],
                    generations=[generation],
                    done=done,
                )
            )
        await finished.wait()
        async with self.pool.acquire() as conn:
            if failures:
                error = f"{failures} document(s) failed to index"
                if not await jobs.retry_or_fail(conn, job, error):
                    await generations.fail(conn, job.org_id, collection_id, generation, error)
                return
            await generations.flip(conn, job.org_id, collection_id, generation)
            await lexical_stats.refresh(conn, job.org_id, collection_id, generation)
            await jobs.finish(conn, job)

    async def _submit(self, item: _Item) -> None:
        self._in_flight += 1
        self._drained.clear()
        await self._embed_q.put(item)

    # --- stage 2: chunk and embed in batches ------------------------------------------------

    async def _embed_stage(self) -> None:
        while True:
            batch = [await self._embed_q.get()]
            while sum(len(i.text) for i in batch) < EMBED_BATCH * 700 and len(batch) < 64:
                try:
                    batch.append(self._embed_q.get_nowait())
                except asyncio.QueueEmpty:
                    break
            texts: list[str] = []
            for item in batch:
                title = document_title(item.file_name, item.text, self.title_mode)
                for chunk in chunk_text(item.text):
                    item.contents.append(chunk.text)
                    item.headings.append(chunk.heading_path)
                    item.texts.append(embedding_text(chunk, title))
                texts.extend(item.texts)
            try:
                vectors = (
                    await self.embedder.embed_bulk(texts)
                    if texts
                    else np.zeros((0, 384), dtype=np.float32)
                )
            except Exception:
                log.exception("embedding failed")
                for item in batch:
                    await self._complete(item, False)
                continue
            offset = 0
            for item in batch:
                item.vectors = vectors[offset : offset + len(item.texts)]
                offset += len(item.texts)
                await self._write_q.put(item)

    # --- stage 3: write chunks --------------------------------------------------------------

    async def _write_stage(self) -> None:
        while True:
            item = await self._write_q.get()
            assert item.vectors is not None
            try:
                async with self.pool.acquire() as conn:
                    await generations.write_document_chunks(
                        conn,
                        item.org_id,
                        item.collection_id,
                        item.document_id,
                        text_as_of=item.text_as_of,
                        generations=item.generations,
                        rows=generations.ChunkRows(item.contents, item.headings, item.vectors),
                    )
                    await generations.notify_index(conn, item.org_id, item.collection_id)
                ok = True
                try:
                    async with self.pool.acquire() as conn:
                        await lexical_stats.refresh_if_drifted(
                            conn, item.org_id, item.collection_id
                        )
                except (asyncpg.PostgresError, OSError):
                    # Statistics only steer BM25; the periodic sweep retries them.
                    log.warning("term statistics refresh failed", exc_info=True)
            except (asyncpg.PostgresError, OSError):
                log.exception("chunk write failed")
                ok = False
            self.embedded_chunks += len(item.texts) if ok else 0
            indexed_documents.add(1, {"ok": ok})
            if ok:
                indexed_chunks.add(len(item.texts))
            await self._complete(item, ok)

    async def _complete(self, item: _Item, ok: bool) -> None:
        self._in_flight -= 1
        if self._in_flight == 0:
            self._drained.set()
        self.processed_documents += 1
        with contextlib.suppress(Exception):
            await item.done(ok)

    # --- running ----------------------------------------------------------------------------

    def _on_notify(self, *_: object) -> None:
        self._wake.set()

    async def _claim_loop(self, stop: asyncio.Event, until_idle: bool) -> None:
        last_recovery = 0.0
        builds = self._builds
        while not stop.is_set():
            if time.monotonic() - last_recovery > 30:
                last_recovery = time.monotonic()
                async with self.pool.acquire() as conn:
                    await jobs.renew_leases(conn, self.worker_id)
                    await jobs.recover_expired(conn)
                    await conn.execute(EXPIRE_CACHE)
                    queue_depth_gauge.set(await jobs.queue_depth(conn))
                    await lexical_stats.refresh_stale(conn)
            job = await self._claim()
            if job is None:
                if until_idle and self._in_flight == 0 and not builds:
                    return
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 0.05 if until_idle else IDLE_POLL_S)
                continue
            if job.kind == BUILD:
                # A build waits for its documents to pass the pipeline; keep claiming meanwhile.
                task = asyncio.create_task(self._handle(job))
                builds.add(task)
                task.add_done_callback(builds.discard)
            else:
                await self._handle(job)

    async def run(self, stop: asyncio.Event, *, until_idle: bool = False) -> None:
        listener = await self.pool.acquire()
        try:
            await listener.add_listener(jobs.CHANNEL, self._on_notify)
            stages = [
                asyncio.create_task(self._embed_stage()),
                asyncio.create_task(self._write_stage()),
            ]
            try:
                await self._claim_loop(stop, until_idle)
                # Let documents already in the pipeline finish their writes: cancelling a
                # write midway would leave its connection in the middle of a statement.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(DRAIN_SECONDS):
                        await self._drained.wait()
            finally:
                for task in [*stages, *self._builds]:
                    task.cancel()
                await asyncio.gather(*stages, *self._builds, return_exceptions=True)
        finally:
            with contextlib.suppress(Exception):
                await listener.remove_listener(jobs.CHANNEL, self._on_notify)
            await self.pool.release(listener)

    async def run_until_idle(self) -> None:
        await self.run(asyncio.Event(), until_idle=True)

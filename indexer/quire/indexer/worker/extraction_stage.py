"""Extracting claimed documents' text and storing it, in batches.

One statement marks a batch's documents PROCESSING and loads their originals
(document_queries.start_extraction). Plain text is decoded in-process at once and stored for
the whole batch in one transaction with the generations it goes to (the first generation of a
new collection is created there, and its build queued); binary formats go to the extraction
processes, EXTRACT_CONCURRENCY at a time, each stored when done, so one slow file holds up no
other. A failure is retried (or FAILED when retrying cannot help, the earlier text kept); a
stored text goes on to the chunk stage (`submit`) for the live generations of the worker's
embedding model, and live generations of another model get a job of their own, queued in the
same transaction (other_models.py).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import asyncpg

from quire.indexer.extraction import (
    NO_TEXT_MARKER,
    ExtractionFailed,
    ExtractionPool,
    FileType,
    resolve_type,
)
from quire.indexer.worker import document_queries, generations, jobs, other_models
from quire.indexer.worker.builds import BUILD, build_payload
from quire.indexer.worker.faults import DATABASE_ERRORS
from quire.indexer.worker.in_flight import Document, InFlight
from quire.v1 import knowledge_pb2

log = logging.getLogger(__name__)

EXTRACT = "extract"
# Extractions in worker processes (binary formats) running or waiting for a process at once.
EXTRACT_CONCURRENCY = 4


@dataclass
class Extraction:
    """The result of extracting one claimed document: `text` (and the `encoding` a text file
    was decoded from), or `error` when it failed (`permanent`: retrying cannot help)."""

    job: jobs.Job
    original: document_queries.Original
    file_type: FileType | None = None
    text: str = ""
    encoding: str = ""
    error: str | None = None
    permanent: bool = False


class ExtractionStage:
    """`fingerprint`, `index_version`, `embedding_model` and `text_config` (the worker's):
    those of a collection's first generation, made when its first text is stored."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        extraction: ExtractionPool,
        in_flight: InFlight,
        *,
        submit: Callable[[Document], Awaitable[None]],
        fingerprint: str,
        index_version: str,
        embedding_model: str,
        text_config: str,
    ) -> None:
        self.pool = pool
        self.extraction = extraction
        self.in_flight = in_flight
        self._submit = submit
        self.fingerprint = fingerprint
        self.index_version = index_version
        self.embedding_model = embedding_model
        self.text_config = text_config
        # Extractions in the processes, each stored when done.
        self.running: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(EXTRACT_CONCURRENCY)

    async def extract(self, batch: list[jobs.Job]) -> None:
        """Runs a batch of extract jobs; when the database fails them, they are retried."""
        try:
            await self._extract_batch(batch)
        except DATABASE_ERRORS as exc:
            log.warning("extract batch failed", extra={"error": repr(exc)[:300]})
            await self.in_flight.retry(batch, type(exc).__name__)

    async def _extract_batch(self, batch: list[jobs.Job]) -> None:
        wanted = [(job.org_id, uuid.UUID(job.payload["document_id"])) for job in batch]
        async with self.pool.acquire() as conn:
            originals = await document_queries.start_extraction(conn, list(dict.fromkeys(wanted)))
        by_key = {(o.org_id, o.document_id): o for o in originals}
        gone: list[jobs.Job] = []
        quick: list[Extraction] = []
        for job, key in zip(batch, wanted, strict=True):
            original = by_key.pop(key, None)
            if original is None:
                # deleted, or a second job for a document this batch already extracts
                gone.append(job)
                continue
            result = Extraction(job, original)
            try:
                result.file_type = resolve_type(original.file_name, original.mime_type or None)
            except ValueError as exc:
                result.error = str(exc) or type(exc).__name__
                quick.append(result)
                continue
            if self.extraction.in_process(result.file_type):
                await self._run_extraction(result)
                quick.append(result)
                continue
            await self._slots.acquire()
            task = asyncio.create_task(self._extract_apart(result))
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        if gone:
            async with self.pool.acquire() as conn:
                await jobs.finish_many(conn, gone)
        await self._store(quick)

    async def _run_extraction(self, result: Extraction) -> None:
        assert result.file_type is not None
        try:
            extracted = await self.extraction.extract(result.original.content, result.file_type)
            result.text = extracted.text
            result.encoding = extracted.encoding
        except (ExtractionFailed, ValueError) as exc:
            result.error = str(exc) or type(exc).__name__
            result.permanent = isinstance(exc, ExtractionFailed) and exc.permanent

    async def _extract_apart(self, result: Extraction) -> None:
        try:
            await self._run_extraction(result)
            await self._store([result])
        except DATABASE_ERRORS as exc:
            log.warning("job failed", extra={"job_id": result.job.job_id, "error": repr(exc)})
            await self.in_flight.retry([result.job], type(exc).__name__)
        finally:
            self._slots.release()

    async def _store(self, results: list[Extraction]) -> None:
        """Failures: retried or FAILED (earlier text kept), one by one. Texts: READY in one
        transaction with the generations they go to, then on to the chunk stage."""
        for result in results:
            if result.error is None:
                continue
            org_id, document_id = result.job.org_id, result.original.document_id
            async with self.pool.acquire() as conn, conn.transaction():
                retried = await jobs.retry_or_fail(
                    conn, result.job, result.error, permanent=result.permanent
                )
                status = (
                    knowledge_pb2.DOCUMENT_STATUS_PENDING
                    if retried
                    else knowledge_pb2.DOCUMENT_STATUS_FAILED
                )
                await document_queries.store_failure(
                    conn, org_id, document_id, status, result.error
                )
            if not retried:  # the collection's last pending job may have been this one
                await self.in_flight.settle([(org_id, result.original.collection_id)])
        extracted = [r for r in results if r.error is None]
        if not extracted:
            return
        texts: list[tuple[uuid.UUID, uuid.UUID, str, str, str]] = []
        for result in extracted:
            assert result.file_type is not None
            has_text = bool(result.text.strip()) and result.file_type.extracts_text
            if not has_text:
                result.text = ""
            texts.append(
                (
                    result.job.org_id,
                    result.original.document_id,
                    result.text or NO_TEXT_MARKER,
                    "" if has_text else NO_TEXT_MARKER,
                    result.encoding,
                )
            )
        async with self.pool.acquire() as conn, conn.transaction():
            stored = {
                (s.org_id, s.document_id): s
                for s in await document_queries.store_texts(conn, texts)
            }
            await jobs.finish_many(
                conn,
                [r.job for r in extracted if (r.job.org_id, r.original.document_id) not in stored],
            )
            targets: dict[tuple[uuid.UUID, uuid.UUID], list[int]] = {}
            others: dict[tuple[uuid.UUID, uuid.UUID], set[str]] = {}
            for s in stored.values():
                key = (s.org_id, s.collection_id)
                if key not in targets:
                    targets[key], others[key] = await self._targets(conn, *key)
            for (org_id, collection_id), models in others.items():
                if models:
                    changed = [
                        s.document_id
                        for s in stored.values()
                        if (s.org_id, s.collection_id) == (org_id, collection_id)
                    ]
                    await other_models.queue(conn, org_id, collection_id, changed, models)
        for result in extracted:
            done = stored.get((result.job.org_id, result.original.document_id))
            if done is None:
                continue
            if not targets[done.org_id, done.collection_id]:
                # No live generation of this worker's model (a rollback or flip onto another
                # one since the claim): the other models' jobs index it; the extraction is done.
                async with self.pool.acquire() as conn:
                    await jobs.finish(conn, result.job)
                continue
            await self._submit(
                Document(
                    org_id=done.org_id,
                    collection_id=done.collection_id,
                    document_id=done.document_id,
                    file_name=result.original.file_name,
                    text=result.text,
                    text_as_of=done.updated_at,
                    generations=targets[done.org_id, done.collection_id],
                    job=result.job,
                )
            )

    async def _targets(
        self, conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
    ) -> tuple[list[int], set[str]]:
        """The live generations of the worker's model a document change is written to, and
        the other models with live generations (each indexes it by a job of its own); creates
        the first generation if there is none."""
        live = await generations.live_generations(conn, org_id, collection_id)
        if not live:
            live = await generations.live_generations(conn, org_id, collection_id, lock=True)
        if not live:
            model = self.embedding_model
            gen = await generations.create_generation(
                conn,
                org_id,
                collection_id,
                self.fingerprint,
                self.index_version,
                model,
                self.text_config,
            )
            await jobs.enqueue(conn, org_id, BUILD, build_payload(collection_id, gen, model))
            return [gen], set()
        mine = [g.generation for g in live if g.embedding_model == self.embedding_model]
        return mine, {g.embedding_model for g in live} - {self.embedding_model}

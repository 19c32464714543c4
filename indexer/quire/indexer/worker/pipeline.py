"""The worker: jobs → extraction → chunking → batched embedding → chunk writes.

Three stages joined by bounded queues overlap extraction, embedding and writing, and every
stage works in batches so the per-document cost is a share of a few statements:

1. claim up to CLAIM_BATCH jobs in one statement, mark their documents PROCESSING and load the
   originals in one more. Claims stop while a full embedding group is queued, and once every
   runnable job is claimed while the embedder is busy, new jobs gather in the table until it
   takes its next group and are then claimed together (a busy worker claims in large
   batches; an idle one claims a new job at once). Plain text is decoded in-process at once
   and stored for the whole batch in one transaction; binary formats go to the extraction
   processes, EXTRACT_CONCURRENCY at a time, each stored when done, so one slow file holds up
   no other;
2. chunk each document (a large one in a thread, so the event loop and everyone else's work go
   on) into the process's embedding stage (quire.indexer.ingest: the one page syncs use too),
   which embeds groups of a fraction of a second taken from its schedule in slices, round
   robin across organisations and lanes (collections, page namespaces): one tenant's 64 MiB
   file, burst of thousands of files or large page sync delays another tenant's upload by
   one or two groups;
3. write the chunks of everything embedded in one transaction that also finishes the extract
   jobs and notifies each collection once; statistics drift is checked once per batch and
   collection, and a collection with nothing left pending is settled (exact statistics,
   settle.py) before the batch's documents count as done. When the embedder has nothing left
   to do (the end of a burst), a large batch is split over WRITE_CONCURRENCY concurrent
   transactions so its write uses the cores the embedder left. A document of more than
   WRITE_BATCH_CHUNKS chunks is written by a task of its own, beside the batches. A failed
   batch (or part) is retried document by document, so one bad row fails alone.

Claims are fair too (jobs.py): round robin across organisations, and when the pipeline is full
an organisation with little in it (under FAIR_SHARE_DOCS documents / FAIR_SHARE_CHARS
characters) may still claim a few jobs (FAIR_CLAIM), so a tenant whose bulk load fills the
pipeline does not hold another's upload in the table.

A deleted collection's work stops within seconds (cancel.py): its jobs leave the table with
the delete, and the worker drops its documents from the embedding schedule, the write queue and
its build when told (or at the next lease renewal).

A job is finished only when its chunks are written; its lease is renewed by a heartbeat task
while it runs. A worker that dies leaves it to be re-queued when its lease expires (at most
about 25 s, jobs.py); one that stops hands back its unfinished jobs at once. At-least-once;
every write is idempotent. The pipeline holds at most MAX_IN_FLIGHT_DOCS documents /
MAX_IN_FLIGHT_CHARS characters of text, plus the fair claims' bounded overdraft
(FAIR_SLACK_DOCS documents of tenants with little in flight).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

import asyncpg
from opentelemetry import metrics

from quire.indexer import fingerprint
from quire.indexer.chunking import document_title
from quire.indexer.extraction import (
    NO_TEXT_MARKER,
    ExtractionFailed,
    ExtractionPool,
    FileType,
    resolve_type,
)
from quire.indexer.ingest.chunks import chunk_for_embedding
from quire.indexer.ingest.embed_stage import BulkEmbedder, EmbedEntry, EmbedStage, Vectors
from quire.indexer.ingest.vector_store import VectorStore
from quire.indexer.worker import (
    cancel,
    document_queries,
    generations,
    jobs,
    lexical_stats,
    settle,
)
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
# Quick jobs on a collection (settle.py), run inline by the claim loop.
SETTLE = settle.SETTLE
PURGE = settle.PURGE
# Jobs claimed per statement; the claim is also capped by the room left in the pipeline.
CLAIM_BATCH = 64
# Documents (and characters of text) claimed and not yet written: the pipeline's bound. A
# document counts at most DOC_CHARS_CHARGE characters, so one 64 MiB file (the upload limit)
# does not stop claims for everything else, and the text held stays under
# MAX_IN_FLIGHT_CHARS / DOC_CHARS_CHARGE × 64 MiB (plus the fair claims' overdraft).
MAX_IN_FLIGHT_DOCS = 1024
MAX_IN_FLIGHT_CHARS = 16_000_000
DOC_CHARS_CHARGE = MAX_IN_FLIGHT_CHARS // 4
# Extractions in worker processes (binary formats) running or waiting for a process at once.
EXTRACT_CONCURRENCY = 4
# Claims pause while this much is queued for the embedder (it has enough to go on with); jobs
# wait in the table meanwhile and are claimed later in larger batches.
QUEUE_AHEAD_DOCS = 512
QUEUE_AHEAD_CHARS = 512 * 700
# Texts longer than this are chunked in a thread: chunking 64 MiB takes seconds.
CHUNK_INLINE_CHARS = 256_000
# When the pipeline is full, an organisation with fewer than FAIR_SHARE_DOCS documents and
# FAIR_SHARE_CHARS characters in it may still claim FAIR_CLAIM jobs, up to FAIR_SLACK_DOCS
# documents beyond MAX_IN_FLIGHT_DOCS in all.
FAIR_SHARE_DOCS = 16
FAIR_SHARE_CHARS = 4_000_000
FAIR_CLAIM = 8
FAIR_SLACK_DOCS = 256
# Documents (and chunks) written per transaction.
WRITE_BATCH_DOCS = 512
WRITE_BATCH_CHUNKS = 4096
# When the embedder has nothing left to do, the write stage splits a batch of at least
# 2 × SPLIT_MIN_CHUNKS chunks over this many concurrent transactions: the last batch of a
# burst is written on every core instead of one while the others idle.
WRITE_CONCURRENCY = 2
SPLIT_MIN_CHUNKS = 128
BUILD_PAGE = 64
IDLE_POLL_S = 2.0
# Cache expiry, the queue-depth gauge and the settle sweep run this often.
MAINTENANCE_S = 30.0
EXPIRE_CACHE = "DELETE FROM search_cache WHERE expires_at < now()"
BUILD_TEXTS = """
SELECT document_id, file_name, extracted_text, extract_error, updated_at FROM documents
WHERE org_id = $1 AND document_id = ANY($2::uuid[]) AND deleted_at IS NULL
"""
# On stop, how long documents already in the pipeline get to finish (jobs left unfinished are
# re-queued when their lease expires).
DRAIN_SECONDS = 30.0
# After the drain, how long cancelled stages get to unwind before the worker returns anyway.
CANCEL_SECONDS = 10.0
# What titles each chunk's embedding text (chunking.document_title; docs/retrieval-quality.md).
TITLE_MODE = "first_line"
# The database going away under the claim loop: it waits (doubling up to the cap) and goes on.
LOST_DATABASE = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
)
LOST_DATABASE_BACKOFF_S = (0.5, 5.0)


@dataclass
class _Item:
    """One document to (re)index into some generations.

    `job` is the extract job finished with the chunk write (None for a generation build's
    documents); `outcome` resolves to whether the document was indexed."""

    org_id: uuid.UUID
    collection_id: uuid.UUID
    document_id: uuid.UUID
    file_name: str
    text: str
    text_as_of: datetime
    generations: list[int]
    job: jobs.Job | None
    outcome: asyncio.Future[bool] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    texts: list[str] = field(default_factory=list)
    contents: list[str] = field(default_factory=list)
    headings: list[tuple[str, ...]] = field(default_factory=list)
    title: str = ""
    vectors: Vectors | None = None


@dataclass
class _Extraction:
    """The result of extracting one claimed document: `text` (and the `encoding` a text file
    was decoded from), or `error` when it failed (`permanent`: retrying cannot help)."""

    job: jobs.Job
    original: document_queries.Original
    file_type: FileType | None = None
    text: str = ""
    encoding: str = ""
    error: str | None = None
    permanent: bool = False


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
        worker takes only the jobs of collections created with it."""
        self.pool = pool
        self.session_pool = session_pool or pool
        self.embedder = embedder
        self.embedding_model = embedding_model
        self.embedding = embed_stage or EmbedStage(embedder, VectorStore(pool))
        self.extraction = extraction
        self.index_version = index_version
        self.title_mode = title_mode
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.fingerprint = fingerprint.collection_fingerprint(embedder.fingerprint, index_version)
        self._chunking: set[asyncio.Task[None]] = set()
        # Unbounded: the embedding stage must not wait for one owner's writes (page syncs share
        # it); what can be in it is bounded by the documents claimed (MAX_IN_FLIGHT_DOCS).
        self._write_q: asyncio.Queue[_Item] = asyncio.Queue()
        self._large_writes: set[asyncio.Task[None]] = set()
        self._in_flight = 0
        self._in_flight_chars = 0
        # Documents and characters in the pipeline per organisation (fair claims).
        self._org_docs: dict[uuid.UUID, int] = {}
        self._org_chars: dict[uuid.UUID, int] = {}
        self._stopping = False
        self._drained = asyncio.Event()
        self._drained.set()
        self._progress = asyncio.Event()
        # Set when the embedder takes a group or waits for one: the claim loop may refill.
        self._refill = asyncio.Event()
        self._refill.set()
        # Documents in the pipeline by (org, document): a build waits for them, not re-embeds.
        self._active: dict[tuple[uuid.UUID, uuid.UUID], _Item] = {}
        self._builds: set[asyncio.Task[None]] = set()
        # The (org, collection) each running build is for (a deleted collection's is cancelled).
        self._build_of: dict[asyncio.Task[None], tuple[uuid.UUID, uuid.UUID]] = {}
        self._extractions: set[asyncio.Task[None]] = set()
        self._extract_slots = asyncio.Semaphore(EXTRACT_CONCURRENCY)
        self._wake = asyncio.Event()
        self._listener: asyncpg.Connection | None = None  # LISTEN and lease renewals
        # Jobs whose retry could not be recorded (the database was gone): re-queued by the
        # claim loop once it answers, or this worker's lease renewal would keep them running.
        self._unreleased: list[tuple[jobs.Job, str]] = []
        self.embedded_chunks = 0

    # --- stage 1: claim and extract ---------------------------------------------------------

    def _room(self) -> int:
        """How many jobs the next claim may take without exceeding the pipeline's bounds.

        Nothing while a full embedding group is already queued: the jobs wait in the table
        and are claimed later in larger batches (fewer round trips), still in time to keep
        the embedder busy."""
        if self._in_flight_chars >= MAX_IN_FLIGHT_CHARS:
            return 0
        queued = self.embedding.queued(self)
        if queued.chars >= QUEUE_AHEAD_CHARS or queued.entries >= QUEUE_AHEAD_DOCS:
            return 0
        held = self._in_flight + len(self._extractions)
        return max(0, min(CLAIM_BATCH, MAX_IN_FLIGHT_DOCS - held))

    def _fair_claim(self) -> tuple[int, list[uuid.UUID]]:
        """When `_room` is 0: how many jobs organisations with little in the pipeline may
        claim anyway, and the organisations left out (those at their share)."""
        held = self._in_flight + len(self._extractions)
        if held >= MAX_IN_FLIGHT_DOCS + FAIR_SLACK_DOCS:
            return 0, []
        saturated = [
            org
            for org, docs in self._org_docs.items()
            if docs >= FAIR_SHARE_DOCS or self._org_chars.get(org, 0) >= FAIR_SHARE_CHARS
        ]
        return FAIR_CLAIM, saturated

    async def _handle_batch(self, claimed: list[jobs.Job]) -> None:
        extract: list[jobs.Job] = []
        for job in claimed:
            if job.kind == EXTRACT:
                extract.append(job)
            elif job.kind == BUILD:
                # A build waits for its documents to pass the pipeline; keep claiming meanwhile.
                task = asyncio.create_task(self._handle_build(job))
                self._builds.add(task)
                self._build_of[task] = (job.org_id, uuid.UUID(job.payload["collection_id"]))
                task.add_done_callback(self._build_done)
            elif job.kind in (SETTLE, PURGE):
                await self._collection_job(job)
            else:
                await self._retry([job], f"unknown job kind {job.kind!r}")
        if extract:
            try:
                await self._extract_batch(extract)
            except (asyncpg.PostgresError, *LOST_DATABASE) as exc:
                log.warning("extract batch failed", extra={"error": repr(exc)[:300]})
                await self._retry(extract, type(exc).__name__)

    def _build_done(self, task: asyncio.Task[None]) -> None:
        self._builds.discard(task)
        self._build_of.pop(task, None)

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
        except (asyncpg.PostgresError, *LOST_DATABASE) as exc:
            log.warning("job failed", extra={"job_id": job.job_id, "error": repr(exc)[:300]})
            await self._retry([job], type(exc).__name__)

    async def _settle(self, collections: list[tuple[uuid.UUID, uuid.UUID]]) -> None:
        """Settles each collection that has nothing pending (settle.py); a failure only
        delays it to the periodic sweep."""
        for org_id, collection_id in dict.fromkeys(collections):
            try:
                async with self.pool.acquire() as conn:
                    await settle.settle(conn, org_id, collection_id)
            except Exception:  # best effort, on the stages' paths: must not stop them
                log.warning("settling a collection failed", exc_info=True)

    async def _handle_build(self, job: jobs.Job) -> None:
        try:
            await self._build(job)
        except (asyncpg.PostgresError, *LOST_DATABASE) as exc:
            log.warning("job failed", extra={"job_id": job.job_id, "error": repr(exc)[:300]})
            await self._retry([job], type(exc).__name__)

    async def _retry(self, failed: list[jobs.Job], error: str) -> None:
        done = 0
        try:
            async with self.pool.acquire() as conn:
                for job in failed:
                    await jobs.retry_or_fail(conn, job, error)
                    done += 1
        except Exception:
            self._unreleased.extend((job, error) for job in failed[done:])

    async def _extract_batch(self, batch: list[jobs.Job]) -> None:
        """Marks the batch's documents PROCESSING and loads their originals (one statement),
        extracts plain text at once and stores it for the whole batch in one transaction;
        binary formats go to the process pool, a bounded number at a time, each stored when
        it is done."""
        wanted = [(job.org_id, uuid.UUID(job.payload["document_id"])) for job in batch]
        async with self.pool.acquire() as conn:
            originals = await document_queries.start_extraction(conn, list(dict.fromkeys(wanted)))
        by_key = {(o.org_id, o.document_id): o for o in originals}
        gone: list[jobs.Job] = []
        quick: list[_Extraction] = []
        for job, key in zip(batch, wanted, strict=True):
            original = by_key.pop(key, None)
            if original is None:
                # deleted, or a second job for a document this batch already extracts
                gone.append(job)
                continue
            result = _Extraction(job, original)
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
            await self._extract_slots.acquire()
            task = asyncio.create_task(self._extract_apart(result))
            self._extractions.add(task)
            task.add_done_callback(self._extractions.discard)
        if gone:
            async with self.pool.acquire() as conn:
                await jobs.finish_many(conn, gone)
        await self._store(quick)

    async def _run_extraction(self, result: _Extraction) -> None:
        assert result.file_type is not None
        try:
            extracted = await self.extraction.extract(result.original.content, result.file_type)
            result.text = extracted.text
            result.encoding = extracted.encoding
        except (ExtractionFailed, ValueError) as exc:
            result.error = str(exc) or type(exc).__name__
            result.permanent = isinstance(exc, ExtractionFailed) and exc.permanent

    async def _extract_apart(self, result: _Extraction) -> None:
        try:
            await self._run_extraction(result)
            await self._store([result])
        except (asyncpg.PostgresError, *LOST_DATABASE) as exc:
            log.warning("job failed", extra={"job_id": result.job.job_id, "error": repr(exc)})
            await self._retry([result.job], type(exc).__name__)
        finally:
            self._extract_slots.release()

    async def _store(self, results: list[_Extraction]) -> None:
        """Failures: retried or FAILED (earlier text kept), one by one. Texts: READY in one
        transaction with the generations they go to, then into the embedding queue."""
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
                await self._settle([(org_id, result.original.collection_id)])
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
            for s in stored.values():
                if (s.org_id, s.collection_id) not in targets:
                    targets[s.org_id, s.collection_id] = await self._targets(
                        conn, s.org_id, s.collection_id
                    )
        for result in extracted:
            done = stored.get((result.job.org_id, result.original.document_id))
            if done is None:
                continue
            await self._submit(
                _Item(
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
    ) -> list[int]:
        """Generations a document change is written to; creates the first one if none."""
        live = await generations.live_generations(conn, org_id, collection_id)
        if not live:
            live = await generations.live_generations(conn, org_id, collection_id, lock=True)
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
        """Indexes every READY document into a BUILDING generation, then flips to it.

        Documents already in this worker's pipeline for that generation are waited for, not
        embedded a second time."""
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
        outcomes: list[asyncio.Future[bool]] = []
        for start in range(0, len(pending), BUILD_PAGE):
            page = []
            for document_id in pending[start : start + BUILD_PAGE]:
                active = self._active.get((job.org_id, document_id))
                if active is not None and generation in active.generations:
                    outcomes.append(active.outcome)
                else:
                    page.append(document_id)
            if not page:
                continue
            async with self.pool.acquire() as conn:
                rows = await conn.fetch(BUILD_TEXTS, job.org_id, page)
            for row in rows:
                no_text = row["extract_error"] == NO_TEXT_MARKER
                item = _Item(
                    org_id=job.org_id,
                    collection_id=collection_id,
                    document_id=row["document_id"],
                    file_name=row["file_name"],
                    text="" if no_text else row["extracted_text"],
                    text_as_of=row["updated_at"],
                    generations=[generation],
                    job=None,
                )
                outcomes.append(item.outcome)
                await self._submit(item)
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
        await self._settle([(job.org_id, collection_id)])

    async def _submit(self, item: _Item) -> None:
        charge = min(len(item.text), DOC_CHARS_CHARGE)
        self._in_flight += 1
        self._in_flight_chars += charge
        self._org_docs[item.org_id] = self._org_docs.get(item.org_id, 0) + 1
        self._org_chars[item.org_id] = self._org_chars.get(item.org_id, 0) + charge
        self._active[item.org_id, item.document_id] = item
        self._drained.clear()
        if len(item.text) <= CHUNK_INLINE_CHARS:
            self._chunk(item)
            self._schedule_item(item)
            return
        task = asyncio.create_task(self._chunk_apart(item))
        self._chunking.add(task)
        task.add_done_callback(self._chunking.discard)

    def _chunk(self, item: _Item) -> None:
        """The document's chunks and their embedding texts (titled, chunking.py)."""
        title = document_title(item.file_name, item.text, self.title_mode)
        item.title = title or ""
        chunked = chunk_for_embedding(item.text, title)
        item.contents, item.headings, item.texts = chunked.contents, chunked.headings, chunked.texts

    async def _chunk_apart(self, item: _Item) -> None:
        try:
            await asyncio.to_thread(self._chunk, item)
        except Exception:
            log.exception("chunking failed", extra={"document_id": str(item.document_id)})
            await self._complete(item, False)
            return
        self._schedule_item(item)

    def _schedule_item(self, item: _Item) -> None:
        if item.outcome.done():  # its collection was deleted while it was chunked
            return
        if self._stopping:  # handed back with the job (jobs.release)
            self._abandon([item])
            return

        async def embedded(outcome: Vectors | Exception) -> None:
            await self._embedded(item, outcome)

        self.embedding.put(
            EmbedEntry(
                org_id=item.org_id,
                lane=item.collection_id,
                owner=self,
                texts=item.texts,
                on_done=embedded,
                subject=item,
            )
        )

    # --- stage 2: embed, in the process's shared embedding stage ----------------------------

    def _on_embedder_turn(self) -> None:
        """The embedding stage took a group or ran out of work: the claim loop may refill."""
        self._refill.set()
        self._progress.set()

    async def _embedded(self, item: _Item, outcome: Vectors | Exception) -> None:
        """A document's last slice was embedded (it goes on to be written), or its group's
        embedding failed (it is retried)."""
        if isinstance(outcome, Exception):
            await self._complete(item, False)
        elif not item.outcome.done():
            item.vectors = outcome
            self._write_q.put_nowait(item)

    # --- stage 3: write chunks --------------------------------------------------------------

    async def _write_stage(self) -> None:
        while True:
            batch = [await self._write_q.get()]
            if batch[0].outcome.done():  # its collection was deleted (`_cancel`)
                continue
            if len(batch[0].texts) > WRITE_BATCH_CHUNKS:
                self._write_apart(batch)
                continue
            chunks = len(batch[0].texts)
            while len(batch) < WRITE_BATCH_DOCS and chunks < WRITE_BATCH_CHUNKS:
                try:
                    item = self._write_q.get_nowait()
                except asyncio.QueueEmpty:
                    break
                if item.outcome.done():
                    continue
                if len(item.texts) > WRITE_BATCH_CHUNKS:
                    self._write_apart([item])
                    continue
                batch.append(item)
                chunks += len(item.texts)
            parts = [batch]
            if not self.embedding.busy and not self.embedding.queued(self).entries:
                parts = _split_for_writers(batch)
            results = await asyncio.gather(*(self._write_part(part) for part in parts))
            await self._written(batch, [ok for result in results for ok in result])

    def _write_apart(self, batch: list[_Item]) -> None:
        """A large document's write (tens of seconds for 100,000 chunks) in a task of its own,
        so other documents' writes do not wait for it."""

        async def write() -> None:
            await self._written(batch, await self._write_part(batch))

        task = asyncio.create_task(write())
        self._large_writes.add(task)
        task.add_done_callback(self._large_writes.discard)

    async def _written(self, batch: list[_Item], outcomes: list[bool]) -> None:
        """After a write: statistics drift, settling, and each document's outcome."""
        pairs = zip(batch, outcomes, strict=True)
        written = [(i.org_id, i.collection_id) for i, ok in pairs if ok]
        for org_id, collection_id in dict.fromkeys(written):
            try:
                async with self.pool.acquire() as conn:
                    await lexical_stats.refresh_if_drifted(conn, org_id, collection_id)
            except (asyncpg.PostgresError, *LOST_DATABASE):
                # Statistics only steer BM25; settling makes them exact later.
                log.warning("term statistics refresh failed", exc_info=True)
        # Before the documents count as done (`run_until_idle` returns when none is left),
        # so a worker that drains a collection leaves it settled.
        await self._settle(written)
        for item, ok in zip(batch, outcomes, strict=True):
            self.embedded_chunks += len(item.texts) if ok else 0
            indexed_documents.add(1, {"ok": ok})
            if ok:
                indexed_chunks.add(len(item.texts))
            await self._complete(item, ok)

    async def _write_part(self, batch: list[_Item]) -> list[bool]:
        """Writes the documents in one transaction; when that fails, one by one, so only the
        document at fault fails."""
        if await self._write(batch):
            return [True] * len(batch)
        if len(batch) == 1:
            return [False]
        return [await self._write([item]) for item in batch]

    async def _write(self, batch: list[_Item]) -> bool:
        """Writes the batch's chunks, finishes its extract jobs and notifies each collection
        once, all in one transaction."""
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                await generations.write_many_chunks(
                    conn,
                    [
                        generations.DocumentChunks(
                            org_id=item.org_id,
                            collection_id=item.collection_id,
                            document_id=item.document_id,
                            text_as_of=item.text_as_of,
                            generations=item.generations,
                            rows=generations.ChunkRows(
                                item.contents, item.headings, _vectors(item), item.title
                            ),
                        )
                        for item in batch
                    ],
                )
                await jobs.finish_many(conn, [i.job for i in batch if i.job is not None])
                await generations.notify_indexes(conn, [(i.org_id, i.collection_id) for i in batch])
            return True
        except (asyncpg.PostgresError, *LOST_DATABASE):
            log.exception("chunk write failed", extra={"documents": len(batch)})
            return False

    def _leave(self, item: _Item) -> None:
        """Takes the document out of the pipeline's accounting."""
        charge = min(len(item.text), DOC_CHARS_CHARGE)
        self._in_flight -= 1
        self._in_flight_chars -= charge
        docs = self._org_docs[item.org_id] - 1
        chars = self._org_chars[item.org_id] - charge
        if docs:
            self._org_docs[item.org_id], self._org_chars[item.org_id] = docs, chars
        else:
            del self._org_docs[item.org_id], self._org_chars[item.org_id]
        if self._in_flight == 0:
            self._drained.set()
        self._progress.set()
        if self._active.get((item.org_id, item.document_id)) is item:
            del self._active[item.org_id, item.document_id]

    async def _complete(self, item: _Item, ok: bool) -> None:
        """The end of a document's pass: its extract job was finished with the write when
        `ok`; otherwise it is retried."""
        if item.outcome.done():  # abandoned by a stopping worker
            return
        self._leave(item)
        item.outcome.set_result(ok)
        if item.job is not None and not ok:
            await self._retry([item.job], "indexing failed")
            await self._settle([(item.org_id, item.collection_id)])

    def _abandon(self, items: list[_Item]) -> None:
        """A stopping worker leaves these documents unfinished: their jobs are handed back
        (jobs.release) and a build waiting for them is cancelled, not failed."""
        for item in items:
            if not item.outcome.done():
                self._leave(item)
                item.outcome.cancel()

    def _cancel(self, org_id: uuid.UUID, collection_id: uuid.UUID) -> None:
        """Drops what the worker holds of a deleted collection: its documents waiting for (or
        between) embedding slices, being chunked or waiting to be written, and its build. Their
        jobs are gone (cancel.py); groups already with the embedder finish and are ignored."""
        key = (org_id, collection_id)
        dropped = [cast(_Item, e.subject) for e in self.embedding.clear(self, lane=collection_id)]
        held = [i for i in self._active.values() if (i.org_id, i.collection_id) == key]
        items = [i for i in {id(i): i for i in [*dropped, *held]}.values() if not i.outcome.done()]
        for item in items:
            self._leave(item)
            item.outcome.cancel()
        builds = [task for task, of in self._build_of.items() if of == key]
        for task in builds:
            task.cancel()
        if items or builds:
            log.info(
                "dropped a deleted collection's work",
                extra={"collection_id": str(collection_id), "documents": len(items)},
            )

    def _held_collections(self) -> list[tuple[uuid.UUID, uuid.UUID]]:
        held = [(i.org_id, i.collection_id) for i in self._active.values()]
        return list(dict.fromkeys([*held, *self._build_of.values()]))

    # --- running ----------------------------------------------------------------------------

    def _on_notify(self, *_: object) -> None:
        self._wake.set()

    def _on_cancel(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        collection = cancel.parse(payload)
        if collection is not None:
            self._cancel(*collection)

    async def _claim_loop(self, stop: asyncio.Event, until_idle: bool) -> None:
        """`_claims`, going on after the database was lost (waiting before each new try)."""
        delay = LOST_DATABASE_BACKOFF_S[0]
        while True:
            started = time.monotonic()
            try:
                return await self._claims(stop, until_idle)
            except LOST_DATABASE as exc:
                if time.monotonic() - started > 60:  # a new outage, not the same one
                    delay = LOST_DATABASE_BACKOFF_S[0]
                log.warning(
                    "worker lost the database; claiming again in %.1f s",
                    delay,
                    extra={"error": repr(exc)[:300]},
                )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
                delay = min(delay * 2, LOST_DATABASE_BACKOFF_S[1])

    async def _claims(self, stop: asyncio.Event, until_idle: bool) -> None:
        last_recovery = last_maintenance = 0.0
        while not stop.is_set():
            if self._unreleased:
                unreleased, self._unreleased = self._unreleased, []
                for job, error in unreleased:
                    await self._retry([job], error)
            now = time.monotonic()
            if now - last_recovery >= jobs.RECOVER_EVERY_SECONDS:
                last_recovery = now
                async with self.pool.acquire() as conn:
                    await jobs.recover_expired(conn)
                    if now - last_maintenance >= MAINTENANCE_S:
                        last_maintenance = now
                        await conn.execute(EXPIRE_CACHE)
                        queue_depth_gauge.set(await jobs.queue_depth(conn))
                        await jobs.forget_old_workers(conn)
                        await settle.sweep(conn)
            self._progress.clear()
            room = self._room() if self._refill.is_set() else 0
            skip: list[uuid.UUID] = []
            if room == 0:
                if not self._wake.is_set():
                    # Full, or the embedder has enough: wait for it to take a group, or for
                    # a new job (another tenant's, which a fair claim may take at once).
                    if not await _either(self._progress, self._wake, IDLE_POLL_S):
                        self._wake.set()  # a quiet poll: jobs due by time notify no one
                    continue
                room, skip = self._fair_claim()
                if room == 0:
                    self._wake.clear()
                    continue
            self._wake.clear()  # before the claim: a notification during it is not lost
            claimed = await self._claim(room, skip)
            if skip:
                if claimed:
                    self._wake.set()  # that tenant may have more: claim again next turn
                    await self._handle_batch(claimed)
                continue
            if len(claimed) < room and (self.embedding.busy or self.embedding.queued(self).entries):
                # Everything runnable is claimed and the embedder has work: let new jobs
                # gather in the table until it takes its next group, then claim them at once.
                self._refill.clear()
            if not claimed:
                idle = (
                    self._in_flight == 0
                    and not self._builds
                    and not self._extractions
                    and not self._large_writes
                )
                if until_idle and idle:
                    return
                if not self._refill.is_set():
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 0.05 if until_idle else IDLE_POLL_S)
                continue
            await self._handle_batch(claimed)

    async def _claim(self, room: int, skip: list[uuid.UUID]) -> list[jobs.Job]:
        claimed: list[jobs.Job] = []
        try:
            async with self.pool.acquire() as conn:
                claimed = await jobs.claim_batch(
                    conn, self.worker_id, room, skip_orgs=skip, model=self.embedding_model
                )
        except LOST_DATABASE:
            if not claimed:
                raise
            # The claim committed; only returning its connection failed (the database went
            # away just after). Run the jobs: dropped, they would stay `running` for good.
        return claimed

    async def _listen(self) -> None:
        """(Re)opens the worker's own connection: LISTEN for new jobs, and lease renewals."""
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self.session_pool.release(self._listener, timeout=CANCEL_SECONDS)
            self._listener = None
        listener = await self.session_pool.acquire()
        try:
            await listener.add_listener(jobs.CHANNEL, self._on_notify)
            await listener.add_listener(cancel.CHANNEL, self._on_cancel)
        except BaseException:
            await self.session_pool.release(listener, timeout=CANCEL_SECONDS)
            raise
        self._listener = listener

    async def _heartbeat(self) -> None:
        """Renews the leases of this worker's running jobs while it lives, on its own
        connection (so a busy pool or a long batch cannot delay it past the lease); after the
        database was lost, opens that connection again (LISTEN included)."""
        while True:
            await asyncio.sleep(jobs.HEARTBEAT_SECONDS)
            try:
                if self._listener is None or self._listener.is_closed():
                    await self._listen()
                    self._wake.set()  # notifications sent meanwhile were lost: claim now
                assert self._listener is not None
                await jobs.renew_leases(self._listener, self.worker_id)
                await jobs.beat(self._listener, self.worker_id)
                # A cancellation this worker did not hear (cancel.py): asked here too.
                held = self._held_collections()
                for collection in await cancel.deleted_among(self._listener, held):
                    self._cancel(*collection)
            except (asyncpg.PostgresError, *LOST_DATABASE):
                log.warning("renewing job leases failed", exc_info=True)

    async def run(self, stop: asyncio.Event, *, until_idle: bool = False) -> None:
        self._stopping = False  # a worker may be run again after it stopped
        await self._listen()
        assert self._listener is not None
        await jobs.beat(self._listener, self.worker_id)  # seen at once, not a heartbeat later
        self.embedding.listeners.add(self._on_embedder_turn)
        try:
            stages = [
                asyncio.create_task(self._write_stage()),
                asyncio.create_task(self._heartbeat()),
            ]
            claiming = asyncio.create_task(self._claim_loop(stop, until_idle))
            stopping = asyncio.create_task(stop.wait())
            try:
                # The claim loop sees `stop` between batches; a batch stuck in a claim or an
                # extraction must not hold shutdown, so stop also bounds it by the drain time.
                await asyncio.wait({claiming, stopping}, return_when=asyncio.FIRST_COMPLETED)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(DRAIN_SECONDS):
                        await asyncio.wait({claiming})
                        # Documents not yet given to the embedder are handed back with their
                        # jobs; those embedded or being embedded finish their writes:
                        # cancelling a write midway would leave its connection mid-statement.
                        self._stopping = True
                        self._abandon([cast(_Item, e.subject) for e in self.embedding.clear(self)])
                        if self._extractions:
                            await asyncio.wait(set(self._extractions))
                        await self._drained.wait()
                if claiming.done() and not claiming.cancelled():
                    claiming.result()  # re-raises an error of the claim loop
            finally:
                self._stopping = True
                tasks = [
                    claiming,
                    stopping,
                    *stages,
                    *self._builds,
                    *self._extractions,
                    *self._chunking,
                    *self._large_writes,
                ]
                for task in tasks:
                    task.cancel()
                _, pending = await asyncio.wait(tasks, timeout=CANCEL_SECONDS)
                if pending:
                    log.warning("worker tasks did not stop", extra={"tasks": len(pending)})
                await self._release()
        finally:
            self.embedding.listeners.discard(self._on_embedder_turn)
            listener, self._listener = self._listener, None
            if listener is not None:
                with contextlib.suppress(Exception):
                    await listener.remove_listener(jobs.CHANNEL, self._on_notify)
                with contextlib.suppress(Exception):
                    await listener.remove_listener(cancel.CHANNEL, self._on_cancel)
                with contextlib.suppress(Exception):
                    await self.session_pool.release(listener, timeout=CANCEL_SECONDS)

    async def _release(self) -> None:
        """Hands this worker's unfinished jobs back to the queue at once (another worker need
        not wait for their leases to expire)."""
        try:
            async with asyncio.timeout(CANCEL_SECONDS), self.pool.acquire() as conn:
                released = await jobs.release(conn, self.worker_id)
            if released:
                log.info("released unfinished jobs", extra={"jobs": released})
        except (asyncpg.PostgresError, *LOST_DATABASE):
            log.warning("releasing unfinished jobs failed (their leases expire)", exc_info=True)

    async def run_until_idle(self) -> None:
        await self.run(asyncio.Event(), until_idle=True)


async def _either(first: asyncio.Event, second: asyncio.Event, within_s: float) -> bool:
    """Waits until either event is set; False if `within_s` seconds passed first."""
    waits = [asyncio.ensure_future(first.wait()), asyncio.ensure_future(second.wait())]
    done, pending = await asyncio.wait(waits, timeout=within_s, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    return bool(done)


def _split_for_writers(batch: list[_Item]) -> list[list[_Item]]:
    """The batch in up to WRITE_CONCURRENCY consecutive parts of about equal chunk counts; a
    batch of fewer than 2 × SPLIT_MIN_CHUNKS chunks stays whole. Two parts may share a
    document only if it was queued twice: both lock its row in key order, so they wait for
    each other rather than deadlock."""
    total = sum(len(item.texts) for item in batch)
    parts = max(1, min(WRITE_CONCURRENCY, total // SPLIT_MIN_CHUNKS))
    if parts == 1:
        return [batch]
    out: list[list[_Item]] = [[]]
    share, filled = total / parts, 0
    for item in batch:
        if filled >= share * len(out) and len(out) < parts:
            out.append([])
        out[-1].append(item)
        filled += len(item.texts)
    return out


def _vectors(item: _Item) -> Vectors:
    assert item.vectors is not None
    return item.vectors

"""The documents the worker holds between claim and write, and how their jobs end.

Every document enters (`enter`) when its text is stored or a build takes it, and leaves once
(`complete`, `abandon`, or dropped with a deleted collection): its outcome resolves then, and
`drained` is set when none is left. The counts bound the pipeline: the claims (claims.py) take
no more than MAX_IN_FLIGHT_DOCS documents / MAX_IN_FLIGHT_CHARS characters of text, and per
organisation they decide who may still claim when it is full (fair claims). A document counts
at most DOC_CHARS_CHARGE characters, so one 64 MiB file (the upload limit) does not stop
claims for everything else, and the text held stays under
MAX_IN_FLIGHT_CHARS / DOC_CHARS_CHARGE × 64 MiB (plus the fair claims' overdraft).

A job that fails is retried (jobs.retry_or_fail) from here; one whose retry could not be
recorded because the database was gone is kept in `unreleased` until the claim loop reaches
the database again, or this worker's lease renewals would keep it running for good.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime

import asyncpg

from quire.indexer.ingest.embed_stage import Vectors
from quire.indexer.worker import jobs, settle

log = logging.getLogger(__name__)

MAX_IN_FLIGHT_DOCS = 1024
MAX_IN_FLIGHT_CHARS = 16_000_000
DOC_CHARS_CHARGE = MAX_IN_FLIGHT_CHARS // 4


@dataclass
class Document:
    """One document to (re)index into some generations.

    `job` is the extract job finished with the chunk write (None for a generation build's
    documents); `outcome` resolves to whether the document was indexed. The chunk stage fills
    `texts` (what is embedded), `contents`, `headings` and `title`; the embedding, `vectors`."""

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


class InFlight:
    """The worker's documents in the pipeline, counted in all and per organisation."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.docs = 0
        self.chars = 0
        # Documents and characters per organisation (fair claims).
        self.org_docs: dict[uuid.UUID, int] = {}
        self.org_chars: dict[uuid.UUID, int] = {}
        # By (org, document): a build waits for these, rather than embed them again.
        self.active: dict[tuple[uuid.UUID, uuid.UUID], Document] = {}
        # Set by a stopping worker: documents not yet with the embedder are handed back.
        self.stopping = False
        self.drained = asyncio.Event()
        self.drained.set()
        # Set when a document leaves (or the embedder takes a group): claims may have room.
        self.progress = asyncio.Event()
        self.unreleased: list[tuple[jobs.Job, str]] = []

    def enter(self, document: Document) -> None:
        charge = min(len(document.text), DOC_CHARS_CHARGE)
        self.docs += 1
        self.chars += charge
        self.org_docs[document.org_id] = self.org_docs.get(document.org_id, 0) + 1
        self.org_chars[document.org_id] = self.org_chars.get(document.org_id, 0) + charge
        self.active[document.org_id, document.document_id] = document
        self.drained.clear()

    def leave(self, document: Document) -> None:
        """Takes the document out of the counts."""
        charge = min(len(document.text), DOC_CHARS_CHARGE)
        self.docs -= 1
        self.chars -= charge
        docs = self.org_docs[document.org_id] - 1
        chars = self.org_chars[document.org_id] - charge
        if docs:
            self.org_docs[document.org_id], self.org_chars[document.org_id] = docs, chars
        else:
            del self.org_docs[document.org_id], self.org_chars[document.org_id]
        if self.docs == 0:
            self.drained.set()
        self.progress.set()
        if self.active.get((document.org_id, document.document_id)) is document:
            del self.active[document.org_id, document.document_id]

    async def complete(self, document: Document, ok: bool) -> None:
        """The end of a document's pass: its extract job was finished with the write when
        `ok`; otherwise it is retried."""
        if document.outcome.done():  # abandoned by a stopping worker
            return
        self.leave(document)
        document.outcome.set_result(ok)
        if document.job is not None and not ok:
            await self.retry([document.job], "indexing failed")
            await self.settle([(document.org_id, document.collection_id)])

    def abandon(self, documents: list[Document]) -> None:
        """A stopping worker leaves these documents unfinished: their jobs are handed back
        (jobs.release) and a build waiting for them is cancelled, not failed."""
        for document in documents:
            if not document.outcome.done():
                self.leave(document)
                document.outcome.cancel()

    async def retry(self, failed: list[jobs.Job], error: str) -> None:
        done = 0
        try:
            async with self.pool.acquire() as conn:
                for job in failed:
                    await jobs.retry_or_fail(conn, job, error)
                    done += 1
        except Exception:
            self.unreleased.extend((job, error) for job in failed[done:])

    async def retry_unreleased(self) -> None:
        """The retries that could not be recorded before, once more."""
        if self.unreleased:
            unreleased, self.unreleased = self.unreleased, []
            for job, error in unreleased:
                await self.retry([job], error)

    async def settle(self, collections: list[tuple[uuid.UUID, uuid.UUID]]) -> None:
        """Settles each collection that has nothing pending (settle.py); a failure only
        delays it to the periodic sweep."""
        for org_id, collection_id in dict.fromkeys(collections):
            try:
                async with self.pool.acquire() as conn:
                    await settle.settle(conn, org_id, collection_id)
            except Exception:  # best effort, on the stages' paths: must not stop them
                log.warning("settling a collection failed", exc_info=True)

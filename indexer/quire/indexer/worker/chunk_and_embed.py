"""Chunking a document and handing it to the process's embedding stage.

A document is chunked when it enters the pipeline (its chunks titled, chunking.document_title
with TITLE_MODE); a text over CHUNK_INLINE_CHARS is chunked in a thread, so the event loop
and everyone else's work go on while a 64 MiB file takes seconds. It then joins the
embedding schedule (quire.indexer.ingest, the stage page syncs use too) in its collection's
lane, which embeds groups of a fraction of a second in slices, round robin across
organisations and lanes. Once its last slice is embedded it goes on to the write stage
(`on_embedded`); a failed embedding or chunking fails the document (its job is retried).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable

from quire.indexer.chunking import document_title
from quire.indexer.ingest.chunks import chunk_for_embedding
from quire.indexer.ingest.embed_stage import EmbedEntry, EmbedStage, Vectors
from quire.indexer.worker.in_flight import Document, InFlight

log = logging.getLogger(__name__)

# Texts longer than this are chunked in a thread: chunking 64 MiB takes seconds.
CHUNK_INLINE_CHARS = 256_000
# What titles each chunk's embedding text (chunking.document_title; docs/retrieval-quality.md).
TITLE_MODE = "first_line"


class ChunkAndEmbed:
    """`owner`: whose entries the documents are in the embedding stage (its `queued` and
    `clear` answer per owner)."""

    def __init__(
        self,
        embedding: EmbedStage,
        in_flight: InFlight,
        *,
        owner: Hashable,
        title_mode: str = TITLE_MODE,
        on_embedded: Callable[[Document], None],
    ) -> None:
        self.embedding = embedding
        self.in_flight = in_flight
        self.owner = owner
        self.title_mode = title_mode
        self._on_embedded = on_embedded
        # Large documents being chunked in threads.
        self.running: set[asyncio.Task[None]] = set()

    async def submit(self, document: Document) -> None:
        """The document enters the pipeline: chunked, then queued for the embedder."""
        self.in_flight.enter(document)
        if len(document.text) <= CHUNK_INLINE_CHARS:
            self._chunk(document)
            self._schedule(document)
            return
        task = asyncio.create_task(self._chunk_apart(document))
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    def _chunk(self, document: Document) -> None:
        """The document's chunks and their embedding texts (titled, chunking.py)."""
        title = document_title(document.file_name, document.text, self.title_mode)
        document.title = title or ""
        chunked = chunk_for_embedding(document.text, title)
        document.contents, document.headings = chunked.contents, chunked.headings
        document.texts = chunked.texts

    async def _chunk_apart(self, document: Document) -> None:
        try:
            await asyncio.to_thread(self._chunk, document)
        except Exception:
            log.exception("chunking failed", extra={"document_id": str(document.document_id)})
            await self.in_flight.complete(document, False)
            return
        self._schedule(document)

    def _schedule(self, document: Document) -> None:
        if document.outcome.done():  # its collection was deleted while it was chunked
            return
        if self.in_flight.stopping:  # handed back with the job (jobs.release)
            self.in_flight.abandon([document])
            return

        async def embedded(outcome: Vectors | Exception) -> None:
            await self._embedded(document, outcome)

        self.embedding.put(
            EmbedEntry(
                org_id=document.org_id,
                lane=document.collection_id,
                owner=self.owner,
                texts=document.texts,
                on_done=embedded,
                subject=document,
            )
        )

    async def _embedded(self, document: Document, outcome: Vectors | Exception) -> None:
        """A document's last slice was embedded (it goes on to be written), or its group's
        embedding failed (it is retried)."""
        if isinstance(outcome, Exception):
            await self.in_flight.complete(document, False)
        elif not document.outcome.done():
            document.vectors = outcome
            self._on_embedded(document)

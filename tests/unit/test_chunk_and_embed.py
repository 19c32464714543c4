"""The chunk-and-embed stage (worker/chunk_and_embed.py) on its own: a document is chunked
(a long one in a thread), embedded in its collection's lane and handed on with one vector per
chunk text; a failed embedding fails the document; a stopping worker hands documents back
instead of queueing them. A stand-in embedder (the vector is the text's length) keeps it
deterministic: this stage moves vectors, it does not read them."""

from __future__ import annotations

import asyncio
import uuid

import numpy as np

from quire.indexer.ingest.embed_stage import DIMENSION, EmbedStage, Vectors
from quire.indexer.worker.chunk_and_embed import CHUNK_INLINE_CHARS, ChunkAndEmbed
from quire.indexer.worker.in_flight import Document, InFlight
from tests.support.worker_documents import a_document

ORG = uuid.UUID(int=1)


class LengthEmbedder:
    """Each text becomes a vector of its length; fails when `failing` is set."""

    fingerprint = "test"

    def __init__(self) -> None:
        self.failing = False
        self.texts = 0

    async def embed_bulk(self, texts: list[str]) -> Vectors:
        await asyncio.sleep(0)
        if self.failing:
            raise RuntimeError("embedder failed")
        self.texts += len(texts)
        return np.array([[float(len(t))] * DIMENSION for t in texts], dtype=np.float32)


def document(text: str) -> Document:
    return a_document(org_id=ORG, text=text)


class Stage:
    def __init__(self) -> None:
        self.embedder = LengthEmbedder()
        self.in_flight = InFlight(None)  # type: ignore[arg-type]  # no job: no statement
        self.embedded: list[Document] = []
        self.arrived = asyncio.Event()
        self.stage = ChunkAndEmbed(
            EmbedStage(self.embedder),
            self.in_flight,
            owner="worker",
            on_embedded=self.on_embedded,
        )

    def on_embedded(self, document: Document) -> None:
        self.embedded.append(document)
        self.arrived.set()


TEXT = "# Pumps\n\nCentrifugal pumps move water.\n\n## Valves\n\nCheck valves weekly.\n"


async def test_a_document_is_chunked_titled_and_embedded_one_vector_a_text() -> None:
    stage = Stage()
    doc = document(TEXT)
    await stage.stage.submit(doc)
    assert stage.in_flight.docs == 1 and stage.in_flight.active
    await asyncio.wait_for(stage.arrived.wait(), 10)
    assert stage.embedded == [doc]
    assert doc.title == "Pumps"
    assert doc.texts and len(doc.texts) == len(doc.contents) == len(doc.headings)
    assert doc.vectors is not None and doc.vectors.shape == (len(doc.texts), DIMENSION)
    assert [v[0] for v in doc.vectors] == [float(len(t)) for t in doc.texts], "in order"
    assert not doc.outcome.done(), "written, not finished, by the next stage"


async def test_a_long_text_is_chunked_in_a_thread_like_a_short_one() -> None:
    stage = Stage()
    long = document(TEXT * (CHUNK_INLINE_CHARS // len(TEXT) + 1))
    await stage.stage.submit(long)
    assert long.texts == [] and stage.stage.running, "chunked apart, not inline"
    await asyncio.wait_for(stage.arrived.wait(), 60)
    assert stage.embedded == [long] and long.vectors is not None
    assert len(long.vectors) == len(long.texts) > 100
    assert not stage.stage.running


async def test_a_failed_embedding_fails_the_document() -> None:
    stage = Stage()
    stage.embedder.failing = True
    doc = document(TEXT)
    await stage.stage.submit(doc)
    assert await asyncio.wait_for(doc.outcome, 10) is False
    assert stage.embedded == [] and stage.in_flight.docs == 0


async def test_a_stopping_worker_hands_documents_back_unembedded() -> None:
    stage = Stage()
    stage.in_flight.stopping = True
    doc = document(TEXT)
    await stage.stage.submit(doc)
    assert doc.outcome.cancelled(), "handed back with its job, not failed"
    assert stage.in_flight.docs == 0 and stage.embedder.texts == 0

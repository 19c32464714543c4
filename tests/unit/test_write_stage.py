"""The write stage (worker/writes.py) on its own, with a write transaction that always
fails: it batches what the embedder finished up to its limits, writes a document larger than a
batch apart, splits a batch over concurrent writers when the embedder is idle, and retries a
failed batch document by document so each document fails alone. Failed documents without a
job reach no database."""

from __future__ import annotations

import asyncio

import numpy as np

from quire.indexer.ingest.embed_stage import DIMENSION
from quire.indexer.worker import writes
from quire.indexer.worker.in_flight import Document, InFlight
from tests.support.worker_documents import a_document


class FailingWrites:
    """Records each write transaction's documents (by chunk count) and fails it."""

    def __init__(self) -> None:
        self.calls: list[list[int]] = []

    async def write(self, batch: list[Document]) -> bool:
        self.calls.append([len(d.texts) for d in batch])
        await asyncio.sleep(0)
        return False


def document(in_flight: InFlight, chunks: int) -> Document:
    made = a_document(chunks=chunks)
    made.vectors = np.zeros((chunks, DIMENSION), dtype=np.float32)
    in_flight.enter(made)
    return made


async def run_until_drained(stage: writes.ChunkWrites, in_flight: InFlight) -> None:
    running = asyncio.create_task(stage.run())
    try:
        await asyncio.wait_for(in_flight.drained.wait(), 10)
    finally:
        running.cancel()
        await asyncio.wait({running})


async def test_batches_keep_their_limits_and_a_failed_batch_fails_document_by_document() -> None:
    in_flight = InFlight(None)  # type: ignore[arg-type]
    recorder = FailingWrites()
    stage = writes.ChunkWrites(
        None,  # type: ignore[arg-type]  # nothing is written: no statement
        in_flight,
        write=recorder.write,
        embedder_idle=lambda: False,
    )
    huge = document(in_flight, writes.WRITE_BATCH_CHUNKS + 1)
    small = [document(in_flight, 3) for _ in range(3)]
    for each in [small[0], huge, *small[1:]]:
        stage.put(each)
    await run_until_drained(stage, in_flight)
    # The three small ones in one batch, then one by one; the huge one apart, alone.
    assert sorted(recorder.calls) == sorted([[3, 3, 3], [3], [3], [3], [len(huge.texts)]])
    assert all(d.outcome.result() is False for d in [huge, *small])
    assert stage.embedded_chunks == 0


async def test_an_idle_embedder_splits_the_batch_over_concurrent_writers() -> None:
    in_flight = InFlight(None)  # type: ignore[arg-type]
    recorder = FailingWrites()
    stage = writes.ChunkWrites(
        None,  # type: ignore[arg-type]
        in_flight,
        write=recorder.write,
        embedder_idle=lambda: True,
    )
    batch = [document(in_flight, writes.SPLIT_MIN_CHUNKS) for _ in range(4)]
    for each in batch:
        stage.put(each)
    await run_until_drained(stage, in_flight)
    half = [writes.SPLIT_MIN_CHUNKS] * 2
    assert recorder.calls[:2] == [half, half], "two parts, written at once"
    assert recorder.calls[2:] == [[writes.SPLIT_MIN_CHUNKS]] * 4

"""How the worker's write stage splits a batch over concurrent transactions when the embedder
has nothing left to do (`writes.split_for_writers`)."""

from __future__ import annotations

import asyncio

import pytest

from quire.indexer.worker import writes
from quire.indexer.worker.in_flight import Document
from tests.support.worker_documents import a_document

# Document holds a future for its outcome; these tests never resolve it.
_LOOP = asyncio.new_event_loop()


def teardown_module() -> None:
    _LOOP.close()


def item(chunks: int) -> Document:
    return a_document(chunks=chunks, outcome=_LOOP.create_future())


def counts(parts: list[list[Document]]) -> list[int]:
    return [sum(len(i.texts) for i in part) for part in parts]


def test_a_large_batch_splits_into_balanced_parts_in_order() -> None:
    batch = [item(3) for _ in range(200)]  # 600 chunks
    parts = writes.split_for_writers(batch)
    assert len(parts) == writes.WRITE_CONCURRENCY
    assert [i for part in parts for i in part] == batch, "every item once, order kept"
    assert counts(parts) == [300, 300]


def test_uneven_documents_still_give_parts_near_the_share() -> None:
    batch = [item(n) for n in (90, 1, 1, 1, 80, 2, 60, 70, 3)]  # 308 chunks
    parts = writes.split_for_writers(batch)
    assert len(parts) == 2
    first, second = counts(parts)
    assert first + second == 308
    assert abs(first - second) <= 90, "no part larger than half plus one document"


@pytest.mark.parametrize("chunks", [1, writes.SPLIT_MIN_CHUNKS, 2 * writes.SPLIT_MIN_CHUNKS - 1])
def test_a_batch_below_two_minimum_parts_stays_whole(chunks: int) -> None:
    batch = [item(1) for _ in range(chunks)]
    assert writes.split_for_writers(batch) == [batch]


def test_exactly_two_minimum_parts_split() -> None:
    batch = [item(1) for _ in range(2 * writes.SPLIT_MIN_CHUNKS)]
    assert counts(writes.split_for_writers(batch)) == [writes.SPLIT_MIN_CHUNKS] * 2


def test_one_huge_document_is_never_split() -> None:
    batch = [item(2000)]
    assert writes.split_for_writers(batch) == [batch]

"""EmbeddingService's bookkeeping (a deterministic stand-in embedder: nothing semantic here)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from quire.server.embeddings import EmbeddingService, Vectors
from tests.support.waits import until


class GatedEmbedder:
    """Blocks every call until `release` is set; fails on the text "fail"."""

    fingerprint = "test"

    def __init__(self) -> None:
        self.release = threading.Event()

    def _wait(self, texts: list[str]) -> None:
        assert self.release.wait(10)
        if "fail" in texts:
            raise RuntimeError("embedder failed")

    def embed(self, texts: list[str]) -> Vectors:
        self._wait(texts)
        return np.ones((len(texts), 4), dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        self._wait([text])
        return np.ones(4, dtype=np.float32)


@pytest.fixture
def embedder() -> GatedEmbedder:
    return GatedEmbedder()


@pytest.fixture
def service(embedder: GatedEmbedder) -> Iterator[EmbeddingService]:
    service = EmbeddingService(embedder)
    yield service
    embedder.release.set()  # nothing may stay blocked on the query thread
    service.close()


async def test_queries_in_flight_counts_queued_and_running_embeddings(
    embedder: GatedEmbedder, service: EmbeddingService
) -> None:
    assert service.queries_in_flight == 0
    calls = [
        asyncio.create_task(service.embed_queries(texts)) for texts in (["a"], ["b", "c"], ["fail"])
    ]
    # One runs on the query thread, two wait behind it: all three count.
    await until(lambda: service.queries_in_flight == 3, within_s=5, what="not all three counted")
    embedder.release.set()
    one, two, failed = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(one, np.ndarray) and one.shape == (1, 4)
    assert isinstance(two, np.ndarray) and two.shape == (2, 4)
    assert isinstance(failed, RuntimeError)
    assert service.queries_in_flight == 0, "a failed embedding is not counted forever"


async def test_a_cancelled_query_embedding_is_not_counted(service: EmbeddingService) -> None:
    call = asyncio.create_task(service.embed_queries(["a"]))
    await until(lambda: service.queries_in_flight == 1, within_s=5, what="the call never counted")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert service.queries_in_flight == 0


async def test_start_queries_returns_at_once_unless_embeddings_are_queued(
    embedder: GatedEmbedder, service: EmbeddingService
) -> None:
    first = await service.start_queries(["a"])
    assert not first.done(), "nothing queued: the caller may work while it embeds"
    second = await service.start_queries(["b"])
    assert not second.done()
    # Two ahead: the third caller waits for its own vectors before it returns.
    third_call = asyncio.create_task(service.start_queries(["c"]))
    await asyncio.sleep(0.05)
    assert not third_call.done()
    embedder.release.set()
    third = await third_call
    assert third.done() and third.result().shape == (1, 4)
    assert (await first).shape == (1, 4) and (await second).shape == (1, 4)


async def test_discard_cancels_or_marks_a_failure_as_seen(
    embedder: GatedEmbedder, service: EmbeddingService
) -> None:
    from quire.server.embeddings import discard

    pending = await service.start_queries(["a"])
    discard(pending)
    await asyncio.wait([pending])
    assert pending.cancelled()
    failing = await service.start_queries(["fail"])
    embedder.release.set()
    await asyncio.wait([failing])
    discard(failing)  # retrieved: no "exception was never retrieved" at collection
    assert isinstance(failing.exception(), RuntimeError)

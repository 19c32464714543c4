"""The server's handle on the embedder: CPU work off the event loop.

Queries and bulk work use separate executors, so a long bulk batch never queues in front of a
user's query. A query runs on its own thread; bulk calls hand their ONNX runs to the embedder's
run pool (one run per core), and BULK_CALLS of them may be in flight, so one call's last run
never leaves a core idle while the next call waits (quire.indexer.embedding).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from quire.indexer.ingest.embed_stage import EmbedStage
from quire.server import telemetry

Vectors = npt.NDArray[np.float32]
# A search may start its transaction while its query is embedded only when fewer than this
# many query embeddings are queued ahead: waiting its turn, it would hold a pooled connection
# idle, and a burst of searches would drain the pool.
OVERLAP_MAX_AHEAD = 2
# Bulk calls in flight at once: the embedding stage's GROUPS_AHEAD.
BULK_CALLS = 2


class TextEmbedder(Protocol):
    @property
    def fingerprint(self) -> str: ...

    def embed(self, texts: list[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


class EmbeddingService:
    def __init__(self, embedder: TextEmbedder) -> None:
        self.embedder = embedder
        self._query_pool = ThreadPoolExecutor(1, thread_name_prefix="embed-query")
        self._bulk_pool = ThreadPoolExecutor(BULK_CALLS, thread_name_prefix="embed-bulk")
        self._queries_in_flight = 0
        # Page syncs and (under `quire up`) the knowledge worker embed their chunks here, in
        # turns (quire.indexer.ingest), rather than each calling embed_bulk on its own.
        self.ingest_stage = EmbedStage(self)

    @property
    def queries_in_flight(self) -> int:
        """Query embeddings submitted and not finished: a new one waits behind these."""
        return self._queries_in_flight

    @property
    def fingerprint(self) -> str:
        return self.embedder.fingerprint

    async def embed_queries(self, texts: list[str]) -> Vectors:
        loop = asyncio.get_running_loop()
        self._queries_in_flight += 1
        try:
            with telemetry.tracer.start_as_current_span(
                "embed.query", attributes={"texts": len(texts)}
            ):
                if len(texts) == 1:  # the unpadded single-text path is the fastest
                    one = await loop.run_in_executor(
                        self._query_pool, self.embedder.embed_query, texts[0]
                    )
                    return one.reshape(1, -1)
                # One by one: a query gets the model's instruction prefix (embed_query), which
                # documents, and so `embed`, never get.
                return await loop.run_in_executor(
                    self._query_pool, _each_query, self.embedder, texts
                )
        finally:
            self._queries_in_flight -= 1

    async def start_queries(self, texts: list[str]) -> asyncio.Future[Vectors]:
        """Starts embedding `texts` as queries. Returns the pending result at once when fewer
        than OVERLAP_MAX_AHEAD embeddings are queued (the caller works meanwhile), else once
        it is ready. Pass it to `discard` if it may end up not awaited."""
        ahead = self._queries_in_flight
        pending = asyncio.ensure_future(self.embed_queries(texts))
        if ahead >= OVERLAP_MAX_AHEAD:
            await asyncio.wait([pending])
        return pending

    async def embed_bulk(self, texts: list[str]) -> Vectors:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._bulk_pool, self.embedder.embed, texts)

    def close(self) -> None:
        self._query_pool.shutdown(wait=False, cancel_futures=True)
        self._bulk_pool.shutdown(wait=False, cancel_futures=True)


def load_default(
    precision: str = "int8", threads: int | None = None, name: str | None = None
) -> EmbeddingService:
    """The prepared model under $QUIRE_HOME (raises a clear error naming `quire model prepare`);
    `threads`: ONNX Runtime intra-op threads (default: every core this process may use);
    `name`: another prepared model than the deployment default."""
    from quire.indexer.embedding import Embedder

    embedder = Embedder.load(name, precision=precision, threads=threads)  # type: ignore[arg-type]
    return EmbeddingService(embedder)


def _each_query(embedder: TextEmbedder, texts: list[str]) -> Vectors:
    return np.stack([embedder.embed_query(text) for text in texts])


def discard(pending: asyncio.Future[Any]) -> None:
    """For a result the caller may not have awaited: cancels it, or marks its failure as
    retrieved so it is not logged as lost."""
    if not pending.done():
        pending.cancel()
    elif not pending.cancelled():
        pending.exception()

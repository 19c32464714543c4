"""The server's handle on the embedder: CPU work off the event loop.

Queries and bulk work use separate single-thread executors: ONNX Runtime already spreads
one run over all cores, so more threads would only oversubscribe them, and a long bulk batch
must not queue in front of a user's query.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np
import numpy.typing as npt

from quire.server import telemetry

Vectors = npt.NDArray[np.float32]


class TextEmbedder(Protocol):
    @property
    def fingerprint(self) -> str: ...

    def embed(self, texts: list[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


class EmbeddingService:
    def __init__(self, embedder: TextEmbedder) -> None:
        self.embedder = embedder
        self._query_pool = ThreadPoolExecutor(1, thread_name_prefix="embed-query")
        self._bulk_pool = ThreadPoolExecutor(1, thread_name_prefix="embed-bulk")
        self._queries_in_flight = 0

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
                return await loop.run_in_executor(self._query_pool, self.embedder.embed, texts)
        finally:
            self._queries_in_flight -= 1

    async def embed_bulk(self, texts: list[str]) -> Vectors:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._bulk_pool, self.embedder.embed, texts)

    def close(self) -> None:
        self._query_pool.shutdown(wait=False, cancel_futures=True)
        self._bulk_pool.shutdown(wait=False, cancel_futures=True)


def load_default(precision: str = "int8") -> EmbeddingService:
    """The prepared model under $QUIRE_HOME (raises a clear error naming `quire model prepare`)."""
    from quire.indexer.embedding import Embedder

    return EmbeddingService(Embedder.load(None, precision=precision))  # type: ignore[arg-type]

"""SearchKnowledge from a checked request to its response: the retrieval mode and limit the
organisation's policy allows, the collections the call reaches, the result cache, LEGACY_FTS
or HYBRID (search.py), the HYBRID_SHADOW comparison and the cache write.

A search's path: the servicer checks the request's own fields (query, mode, filter) and calls
`KnowledgeSearch.answer`; nothing else of the call is decided in the servicer.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from quire.server import models
from quire.server.contract import SCHEMA_VERSION
from quire.server.contract import bounds as contract_bounds
from quire.server.embeddings import discard
from quire.server.failures import above_search_limit
from quire.server.knowledge import cache, filters, reachable, search
from quire.server.knowledge.policy import effective_mode
from quire.server.knowledge.reachable import ReachableCollection
from quire.server.knowledge.shadow import ShadowRunner
from quire.server.state import AppState
from quire.server.storage.database import apply_settings, transaction
from quire.server.validation import bounded, number
from quire.v1 import knowledge_pb2, knowledge_service_pb2


@dataclass(frozen=True)
class SearchCall:
    """A SearchKnowledge request whose own fields are checked (query text, mode, filter); the
    limit is checked here, against the organisation's bound."""

    org_id: uuid.UUID
    query: str
    mode: knowledge_pb2.RetrievalMode.ValueType
    limit: int
    agent_id: str
    collection_ids: list[str]
    where: search.Where
    with_metadata: bool


class KnowledgeSearch:
    """SearchKnowledge's entry point (one per server: it holds the shadow runs in flight)."""

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.shadow = ShadowRunner(state.pool)
        # Benchmarks measure another tuning through the service (knowledge_search.py).
        self.tuning = search.DEFAULT_TUNING

    async def answer(self, call: SearchCall) -> knowledge_service_pb2.SearchKnowledgeResponse:
        limits = contract_bounds.SearchKnowledgeRequest
        org_id, query, where = call.org_id, call.query, call.where
        # Phase 1: policy, reach and cache in a short transaction; LEGACY_FTS (also what
        # HYBRID_SHADOW serves) needs no embedding, so it is answered in the same one.
        hits: list[knowledge_pb2.KnowledgeHit] | None = None
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            mode, bound = await effective_mode(conn, org_id, self.state, call.mode)
            default = min(number(limits.limit.default), bound)
            if call.limit > bound:
                raise above_search_limit(bound, default, number(limits.limit.max))
            limit = bounded("limit", call.limit, number(limits.limit.min), bound, default)
            collections = await reachable.resolve(conn, org_id, call.agent_id, call.collection_ids)
            response = knowledge_service_pb2.SearchKnowledgeResponse(
                schema_version=SCHEMA_VERSION, mode=mode
            )
            if not query.strip() or not collections:
                return response
            index_fp = self.index_fingerprint(collections)
            cache_key = cache.key(
                org_id,
                mode,
                collections,
                query,
                limit,
                index_fp,
                shape=[filters.canonical(where), call.with_metadata],
            )
            mode_name = knowledge_pb2.RetrievalMode.Name(mode)
            hit = await cache.lookup(conn, org_id, cache_key, mode_name)
            if hit is not None:
                hit.cached = True
                return hit
            started = time.perf_counter()
            # Until every collection's index has caught up with its revision, the same key
            # can get another answer a moment later: nothing is cached.
            settled = cache.settled(collections)
            if mode != knowledge_pb2.RETRIEVAL_MODE_HYBRID:
                hits = await search.legacy(
                    conn,
                    org_id,
                    [c.collection_id for c in collections],
                    query,
                    limit,
                    where=where,
                    with_metadata=call.with_metadata,
                )
                may_cache = settled
        if hits is None:
            # The arms that need only the text run while the query is embedded, unless
            # embeddings are queued (start_queries). The search reads the generations resolved
            # above: a flip in between still leaves them readable (retired generations keep
            # their chunks).
            # Once per embedding model of the collections searched.
            names = sorted({c.embedding_model for c in collections})
            services = [self.state.embeddings_for(name) for name in names]
            started_queries = [await service.start_queries([query]) for service in services]
            vectors = {
                name: asyncio.ensure_future(_first(each))
                for name, each in zip(names, started_queries, strict=True)
            }
            try:
                hits, passed = await self._hybrid(
                    org_id,
                    collections,
                    query,
                    vectors,
                    limit,
                    gate_for=index_fp,
                    where=where,
                    with_metadata=call.with_metadata,
                )
                may_cache = passed and settled
            finally:
                for pending_query in (*vectors.values(), *started_queries):
                    # Not awaited when no collection searched has a generation.
                    discard(pending_query)
        elapsed_ms = (time.perf_counter() - started) * 1000
        response.hits.extend(hits)
        if mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID_SHADOW:
            self._shadow(org_id, collections, query, limit, hits, elapsed_ms, where)
        if may_cache:
            async with self.state.pool.acquire() as conn:
                await cache.write(conn, org_id, cache_key, response)
        return response

    def index_fingerprint(self, collections: Sequence[ReachableCollection]) -> str:
        """The serving fingerprint of the models searched (cache keys, gate results): with the
        default model alone, the one it always was."""
        loaded = self.state.models
        names = sorted({c.embedding_model for c in collections}) or [models.DEFAULT_MODEL]
        embedders = "+".join(
            service.fingerprint if (service := loaded.get(name)) else "none" for name in names
        )
        configs = sorted({c.text_config for c in collections if c.serving_generation})
        return search.serving_fingerprint(embedders, self.tuning, configs or ["simple"])

    async def _vectors(
        self, query: str, collections: Sequence[ReachableCollection]
    ) -> dict[str, Any]:
        """The query embedded once under each model of the collections searched."""
        names = sorted({c.embedding_model for c in collections})
        return {
            name: (await self.state.embeddings_for(name).embed_queries([query]))[0]
            for name in names
        }

    async def _hybrid(
        self,
        org_id: uuid.UUID,
        collections: list[ReachableCollection],
        query: str,
        vector: search.QueryVectors,
        limit: int,
        *,
        gate_for: str | None = None,
        where: search.Where = None,
        with_metadata: bool = False,
    ) -> tuple[list[knowledge_pb2.KnowledgeHit], bool]:
        """The hybrid search in its own read-only snapshot; also whether the gate passed for
        `gate_for` (read in the same snapshot), when given."""
        pool = await self.state.read_pool()
        async with transaction(pool, readonly=True, isolation="repeatable_read") as conn:
            await apply_settings(conn, self.tuning.settings())
            hits = await search.hybrid(
                conn,
                org_id,
                collections,
                query,
                vector,
                limit,
                self.tuning,
                where=where,
                with_metadata=with_metadata,
                pool=pool,
            )
            passed = gate_for is not None and await cache.gate_passed(conn, gate_for)
        return hits, passed

    def _shadow(
        self,
        org_id: uuid.UUID,
        collections: list[ReachableCollection],
        query: str,
        limit: int,
        legacy_hits: list[knowledge_pb2.KnowledgeHit],
        legacy_ms: float,
        where: search.Where,
    ) -> None:
        async def run_hybrid() -> tuple[list[str], float]:
            started = time.perf_counter()
            vectors = await self._vectors(query, collections)
            hits, _ = await self._hybrid(org_id, collections, query, vectors, limit, where=where)
            return [h.document_id for h in hits], (time.perf_counter() - started) * 1000

        self.shadow.submit(
            org_id, [h.document_id for h in legacy_hits], legacy_ms, limit, run_hybrid
        )


async def _first(vectors: Awaitable[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
    first: npt.NDArray[np.float32] = (await vectors)[0]
    return first

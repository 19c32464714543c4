"""SearchKnowledge's retrieval modes.

LEGACY_FTS is the document-level baseline (design §4). HYBRID works at chunk level on each
collection's serving generation: a full-text arm, a vector arm and a file-name arm, plus the
legacy arm for collections that have no ready generation yet, fused at document level with
RRF; each hit carries its document's best chunk.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Awaitable, Sequence
from dataclasses import asdict, dataclass

import asyncpg
import numpy as np
import numpy.typing as npt

from quire.indexer import fingerprint
from quire.server import telemetry
from quire.server.engine.fusion import rrf
from quire.server.engine.lexical import or_query
from quire.server.knowledge import bm25
from quire.server.knowledge.scope import ScopedCollection
from quire.server.services.base import SCHEMA_VERSION
from quire.server.storage.database import apply_settings
from quire.v1 import knowledge_pb2

HEADLINE_CHARS = 100_000

LEGACY = f"""
WITH q AS (SELECT {or_query("$3")} AS q),
hits AS (
    SELECT d.document_id, d.collection_id, d.file_name, d.extracted_text,
           ts_rank(d.text_tsv, q.q) AS rank,
           strpos(lower(d.file_name), lower($4)) > 0 AS name_match
    FROM documents d, q
    WHERE d.org_id = $1 AND d.collection_id = ANY($2::uuid[]) AND d.deleted_at IS NULL
      AND (d.text_tsv @@ q.q OR strpos(lower(d.file_name), lower($4)) > 0)
    ORDER BY name_match DESC, rank DESC, d.document_id
    LIMIT $5
)
SELECT h.document_id, h.collection_id, h.file_name, h.rank, h.name_match,
       ts_headline('simple', left(h.extracted_text, {HEADLINE_CHARS}), q.q,
                   'MaxWords=32, MinWords=12, MaxFragments=1') AS snippet
FROM hits h, q
ORDER BY h.name_match DESC, h.rank DESC, h.document_id
"""

CHUNK_FTS = f"""
WITH q AS (SELECT {or_query("$4")} AS q)
SELECT c.document_id, c.chunk_ordinal
FROM knowledge_chunks c
JOIN unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
  ON c.collection_id = s.collection_id AND c.generation = s.generation, q
WHERE c.org_id = $1 AND c.tsv @@ q.q
ORDER BY ts_rank_cd(c.tsv, q.q, $6) DESC, c.document_id, c.chunk_ordinal
LIMIT $5
"""
CHUNK_VECTOR = """
WITH v AS MATERIALIZED (
    SELECT c.document_id, c.chunk_ordinal, c.embedding <=> $4 AS distance
    FROM knowledge_chunks c
    WHERE c.org_id = $1 AND c.collection_id = ANY($2::uuid[]) AND c.generation = ANY($3::bigint[])
    ORDER BY c.embedding <=> $4
    LIMIT $5
)
SELECT v.document_id, v.chunk_ordinal FROM v
JOIN knowledge_chunks c ON c.org_id = $1 AND c.document_id = v.document_id
 AND c.chunk_ordinal = v.chunk_ordinal
JOIN unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
  ON c.collection_id = s.collection_id AND c.generation = s.generation
ORDER BY v.distance
"""
# Trigram similarity costs microseconds per row (it re-derives the query's trigrams each time)
# and the planner prices it as free, so it is only computed for names long enough to reach the
# threshold: a name of n characters has at most 2n trigrams (each word of k characters gives
# k + 1), and similarity is at most the smaller trigram count over the larger. The same
# results; for sentence-long queries almost no name qualifies (6.9 → under 1 ms on 1,000).
FILE_NAME = """
WITH q AS (
    SELECT lower($3) AS text, coalesce(cardinality(show_trgm(lower($3))), 0) AS grams,
           show_limit() AS threshold
)
SELECT d.document_id FROM documents d, q
WHERE d.org_id = $1 AND d.collection_id = ANY($2::uuid[]) AND d.deleted_at IS NULL
  AND ((2 * char_length(lower(d.file_name)) >= q.threshold * q.grams
        AND lower(d.file_name) % q.text)
       OR strpos(lower(d.file_name), q.text) > 0)
ORDER BY strpos(lower(d.file_name), q.text) > 0 DESC,
         similarity(lower(d.file_name), q.text) DESC, d.document_id
LIMIT $4
"""
DOCUMENTS = """
SELECT d.document_id, d.collection_id, d.file_name FROM documents d
WHERE d.org_id = $1 AND d.document_id = ANY($2::uuid[])
"""
CHUNKS = """
SELECT c.document_id, c.chunk_ordinal, c.chunk_id, c.content, c.heading_path, c.generation
FROM unnest($2::uuid[], $3::int[]) AS k(document_id, ordinal)
JOIN knowledge_chunks c ON c.org_id = $1 AND c.document_id = k.document_id
 AND c.chunk_ordinal = k.ordinal
JOIN unnest($4::uuid[], $5::bigint[]) AS s(collection_id, generation)
  ON c.collection_id = s.collection_id AND c.generation = s.generation
"""


@dataclass(frozen=True)
class HybridTuning:
    """Candidate depth per arm, RRF k, per-arm weights and the ts_rank_cd normalisation.

    Defaults are chosen on SciFact train (docs/retrieval-quality.md)."""

    depth: int = 100
    rrf_k: int = 5
    fts_weight: float = 1.0
    vector_weight: float = 1.0
    file_name_weight: float = 0.5
    legacy_weight: float = 1.0
    # "bm25" (when the generation has statistics) or "ts_rank_cd".
    lexical: str = "bm25"
    rank_normalization: int = 1
    bm25_k1: float = 1.2
    bm25_b: float = 0.5
    max_df_ratio: float = 0.25
    # Index scans only: custom plans and enable_seqscan off for the transaction, bitmap scans
    # off for the vector statement. Each BM25 branch takes its lexeme from a parameter, and
    # right after a bulk ingestion the table statistics lag: the planner then read every
    # chunk per lexeme (BM25 arm 21.7 ms against 7.7 on 3,056 SciFact chunks). On small
    # collections an exact sort over a primary-key scan looks cheaper than HNSW (5.8 ms
    # against 1.4). Part of the serving fingerprint: HNSW is approximate (98.6 % of the
    # exact top 100 on SciFact claims), so a gate result must be for the plan that serves.
    index_scans: bool = True

    def settings(self) -> dict[str, str]:
        out = {
            "hnsw.ef_search": str(max(self.depth, 40)),
            "hnsw.iterative_scan": "relaxed_order",
            # Parallel workers cost more to start than these statements take (the BM25 arm
            # was planned with two: 7.7 ms against 3 ms without), and they steal cores from
            # concurrent searches.
            "max_parallel_workers_per_gather": "0",
        }
        if self.index_scans:
            out |= {"plan_cache_mode": "force_custom_plan", "enable_seqscan": "off"}
        return out


DEFAULT_TUNING = HybridTuning()


def serving_fingerprint(embedder_fingerprint: str, tuning: HybridTuning = DEFAULT_TUNING) -> str:
    """What a gate result and cache entries are valid for: the index (model, chunking,
    normalisation) plus the hybrid tuning that turns it into rankings."""
    material = json.dumps(
        [fingerprint.collection_fingerprint(embedder_fingerprint, "1"), asdict(tuning)],
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]


async def legacy(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_ids: Sequence[uuid.UUID],
    query: str,
    limit: int,
) -> list[knowledge_pb2.KnowledgeHit]:
    with telemetry.tracer.start_as_current_span("search.legacy_fts"):
        rows = await conn.fetch(LEGACY, org_id, list(collection_ids), query, query.strip(), limit)
    return [
        knowledge_pb2.KnowledgeHit(
            schema_version=SCHEMA_VERSION,
            document_id=str(r["document_id"]),
            collection_id=str(r["collection_id"]),
            file_name=r["file_name"],
            score=float(r["rank"]) + (1.0 if r["name_match"] else 0.0),
            snippet=r["snippet"],
            rank=i,
        )
        for i, r in enumerate(rows, start=1)
    ]


def _documents_in_order(rows: Sequence[asyncpg.Record]) -> list[uuid.UUID]:
    """Documents ranked by their best chunk (chunk rows arrive best first)."""
    return list(dict.fromkeys(r["document_id"] for r in rows))


@dataclass
class Arms:
    """Each arm's candidates, best first (chunk keys are (document id, chunk ordinal))."""

    fts: list[tuple[uuid.UUID, int]]
    vector: list[tuple[uuid.UUID, int]]
    file_name: list[uuid.UUID]
    legacy: dict[uuid.UUID, knowledge_pb2.KnowledgeHit]  # collections without a generation


async def gather_arms(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    scope: Sequence[ScopedCollection],
    query: str,
    vector: npt.NDArray[np.float32] | Awaitable[npt.NDArray[np.float32]],
    tuning: HybridTuning = DEFAULT_TUNING,
) -> Arms:
    """Runs every arm; needs the caller's transaction to hold `tuning.settings()`. `vector`
    may still be computing: the arms that need only the text run first."""
    indexed = [c for c in scope if c.serving_generation > 0]
    unindexed = [c.collection_id for c in scope if c.serving_generation == 0]
    ids = [c.collection_id for c in indexed]
    gens = [c.serving_generation for c in indexed]
    arms = Arms([], [], [], {})
    if indexed:
        with telemetry.tracer.start_as_current_span("search.fts"):
            use_bm25 = tuning.lexical == "bm25" and await conn.fetchval(
                bm25.HAS_STATS, org_id, ids, gens
            ) == len(ids)
            if use_bm25:
                fts_rows = await bm25.rank_chunks(
                    conn,
                    org_id,
                    ids,
                    gens,
                    query,
                    tuning.depth,
                    k1=tuning.bm25_k1,
                    b=tuning.bm25_b,
                    max_df_ratio=tuning.max_df_ratio,
                )
            else:
                fts_rows = await conn.fetch(
                    CHUNK_FTS, org_id, ids, gens, query, tuning.depth, tuning.rank_normalization
                )
        arms.fts = [(r["document_id"], r["chunk_ordinal"]) for r in fts_rows]
    with telemetry.tracer.start_as_current_span("search.file_name"):
        name_rows = await conn.fetch(
            FILE_NAME, org_id, [c.collection_id for c in scope], query.strip(), tuning.depth
        )
    arms.file_name = [r["document_id"] for r in name_rows]
    if unindexed:
        for hit in await legacy(conn, org_id, unindexed, query, tuning.depth):
            arms.legacy[uuid.UUID(hit.document_id)] = hit
    if indexed:
        ready = vector if isinstance(vector, np.ndarray) else await vector
        with telemetry.tracer.start_as_current_span("search.vector"):
            if tuning.index_scans:
                # Costed as cheaper on small collections, a bitmap scan of the primary key plus
                # an exact sort reads every chunk's vector (5.8 ms on 3,056 chunks, HNSW 1.4).
                await apply_settings(conn, {"enable_bitmapscan": "off"})
            vec_rows = await conn.fetch(CHUNK_VECTOR, org_id, ids, gens, ready, tuning.depth)
            if tuning.index_scans:
                await apply_settings(conn, {"enable_bitmapscan": "on"})
        arms.vector = [(r["document_id"], r["chunk_ordinal"]) for r in vec_rows]
    return arms


def fuse(
    arms: Arms, tuning: HybridTuning, limit: int
) -> tuple[list[tuple[uuid.UUID, float]], dict[uuid.UUID, int]]:
    """Document-level RRF over the arms; also each document's best chunk (the one the chunk
    arms, fused at chunk level, rank highest)."""
    with telemetry.tracer.start_as_current_span("search.fusion"):
        rankings = [
            list(dict.fromkeys(d for d, _ in arms.fts)),
            list(dict.fromkeys(d for d, _ in arms.vector)),
            arms.file_name,
            list(arms.legacy),
        ]
        weights = [
            tuning.fts_weight,
            tuning.vector_weight,
            tuning.file_name_weight,
            tuning.legacy_weight,
        ]
        fused = rrf(rankings, k=tuning.rrf_k, weights=weights)[:limit]
        best_chunk: dict[uuid.UUID, int] = {}
        for (doc, ordinal), _ in rrf(
            [arms.fts, arms.vector],
            k=tuning.rrf_k,
            weights=[tuning.fts_weight, tuning.vector_weight],
        ):
            best_chunk.setdefault(doc, ordinal)
    return fused, best_chunk


async def hybrid(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    scope: Sequence[ScopedCollection],
    query: str,
    vector: npt.NDArray[np.float32] | Awaitable[npt.NDArray[np.float32]],
    limit: int,
    tuning: HybridTuning = DEFAULT_TUNING,
) -> list[knowledge_pb2.KnowledgeHit]:
    """Needs the caller's transaction to hold the tuning settings (see HybridTuning.settings).
    `vector` may still be computing (see gather_arms)."""
    arms = await gather_arms(conn, org_id, scope, query, vector, tuning)
    fused, best_chunk = fuse(arms, tuning, limit)
    if not fused:
        return []
    indexed = [c for c in scope if c.serving_generation > 0]
    ids = [c.collection_id for c in indexed]
    gens = [c.serving_generation for c in indexed]
    chosen = [doc for doc, _ in fused]
    docs = {r["document_id"]: r for r in await conn.fetch(DOCUMENTS, org_id, chosen)}
    with_chunks = [d for d in chosen if d in best_chunk]
    chunk_rows = await conn.fetch(
        CHUNKS, org_id, with_chunks, [best_chunk[d] for d in with_chunks], ids, gens
    )
    chunks = {r["document_id"]: r for r in chunk_rows}
    hits = []
    for rank, (doc, score) in enumerate(fused, start=1):
        meta = docs.get(doc)
        if meta is None:
            continue
        hit = knowledge_pb2.KnowledgeHit(
            schema_version=SCHEMA_VERSION,
            document_id=str(doc),
            collection_id=str(meta["collection_id"]),
            file_name=meta["file_name"],
            score=score,
            rank=rank,
        )
        chunk = chunks.get(doc)
        if chunk is not None:
            hit.chunk_id = chunk["chunk_id"]
            hit.chunk_ordinal = chunk["chunk_ordinal"]
            hit.heading_path.extend(chunk["heading_path"])
            hit.index_generation = chunk["generation"]
            hit.snippet = chunk["content"]
        elif doc in arms.legacy:
            hit.snippet = arms.legacy[doc].snippet
        hits.append(hit)
    return hits


async def vector_only(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    scope: Sequence[ScopedCollection],
    vector: npt.NDArray[np.float32],
    limit: int,
    tuning: HybridTuning = DEFAULT_TUNING,
) -> list[uuid.UUID]:
    """Document ids by their best chunk's distance (diagnosis for the quality harness)."""
    indexed = [c for c in scope if c.serving_generation > 0]
    rows = await conn.fetch(
        CHUNK_VECTOR,
        org_id,
        [c.collection_id for c in indexed],
        [c.serving_generation for c in indexed],
        vector,
        max(limit * 3, tuning.depth),
    )
    return _documents_in_order(rows)[:limit]

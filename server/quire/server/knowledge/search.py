"""SearchKnowledge's retrieval modes.

LEGACY_FTS is the document-level baseline (design §4). HYBRID works at chunk level on each
collection's serving generation: a full-text arm (BM25), a vector arm and a file-name arm, plus
the legacy arm for collections that have no ready generation yet, fused at document level by a
convex combination of normalised scores (or RRF, `KnowledgeTuning.fusion`); each hit carries
its document's best chunk. READY documents the serving generation does not hold yet join the
full-text arm at document level (knowledge/pending.py), and every hit says whether its
document is indexed (`HitIndexState`).

Determinism (docs/retrieval-quality.md, "Determinism"): the same data and query give the same
ranking whatever else the database holds. The vector arm is an exact scan of the searched
collections' chunks up to `KnowledgeTuning.exact_vector_max_chunks` (HNSW's graph depends on
every row ever inserted, other organisations' included); every ORDER BY ends with
(document_id, chunk_ordinal); BM25 sums are exact (numeric) so their order of addition cannot
matter.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import uuid
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import asyncpg
import numpy as np
import numpy.typing as npt
from google.protobuf import struct_pb2

from quire.indexer import fingerprint
from quire.server import telemetry
from quire.server.contract import SCHEMA_VERSION
from quire.server.knowledge import bm25, filters, pending
from quire.server.knowledge.reachable import ReachableCollection
from quire.server.retrieval.fusion import normalise
from quire.server.retrieval.lexical import headline, or_query
from quire.server.retrieval.tuning import HybridTuning
from quire.server.storage import snapshots
from quire.server.storage.database import apply_settings
from quire.v1 import knowledge_pb2

QueryVector = npt.NDArray[np.float32] | Awaitable[npt.NDArray[np.float32]]
# A query's vector under each embedding model of the searched collections, by model name.
QueryVectors = QueryVector | Mapping[str, QueryVector]

LEGACY = f"""
WITH q AS (SELECT {or_query("$3")} AS q),
hits AS (
    SELECT d.document_id, d.collection_id, d.file_name, d.extracted_text, d.external_key,
           d.metadata, ts_rank(d.text_tsv, q.q) AS rank,
           strpos(lower(d.file_name), lower($4)) > 0 AS name_match
    FROM documents d, q
    WHERE d.org_id = $1 AND d.collection_id = ANY($2::uuid[]) AND d.deleted_at IS NULL
      AND (d.text_tsv @@ q.q OR strpos(lower(d.file_name), lower($4)) > 0) /*filter*/
    ORDER BY name_match DESC, rank DESC, d.document_id
    LIMIT $5
)
SELECT h.document_id, h.collection_id, h.file_name, h.rank, h.name_match, h.external_key,
       h.metadata, {headline("h.extracted_text", "q.q")} AS snippet
FROM hits h, q
ORDER BY h.name_match DESC, h.rank DESC, h.document_id
"""

# The query analysed as each generation's chunks were (index_generations.text_config).
CHUNK_FTS = f"""
WITH s AS (
    SELECT s.collection_id, s.generation, {or_query("$4", "ig.text_config::regconfig")} AS q
    FROM unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
    JOIN index_generations ig ON ig.org_id = $1 AND ig.collection_id = s.collection_id
                             AND ig.generation = s.generation
)
SELECT c.document_id, c.chunk_ordinal, ts_rank_cd(c.tsv, s.q, $6) AS score
FROM knowledge_chunks c
JOIN s ON c.collection_id = s.collection_id AND c.generation = s.generation
WHERE c.org_id = $1 AND c.tsv @@ s.q /*chunk_filter*/
ORDER BY score DESC, c.document_id, c.chunk_ordinal
LIMIT $5
"""
# The exact vector arm: every searched chunk's distance, through the primary key's
# (org_id, collection_id, generation) prefix. `cosine_distance()` is the function behind the
# `<=>` operator (the same value), but the HNSW index serves only the operator, so the planner
# cannot swap in the approximate scan. Vectors stay in the heap row (migration 0005), so the
# scan reads no TOAST.
# The `= ANY` conditions bound the primary-key scan to the searched collections (joined on the
# unnest alone, the planner scanned the organisation's every chunk); the join keeps exact
# (collection, generation) pairs.
CHUNK_VECTOR_EXACT = """
SELECT c.document_id, c.chunk_ordinal, cosine_distance(c.embedding, $4) AS distance
FROM knowledge_chunks c
JOIN unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
  ON c.collection_id = s.collection_id AND c.generation = s.generation
WHERE c.org_id = $1 AND c.collection_id = ANY($2::uuid[]) AND c.generation = ANY($3::bigint[])
ORDER BY distance, c.document_id, c.chunk_ordinal
LIMIT $5
"""
# The exact vector arm under a metadata filter: driven from the matching documents (the
# metadata index finds them), then their chunks by primary key, so a selective filter reads
# only its own chunks.
CHUNK_VECTOR_EXACT_FILTERED = """
SELECT c.document_id, c.chunk_ordinal, cosine_distance(c.embedding, $4) AS distance
FROM documents d
JOIN unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
  ON d.collection_id = s.collection_id
JOIN knowledge_chunks c ON c.org_id = $1 AND c.collection_id = d.collection_id
 AND c.generation = s.generation AND c.document_id = d.document_id
WHERE d.org_id = $1 AND d.collection_id = ANY($2::uuid[]) AND d.deleted_at IS NULL /*filter*/
ORDER BY distance, c.document_id, c.chunk_ordinal
LIMIT $5
"""
# How many chunks a filter leaves, counted up to $4: above the exact scan's bound the filtered
# vector arm uses HNSW.
FILTERED_CHUNKS = """
SELECT count(*) FROM (
    SELECT 1 FROM documents d
    JOIN unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
      ON d.collection_id = s.collection_id
    JOIN knowledge_chunks c ON c.org_id = $1 AND c.collection_id = d.collection_id
     AND c.generation = s.generation AND c.document_id = d.document_id
    WHERE d.org_id = $1 AND d.collection_id = ANY($2::uuid[]) AND d.deleted_at IS NULL /*filter*/
    LIMIT $4
) n
"""
# HNSW with iterative scans, for searches above the exact scan's bound: approximate, and its
# answer depends on the graph (every row inserted into the shared index).
CHUNK_VECTOR = """
WITH v AS MATERIALIZED (
    SELECT c.document_id, c.chunk_ordinal, c.embedding <=> $4 AS distance
    FROM knowledge_chunks c
    WHERE c.org_id = $1 AND c.collection_id = ANY($2::uuid[]) AND c.generation = ANY($3::bigint[])
      /*chunk_filter*/
    ORDER BY c.embedding <=> $4
    LIMIT $5
)
SELECT v.document_id, v.chunk_ordinal, v.distance FROM v
JOIN knowledge_chunks c ON c.org_id = $1 AND c.document_id = v.document_id
 AND c.chunk_ordinal = v.chunk_ordinal
JOIN unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
  ON c.collection_id = s.collection_id AND c.generation = s.generation
ORDER BY v.distance, v.document_id, v.chunk_ordinal
"""
# Trigram similarity costs microseconds per row (it re-derives the query's trigrams each time)
# and the planner prices it as free, so it is only computed for names long enough to reach the
# threshold: a name of n characters has at most 2n trigrams (each word of k characters gives
# k + 1), and similarity is at most the smaller trigram count over the larger. The same
# results; for sentence-long queries almost no name qualifies (6.9 → under 1 ms on 1,000).
# Score: 1 when the whole query is in the name, else the similarity.
FILE_NAME = """
WITH q AS (
    SELECT lower($3) AS text, coalesce(cardinality(show_trgm(lower($3))), 0) AS grams,
           show_limit() AS threshold
),
m AS (
    SELECT d.document_id, strpos(lower(d.file_name), q.text) > 0 AS contains,
           similarity(lower(d.file_name), q.text) AS similarity
    FROM documents d, q
    WHERE d.org_id = $1 AND d.collection_id = ANY($2::uuid[]) AND d.deleted_at IS NULL
      AND ((2 * char_length(lower(d.file_name)) >= q.threshold * q.grams
            AND lower(d.file_name) % q.text)
           OR strpos(lower(d.file_name), q.text) > 0) /*filter*/
)
SELECT m.document_id, CASE WHEN m.contains THEN 1.0 ELSE m.similarity END::float8 AS score
FROM m
ORDER BY m.contains DESC, m.similarity DESC, m.document_id
LIMIT $4
"""
DOCUMENTS = """
SELECT d.document_id, d.collection_id, d.file_name, d.status, d.external_key, d.metadata
FROM documents d
WHERE d.org_id = $1 AND d.document_id = ANY($2::uuid[])
"""
# Statuses of a document whose latest upload is not extracted yet: whatever the index holds
# for it is older.
_EXTRACTING = (knowledge_pb2.DOCUMENT_STATUS_PENDING, knowledge_pb2.DOCUMENT_STATUS_PROCESSING)
CHUNKS = """
SELECT c.document_id, c.chunk_ordinal, c.chunk_id, c.content, c.heading_path, c.generation
FROM unnest($2::uuid[], $3::int[]) AS k(document_id, ordinal)
JOIN knowledge_chunks c ON c.org_id = $1 AND c.document_id = k.document_id
 AND c.chunk_ordinal = k.ordinal
JOIN unnest($4::uuid[], $5::bigint[]) AS s(collection_id, generation)
  ON c.collection_id = s.collection_id AND c.generation = s.generation
"""


Where = knowledge_pb2.MetadataFilter | None


def filtered(sql: str, where: Where, first_param: int) -> tuple[str, tuple[object, ...]]:
    """`sql` with its filter markers filled for `where` (None: unchanged), and the filter's
    parameters, numbered from `first_param`. `/*filter*/` sits in a WHERE over documents `d`;
    `/*chunk_filter*/` in one over chunks `c` whose query has the organisation in $1 and the
    searched collection ids in $2."""
    condition = filters.compile_filter(where, first_param=first_param)
    if not condition.active:
        return sql, ()
    in_documents = (
        "AND c.document_id IN (SELECT d.document_id FROM documents d WHERE d.org_id = $1 "
        "AND d.collection_id = ANY($2::uuid[]) AND d.deleted_at IS NULL "
        f"AND {condition.sql})"
    )
    sql = sql.replace("/*filter*/", f"AND {condition.sql}")
    return sql.replace("/*chunk_filter*/", in_documents), condition.args


def metadata_struct(raw: str | None) -> struct_pb2.Struct:
    """A documents.metadata value (jsonb, read as text) as a Struct."""
    out = struct_pb2.Struct()
    if raw:
        out.update(json.loads(raw))
    return out


@dataclass(frozen=True, kw_only=True)
class KnowledgeTuning(HybridTuning):
    """How HYBRID turns an index into a ranking: knowledge's values of the hybrid knobs
    (retrieval/tuning.py says what each means) and the knobs only knowledge has. Part of the
    serving fingerprint (gate results and cache entries are valid for one tuning). Defaults
    are chosen on the DEV half of SciFact train and checked on the held-out half
    (docs/retrieval-quality.md).

    Fusion is per document: its best chunk's score in each chunk arm. The lexical, file-name
    and legacy arms are the sparse ones (`pad_sparse_arms`)."""

    depth: int = 200
    fusion: str = "convex"
    normalisation: str = "zscore"
    pad_sparse_arms: bool = True
    fts_weight: float = 0.45
    vector_weight: float = 0.55
    file_name_weight: float = 0.25
    # A collection without a ready generation is answered by the legacy arm alone: it stands
    # in for both chunk arms.
    legacy_weight: float = 1.0
    # An int literal: the fingerprint hashes the JSON of this value (5, not 5.0).
    rrf_k: float = 5
    # "bm25" (when the generation has statistics) or "ts_rank_cd".
    lexical: str = "bm25"
    rank_normalization: int = 1
    k1: float = 1.2
    b: float = 0.5
    max_df_ratio: float = 0.25
    # Counted over the serving generations of the searched collections together (by their
    # term statistics); HNSW with iterative scans above it. 0: always HNSW. Where the line
    # is: benchmarks/vector_exact.py.
    exact_vector_max_chunks: int = 20_000
    # Index scans only: custom plans and enable_seqscan off for the transaction, bitmap scans
    # off for the HNSW statement. Each BM25 branch takes its lexeme from a parameter, and
    # right after a bulk ingestion the table statistics lag: the planner then read every
    # chunk per lexeme (BM25 arm 21.7 ms against 7.7 on 3,056 SciFact chunks).
    index_scans: bool = True

    def settings(self) -> dict[str, str]:
        out = {
            "hnsw.ef_search": str(max(self.depth, 40)),
            "hnsw.iterative_scan": "relaxed_order",
            # Parallel workers cost more to start than these statements take (the BM25 arm
            # was planned with two: 7.7 ms against 3 ms without), and they steal cores from
            # concurrent searches.
            "max_parallel_workers_per_gather": "0",
            # An exact scan of many chunks is costed above jit_above_cost; compiling it takes
            # longer than running it.
            "jit": "off",
        }
        if self.index_scans:
            out |= {"plan_cache_mode": "force_custom_plan", "enable_seqscan": "off"}
        return out


DEFAULT_TUNING = KnowledgeTuning()
# What served before the convex fusion and the exact vector arm: the baseline cell of
# benchmarks/knowledge_search.py and a row of benchmarks/quality.py.
PREVIOUS_TUNING = KnowledgeTuning(
    depth=100,
    fusion="rrf",
    fts_weight=1.0,
    vector_weight=1.0,
    file_name_weight=0.5,
    exact_vector_max_chunks=0,
)


# The tuning's fields under the names they had when gate results were first recorded: a
# rename must not make every recorded gate result and cache entry unreachable.
_FINGERPRINT_NAMES = {"k1": "bm25_k1", "b": "bm25_b"}


def serving_fingerprint(
    embedder_fingerprint: str,
    tuning: KnowledgeTuning = DEFAULT_TUNING,
    text_configs: Sequence[str] = ("",),
) -> str:
    """What a gate result and cache entries are valid for: the index (model, chunking,
    normalisation, the text analyses of the generations searched: by default, that of new
    generations, fingerprint.KNOWLEDGE_TEXT_CONFIG) plus the hybrid tuning that
    turns it into rankings. With 'simple' generations alone, the value it had before text
    analyses existed, so their recorded gate results still hold."""
    knobs = {_FINGERPRINT_NAMES.get(name, name): value for name, value in asdict(tuning).items()}
    indexes = [
        fingerprint.collection_fingerprint(embedder_fingerprint, "1", config)
        for config in text_configs
    ]
    material = json.dumps(
        [indexes[0] if len(indexes) == 1 else "+".join(indexes), knobs],
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]


async def legacy(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_ids: Sequence[uuid.UUID],
    query: str,
    limit: int,
    *,
    where: Where = None,
    with_metadata: bool = False,
) -> list[knowledge_pb2.KnowledgeHit]:
    sql, extra = filtered(LEGACY, where, 6)
    with telemetry.tracer.start_as_current_span("search.legacy_fts"):
        rows = await conn.fetch(
            sql, org_id, list(collection_ids), query, query.strip(), limit, *extra
        )
    return [
        knowledge_pb2.KnowledgeHit(
            schema_version=SCHEMA_VERSION,
            document_id=str(r["document_id"]),
            collection_id=str(r["collection_id"]),
            file_name=r["file_name"],
            score=float(r["rank"]) + (1.0 if r["name_match"] else 0.0),
            snippet=r["snippet"],
            rank=i,
            external_key=r["external_key"] or "",
            metadata=metadata_struct(r["metadata"]) if with_metadata else None,
        )
        for i, r in enumerate(rows, start=1)
    ]


ChunkKey = tuple[uuid.UUID, int]
# The most tuples one filtered iterative HNSW scan visits (pgvector's default is 20,000): a
# filter the exact scan does not serve keeps over exact_vector_max_chunks chunks, so the
# depth's candidates are found within about depth / (that share of the searched chunks) tuples.
FILTERED_SCAN_TUPLES = 200_000


@dataclass
class Arms:
    """Each arm's candidates with their scores, best first. Chunk keys are (document id,
    chunk ordinal); chunk-arm scores are BM25 (or ts_rank_cd) and cosine similarity."""

    fts: list[tuple[ChunkKey, float]] = field(default_factory=list)
    vector: list[tuple[ChunkKey, float]] = field(default_factory=list)
    file_name: list[tuple[uuid.UUID, float]] = field(default_factory=list)
    legacy: dict[uuid.UUID, knowledge_pb2.KnowledgeHit] = field(default_factory=dict)
    # READY documents of indexed collections whose current text the serving generation does
    # not hold (their chunks, if any, are left out of the chunk arms), and those of them
    # matching the query with their document-level BM25 score (knowledge/pending.py).
    pending_ids: frozenset[uuid.UUID] = frozenset()
    pending: list[tuple[uuid.UUID, float]] = field(default_factory=list)
    # Whether the vector arm scanned exactly (False: HNSW, or no indexed collection).
    exact_vector: bool = False


async def gather_arms(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collections: Sequence[ReachableCollection],
    query: str,
    vector: QueryVectors,
    tuning: KnowledgeTuning = DEFAULT_TUNING,
    *,
    where: Where = None,
    pool: asyncpg.Pool | None = None,
) -> Arms:
    """Runs every arm; needs the caller's transaction to hold `tuning.settings()`. `vector`
    may still be computing: the arms that need only the text run first. `where` narrows every
    arm to the documents whose metadata matches, inside its SQL (so each still fills its
    depth). With `pool` (the one `conn` came from), an exact vector scan runs beside the
    other arms on a second connection importing the transaction's snapshot: it costs about
    as much as the full-text arm, so the search then takes the longer of the two instead of
    their sum (an HNSW lookup is cheaper than the extra connection's statements). When the
    pool has no connection to spare (storage/snapshots.beside), the scan runs after the other
    arms on `conn`.

    Collections of several embedding models: `vector` maps each model to the query's vector
    under it, and the vector arm runs once per model over that model's collections (each on
    `conn`), its candidates merged by similarity."""
    if isinstance(vector, Mapping):
        if len(vector) > 1:
            return await _gather_arms_per_model(
                conn, org_id, collections, query, vector, tuning, where
            )
        vector = next(iter(vector.values()))
    indexed = [c for c in collections if c.serving_generation > 0]
    ids = [c.collection_id for c in indexed]
    gens = [c.serving_generation for c in indexed]
    arms = Arms()
    chunks: int | None = None
    side: asyncio.Task[list[asyncpg.Record]] | None = None
    if indexed:
        stats = await conn.fetchrow(bm25.STATS, org_id, ids, gens)
        if stats["generations"] == len(ids):
            chunks = stats["chunks"]
        if (
            pool is not None
            and where is None
            and chunks is not None
            and chunks <= tuning.exact_vector_max_chunks
        ):
            snapshot = await conn.fetchval(snapshots.EXPORT)

            async def exact_scan(other: asyncpg.Connection) -> list[asyncpg.Record]:
                # Shielded: cancelling this scan must not cancel the query's embedding.
                ready = vector if isinstance(vector, np.ndarray) else await asyncio.shield(vector)
                with telemetry.tracer.start_as_current_span(
                    "search.vector", attributes={"quire.exact": True}
                ):
                    return await vector_rows(
                        other, org_id, ids, gens, ready, tuning.depth, tuning, exact=True
                    )

            side = asyncio.create_task(
                snapshots.beside(pool, snapshot, tuning.settings(), exact_scan)
            )
    try:
        await _text_arms(conn, org_id, collections, query, arms, tuning, chunks, where)
        if indexed:
            vec_rows = None
            if side is not None:
                with contextlib.suppress(snapshots.NoSecondConnection):
                    vec_rows = await side
                    arms.exact_vector = True
            if vec_rows is None:  # one connection: the arms in turn
                vec_rows = await _vector_arm(
                    conn, org_id, ids, gens, vector, arms, tuning, chunks, where
                )
            arms.vector = [
                ((r["document_id"], r["chunk_ordinal"]), 1.0 - float(r["distance"]))
                for r in vec_rows
                if r["document_id"] not in arms.pending_ids
            ]
    except BaseException:
        if side is not None:
            side.cancel()
        raise
    return arms


async def _gather_arms_per_model(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collections: Sequence[ReachableCollection],
    query: str,
    vectors: Mapping[str, QueryVector],
    tuning: KnowledgeTuning,
    where: Where,
) -> Arms:
    indexed = [c for c in collections if c.serving_generation > 0]
    arms = Arms()
    chunks: int | None = None
    if indexed:
        ids = [c.collection_id for c in indexed]
        stats = await conn.fetchrow(
            bm25.STATS, org_id, ids, [c.serving_generation for c in indexed]
        )
        if stats["generations"] == len(ids):
            chunks = stats["chunks"]  # every model's share is at most this: exact stays exact
    await _text_arms(conn, org_id, collections, query, arms, tuning, chunks, where)
    rows: list[asyncpg.Record] = []
    exact = True
    for model, vector in vectors.items():
        group = [c for c in indexed if c.embedding_model == model]
        if group:
            rows += await _vector_arm(
                conn,
                org_id,
                [c.collection_id for c in group],
                [c.serving_generation for c in group],
                vector,
                arms,
                tuning,
                chunks,
                where,
            )
            exact = exact and arms.exact_vector
    arms.exact_vector = exact
    rows.sort(key=lambda r: float(r["distance"]))
    arms.vector = [
        ((r["document_id"], r["chunk_ordinal"]), 1.0 - float(r["distance"]))
        for r in rows[: tuning.depth]
        if r["document_id"] not in arms.pending_ids
    ]
    return arms


async def _text_arms(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collections: Sequence[ReachableCollection],
    query: str,
    arms: Arms,
    tuning: KnowledgeTuning,
    chunks: int | None,
    where: Where,
) -> None:
    """The arms that need only the query's text: full-text (BM25 when `chunks`, the searched
    generations' chunk count, is known), pending documents, file names, legacy."""
    indexed = [c for c in collections if c.serving_generation > 0]
    unindexed = [c.collection_id for c in collections if c.serving_generation == 0]
    ids = [c.collection_id for c in indexed]
    gens = [c.serving_generation for c in indexed]
    if indexed:
        with telemetry.tracer.start_as_current_span("search.fts"):
            if tuning.lexical == "bm25" and chunks is not None:
                fts_rows = await bm25.rank_chunks(
                    conn,
                    org_id,
                    ids,
                    gens,
                    query,
                    tuning.depth,
                    k1=tuning.k1,
                    b=tuning.b,
                    max_df_ratio=tuning.max_df_ratio,
                    where=where,
                )
            else:
                sql, extra = filtered(CHUNK_FTS, where, 7)
                fts_rows = await conn.fetch(
                    sql, org_id, ids, gens, query, tuning.depth, tuning.rank_normalization, *extra
                )
        arms.fts = [((r["document_id"], r["chunk_ordinal"]), float(r["score"])) for r in fts_rows]
    behind = [c for c in indexed if c.backlog]
    if behind:
        await _pending_arm(conn, org_id, behind, query, arms, tuning, where)
    with telemetry.tracer.start_as_current_span("search.file_name"):
        sql, extra = filtered(FILE_NAME, where, 5)
        name_rows = await conn.fetch(
            sql,
            org_id,
            [c.collection_id for c in collections],
            query.strip(),
            tuning.depth + bm25.TIE_MARGIN,
            *extra,
        )
        name_rows = bm25.cut_with_ties(name_rows, tuning.depth, "score")
    arms.file_name = [(r["document_id"], float(r["score"])) for r in name_rows]
    if unindexed:
        for hit in await legacy(conn, org_id, unindexed, query, tuning.depth, where=where):
            arms.legacy[uuid.UUID(hit.document_id)] = hit


async def _vector_arm(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    ids: list[uuid.UUID],
    gens: list[int],
    vector: npt.NDArray[np.float32] | Awaitable[npt.NDArray[np.float32]],
    arms: Arms,
    tuning: KnowledgeTuning,
    chunks: int | None,
    where: Where,
) -> list[asyncpg.Record]:
    """The vector arm on the search's own connection: exact when the chunks searched (those
    `where` leaves, counted here) are within the bound, else HNSW; notes which in `arms`."""
    ready = vector if isinstance(vector, np.ndarray) else await vector
    if where is not None:
        # What the filter leaves decides, not every searched chunk.
        sql, extra = filtered(FILTERED_CHUNKS, where, 5)
        bound = tuning.exact_vector_max_chunks
        chunks = await conn.fetchval(sql, org_id, ids, gens, bound + 1, *extra)
    arms.exact_vector = chunks is not None and chunks <= tuning.exact_vector_max_chunks
    with telemetry.tracer.start_as_current_span(
        "search.vector", attributes={"quire.exact": arms.exact_vector}
    ):
        return await vector_rows(
            conn,
            org_id,
            ids,
            gens,
            ready,
            tuning.depth,
            tuning,
            exact=arms.exact_vector,
            where=where,
        )


async def _pending_arm(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    behind: Sequence[ReachableCollection],
    query: str,
    arms: Arms,
    tuning: KnowledgeTuning,
    where: Where,
) -> None:
    """The pending documents of `behind` (collections whose backlog has rows) and their
    document-level lexical candidates (those matching `where`); their stale chunks leave the
    full-text arm."""
    ids = [c.collection_id for c in behind]
    gens = [c.serving_generation for c in behind]
    with telemetry.tracer.start_as_current_span("search.pending"):
        arms.pending_ids = await pending.documents(conn, org_id, ids, gens)
        if not arms.pending_ids:
            return
        arms.fts = [(key, score) for key, score in arms.fts if key[0] not in arms.pending_ids]
        arms.pending = await pending.rank(
            conn,
            org_id,
            ids,
            gens,
            query,
            arms.pending_ids,
            tuning.depth,
            max_df_ratio=tuning.max_df_ratio,
            where=where,
        )


async def vector_rows(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    ids: list[uuid.UUID],
    gens: list[int],
    vector: npt.NDArray[np.float32],
    depth: int,
    tuning: KnowledgeTuning,
    *,
    exact: bool,
    where: Where = None,
) -> list[asyncpg.Record]:
    """The `depth` nearest chunks (document_id, chunk_ordinal, distance), nearest first; the
    exact scan adds those tied with the last (bm25.cut_with_ties). With `where`, only chunks
    of matching documents."""
    if exact:
        template = CHUNK_VECTOR_EXACT if where is None else CHUNK_VECTOR_EXACT_FILTERED
        sql, extra = filtered(template, where, 6)
        rows = await conn.fetch(sql, org_id, ids, gens, vector, depth + bm25.TIE_MARGIN, *extra)
        return bm25.cut_with_ties(rows, depth, "distance")
    settings = {"enable_bitmapscan": "off"} if tuning.index_scans else {}
    if where is not None:
        # A filter rejects most of the graph's neighbours: let the iterative scan visit
        # enough of them to fill the depth (the exact scan serves the most selective ones).
        settings["hnsw.max_scan_tuples"] = str(FILTERED_SCAN_TUPLES)
    # Costed as cheaper on small collections, a bitmap scan of the primary key plus an exact
    # sort reads every chunk's vector: here HNSW was chosen, so keep it.
    await apply_settings(conn, settings)
    sql, extra = filtered(CHUNK_VECTOR, where, 6)
    hnsw: list[asyncpg.Record] = await conn.fetch(sql, org_id, ids, gens, vector, depth, *extra)
    # (hnsw.max_scan_tuples stays raised: the transaction runs no other HNSW scan.)
    await apply_settings(conn, {"enable_bitmapscan": "on"} if tuning.index_scans else {})
    return hnsw


def _best_per_document(chunks: Sequence[tuple[ChunkKey, float]]) -> list[tuple[uuid.UUID, float]]:
    """Documents by their best chunk (chunk lists arrive best first)."""
    best: dict[uuid.UUID, float] = {}
    for (doc, _), score in chunks:
        best.setdefault(doc, score)
    return list(best.items())


def fuse(
    arms: Arms, tuning: KnowledgeTuning, limit: int | None
) -> tuple[list[tuple[uuid.UUID, float]], dict[uuid.UUID, int]]:
    """The document ranking (document, fused score), best first, cut to `limit` (None: all),
    and each document's best chunk: the one the chunk arms, fused the same way at chunk level,
    rank highest. Equal scores keep the arms' order (lexical, then vector, file name, legacy;
    each best first, its own ties by document id); `hits_for` orders them by file name.

    Pending documents (knowledge/pending.py) are full-text candidates like any other. They
    have no vectors yet, and an arm they cannot enter must not sink them below every indexed
    document it returns, so they get a vector share too: the vector arm's best, scaled by
    their full-text score relative to the full-text arm's best (with RRF: the vector arm's
    share of their full-text rank)."""
    with telemetry.tracer.start_as_current_span("search.fusion"):
        # Stable: a pending document ties after an indexed one.
        lexical = sorted(_best_per_document(arms.fts) + arms.pending, key=lambda item: -item[1])
        docs = [
            lexical,
            _best_per_document(arms.vector),
            arms.file_name,
            [(doc, hit.score) for doc, hit in arms.legacy.items()],
        ]
        weights = [
            tuning.fts_weight,
            tuning.vector_weight,
            tuning.file_name_weight,
            tuning.legacy_weight,
        ]
        fused = tuning.fuse(docs, weights, sparse=[True, False, True, True])
        chunk_ranking = tuning.fuse([arms.fts, arms.vector], weights[:2], sparse=[True, False])
        if tuning.fusion == "rrf":
            stand_in = {d: 1 / (tuning.rrf_k + r) for r, (d, _) in enumerate(lexical, 1)}
        else:
            stand_in = _vector_stand_in(lexical, docs[1], tuning) if arms.pending else {}
        if arms.pending:
            fused = _stand_in(
                fused, {d: tuning.vector_weight * stand_in.get(d, 0.0) for d, _ in arms.pending}
            )
        best_chunk: dict[uuid.UUID, int] = {}
        for (doc, ordinal), _ in chunk_ranking:
            best_chunk.setdefault(doc, ordinal)
    return fused[:limit], best_chunk


async def hybrid(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collections: Sequence[ReachableCollection],
    query: str,
    vector: QueryVectors,
    limit: int,
    tuning: KnowledgeTuning = DEFAULT_TUNING,
    *,
    where: Where = None,
    with_metadata: bool = False,
    pool: asyncpg.Pool | None = None,
) -> list[knowledge_pb2.KnowledgeHit]:
    """Needs the caller's transaction to hold the tuning settings (see KnowledgeTuning.settings).
    `vector` may still be computing, and `pool` lets the arms run side by side (see
    gather_arms)."""
    arms = await gather_arms(
        conn, org_id, collections, query, vector, tuning, where=where, pool=pool
    )
    return await hits_for(
        conn, org_id, collections, query, arms, tuning, limit, with_metadata=with_metadata
    )


async def hits_for(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collections: Sequence[ReachableCollection],
    query: str,
    arms: Arms,
    tuning: KnowledgeTuning,
    limit: int,
    *,
    with_metadata: bool = False,
) -> list[knowledge_pb2.KnowledgeHit]:
    """The hits of fused arms: each document with its best chunk (or, found at document
    level, a ts_headline of its text) and whether it is indexed."""
    ranked, best_chunk = fuse(arms, tuning, None)
    if not ranked:
        return []
    # Equal fused scores (e.g. two documents matching one rare term alike, neither among the
    # vector arm's candidates) are ordered by file name, then id: document ids are random,
    # so the same files ingested again would otherwise swap places.
    tied = _tied(ranked, limit)
    if tied:
        rows = await conn.fetch(DOCUMENTS, org_id, tied)
        names = {r["document_id"]: r["file_name"] for r in rows}
        ranked = sorted(ranked, key=lambda item: (-item[1], names.get(item[0], ""), str(item[0])))
    fused = ranked[:limit]
    indexed = [c for c in collections if c.serving_generation > 0]
    ids = [c.collection_id for c in indexed]
    gens = [c.serving_generation for c in indexed]
    chosen = [doc for doc, _ in fused]
    docs = {r["document_id"]: r for r in await conn.fetch(DOCUMENTS, org_id, chosen)}
    with_chunks = [d for d in chosen if d in best_chunk]
    chunk_rows = await conn.fetch(
        CHUNKS, org_id, with_chunks, [best_chunk[d] for d in with_chunks], ids, gens
    )
    chunks = {r["document_id"]: r for r in chunk_rows}
    headlines = await pending.snippets(
        conn, org_id, [d for d in chosen if d in arms.pending_ids and d not in best_chunk], query
    )
    unindexed = {c.collection_id for c in collections if c.serving_generation == 0}
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
            external_key=meta["external_key"] or "",
            metadata=metadata_struct(meta["metadata"]) if with_metadata else None,
            index_state=knowledge_pb2.HIT_INDEX_STATE_PENDING
            if doc in arms.pending_ids
            or meta["collection_id"] in unindexed
            or meta["status"] in _EXTRACTING
            else knowledge_pb2.HIT_INDEX_STATE_INDEXED,
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
        elif doc in headlines:
            hit.snippet = headlines[doc]
        hits.append(hit)
    return hits


def _vector_stand_in(
    lexical: Sequence[tuple[uuid.UUID, float]],
    vector: Sequence[tuple[uuid.UUID, float]],
    tuning: KnowledgeTuning,
) -> dict[uuid.UUID, float]:
    """Convex fusion: each full-text candidate's normalised score relative to the best one,
    times the vector arm's best normalised score (see `fuse`)."""
    shares = normalise(lexical, tuning.normalisation, tuning.sparse_pad)
    best_vector = max(normalise(vector, tuning.normalisation).values(), default=0.0)
    top = max(shares.values(), default=0.0)
    if top <= 0:
        return {}
    return {doc: best_vector * share / top for doc, share in shares.items()}


def _stand_in(
    fused: Sequence[tuple[uuid.UUID, float]], extra: dict[uuid.UUID, float]
) -> list[tuple[uuid.UUID, float]]:
    """`fused` with `extra` added to some documents' scores, re-sorted (stable)."""
    added = [(doc, score + extra.get(doc, 0.0)) for doc, score in fused]
    return sorted(added, key=lambda item: -item[1])


def _tied(ranked: Sequence[tuple[uuid.UUID, float]], limit: int) -> list[uuid.UUID]:
    """Documents whose fused score equals another's, for the scores within the first `limit`."""
    counts: dict[float, int] = {}
    for _, score in ranked:
        counts[score] = counts.get(score, 0) + 1
    shown = {score for _, score in ranked[:limit] if counts[score] > 1}
    return [doc for doc, score in ranked if score in shown]


async def vector_only(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collections: Sequence[ReachableCollection],
    vector: npt.NDArray[np.float32],
    limit: int,
    tuning: KnowledgeTuning = DEFAULT_TUNING,
) -> list[uuid.UUID]:
    """Document ids by their best chunk's distance (diagnosis for the quality harness), with
    the vector arm HYBRID would use for these collections."""
    indexed = [c for c in collections if c.serving_generation > 0]
    ids = [c.collection_id for c in indexed]
    gens = [c.serving_generation for c in indexed]
    stats = await conn.fetchrow(bm25.STATS, org_id, ids, gens)
    exact = stats["generations"] == len(ids) and stats["chunks"] <= tuning.exact_vector_max_chunks
    rows = await vector_rows(
        conn, org_id, ids, gens, vector, max(limit * 3, tuning.depth), tuning, exact=exact
    )
    return list(dict.fromkeys(r["document_id"] for r in rows))[:limit]

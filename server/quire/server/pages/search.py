"""SearchPages: hybrid retrieval per phrasing, RRF across phrasings, one snapshot for all.

Each phrasing runs a full-text arm (BM25 over the query's lexemes from the namespace's term
statistics, pages.term_stats: one GIN lookup per lexeme, very common lexemes dropped, a bonus
for lexemes in the title or headings) and a vector arm (HNSW cosine with iterative scans so
the namespace filter cannot starve it), fused with RRF. Alternatives run in parallel on their
own connections that import the primary transaction's exported snapshot, with zero parallel
workers. The query is embedded while the transaction starts and the full-text arms run: only
the vector arms wait for it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import asyncpg
import numpy as np
import numpy.typing as npt

from quire.server import telemetry
from quire.server.engine import canonical_json, search_config
from quire.server.engine.fusion import rrf
from quire.server.engine.lexical import lexeme_query
from quire.server.services.base import SCHEMA_VERSION
from quire.server.storage.database import apply_settings, remaining_ms
from quire.v1 import pages_pb2, search_config_pb2

log = logging.getLogger(__name__)

MAX_HITS_PER_PAGE = 3
ALTERNATIVE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class SearchTuning:
    """Candidate depth per arm and fusion weights (docs/retrieval-quality.md)."""

    depth: int = 40
    rrf_k: int = 60
    fts_weight: float = 1.0
    vector_weight: float = 1.0
    # BM25 of the full-text arm, as the knowledge chunk arm (knowledge.search.HybridTuning).
    k1: float = 1.2
    b: float = 0.75
    # Lexemes in more than this share of the namespace's chunks carry little idf and would
    # make the arm rank most of the namespace; they are left to the vector arm.
    max_df_ratio: float = 0.35
    max_terms: int = 48
    # Added (× idf) when the lexeme is in the page title or the chunk's headings: in docs
    # sites the heading names the topic (labelled queries in benchmarks/pages_search.py).
    heading_weight: float = 2.0


# The query's lexemes drive every lookup (LIMIT 1 keeps each statistics lookup a primary-key
# probe whatever the table statistics say), so the plan holds on a never-analysed namespace.
# The arm only needs the text, so it runs while the query is still being embedded. Ordering
# and limiting the groups before numbering them keeps it a top-N sort over the matches.
LEXICAL = f"""
WITH totals AS MATERIALIZED (
    SELECT chunks, greatest(avg_length, 1::float8) AS avgdl FROM page_term_totals
    WHERE org_id = $1 AND namespace = $2
),
terms AS MATERIALIZED (
    SELECT ls.lexeme, {lexeme_query("ls.lexeme")} AS query,
           ln(1 + (t.chunks - ls.df + 0.5::float8) / (ls.df + 0.5::float8)) AS idf, t.avgdl
    FROM totals t
    CROSS JOIN (
        SELECT DISTINCT lexeme
        FROM unnest(tsvector_to_array(to_tsvector('simple', $3))) AS q(lexeme)
    ) q
    CROSS JOIN LATERAL (
        SELECT l.lexeme, l.df FROM page_lexeme_stats l
        WHERE l.org_id = $1 AND l.namespace = $2 AND l.lexeme = q.lexeme LIMIT 1
    ) ls
    WHERE ls.df <= greatest(t.chunks * $7::float8, 20)
    ORDER BY idf DESC, ls.lexeme LIMIT $8
),
scored AS (
    SELECT c.path, c.chunk_ordinal,
           sum(tm.idf * (($5::float8 + 1) / (1 + $5::float8 * (1 - $6::float8
               + $6::float8 * c.lexemes / tm.avgdl)) + $9::float8 * c.in_heading)) AS score
    FROM terms tm
    JOIN LATERAL (
        SELECT c.path, c.chunk_ordinal, c.lexemes, (c.heading_tsv @@ tm.query)::int AS in_heading
        FROM page_chunks c
        WHERE c.org_id = $1 AND c.namespace = $2 AND c.tsv @@ tm.query
    ) c ON true
    GROUP BY c.path, c.chunk_ordinal
    ORDER BY score DESC, c.path, c.chunk_ordinal LIMIT $4
)
SELECT path, chunk_ordinal FROM scored ORDER BY score DESC, path, chunk_ordinal
"""
VECTOR = """
SELECT c.path, c.chunk_ordinal
FROM page_chunks c
WHERE c.org_id = $1 AND c.namespace = $2
ORDER BY c.embedding <=> $3 LIMIT $4
"""
DETAILS = """
SELECT c.path, c.chunk_ordinal, c.chunk_id, c.content, c.heading_path, p.url, p.title, p.revision
FROM unnest($3::text[], $4::int[]) AS k(path, ordinal)
JOIN page_chunks c ON c.org_id = $1 AND c.namespace = $2 AND c.path = k.path
                  AND c.chunk_ordinal = k.ordinal
JOIN pages p ON p.org_id = c.org_id AND p.namespace = c.namespace AND p.path = c.path
"""
VERSION = """
SELECT filesystem_version, search_config FROM namespaces WHERE org_id = $1 AND name = $2
"""
EXPORT = "SELECT pg_export_snapshot()"

Key = tuple[str, int]


def _arm_settings(depth: int) -> dict[str, str]:
    return {
        # The vector arm returns `depth` candidates only if the scan looks at that many.
        "hnsw.ef_search": str(max(depth, 40)),
        "hnsw.iterative_scan": "relaxed_order",
    }


async def _lexical(
    conn: asyncpg.Connection, org_id: uuid.UUID, namespace: str, query: str, tuning: SearchTuning
) -> list[Key]:
    with telemetry.tracer.start_as_current_span("search.fts"):
        rows = await conn.fetch(
            LEXICAL,
            org_id,
            namespace,
            query,
            tuning.depth,
            tuning.k1,
            tuning.b,
            tuning.max_df_ratio,
            tuning.max_terms,
            tuning.heading_weight,
        )
    return [(r["path"], r["chunk_ordinal"]) for r in rows]


async def _vector(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    namespace: str,
    vector: npt.NDArray[np.float32],
    tuning: SearchTuning,
) -> list[Key]:
    with telemetry.tracer.start_as_current_span("search.vector"):
        rows = await conn.fetch(VECTOR, org_id, namespace, vector, tuning.depth)
    return [(r["path"], r["chunk_ordinal"]) for r in rows]


async def _arms(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    namespace: str,
    query: str,
    vectors: asyncio.Future[npt.NDArray[np.float32]],
    index: int,
    tuning: SearchTuning,
) -> list[tuple[Key, float]]:
    """One phrasing: the full-text arm first (it needs no vector, so it overlaps the query
    embedding), then the vector arm on row `index` of `vectors`, fused with RRF."""
    fts = await _lexical(conn, org_id, namespace, query, tuning)
    # Shielded: an alternative that times out must not cancel the embedding others await.
    vector = (await asyncio.shield(vectors))[index]
    vec = await _vector(conn, org_id, namespace, vector, tuning)
    return rrf([fts, vec], k=tuning.rrf_k, weights=[tuning.fts_weight, tuning.vector_weight])


async def _alternative(
    pool: asyncpg.Pool,
    snapshot: str,
    settings: Mapping[str, str],
    org_id: uuid.UUID,
    namespace: str,
    query: str,
    vectors: asyncio.Future[npt.NDArray[np.float32]],
    index: int,
    tuning: SearchTuning,
) -> list[tuple[Key, float]]:
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        # Must be the transaction's first statement.
        await conn.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")
        await apply_settings(conn, {**settings, "max_parallel_workers_per_gather": "0"})
        return await _arms(conn, org_id, namespace, query, vectors, index, tuning)


def _cap_per_page(fused: Sequence[tuple[Key, float]], limit: int) -> list[tuple[Key, float]]:
    per_page: dict[str, int] = {}
    out: list[tuple[Key, float]] = []
    for key, score in fused:
        if per_page.get(key[0], 0) >= MAX_HITS_PER_PAGE:
            continue
        per_page[key[0]] = per_page.get(key[0], 0) + 1
        out.append((key, score))
        if len(out) == limit:
            break
    return out


def fit_budget(result: pages_pb2.SearchResult, max_bytes: int) -> pages_pb2.SearchResult:
    """Drops hits from the tail until the canonical JSON of the whole result fits."""
    hits = list(result.hits)
    total = len(hits)
    keep = total
    while True:
        del result.hits[:]
        result.hits.extend(hits[:keep])
        result.truncated = keep < total
        result.omitted_count = total - keep
        if canonical_json.size(result) <= max_bytes or keep == 0:
            return result
        keep -= 1


async def search_pages(
    pool: asyncpg.Pool,
    *,
    org_id: uuid.UUID,
    namespace: str,
    query: str,
    alternatives: Sequence[str],
    vectors: asyncio.Future[npt.NDArray[np.float32]],
    limit: int,
    max_output_bytes: int,
    override: search_config_pb2.PageSearchConfig | None = None,
    tuning: SearchTuning = SearchTuning(),
) -> pages_pb2.SearchResult | None:
    """None when the namespace does not exist. `vectors`: the embeddings of the query and the
    alternatives, in that order, possibly still being computed (`start_queries`): the
    transaction, the settings and the full-text arms run meanwhile; the caller `discard`s it
    afterwards. Planner settings: the deployment default, the namespace's stored
    PageSearchConfig, then `override`, read in the search transaction."""
    warnings: list[str] = []
    partial = False
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        row = await conn.fetchrow(VERSION, org_id, namespace)
        if row is None:
            return None
        version = row["filesystem_version"]
        local = {
            **search_config.layered_settings(row["search_config"], override),
            **_arm_settings(tuning.depth),
        }
        left = remaining_ms()
        if left is not None:
            local["statement_timeout"] = str(left)
        await apply_settings(conn, local)
        tasks: list[asyncio.Task[list[tuple[Key, float]]]] = []
        if alternatives:
            snapshot = await conn.fetchval(EXPORT)
            tasks = [
                asyncio.create_task(
                    _alternative(
                        pool, snapshot, local, org_id, namespace, alt, vectors, i + 1, tuning
                    )
                )
                for i, alt in enumerate(alternatives)
            ]
        try:
            primary = await _arms(conn, org_id, namespace, query, vectors, 0, tuning)
        except BaseException:
            for task in tasks:
                task.cancel()
            raise
        rankings = [[key for key, _ in primary]]
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=ALTERNATIVE_TIMEOUT_S)
            for task in pending:
                task.cancel()
            for i, task in enumerate(tasks):
                if task in pending:
                    partial = True
                    warnings.append(f"alternative {i + 1} ran out of time")
                elif task.exception() is not None:
                    partial = True
                    warnings.append(f"alternative {i + 1} failed")
                    log.warning("alternative failed", exc_info=task.exception())
                else:
                    rankings.append([key for key, _ in task.result()])
        with telemetry.tracer.start_as_current_span("search.fusion"):
            fused = rrf(rankings, k=tuning.rrf_k) if len(rankings) > 1 else primary
            chosen = _cap_per_page(fused, limit)
        rows = await conn.fetch(
            DETAILS,
            org_id,
            namespace,
            [k[0] for k, _ in chosen],
            [k[1] for k, _ in chosen],
        )
    by_key = {(r["path"], r["chunk_ordinal"]): r for r in rows}
    hits = []
    for rank, (key, score) in enumerate(chosen, start=1):
        row = by_key.get(key)
        if row is None:
            continue
        hits.append(
            pages_pb2.SearchHit(
                schema_version=SCHEMA_VERSION,
                path=row["path"],
                url=row["url"],
                title=row["title"],
                revision=row["revision"],
                chunk_id=row["chunk_id"],
                content=row["content"],
                score=score,
                rank=rank,
                heading_path=row["heading_path"],
            )
        )
    result = pages_pb2.SearchResult(
        schema_version=SCHEMA_VERSION,
        namespace=namespace,
        query=query,
        hits=hits,
        partial=partial,
        warnings=warnings,
        filesystem_version=version,
    )
    telemetry.search_hits.record(len(hits), {"kind": "pages"})
    return fit_budget(result, max_output_bytes)

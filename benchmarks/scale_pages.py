"""The page-search half of benchmarks/scale.py: synthetic page namespaces loaded beside the
knowledge collections, and one namespace's SearchPages latency and recall.

How the rows are made: one namespace per organisation, ten chunks per page, chunk i copying
row (i - 1) mod base of scale.py's `base` table (real SciFact chunk texts and their real
all-MiniLM-L6-v2 vectors): its text; its `tsv` (the `simple` analysis) and `stem_tsv` (the
`english` one), unweighted, so no chunk gets the title, heading or front-matter bonus; its
vector verbatim for the first `base` chunks of the first namespace, after that perturbed as
the knowledge chunks are. Pages have a title and URL but an empty body (search reads chunks
only). Term statistics are derived as a sync does (indexer/pages/term_stats.refresh); the
page HNSW index is built after the load, like the knowledge one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import _harness as h
import numpy as np

# The english analysis of every base row, computed once for all the copies.
STEM_BASE = """
ALTER TABLE base ADD COLUMN IF NOT EXISTS stem_tsv tsvector;
UPDATE base SET stem_tsv = to_tsvector('english', content) WHERE stem_tsv IS NULL;
"""
NAMESPACE = """
INSERT INTO namespaces (org_id, name, filesystem_version, language, languages)
VALUES ($1, $2, 1, 'en', '{en}')
"""
ORG = "INSERT INTO organisations (org_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING"
PAGES = """
INSERT INTO pages (org_id, namespace, path, content_id, url, title, body, total_chars,
                   digest, index_fingerprint, revision, filesystem_version,
                   expected_chunk_count)
SELECT $1, $2, 'p/' || g.j || '.md', md5($2 || g.j)::uuid,
       'https://docs.example/p/' || g.j, 'Page ' || g.j, '', 0, md5(g.j::text), 'bench',
       'r1', 1, 10
FROM generate_series(0, $3::int - 1) AS g(j)
"""
# Chunk i: page (i - 1) / 10, ordinal (i - 1) % 10; vector verbatim for i <= $6.
CHUNKS = """
INSERT INTO page_chunks (org_id, namespace, path, chunk_ordinal, revision, chunk_id, content,
                         tsv, stem_tsv, language, embedding)
SELECT $1, $2, 'p/' || ((g.i - 1) / 10) || '.md', (g.i - 1) % 10, 'r1',
       'r1:' || ((g.i - 1) % 10), b.content, b.tsv, b.stem_tsv, 'en',
       CASE WHEN g.i <= $6 THEN b.embedding
            ELSE l2_normalize(b.embedding + (SELECT array_agg(random_normal(0, $5))::vector
                                             FROM generate_series(1, 384) WHERE g.i > 0))
       END
FROM generate_series($3::int, $4::int) AS g(i) JOIN base b ON b.i = (g.i - 1) % $7 + 1
"""
SIZES = """
SELECT pg_table_size('page_chunks') AS chunks_table,
       pg_relation_size('page_chunks_pkey') AS chunks_primary_key,
       pg_relation_size('page_chunks_embedding') AS chunks_hnsw,
       pg_relation_size('page_chunks_tsv') AS chunks_gin_tsv,
       pg_relation_size('page_chunks_stem_tsv') AS chunks_gin_stem_tsv,
       pg_total_relation_size('page_lexeme_stats') AS lexeme_stats_total
"""
NAMESPACE_NAME = "docs"


async def prepare_base(conn: Any) -> None:
    """Adds the english analysis to the base rows; drops the page HNSW index (built after
    the load)."""
    await conn.execute(STEM_BASE)
    await conn.execute("DROP INDEX IF EXISTS page_chunks_embedding")


async def load_namespace(
    conn: Any, org: uuid.UUID, label: str, count: int, base: int, noise: float, verbatim: int
) -> None:
    """One namespace of `count` chunks in `org` (created if missing)."""
    await conn.execute(ORG, org, label)
    await conn.execute(NAMESPACE, org, NAMESPACE_NAME)
    await conn.execute(PAGES, org, NAMESPACE_NAME, (count + 9) // 10)
    for start in range(1, count + 1, 10_000):
        end = min(count, start + 9_999)
        await conn.execute(CHUNKS, org, NAMESPACE_NAME, start, end, noise, verbatim, base)


async def build_hnsw(conn: Any, memory: str) -> float:
    h.note("building the page HNSW index")
    started = time.perf_counter()
    await conn.execute(f"SET maintenance_work_mem = '{memory}'")
    await conn.execute(
        "CREATE INDEX page_chunks_embedding ON page_chunks USING hnsw (embedding vector_cosine_ops)"
    )
    return round(time.perf_counter() - started, 1)


async def prepare(
    conn: Any,
    orgs: list[tuple[int, uuid.UUID, int]],
    base: int,
    noise: float,
    memory: str,
) -> dict[str, Any]:
    """Loads a namespace per (split, organisation, chunks) and indexes them; returns the
    times and sizes."""
    from quire.indexer.pages import term_stats

    record: dict[str, Any] = {}
    started = time.perf_counter()
    await prepare_base(conn)
    for n, (_, org, chunks) in enumerate(orgs):
        if n % 10 == 0:
            h.note(f"loading namespace {n + 1} of {len(orgs)} ({chunks} chunks)")
        await load_namespace(conn, org, f"pages-{n}", chunks, base, noise, 0 if n else base)
    record["load_s"] = round(time.perf_counter() - started, 1)
    record["hnsw_build_s"] = await build_hnsw(conn, memory)
    h.note("page term statistics")
    started = time.perf_counter()
    for _, org, _ in orgs:
        await term_stats.refresh(conn, org, NAMESPACE_NAME)
    record["term_statistics_s"] = round(time.perf_counter() - started, 1)
    started = time.perf_counter()
    await conn.execute(term_stats.VACUUM_ANALYZE)
    record["vacuum_analyze_s"] = round(time.perf_counter() - started, 1)
    record["sizes_mb"] = {k: round(v / 2**20, 1) for k, v in (await conn.fetchrow(SIZES)).items()}
    return record


async def measure(
    pool: Any, org: uuid.UUID, queries: list[str], vectors: Any, truth_queries: int, limit: int
) -> dict[str, Any]:
    """One cell: SearchPages as served (search.search_pages: both arms, fusion, the hits'
    details), then with the exact vector scan unbounded for recall@10 of the hits (chunks),
    and the vector arm alone served against exact."""
    from quire.server.pages import search
    from quire.server.retrieval import search_config
    from quire.server.storage.database import apply_settings

    tuning = search.PageTuning()
    exact = dataclasses.replace(tuning, exact_vector_max_chunks=10**9)
    loop = asyncio.get_running_loop()

    async def searched(q: str, v: Any, tune: Any) -> tuple[list[tuple[str, str]], float]:
        ready: asyncio.Future[Any] = loop.create_future()
        ready.set_result(np.asarray([v], dtype=np.float32))
        started = time.perf_counter()
        result = await search.search_pages(
            pool,
            org_id=org,
            namespace=NAMESPACE_NAME,
            query=q,
            alternatives=[],
            vectors=ready,
            limit=limit,
            max_output_bytes=1 << 30,
            tuning=tune,
        )
        elapsed = time.perf_counter() - started
        assert result is not None
        return [(x.path, x.chunk_id) for x in result.hits], elapsed

    @contextlib.asynccontextmanager
    async def transaction() -> AsyncIterator[Any]:
        async with (
            pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            await apply_settings(
                conn,
                {
                    **search_config.to_settings(search_config.DEPLOYMENT_DEFAULT),
                    **search._arm_settings(tuning.depth),
                },
            )
            yield conn

    async def nearest(q: str, v: Any, exact_scan: bool) -> list[search.Key]:
        target = search.SearchedNamespace(org, NAMESPACE_NAME, exact_scan)
        async with transaction() as conn:
            keys = await search.arm_candidates(conn, target, q, v, tuning, "vector")
        return keys[:limit]

    async with pool.acquire() as conn:
        chunks = await conn.fetchval(
            "SELECT chunks FROM page_term_totals WHERE org_id = $1 AND namespace = $2",
            org,
            NAMESPACE_NAME,
        )
    served_exact = chunks <= tuning.exact_vector_max_chunks
    pairs = list(zip(queries, vectors, strict=True))
    for q, v in pairs[:5]:
        await searched(q, v, tuning)
    times: dict[str, list[float]] = {"served": [], "exact": []}
    got = []
    for q, v in pairs:
        keys, elapsed = await searched(q, v, tuning)
        times["served"].append(elapsed)
        got.append(keys)
    hit_recall, vector_recall = [], []
    for (q, v), keys in zip(pairs[:truth_queries], got, strict=False):
        true_keys, elapsed = await searched(q, v, exact)
        times["exact"].append(elapsed)
        hit_recall.append(len(set(keys) & set(true_keys)) / max(1, len(true_keys)))
        served_nearest = await nearest(q, v, served_exact)
        true_nearest = await nearest(q, v, True)
        vector_recall.append(
            len(set(served_nearest) & set(true_nearest)) / max(1, len(true_nearest))
        )
    return {
        "chunks_searched": chunks,
        "vector_arm": "exact" if served_exact else "hnsw",
        "search": h.summary_ms(times["served"]),
        "exact_search": h.summary_ms(times["exact"]),
        "recall_at_10": round(sum(hit_recall) / len(hit_recall), 4),
        "vector_recall_at_10": round(sum(vector_recall) / len(vector_recall), 4),
        "truth_queries": len(hit_recall),
    }

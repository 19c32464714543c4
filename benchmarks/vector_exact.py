"""Where the knowledge vector arm's exact scan stops paying: exact vs HNSW latency by the
number of chunks in scope, in one run. Prints JSON.

    .venv/bin/python benchmarks/vector_exact.py [--sizes 5000,15000,50000,100000]
        [--other 50000] [--queries 100] [--base 4000] [--noise 0.03] [--out FILE]

A throw-away database (every migration applied) gets one collection per size and another
organisation's collection of `--other` chunks, all in the one shared HNSW index, as in a
deployment. Rows have production width: a real SciFact chunk text and its tsvector, and a
vector that is a real all-MiniLM-L6-v2 embedding of one of the first `--base` chunks
(copies perturbed by gaussian noise, σ `--noise` per dimension, and renormalised: a copy's
cosine to its original is about 0.8, near real neighbours' and no two are equal). The HNSW index
is built after the load. For each size, every query (SciFact training claims, embedded) runs
the statement HYBRID runs, exact (`search.CHUNK_VECTOR_EXACT`) and HNSW
(`search.CHUNK_VECTOR`), alternating, in a transaction holding the serving settings, at the
serving depth; the report gives p50/p95 per statement and HNSW's recall against the exact
answer (the share of the exact top `depth` chunks it finds).
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from itertools import islice
from typing import Any

import _harness as h

BASE = """
CREATE TEMP TABLE base (i int PRIMARY KEY, content text, tsv tsvector, embedding vector(384))
"""
FILL_BASE = """
INSERT INTO base SELECT u.i, u.content, to_tsvector('simple', u.content), u.embedding::vector
FROM unnest($1::int[], $2::text[], $3::text[]) AS u(i, content, embedding)
"""
# Chunk i of a collection: base row (i - 1) % n + 1; beyond the first n, its vector plus
# noise (σ per dimension), renormalised. Document ids derive from (collection, i).
FILL = """
INSERT INTO knowledge_chunks (org_id, collection_id, generation, document_id, chunk_ordinal,
                              chunk_id, content, tsv, embedding)
SELECT $1, $2::uuid, 1, md5($2::uuid::text || g.i)::uuid, 0, md5($2::uuid::text || g.i),
       b.content, b.tsv,
       CASE WHEN g.i <= $5 THEN b.embedding
            ELSE l2_normalize(b.embedding + (SELECT array_agg(random_normal(0, $6))::vector
                                             FROM generate_series(1, 384) WHERE g.i > 0))
       END
FROM generate_series($3::int, $4::int) AS g(i) JOIN base b ON b.i = (g.i - 1) % $5 + 1
"""
ORG = "INSERT INTO organisations (org_id, name) VALUES ($1, $2)"
COLLECTION = "INSERT INTO collections (org_id, collection_id, name) VALUES ($1, $2, $3)"
GENERATION = """
INSERT INTO index_generations (org_id, collection_id, generation, state, fingerprint)
VALUES ($1, $2, 1, 2, 'bench')
"""


def base_texts(n: int) -> list[str]:
    from quire.indexer.chunking import chunk_text

    texts: list[str] = []
    with (h.SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
        for doc in map(json.loads, fh):
            texts += [c.text for c in chunk_text(f"{doc['title']}\n\n{doc['text']}")]
            if len(texts) >= n:
                return texts[:n]
    return texts


def claims(n: int) -> list[str]:
    with (h.SCIFACT / "queries-train.jsonl").open(encoding="utf-8") as fh:
        return [q["text"] for q in islice(map(json.loads, fh), n)]


async def embedded_material(base: int, queries: int) -> tuple[list[str], Any, list[str], Any]:
    """The first `base` SciFact chunks and `queries` training claims, each with its real
    all-MiniLM-L6-v2 embedding: (texts, their vectors, claims, their vectors)."""
    embeddings = h.load_model()
    try:
        texts = base_texts(base)
        h.note(f"embedding {len(texts)} chunks and {queries} claims")
        vectors = await embeddings.embed_bulk(texts)
        asked = claims(queries)
        return texts, vectors, asked, await embeddings.embed_bulk(asked)
    finally:
        embeddings.close()


def vector_text(v: Any) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in v) + "]"


async def fill(
    conn: Any, org: uuid.UUID, cid: uuid.UUID, count: int, base: int, noise: float
) -> None:
    for start in range(1, count + 1, 10_000):
        end = min(count, start + 9_999)
        await conn.execute(FILL, org, cid, start, end, base, noise)


async def load_base(conn: Any, texts: list[str], vectors: Any) -> None:
    """The temporary `base` table of real chunk texts and vectors the FILL statements copy,
    with the random seed of their noise fixed; drops the HNSW index (built after the load)."""
    await conn.execute("SELECT setseed(0.42)")
    await conn.execute(BASE)
    await conn.execute(
        FILL_BASE, list(range(1, len(texts) + 1)), texts, [vector_text(v) for v in vectors]
    )
    await conn.execute("DROP INDEX knowledge_chunks_embedding")


async def build_hnsw(conn: Any, memory: str = "2GB") -> float:
    """Builds the shared HNSW index after a load (as large as a deployment's, faster than
    inserting into it) with `memory` of maintenance_work_mem (the graph must fit, or the
    build slows down many times); returns the seconds it took."""
    h.note("building the HNSW index")
    started = time.perf_counter()
    await conn.execute(f"SET maintenance_work_mem = '{memory}'")
    await conn.execute(
        "CREATE INDEX knowledge_chunks_embedding ON knowledge_chunks "
        "USING hnsw (embedding vector_cosine_ops)"
    )
    return round(time.perf_counter() - started, 1)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.server.app import prepare_database
    from quire.server.config import Settings
    from quire.server.knowledge import search

    h.setup_logging()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    texts, vectors, _, queries = await embedded_material(args.base, args.queries)
    report: dict[str, Any] = {
        "benchmark": "vector_exact",
        "machine_at_start": h.machine(),
        "depth": search.DEFAULT_TUNING.depth,
        "queries": len(queries),
        "other_chunks": args.other,
        "base_vectors": len(texts),
        "noise_per_dimension": args.noise,
        "settings": search.DEFAULT_TUNING.settings(),
    }
    async with h.database("bench_vector") as url:
        pool = await prepare_database(url, Settings(database_url=url))
        try:
            async with pool.acquire() as conn:
                # The index is built after the load (as large as a deployment's, faster).
                await load_base(conn, texts, vectors)
                started = time.perf_counter()
                collections: dict[int, tuple[uuid.UUID, uuid.UUID]] = {}
                other_org = uuid.uuid4()
                await conn.execute(ORG, other_org, "other-tenant")
                for label, count in [("other", args.other), *((str(s), s) for s in sizes)]:
                    org = other_org if label == "other" else uuid.uuid4()
                    if label != "other":
                        await conn.execute(ORG, org, f"size-{label}")
                    cid = uuid.uuid4()
                    await conn.execute(COLLECTION, org, cid, label)
                    await conn.execute(GENERATION, org, cid)
                    h.note(f"loading {count} chunks ({label})")
                    await fill(conn, org, cid, count, len(texts), args.noise)
                    if label != "other":
                        collections[count] = (org, cid)
                report["load_s"] = round(time.perf_counter() - started, 1)
                report["hnsw_build_s"] = await build_hnsw(conn)
                await conn.execute("VACUUM ANALYZE knowledge_chunks")
                report["table_mb"] = round(
                    await conn.fetchval("SELECT pg_table_size('knowledge_chunks')") / 2**20, 1
                )
            report["sizes"] = {}
            for size, (org, cid) in collections.items():
                h.note(f"querying {size}")
                report["sizes"][str(size)] = await measure(pool, org, cid, queries, search)
        finally:
            await pool.close()
    return report


async def measure(
    pool: Any, org: uuid.UUID, cid: uuid.UUID, queries: Any, search: Any
) -> dict[str, Any]:
    from quire.server.storage.database import apply_settings

    tuning = search.DEFAULT_TUNING
    times: dict[str, list[float]] = {"exact": [], "hnsw": []}
    recalls: list[float] = []
    async with pool.acquire() as conn:

        async def run(exact: bool, q: Any) -> tuple[list[Any], float]:
            async with conn.transaction(isolation="repeatable_read", readonly=True):
                await apply_settings(conn, tuning.settings())
                started = time.perf_counter()
                rows = await search.vector_rows(
                    conn, org, [cid], [1], q, tuning.depth, tuning, exact=exact
                )
                return rows, time.perf_counter() - started

        for q in queries[:5]:  # warm-up: the collection's pages into shared buffers
            await run(True, q)
            await run(False, q)
        for n, q in enumerate(queries):
            order = (True, False) if n % 2 == 0 else (False, True)
            got: dict[bool, list[Any]] = {}
            for exact in order:
                rows, elapsed = await run(exact, q)
                got[exact] = rows
                times["exact" if exact else "hnsw"].append(elapsed)
            truth = {(r["document_id"], r["chunk_ordinal"]) for r in got[True]}
            found = {(r["document_id"], r["chunk_ordinal"]) for r in got[False]}
            recalls.append(len(truth & found) / max(1, len(truth)))
    out = {name: h.summary_ms(values) for name, values in times.items()}
    out["hnsw_recall"] = round(sum(recalls) / len(recalls), 4)
    out["exact_over_hnsw_p50"] = h.ratio(out["exact"]["p50_ms"], out["hnsw"]["p50_ms"], 2)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5000,15000,50000,100000")
    parser.add_argument("--other", type=int, default=50_000, help="another tenant's chunks")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--base", type=int, default=4000, help="real chunk vectors to copy")
    parser.add_argument(
        "--noise", type=float, default=0.03, help="σ per dimension of a copy's perturbation"
    )
    parser.add_argument("--out", default=None)
    arguments = parser.parse_args()
    from pathlib import Path

    h.emit(h.run(main(arguments)), Path(arguments.out) if arguments.out else None)

"""Metadata-filtered HYBRID search on a large collection, against the unfiltered search and
against the exact filtered search, in one run. Prints JSON.

    .venv/bin/python benchmarks/filtered_search.py [--chunks 100000] [--other 50000]
        [--queries 100] [--base 2000] [--noise 0.03] [--out FILE]

A throw-away database (every migration applied) gets one collection of `--chunks` chunks, ten
per document, and another organisation's `--other` chunks in the same shared HNSW index, as
in a deployment. Chunk rows are built like benchmarks/vector_exact.py's: a real SciFact chunk
text and its tsvector, and a real all-MiniLM-L6-v2 embedding of one of the first `--base`
chunks (copies perturbed by gaussian noise and renormalised). Document j carries the
metadata {"customer": "c<j mod 100>", "region": "r<j mod 10>", "bucket": j mod 10}; its term
statistics are derived as the worker does (indexer/worker/lexical_stats.py).

Filters, by the share of chunks they keep:
- 1 %: customer = "c7"        (1,000 of 100,000 chunks: the exact vector scan)
- 10 %: region in ["r3"]      (10,000: exact)
- 30 %: bucket < 3            (30,000: above the exact scan's bound, HNSW with a filter)

Each query (SciFact training claims) runs `search.hybrid` unfiltered and with each filter,
the order rotating per query, in a transaction holding the serving settings, plus the exact
filtered search (the same with `exact_vector_max_chunks` unbounded, so its vector arm is an
exact scan of the filtered chunks). Reported: p50/p95 per search, filtered p95 over
unfiltered p95, recall@10 of each filtered search against the exact filtered one (the share
of its top 10 documents found), and whether every hit matched the filter.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
import uuid
from pathlib import Path
from typing import Any

import _harness as h
import vector_exact as ve

DOCUMENTS = """
INSERT INTO documents (org_id, document_id, collection_id, file_name, mime_type, size_bytes,
                       sha256, status, revision, metadata)
SELECT $1, md5($2::uuid::text || g.j)::uuid, $2::uuid, 'doc-' || g.j || '.txt', 'text/plain',
       1000, md5(g.j::text), 3, 1,
       jsonb_build_object('customer', 'c' || (g.j % 100), 'region', 'r' || (g.j % 10),
                          'bucket', g.j % 10)
FROM generate_series(0, $3::int - 1) AS g(j)
"""
# Chunk i belongs to document (i - 1) / 10 with ordinal (i - 1) % 10; its vector is the base
# row's verbatim for i <= $7, else perturbed.
CHUNKS = """
INSERT INTO knowledge_chunks (org_id, collection_id, generation, document_id, chunk_ordinal,
                              chunk_id, content, tsv, embedding)
SELECT $1, $2::uuid, 1, md5($2::uuid::text || ((g.i - 1) / 10))::uuid, (g.i - 1) % 10,
       md5($2::uuid::text || g.i), b.content, b.tsv,
       CASE WHEN g.i <= $7 THEN b.embedding
            ELSE l2_normalize(b.embedding + (SELECT array_agg(random_normal(0, $6))::vector
                                             FROM generate_series(1, 384) WHERE g.i > 0))
       END
FROM generate_series($3::int, $4::int) AS g(i) JOIN base b ON b.i = (g.i - 1) % $5 + 1
"""
SERVE = "UPDATE collections SET serving_generation = 1 WHERE org_id = $1 AND collection_id = $2"
FILTERS: dict[str, dict[str, Any]] = {
    "1%": {"field": {"field": "customer", "equals": "c7"}},
    "10%": {"field": {"field": "region", "in": ["r3"]}},
    "30%": {"field": {"field": "bucket", "numberRange": {"lt": 3}}},
}
LIMIT = 10


def matches(name: str, metadata: dict[str, Any]) -> bool:
    if name == "1%":
        return bool(metadata["customer"] == "c7")
    if name == "10%":
        return bool(metadata["region"] == "r3")
    return bool(metadata["bucket"] < 3)


async def load_collection(
    conn: Any, label: str, count: int, base: int, noise: float, verbatim: int | None = None
) -> tuple[uuid.UUID, uuid.UUID]:
    """A new organisation with one serving collection of `count` chunks, ten per document
    (the `base` table must hold `base` rows), the first `verbatim` (default `base`) with the
    base vectors unperturbed; returns (organisation, collection)."""
    org, cid = uuid.uuid4(), uuid.uuid4()
    await conn.execute(ve.ORG, org, label)
    await conn.execute(ve.COLLECTION, org, cid, label)
    await conn.execute(ve.GENERATION, org, cid)
    await conn.execute(SERVE, org, cid)
    await conn.execute(DOCUMENTS, org, cid, (count + 9) // 10)
    for start in range(1, count + 1, 10_000):
        end = min(count, start + 9_999)
        await conn.execute(
            CHUNKS, org, cid, start, end, base, noise, base if verbatim is None else verbatim
        )
    return org, cid


async def load(conn: Any, texts: list[str], vectors: Any, args: argparse.Namespace) -> Any:
    await ve.load_base(conn, texts, vectors)
    collections = {}
    for label, count in (("other", args.other), ("filtered", args.chunks)):
        h.note(f"loading {count} chunks ({label})")
        collections[label] = await load_collection(conn, label, count, len(texts), args.noise)
    return collections


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from google.protobuf import json_format

    from quire.indexer.worker import lexical_stats
    from quire.server.app import prepare_database
    from quire.server.config import Settings
    from quire.server.knowledge import search
    from quire.server.knowledge.reachable import ReachableCollection
    from quire.server.storage.database import apply_settings
    from quire.v1 import knowledge_pb2

    h.setup_logging()
    texts, vectors, queries, query_vectors = await ve.embedded_material(args.base, args.queries)
    tuning = search.DEFAULT_TUNING
    exact_tuning = dataclasses.replace(tuning, exact_vector_max_chunks=10**9)
    wheres = {
        name: json_format.ParseDict(f, knowledge_pb2.MetadataFilter())
        for name, f in FILTERS.items()
    }
    report: dict[str, Any] = {
        "benchmark": "filtered_search",
        "machine_at_start": h.machine(),
        "chunks": args.chunks,
        "other_chunks": args.other,
        "queries": len(queries),
        "limit": LIMIT,
        "filters": FILTERS,
    }
    async with h.database("bench_filtered") as url:
        pool = await prepare_database(url, Settings(database_url=url))
        try:
            async with pool.acquire() as conn:
                started = time.perf_counter()
                collections = await load(conn, texts, vectors, args)
                report["load_s"] = round(time.perf_counter() - started, 1)
                report["hnsw_build_s"] = await ve.build_hnsw(conn)
                for org, cid in collections.values():
                    await lexical_stats.refresh(conn, org, cid, 1)
                await conn.execute("VACUUM ANALYZE")
                org, cid = collections["filtered"]
                metadata = {
                    r["document_id"]: json.loads(r["metadata"])
                    for r in await conn.fetch(
                        "SELECT document_id, metadata FROM documents WHERE org_id = $1", org
                    )
                }
            reached = [ReachableCollection(cid, 1, 1, settled=True)]

            async def run(q: str, v: Any, where: Any, tune: Any) -> tuple[list[str], float]:
                async with (
                    pool.acquire() as conn,
                    conn.transaction(isolation="repeatable_read", readonly=True),
                ):
                    await apply_settings(conn, tune.settings())
                    started = time.perf_counter()
                    hits = await search.hybrid(conn, org, reached, q, v, LIMIT, tune, where=where)
                    return [x.document_id for x in hits], time.perf_counter() - started

            cells = ["unfiltered", *wheres]
            times: dict[str, list[float]] = {c: [] for c in cells}
            recalls: dict[str, list[float]] = {c: [] for c in wheres}
            mismatched = {c: 0 for c in wheres}
            short = {c: 0 for c in wheres}
            for q, v in list(zip(queries, query_vectors, strict=True))[:5]:  # warm-up
                for name in cells:
                    await run(q, v, wheres.get(name), tuning)
            h.note("querying")
            for n, (q, v) in enumerate(zip(queries, query_vectors, strict=True)):
                order = cells[n % len(cells) :] + cells[: n % len(cells)]
                for name in order:
                    ids, elapsed = await run(q, v, wheres.get(name), tuning)
                    times[name].append(elapsed)
                    if name == "unfiltered":
                        continue
                    truth, _ = await run(q, v, wheres[name], exact_tuning)
                    recalls[name].append(len(set(ids) & set(truth)) / max(1, len(truth)))
                    mismatched[name] += sum(not matches(name, metadata[uuid.UUID(d)]) for d in ids)
                    short[name] += len(ids) < LIMIT
        finally:
            await pool.close()
    report["latency"] = {name: h.summary_ms(values) for name, values in times.items()}
    base_p95 = report["latency"]["unfiltered"]["p95_ms"]
    report["filtered"] = {
        name: {
            "recall_at_10_vs_exact_filtered": round(sum(r) / len(r), 4),
            "p95_over_unfiltered_p95": h.ratio(report["latency"][name]["p95_ms"], base_p95, 2),
            "hits_not_matching_the_filter": mismatched[name],
            "queries_with_fewer_than_limit_hits": short[name],
        }
        for name, r in recalls.items()
    }
    report["machine_at_end"] = h.machine()
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--other", type=int, default=50_000, help="another tenant's chunks")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--base", type=int, default=2000, help="real chunk vectors to copy")
    parser.add_argument("--noise", type=float, default=0.03)
    parser.add_argument("--out", default=None)
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), Path(arguments.out) if arguments.out else None)

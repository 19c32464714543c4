"""SearchKnowledge latency and throughput, LEGACY_FTS and HYBRID, over gRPC beside the same SQL
on asyncpg, in one run. Prints JSON.

    .venv/bin/python benchmarks/knowledge_search.py [--documents 1000] [--requests 200]
        [--concurrency 1,16,64] [--quick]

Ingests the first `--documents` SciFact abstracts into one collection of a fresh database
(through `runner.store_texts`, the UploadDocument storage path, and the in-process worker),
then for each mode (set with SetRetrievalPolicy) and concurrency runs `--requests` distinct
SciFact training claims, limit 10:

- service: `AsyncQuireClient.search_knowledge(collection_ids=[...])` against Quire in this
  process: key check, policy and scope lookups, result-cache lookup (and, for LEGACY_FTS, the
  cache write), the search, protobuf, gRPC;
- direct: the same retrieval SQL in a read-only REPEATABLE READ transaction on the same pool:
  `knowledge.search.legacy` (LEGACY), or the query embedding + tuning settings +
  `knowledge.search.hybrid` (BM25, the vector arm, FILE_NAME, DOCUMENTS, CHUNKS).

HYBRID runs twice: with the serving tuning (convex fusion, exact vector arm up to
`exact_vector_max_chunks`), and as HYBRID_PREVIOUS with `search.PREVIOUS_TUNING` (RRF k 5,
depth 100, HNSW always: what served before), service and direct alike, so the two compare
within one run.

The search cache is emptied before every cell and each cell's queries are distinct, so no
service call is a cache hit (the JSON counts `cached` replies to prove it). Reports p50/p95/p99,
throughput and service/direct ratios (goal: service p50 ≤ 1.5× direct).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from dataclasses import asdict
from itertools import islice
from pathlib import Path
from typing import Any

import _harness as h

LIMIT = 10


def load_queries(n: int) -> list[str]:
    """The first `n` distinct claims: SciFact train repeats a few, and a repeat would be
    answered from the search cache."""
    with (h.SCIFACT / "queries-train.jsonl").open(encoding="utf-8") as fh:
        distinct = dict.fromkeys(q["text"] for q in map(json.loads, fh))
    return list(islice(distinct, n))


async def ingest(quire: h.Quire, org_id: uuid.UUID, cid: uuid.UUID, n: int) -> dict[str, Any]:
    from quire.server.gate import runner

    with (h.SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
        docs = [
            (d["_id"], f"{d.get('title', '')}\n\n{d.get('text', '')}".strip())
            for d in map(json.loads, islice(fh, n))
        ]
    started = time.perf_counter()
    await runner.store_texts(quire.pool, org_id, cid, docs)
    async with quire.pool.acquire() as conn:
        while True:
            row = await conn.fetchrow(
                "SELECT (SELECT count(*) FROM jobs WHERE org_id = $1 "
                "AND state IN ('queued', 'running')) AS pending, "
                "(SELECT serving_generation FROM collections WHERE org_id = $1 "
                "AND collection_id = $2) AS gen, "
                "(SELECT revision FROM collections WHERE org_id = $1 "
                "AND collection_id = $2) AS revision, "
                "(SELECT settled_revision = revision FROM collections WHERE org_id = $1 "
                "AND collection_id = $2) AS settled",
                org_id,
                cid,
            )
            if row["pending"] == 0 and (row["gen"] or 0) > 0 and row["settled"]:
                break
            if time.perf_counter() - started > max(180.0, n * 1.0):
                raise SystemExit(f"ingestion did not finish: {dict(row)}")
            await asyncio.sleep(0.2)
        chunks = await conn.fetchval(
            "SELECT count(*) FROM knowledge_chunks WHERE org_id = $1 AND generation = $2",
            org_id,
            row["gen"],
        )
    return {
        "documents": len(docs),
        "chunks": chunks,
        "seconds": round(time.perf_counter() - started, 1),
        "generation": row["gen"],
        "revision": row["revision"],
    }


class Direct:
    def __init__(
        self, quire: h.Quire, org_id: uuid.UUID, collections: Any, embeddings: Any
    ) -> None:
        from quire.server.knowledge import search

        self.pool = quire.pool
        self.org_id = org_id
        self.collections = collections
        self.embeddings = embeddings
        self.tuning: Any = search.DEFAULT_TUNING

    async def legacy(self, query: str) -> int:
        from quire.server.knowledge import search
        from quire.server.storage.database import SET_CONFIG

        async with (
            self.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            await conn.execute(SET_CONFIG, "statement_timeout", "30000")
            hits = await search.legacy(
                conn, self.org_id, [c.collection_id for c in self.collections], query, LIMIT
            )
        return len(hits)

    async def hybrid(self, query: str) -> int:
        from quire.server.knowledge import search
        from quire.server.storage.database import SET_CONFIG, apply_settings

        # As the service: the text-only arms run while the query is embedded (unless queued).
        vectors = await self.embeddings.start_queries([query])

        async def first() -> Any:
            return (await vectors)[0]

        async with (
            self.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            await conn.execute(SET_CONFIG, "statement_timeout", "30000")
            await apply_settings(conn, self.tuning.settings())
            hits = await search.hybrid(
                conn, self.org_id, self.collections, query, first(), LIMIT, self.tuning
            )
        return len(hits)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.server.knowledge import search
    from quire.server.knowledge.reachable import ReachableCollection

    h.setup_logging(args.verbose)
    n_docs = args.documents or (200 if args.quick else 1000)
    requests = args.requests or (40 if args.quick else 200)
    concurrencies = [int(c) for c in args.concurrency.split(",") if c]
    queries = load_queries(809)
    if requests > len(queries):
        raise SystemExit(f"at most {len(queries)} requests per cell (distinct claims)")
    report: dict[str, Any] = {
        "benchmark": "knowledge_search",
        "machine_at_start": h.machine(),
        "quick": bool(args.quick),
        "requests_per_cell": requests,
        "concurrency": concurrencies,
        "limit": LIMIT,
    }
    embeddings = h.load_model()
    async with (
        h.database("bench_knowledge") as url,
        h.Quire(url, embeddings=embeddings, worker=True) as quire,
    ):
        key = await quire.key()
        async with quire.client(key.token) as client:
            collection = await client.create_collection(name="scifact")
            cid = uuid.UUID(collection.collection_id)
            h.note(f"ingesting {n_docs} SciFact documents")
            report["ingest"] = await ingest(quire, key.org_id, cid, n_docs)
            ing = report["ingest"]
            collections = [ReachableCollection(cid, ing["revision"], ing["generation"])]
            direct = Direct(quire, key.org_id, collections, embeddings)
            report["modes"] = {}
            service = quire.running.services.knowledge
            for label, mode, direct_call, tuning in (
                ("LEGACY_FTS", "LEGACY_FTS", direct.legacy, search.DEFAULT_TUNING),
                ("HYBRID", "HYBRID", direct.hybrid, search.DEFAULT_TUNING),
                ("HYBRID_PREVIOUS", "HYBRID", direct.hybrid, search.PREVIOUS_TUNING),
            ):
                service.knowledge_search.tuning = direct.tuning = tuning
                policy = await client.set_retrieval_policy(mode=mode, max_search_limit=LIMIT)
                cells: dict[str, Any] = {}
                for concurrency in concurrencies:
                    h.note(f"{label} at concurrency {concurrency}")
                    cells[str(concurrency)] = await cell(
                        quire,
                        key.org_id,
                        client,
                        str(cid),
                        direct_call,
                        queries,
                        requests,
                        concurrency,
                        args.max_cell_s,
                    )
                report["modes"][label] = {
                    "effective_mode": policy.effective_mode,
                    "tuning": asdict(tuning) if mode == "HYBRID" else None,
                    "cells": cells,
                }
            service.knowledge_search.tuning = search.DEFAULT_TUNING
        report["peak_rss_mb"] = h.peak_rss_mb()
    report["ratios_p50"] = {
        mode: {c: v["ratio_p50"] for c, v in m["cells"].items()}
        for mode, m in report["modes"].items()
    }
    report["hybrid_over_previous_p50"] = {
        side: {
            c: h.ratio(
                report["modes"]["HYBRID"]["cells"][c][side].get("p50_ms"),
                report["modes"]["HYBRID_PREVIOUS"]["cells"][c][side].get("p50_ms"),
                2,
            )
            for c in report["modes"]["HYBRID"]["cells"]
        }
        for side in ("service", "direct")
    }
    report["targets"] = {
        "service_over_direct_p50": {"goal": 1.5},
        "hybrid_over_previous_p50": {"goal": 1.2},
    }
    return report


async def cell(
    quire: h.Quire,
    org_id: uuid.UUID,
    client: Any,
    cid: str,
    direct_call: Any,
    queries: list[str],
    requests: int,
    concurrency: int,
    max_cell_s: float,
) -> dict[str, Any]:
    cached = 0

    async def service(i: int) -> None:
        nonlocal cached
        reply = await client.search_knowledge(query=queries[i], collection_ids=[cid], limit=LIMIT)
        cached += int(reply.cached)

    async with quire.pool.acquire() as conn:
        await conn.execute("DELETE FROM search_cache WHERE org_id = $1", org_id)
    # Warm-up on claims from the end of the list, never measured.
    warm = [len(queries) - 1 - i for i in range(5)]
    for i in warm:
        await service(i)
        await direct_call(queries[i])
    cached = 0
    s, d = await h.run_side_by_side(
        service,
        lambda i: direct_call(queries[i]),
        requests=requests,
        concurrency=concurrency,
        deadline_s=max_cell_s,
    )
    sd, dd = s.as_dict(), d.as_dict()
    sd["cached_replies"] = cached
    return h.compared(sd, dd, "p50_ms", "p95_ms", "throughput_rps")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=0, help="default 1000")
    parser.add_argument("--requests", type=int, default=0, help="per cell, default 200 (≤ 809)")
    parser.add_argument("--concurrency", default="1,16,64")
    parser.add_argument("--max-cell-s", type=float, default=60.0, help="time bound per cell")
    parser.add_argument("--quick", action="store_true", help="200 documents, 40 requests")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), arguments.out)

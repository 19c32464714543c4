"""Does a second loaded model slow the first one's searches? SearchKnowledge HYBRID p50 on a
MiniLM collection in a single-model deployment beside the same collection in a deployment that
also loads bge-small-en-v1.5, in one run. Prints JSON.

    .venv/bin/python benchmarks/two_models.py [--documents 300] [--requests 100] [--out FILE]

One database, three phases of Quire in this process. "single": the default model only; the
first `--documents` SciFact abstracts go into a MiniLM collection (`runner.store_texts`, the
UploadDocument storage path), then a cell on it. "both": both models and a worker each (as
`quire up --models bge-small-en-v1.5`); the same abstracts into a bge collection, then cells on
the MiniLM collection alone, the bge collection alone, and both at once (a loop on each
collection side by side: each model's queries embedded while the other's are). "single" again:
the MiniLM cell once more, so neither deployment is always the warmer one. A cell: at
concurrency 1, `--requests` distinct training claims (limit 10, HYBRID), search cache emptied
first so no reply is a cache hit. Goal (issue 32): the MiniLM collection's p50 with both models
loaded within noise of the single-model deployment's (mean of its two cells; ratio ≤ 1.1).

bge-small-en-v1.5 must be prepared (`quire model prepare --model bge-small-en-v1.5`).
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import _harness as h
from knowledge_search import LIMIT, ingest, load_queries

BGE = "bge-small-en-v1.5"


async def searches(
    quire: h.Quire, org_id: uuid.UUID, client: Any, cid: str, queries: list[str]
) -> h.LoadResult:
    """The claims one after another on one collection, after a warm-up of five others."""
    from quire.v1 import knowledge_pb2

    async def one(i: int) -> None:
        reply = await client.search_knowledge(
            query=queries[i],
            collection_ids=[cid],
            limit=LIMIT,
            mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID,
        )
        assert not reply.cached, "a cached reply would not embed its query"

    for i in range(len(queries) - 5, len(queries)):
        await one(i)
    return await h.run_load(one, requests=len(queries) - 5, concurrency=1)


async def cell(
    quire: h.Quire, org_id: uuid.UUID, client: Any, cids: dict[str, str], queries: list[str]
) -> dict[str, Any]:
    async with quire.pool.acquire() as conn:
        await conn.execute("DELETE FROM search_cache WHERE org_id = $1", org_id)
    results = await asyncio.gather(
        *(searches(quire, org_id, client, cid, queries) for cid in cids.values())
    )
    return {name: r.as_dict() for name, r in zip(cids, results, strict=True)}


async def main(args: argparse.Namespace) -> dict[str, Any]:
    h.setup_logging(args.verbose)
    queries = load_queries(args.requests + 5)
    report: dict[str, Any] = {
        "benchmark": "two_models",
        "machine_at_start": h.machine(),
        "documents": args.documents,
        "requests_per_cell": args.requests,
        "concurrency": 1,
        "mode": "HYBRID",
    }
    minilm = h.load_model()
    bge = h.load_model(name=BGE)
    cids: dict[str, str] = {}
    report["ingest"] = {}
    singles: list[dict[str, Any]] = []

    async def fill(quire: h.Quire, client: Any, org_id: uuid.UUID, name: str, model: str) -> None:
        made = await client.create_collection(name=name, embedding_model=model)
        cids[name] = made.collection_id
        h.note(f"ingesting {args.documents} documents into {name}")
        report["ingest"][name] = await ingest(
            quire, org_id, uuid.UUID(made.collection_id), args.documents
        )

    async def single(quire: h.Quire, client: Any, org_id: uuid.UUID) -> None:
        h.note("default model only: minilm_alone")
        singles.append(await cell(quire, org_id, client, {"minilm": cids["minilm"]}, queries))

    async with h.database("bench_two_models") as url:
        # single, both, single again: neither deployment is always the warmer one.
        async with h.Quire(url, embeddings=minilm, worker=True) as quire:
            key = await quire.key()
            async with quire.client(key.token) as client:
                await fill(quire, client, key.org_id, "minilm", "")
                await client.set_retrieval_policy(mode="HYBRID", max_search_limit=LIMIT)
                await single(quire, client, key.org_id)
        async with h.Quire(url, embeddings=minilm, worker=True, extra_models={BGE: bge}) as quire:
            async with quire.client(key.token) as client:
                await fill(quire, client, key.org_id, "bge", BGE)
                both: dict[str, Any] = {}
                for label, chosen in (
                    ("minilm_alone", {"minilm": cids["minilm"]}),
                    ("bge_alone", {"bge": cids["bge"]}),
                    ("side_by_side", cids),
                ):
                    h.note(f"both models loaded: {label}")
                    both[label] = await cell(quire, key.org_id, client, chosen, queries)
                report["both_models_loaded"] = both
            report["peak_rss_mb_both"] = h.peak_rss_mb()
        async with h.Quire(url, embeddings=minilm) as quire, quire.client(key.token) as client:
            await single(quire, client, key.org_id)
    bge.close()
    minilm.close()
    report["single_model"] = {"minilm_alone_before": singles[0], "minilm_alone_after": singles[1]}
    single_p50 = sum(s["minilm"]["p50_ms"] for s in singles) / len(singles)
    report["single_model_p50_ms_mean"] = round(single_p50, 3)
    report["ratios_p50"] = {
        "minilm_both_loaded_over_single": h.ratio(
            both["minilm_alone"]["minilm"]["p50_ms"], single_p50
        ),
        "minilm_beside_bge_searches_over_single": h.ratio(
            both["side_by_side"]["minilm"]["p50_ms"], single_p50
        ),
        "bge_over_minilm_both_loaded": h.ratio(
            both["bge_alone"]["bge"]["p50_ms"], both["minilm_alone"]["minilm"]["p50_ms"]
        ),
    }
    report["goal"] = "minilm_both_loaded_over_single <= 1.1"
    report["machine_at_end"] = h.machine()
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    arguments = parser.parse_args()
    started = time.perf_counter()
    result = h.run(main(arguments))
    result["wall_s"] = round(time.perf_counter() - started, 1)
    h.emit(result, arguments.out)

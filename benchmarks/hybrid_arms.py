"""Where one organisation's knowledge HYBRID search spends its time, and what running the
exact vector scan beside the text arms saves, in one run. Prints JSON.

    .venv/bin/python benchmarks/hybrid_arms.py [--chunks 10000] [--others 0]
        [--queries 100] [--out FILE]

One throw-away database: an organisation of `--chunks` chunks, plus `--others` organisations
of as many chunks each (their rows share the indexes), made as scale.py makes them. Per
SciFact claim (embedded beforehand), in one read-only repeatable-read transaction with the
serving settings: each statement of the search alone (term statistics, BM25 arm, file-name
arm, exact vector arm, the hits' details), then `search.hybrid` with every arm on one
connection ("sequential") and with the exact scan beside the text arms on a second
connection of the pool ("beside", as the service runs it), the two in alternating order.
Reports p50/p95 per step, beside ÷ sequential, and whether both gave the same hits with the
same scores for every claim.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import _harness as h
import scale
import vector_exact as ve


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.server.app import prepare_database
    from quire.server.config import Settings
    from quire.server.knowledge import bm25, search
    from quire.server.knowledge.reachable import ReachableCollection
    from quire.server.storage.database import apply_settings

    h.setup_logging()
    texts, vectors, queries, query_vectors = await ve.embedded_material(4000, args.queries)
    tuning = search.DEFAULT_TUNING
    report: dict[str, Any] = {
        "benchmark": "hybrid_arms",
        "chunks": args.chunks,
        "other_organisations": args.others,
        "queries": len(queries),
        "machine_at_start": h.machine(),
    }
    setup = argparse.Namespace(noise=0.03, hnsw_memory="4GB", parts="knowledge")
    total = args.chunks * (1 + args.others)
    layout = [1 + args.others] * (1 + args.others)
    times: dict[str, list[float]] = {}
    same = 0
    async with h.database("bench_hybrid_arms") as url:
        pool = await prepare_database(url, Settings(database_url=url))
        try:
            orgs = await scale.prepare(url, total, layout, texts, vectors, setup, {})
            _, org, cid = orgs[-1]
            assert cid is not None
            collections = [ReachableCollection(cid, 1, 1, settled=True)]

            @contextlib.contextmanager
            def clock(name: str) -> Iterator[None]:
                started = time.perf_counter()
                yield
                times.setdefault(name, []).append(time.perf_counter() - started)

            for n, (q, v) in enumerate(zip(queries, query_vectors, strict=True)):
                async with (
                    pool.acquire() as conn,
                    conn.transaction(isolation="repeatable_read", readonly=True),
                ):
                    await apply_settings(conn, tuning.settings())
                    with clock("term_statistics"):
                        await conn.fetch(bm25.TERMS, org, [cid], [1], q)
                    with clock("bm25_arm"):
                        await bm25.rank_chunks(
                            conn,
                            org,
                            [cid],
                            [1],
                            q,
                            tuning.depth,
                            k1=tuning.k1,
                            b=tuning.b,
                            max_df_ratio=tuning.max_df_ratio,
                        )
                    with clock("file_name_arm"):
                        await conn.fetch(search.FILE_NAME, org, [cid], q.strip(), tuning.depth)
                    with clock("exact_vector_arm"):
                        await search.vector_rows(
                            conn, org, [cid], [1], v, tuning.depth, tuning, exact=True
                        )
                    arms = await search.gather_arms(conn, org, collections, q, v, tuning)
                    with clock("hits_for"):
                        await search.hits_for(conn, org, collections, q, arms, tuning, 10)
                    found = {}
                    for way in ("sequential", "beside") if n % 2 == 0 else ("beside", "sequential"):
                        with clock(way):
                            hits = await search.hybrid(
                                conn,
                                org,
                                collections,
                                q,
                                v,
                                10,
                                tuning,
                                pool=pool if way == "beside" else None,
                            )
                        found[way] = [(x.document_id, x.score) for x in hits]
                    same += found["sequential"] == found["beside"]
        finally:
            await pool.close()
    # The first five claims warm the caches.
    report |= {name: h.summary_ms(values[5:]) for name, values in times.items()}
    report["beside_over_sequential_p50"] = h.ratio(
        report["beside"]["p50_ms"], report["sequential"]["p50_ms"]
    )
    report["beside_over_sequential_p95"] = h.ratio(
        report["beside"]["p95_ms"], report["sequential"]["p95_ms"]
    )
    report["same_hits_and_scores"] = f"{same} of {len(queries)}"
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--others", type=int, default=0, help="other organisations as large")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--out", default=None, help="also write the JSON here")
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), Path(arguments.out) if arguments.out else None)

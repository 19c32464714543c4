"""The pages full-text arm with page_chunks' GIN indexes leading with the tenant (migration
0012) against GIN indexes of the tsvectors alone (before it), in one run. Prints JSON.

    .venv/bin/python benchmarks/tenant_text_index.py [--namespaces 50] [--chunks 10000]
        [--queries 100] [--out FILE]

One throw-away database holds `--namespaces` page namespaces of `--chunks` chunks each, made
as scale.py makes them (benchmarks/scale_pages.py: SciFact chunk texts, their english and
simple analyses, term statistics as a sync derives them). One namespace chosen at random is
searched: the full-text arm alone (`pages.search.arm_candidates(..., "fts")`, with the
serving settings) for `--queries` SciFact claims, after a warm-up pass, three times: with
the tenant-leading indexes, after rebuilding them as tsvector-only indexes, and after
rebuilding them tenant-leading again (so drift between passes shows). Reports p50/p95 per
pass and whether the three passes returned the same candidates.
"""

from __future__ import annotations

import argparse
import random
import time
import uuid
from pathlib import Path
from typing import Any

import _harness as h
import scale_pages as sp
import vector_exact as ve

INDEXES = {
    "tenant_leading": ("org_id, namespace, tsv", "org_id, namespace, stem_tsv"),
    "tsvector_only": ("tsv", "stem_tsv"),
}


async def rebuild(conn: Any, layout: str) -> None:
    plain, stemmed = INDEXES[layout]
    await conn.execute("DROP INDEX page_chunks_tsv")
    await conn.execute("DROP INDEX page_chunks_stem_tsv")
    await conn.execute(f"CREATE INDEX page_chunks_tsv ON page_chunks USING gin ({plain})")
    await conn.execute(f"CREATE INDEX page_chunks_stem_tsv ON page_chunks USING gin ({stemmed})")
    await conn.execute("ANALYZE page_chunks")


async def main(args: argparse.Namespace) -> dict[str, Any]:
    import asyncpg

    from quire.indexer.pages import term_stats
    from quire.server.app import prepare_database
    from quire.server.config import Settings
    from quire.server.pages import search
    from quire.server.retrieval import search_config
    from quire.server.storage.database import apply_settings

    h.setup_logging()
    texts, vectors, queries, query_vectors = await ve.embedded_material(4000, args.queries)
    report: dict[str, Any] = {
        "benchmark": "tenant_text_index",
        "namespaces": args.namespaces,
        "chunks_per_namespace": args.chunks,
        "queries": len(queries),
        "machine_at_start": h.machine(),
    }
    tuning = search.PageTuning()
    settings = {
        **search_config.to_settings(search_config.DEPLOYMENT_DEFAULT),
        **search._arm_settings(tuning.depth),
    }
    async with h.database("bench_tenant_text") as url:
        pool = await prepare_database(url, Settings(database_url=url))
        conn = await asyncpg.connect(url)
        try:
            await ve.load_base(conn, texts, vectors)
            await sp.prepare_base(conn)
            orgs = [uuid.uuid4() for _ in range(args.namespaces)]
            h.note(f"loading {args.namespaces} namespaces of {args.chunks} chunks")
            for n, org in enumerate(orgs):
                verbatim = 0 if n else len(texts)
                await sp.load_namespace(
                    conn, org, f"org-{n}", args.chunks, len(texts), 0.03, verbatim
                )
            for org in orgs:
                await term_stats.refresh(conn, org, sp.NAMESPACE_NAME)
            await conn.execute(term_stats.VACUUM_ANALYZE)
            searched = random.Random(args.seed).choice(orgs)
            target = search.SearchedNamespace(searched, sp.NAMESPACE_NAME, True)

            async def one_pass() -> tuple[dict[str, Any], list[Any]]:
                times, found = [], []
                for q, v in zip(queries, query_vectors, strict=True):
                    async with (
                        pool.acquire() as c,
                        c.transaction(isolation="repeatable_read", readonly=True),
                    ):
                        await apply_settings(c, settings)
                        started = time.perf_counter()
                        keys = await search.arm_candidates(c, target, q, v, tuning, "fts")
                        times.append(time.perf_counter() - started)
                        found.append(keys)
                return h.summary_ms(times), found

            results = []
            for label, layout in (
                ("tenant_leading", "tenant_leading"),
                ("tsvector_only", "tsvector_only"),
                ("tenant_leading_again", "tenant_leading"),
            ):
                if label != "tenant_leading":
                    await rebuild(conn, layout)
                h.note(f"pass: {label}")
                await one_pass()  # warm-up
                report[label], found = await one_pass()
                results.append(found)
            report["same_results"] = results[0] == results[1] == results[2]
            report["p50_ratio_tsvector_only_over_tenant_leading"] = h.ratio(
                report["tsvector_only"]["p50_ms"], report["tenant_leading"]["p50_ms"]
            )
        finally:
            await conn.close()
            await pool.close()
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--namespaces", type=int, default=50)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--out", default=None, help="also write the JSON here")
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), Path(arguments.out) if arguments.out else None)

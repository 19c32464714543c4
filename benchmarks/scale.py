"""The scale curve: one organisation's knowledge HYBRID search as the corpus grows from 10k to
1M chunks spread over 1, 10 and 100 organisations. Prints JSON.

    .venv/bin/python benchmarks/scale.py [--totals 10000,100000,1000000] [--splits 1,10,100]
        [--queries 100] [--truth-queries 50] [--base 4000] [--noise 0.03]
        [--hnsw-memory 4GB] [--seed 7] [--parts knowledge,pages] [--out FILE] [--merge]
        [--svg FILE]
    .venv/bin/python benchmarks/scale.py --plot-from FILE --svg FILE

Cells are (total chunks, organisations), one collection per organisation, the chunks split
evenly. Databases, each a throw-away embedded PostgreSQL (every migration applied):

- 1 organisation: a database holding the total in one collection.
- 10 and 100 organisations share one database of the total: one organisation holds a tenth
  (the 10-organisation cell's) and 90 hold a hundredth each (one of them, chosen at random
  with --seed, is the 100-organisation cell's). The searched organisation sees what it would
  in an even split: its own chunk count, a shared HNSW graph and GIN index of the total, its
  own term statistics. Only who owns the other chunks differs (90 small tenants instead of 9
  large ones next to the 10-organisation cell's), which no statement of one organisation's
  search reads. This saves loading and indexing the total twice.

How the rows are made (the loaders of benchmarks/vector_exact.py and filtered_search.py):
the first `--base` chunks of SciFact's corpus (title and abstract, cut by the indexer's
chunker) are embedded with the real all-MiniLM-L6-v2 model. Chunk i of a collection copies
base row (i - 1) mod base: its text and tsvector verbatim, its vector verbatim for the first
`base` chunks, after that perturbed by gaussian noise (σ `--noise` per dimension) and
renormalised (a copy's cosine to its original is about 0.8); only a database's first
collection has the unperturbed vectors (equal vectors would share one HNSW element). Ten
chunks per document; documents carry small metadata. Term statistics are derived as the worker does
(indexer/worker/lexical_stats.refresh). The HNSW index (pgvector defaults, m 16,
ef_construction 64) is built once after the load; build time is its CREATE INDEX.

Per cell, `--queries` SciFact training claims (embedded beforehand: latency excludes the
query's embedding) run `search.hybrid` at limit 10 in a repeatable-read transaction holding
the serving settings (search.DEFAULT_TUNING: an exact vector scan up to 20,000 chunks in
scope, HNSW with iterative scans above), after 5 warm-up queries. Then the first
`--truth-queries` run the same search with the exact scan unbounded: recall@10 is the share
of its top 10 documents the served search found (HYBRID), and the share of the exact vector
arm's top 10 documents found by the served vector arm (`search.vector_only`, vector only).

Per database: load, HNSW build and statistics times; sizes (pg_relation_size) of the table
(with TOAST), its primary key, HNSW and GIN indexes, the documents' GIN indexes and the term
statistics; memory: shared_buffers, how much of it this database's pages fill
(pg_buffercache, when installed), and the PSS of the PostgreSQL processes after the queries.

Page search (SearchPages) is measured in the same databases (benchmarks/scale_pages.py says
how its rows are made): each organisation also holds one page namespace of as many chunks as
its collection, so a database holds the total twice, once per kind. Per cell, the same claims
run `pages.search.search_pages` as served (exact vector scan up to 2,000 chunks, HNSW above),
then with the exact scan unbounded: recall@10 of the hits (chunks), and of the vector arm.
`--parts knowledge` or `--parts pages` loads and measures one kind only; with `--merge`, the
other kind's figures already in `--out` are kept.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import random
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import _harness as h
import filtered_search as fs
import scale_pages
import vector_exact as ve

LIMIT = 10
SPLITS = (1, 10, 100)
SIZES = """
SELECT pg_table_size('knowledge_chunks') AS chunks_table,
       pg_relation_size('knowledge_chunks_pkey') AS chunks_primary_key,
       pg_relation_size('knowledge_chunks_embedding') AS chunks_hnsw,
       pg_relation_size('knowledge_chunks_tsv') AS chunks_gin_tsv,
       pg_relation_size('documents_text_tsv') AS documents_gin_text,
       pg_relation_size('documents_file_name') AS documents_gin_file_name,
       pg_relation_size('documents_metadata') AS documents_gin_metadata,
       pg_total_relation_size('lexeme_stats') AS lexeme_stats_total,
       pg_database_size(current_database()) AS database
"""
BUFFERS = """
SELECT count(*) FILTER (WHERE reldatabase = (SELECT oid FROM pg_database
                                              WHERE datname = current_database())) AS ours,
       count(*) FILTER (WHERE relfilenode IS NOT NULL) AS used,
       count(*) AS total
FROM pg_buffercache
"""


def layouts(total: int, splits: list[int]) -> list[list[int]]:
    """The databases for one total: each a list of organisations' split labels (the cell an
    organisation stands for); an organisation of split k holds total / k chunks."""
    out = [[1]] if 1 in splits else []
    if 10 in splits and 100 in splits:
        out.append([10] + [100] * 90)
    else:
        out += [[k] * k for k in splits if k != 1]
    return out


async def load(
    conn: Any, total: int, layout: list[int], base: int, noise: float
) -> list[tuple[int, uuid.UUID, uuid.UUID | None]]:
    """Loads one database's collections (copying `base` rows); returns (split, organisation,
    collection) each."""
    loaded = []
    for n, split in enumerate(layout):
        if n % 10 == 0:
            h.note(f"loading organisation {n + 1} of {len(layout)} ({total // split} chunks)")
        # The real vectors once (in the first collection), perturbed copies elsewhere: HNSW
        # folds equal vectors into one graph element.
        org, cid = await fs.load_collection(
            conn, f"split-{split}-{n}", total // split, base, noise, 0 if n else None
        )
        loaded.append((split, org, cid))
    return loaded


async def memory(conn: Any) -> dict[str, Any]:
    """shared_buffers, how much of it holds this database's pages, and the PostgreSQL
    processes' PSS (shared pages counted once, split between the processes mapping them)."""
    import psutil

    out: dict[str, Any] = {"shared_buffers": await conn.fetchval("SHOW shared_buffers")}
    with contextlib.suppress(Exception):
        await conn.execute("CREATE EXTENSION IF NOT EXISTS pg_buffercache")
        row = await conn.fetchrow(BUFFERS)
        out["buffers_8kb"] = dict(row)
    backend = psutil.Process(await conn.fetchval("SELECT pg_backend_pid()"))
    postmaster = backend.parent()
    if postmaster is not None:
        procs = [postmaster, *postmaster.children()]

        def pss(p: Any) -> float:
            with contextlib.suppress(psutil.Error):
                return float(p.memory_full_info().pss)
            return 0.0

        out["postgres_processes"] = len(procs)
        out["postgres_pss_mb"] = round(sum(pss(p) for p in procs) / 2**20, 1)
        out["serving_backend_rss_mb"] = h.rss_mb(backend.pid)
    return out


async def measure(
    pool: Any,
    org: uuid.UUID,
    cid: uuid.UUID,
    queries: list[str],
    vectors: Any,
    truth_queries: int,
) -> dict[str, Any]:
    """One cell: served HYBRID latency, then the exact search's for recall."""
    from quire.server.knowledge import search
    from quire.server.knowledge.reachable import ReachableCollection
    from quire.server.storage.database import apply_settings

    tuning = search.DEFAULT_TUNING
    exact = dataclasses.replace(tuning, exact_vector_max_chunks=10**9)
    collections = [ReachableCollection(cid, 1, 1, settled=True)]

    @contextlib.asynccontextmanager
    async def transaction(tune: Any) -> AsyncIterator[Any]:
        """A pooled connection in a read-only transaction holding `tune`'s settings."""
        async with (
            pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            await apply_settings(conn, tune.settings())
            yield conn

    async def served(q: str, v: Any) -> tuple[list[str], list[uuid.UUID], float]:
        async with transaction(tuning) as conn:
            started = time.perf_counter()
            hits = await search.hybrid(conn, org, collections, q, v, LIMIT, tuning, pool=pool)
            elapsed = time.perf_counter() - started
            nearest = await search.vector_only(conn, org, collections, v, LIMIT, tuning)
        return [x.document_id for x in hits], nearest, elapsed

    async def truth(q: str, v: Any) -> tuple[list[str], list[uuid.UUID], float]:
        async with transaction(exact) as conn:
            started = time.perf_counter()
            # What search.hybrid does, keeping the arms for the vector arm's documents.
            arms = await search.gather_arms(conn, org, collections, q, v, exact, pool=pool)
            hits = await search.hits_for(conn, org, collections, q, arms, exact, LIMIT)
            elapsed = time.perf_counter() - started
        nearest = list(dict.fromkeys(key[0] for key, _ in arms.vector))[:LIMIT]
        return [x.document_id for x in hits], nearest, elapsed

    pairs = list(zip(queries, vectors, strict=True))
    for q, v in pairs[:5]:
        await served(q, v)
    times: dict[str, list[float]] = {"served": [], "exact": []}
    got = []
    for q, v in pairs:
        ids, nearest, elapsed = await served(q, v)
        times["served"].append(elapsed)
        got.append((ids, nearest))
    # After the timed pass: the exact scans would push the served search's pages out of
    # shared buffers.
    hybrid_recall, vector_recall = [], []
    for (q, v), (ids, nearest) in zip(pairs[:truth_queries], got, strict=False):
        true_ids, true_nearest, elapsed = await truth(q, v)
        times["exact"].append(elapsed)
        hybrid_recall.append(len(set(ids) & set(true_ids)) / max(1, len(true_ids)))
        vector_recall.append(len(set(nearest) & set(true_nearest)) / max(1, len(true_nearest)))
    return {
        "hybrid": h.summary_ms(times["served"]),
        "exact_hybrid": h.summary_ms(times["exact"]),
        "hybrid_recall_at_10": round(sum(hybrid_recall) / len(hybrid_recall), 4),
        "vector_recall_at_10": round(sum(vector_recall) / len(vector_recall), 4),
        "truth_queries": len(hybrid_recall),
    }


async def prepare(
    url: str,
    total: int,
    layout: list[int],
    texts: list[str],
    vectors: Any,
    args: argparse.Namespace,
    record: dict[str, Any],
) -> list[tuple[int, uuid.UUID, uuid.UUID | None]]:
    """Loads and indexes one database (the parts asked for), noting times and sizes in
    `record` (the pages' under "pages"); returns (split, organisation, its collection or None
    without the knowledge part) per organisation. On
    a connection of its own: the HNSW build of a million chunks outlasts the pool's 60 s
    command timeout."""
    import asyncpg

    from quire.indexer.worker import lexical_stats

    parts = set(args.parts.split(","))
    conn = await asyncpg.connect(url)
    try:
        await ve.load_base(conn, texts, vectors)
        loaded: list[tuple[int, uuid.UUID, uuid.UUID | None]] = [
            (split, uuid.uuid4(), None) for split in layout
        ]
        if "knowledge" in parts:
            started = time.perf_counter()
            loaded = await load(conn, total, layout, len(texts), args.noise)
            record["load_s"] = round(time.perf_counter() - started, 1)
            record["hnsw_build_s"] = await ve.build_hnsw(conn, args.hnsw_memory)
            record["maintenance_work_mem"] = args.hnsw_memory
            record["max_parallel_maintenance_workers"] = await conn.fetchval(
                "SHOW max_parallel_maintenance_workers"
            )
            h.note("term statistics")
            started = time.perf_counter()
            for _, org, cid in loaded:
                assert cid is not None
                await lexical_stats.refresh(conn, org, cid, 1, analyze=False)
            record["term_statistics_s"] = round(time.perf_counter() - started, 1)
            started = time.perf_counter()
            await conn.execute("VACUUM ANALYZE")
            record["vacuum_analyze_s"] = round(time.perf_counter() - started, 1)
            record["sizes_mb"] = {
                k: round(v / 2**20, 1) for k, v in (await conn.fetchrow(SIZES)).items()
            }
        if "pages" in parts:
            record["pages"] = await scale_pages.prepare(
                conn,
                [(split, org, total // split) for split, org, _ in loaded],
                len(texts),
                args.noise,
                args.hnsw_memory,
            )
            record["pages"]["database_mb"] = round(
                await conn.fetchval("SELECT pg_database_size(current_database())") / 2**20, 1
            )
    finally:
        await conn.close()
    return loaded


async def run_database(
    total: int,
    layout: list[int],
    texts: list[str],
    vectors: Any,
    queries: list[str],
    query_vectors: Any,
    args: argparse.Namespace,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Loads, indexes and measures one database; returns (its record, its cells)."""
    from quire.server.app import prepare_database
    from quire.server.config import Settings
    from quire.server.knowledge import search

    record: dict[str, Any] = {
        "total_chunks": total,
        "organisations": len(layout),
        "chunks_per_organisation": sorted({total // k for k in layout}, reverse=True),
        "machine_at_start": h.machine(),
    }
    cells: dict[str, Any] = {}
    async with h.database(f"bench_scale_{total}") as url:
        pool = await prepare_database(url, Settings(database_url=url))
        try:
            orgs = await prepare(url, total, layout, texts, vectors, args, record)
            parts = set(args.parts.split(","))
            rng = random.Random(f"{args.seed}-{total}")
            for split in sorted(set(layout)):
                _, org, cid = rng.choice([x for x in orgs if x[0] == split])
                chunks = total // split
                h.note(f"querying {total} chunks / {split} organisations ({chunks} searched)")
                cell: dict[str, Any] = {
                    "total_chunks": total,
                    "organisations": split,
                    "chunks_searched": chunks,
                }
                if cid is not None:
                    cell |= {
                        "vector_arm": "exact"
                        if chunks <= search.DEFAULT_TUNING.exact_vector_max_chunks
                        else "hnsw",
                        "machine_at_start": h.machine(),
                    }
                    cell |= await measure(
                        pool, org, cid, queries, query_vectors, args.truth_queries
                    )
                if "pages" in parts:
                    cell["pages"] = {"machine_at_start": h.machine()}
                    cell["pages"] |= await scale_pages.measure(
                        pool, org, queries, query_vectors, args.truth_queries, LIMIT
                    )
                cells[f"{total}/{split}"] = cell
            async with pool.acquire() as conn:
                record["memory_after_queries"] = await memory(conn)
        finally:
            await pool.close()
    record["machine_at_end"] = h.machine()
    return record, cells


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.server.knowledge import search

    h.setup_logging()
    totals = [int(s) for s in args.totals.split(",") if s]
    splits = [int(s) for s in args.splits.split(",") if s]
    if not set(splits) <= set(SPLITS):
        raise SystemExit(f"--splits takes some of {SPLITS}")
    out = Path(args.out) if args.out else None
    report: dict[str, Any] = {}
    if args.merge and out is not None and out.exists():
        report = json.loads(out.read_text(encoding="utf-8"))
    report |= {
        "benchmark": "scale",
        "queries": args.queries,
        "truth_queries": args.truth_queries,
        "limit": LIMIT,
        "base_vectors": args.base,
        "noise_per_dimension": args.noise,
        "seed": args.seed,
        "exact_vector_max_chunks": search.DEFAULT_TUNING.exact_vector_max_chunks,
        "depth": search.DEFAULT_TUNING.depth,
        "settings": search.DEFAULT_TUNING.settings(),
    }
    report.setdefault("databases", {})
    report.setdefault("cells", {})
    texts, vectors, queries, query_vectors = await ve.embedded_material(args.base, args.queries)
    # Every split-10/100 database before the one-organisation ones: the largest single
    # collection comes last.
    plan = [(t, lay) for t in totals for lay in layouts(t, splits) if lay != [1]]
    plan += [(t, [1]) for t in totals if 1 in splits]
    for total, layout in plan:
        record, cells = await run_database(
            total, layout, texts, vectors, queries, query_vectors, args
        )
        # Merged key by key: a run of one part keeps the other part's figures.
        key = f"{total}/{len(layout)} organisations"
        report["databases"][key] = report["databases"].get(key, {}) | record
        for name, cell in cells.items():
            report["cells"][name] = report["cells"].get(name, {}) | cell
        report["machine_at_end"] = h.machine()
        if out is not None:  # a long run keeps what it measured so far
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
        if args.svg:
            await asyncio.to_thread(Path(args.svg).write_text, svg(report), encoding="utf-8")
    return report


# ------------------------------------------------------------------ the plot


def svg(report: dict[str, Any]) -> str:
    """Four small panels against total chunks (log scale): one organisation's knowledge
    HYBRID p95 and one namespace's SearchPages p95 (log scale, the 50 ms target dashed),
    HYBRID recall@10 against the exact search (the 0.95 target dashed), and the knowledge
    HNSW build time; one line per number of organisations."""
    import math

    cells = report.get("cells", {})
    totals = sorted({c["total_chunks"] for c in cells.values()}) or [10_000]
    colours = {1: "#c0392b", 10: "#2471a3", 100: "#229954"}
    width, height, panel_w, top, bottom = 1290, 330, 280, 40, 260
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    lo_t, hi_t = math.log10(min(totals)), math.log10(max(totals))

    def x_of(left: float, total: float) -> float:
        span = (hi_t - lo_t) or 1.0
        return left + 20 + (math.log10(total) - lo_t) / span * (panel_w - 60)

    def panel(
        n: int,
        title: str,
        values: dict[int, list[tuple[int, float]]],
        y_of: Any,
        ticks: list[tuple[float, str]],
        target: float | None,
    ) -> None:
        left = 50 + n * (panel_w + 40)
        parts.append(f'<text x="{left}" y="20" font-weight="bold">{title}</text>')
        parts.append(
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="black"/>'
            f'<line x1="{left}" y1="{bottom}" x2="{left + panel_w - 20}" y2="{bottom}" '
            'stroke="black"/>'
        )
        for value, label in ticks:
            y = y_of(value)
            parts.append(
                f'<line x1="{left}" y1="{y:.1f}" x2="{left + panel_w - 20}" y2="{y:.1f}" '
                f'stroke="#e5e5e5"/><text x="{left - 6}" y="{y + 4:.1f}" '
                f'text-anchor="end">{label}</text>'
            )
        for total in totals:
            x = x_of(left, total)
            label = f"{total // 1_000_000}M" if total >= 1_000_000 else f"{total // 1000}k"
            parts.append(f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">{label}</text>')
        if target is not None:
            y = y_of(target)
            parts.append(
                f'<line x1="{left}" y1="{y:.1f}" x2="{left + panel_w - 20}" y2="{y:.1f}" '
                'stroke="black" stroke-dasharray="5,4"/>'
            )
        # Fewer organisations drawn first and wider, so equal values stay visible.
        for series, points in sorted(values.items()):
            points = sorted(points)
            xy = " ".join(f"{x_of(left, t):.1f},{y_of(v):.1f}" for t, v in points)
            colour = colours.get(series, "black")
            wide = {1: 6, 10: 4}.get(series, 2)
            parts.append(
                f'<polyline points="{xy}" fill="none" stroke="{colour}" stroke-width="{wide}"/>'
            )
            for t, v in points:
                parts.append(
                    f'<circle cx="{x_of(left, t):.1f}" cy="{y_of(v):.1f}" r="{wide / 2 + 2}" '
                    f'fill="{colour}"/>'
                )

    def series(key: Any) -> dict[int, list[tuple[int, float]]]:
        out: dict[int, list[tuple[int, float]]] = {}
        for c in cells.values():
            value = key(c)
            if value is not None:
                out.setdefault(c["organisations"], []).append((c["total_chunks"], value))
        return out

    p95 = series(lambda c: c["hybrid"]["p95_ms"] if "hybrid" in c else None)
    pages_p95 = series(lambda c: c["pages"]["search"]["p95_ms"] if "pages" in c else None)
    all_p95 = [v for s in (p95, pages_p95) for pts in s.values() for _, v in pts] or [1.0]
    lo_ms = 10 ** math.floor(math.log10(max(0.1, min([*all_p95, 50.0]))))
    hi_ms = 10 ** math.ceil(math.log10(max([*all_p95, 50.0])))

    def y_ms(v: float) -> float:
        share = (math.log10(max(v, lo_ms)) - math.log10(lo_ms)) / math.log10(hi_ms / lo_ms)
        return bottom - share * (bottom - top)

    ms_ticks = []
    tick = lo_ms
    while tick <= hi_ms:
        ms_ticks.append((tick, f"{tick:g}"))
        tick *= 10
    panel(0, "Knowledge HYBRID p95 (ms, log) — target 50", p95, y_ms, ms_ticks, 50.0)
    panel(1, "SearchPages p95 (ms, log) — 50 dashed", pages_p95, y_ms, ms_ticks, 50.0)

    recall = series(lambda c: c.get("hybrid_recall_at_10"))
    all_recall = [v for pts in recall.values() for _, v in pts] or [1.0]
    lo_r = min(0.9, math.floor(min(all_recall) * 10) / 10)

    def y_recall(v: float) -> float:
        return bottom - (v - lo_r) / (1.0 - lo_r) * (bottom - top)

    step = 0.05 if 1.0 - lo_r <= 0.3 else 0.1
    steps = round((1.0 - lo_r) / step)
    recall_ticks = [(lo_r + i * step, f"{lo_r + i * step:.2f}") for i in range(steps + 1)]
    recall_ticks.append((0.95, "0.95"))
    panel(2, "HYBRID recall@10 vs exact — target 0.95", recall, y_recall, recall_ticks, 0.95)

    builds: dict[int, list[tuple[int, float]]] = {}
    for record in report.get("databases", {}).values():
        k = 1 if record["organisations"] == 1 else 100
        if "hnsw_build_s" in record:
            builds.setdefault(k, []).append((record["total_chunks"], record["hnsw_build_s"]))
    hi_s = max([v for pts in builds.values() for _, v in pts] or [1.0])
    hi_s = 10 ** math.ceil(math.log10(max(hi_s, 1.0)))

    def y_s(v: float) -> float:
        share = math.log10(max(v, 1.0)) / math.log10(hi_s) if hi_s > 1 else 0.0
        return bottom - share * (bottom - top)

    s_ticks = [(10.0**i, f"{10**i:g}") for i in range(round(math.log10(hi_s)) + 1)]
    panel(3, "Knowledge HNSW build (s, log)", builds, y_s, s_ticks, None)
    legend = [(1, "1 organisation"), (10, "10 organisations"), (100, "100 organisations")]
    for i, (k, label) in enumerate(legend):
        x = 60 + i * 170
        parts.append(
            f'<line x1="{x}" y1="{height - 30}" x2="{x + 24}" y2="{height - 30}" '
            f'stroke="{colours[k]}" stroke-width="2"/>'
            f'<text x="{x + 30}" y="{height - 26}">{label}</text>'
        )
    parts.append(
        f'<text x="{width - 20}" y="{height - 26}" text-anchor="end">total chunks (log); '
        "build panel: 10/100-organisation database in green</text>"
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--totals", default="10000,100000,1000000")
    parser.add_argument("--splits", default="1,10,100")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--truth-queries", type=int, default=50, help="for recall@10")
    parser.add_argument("--base", type=int, default=4000, help="real chunk vectors to copy")
    parser.add_argument("--noise", type=float, default=0.03)
    parser.add_argument("--hnsw-memory", default="4GB", help="maintenance_work_mem of the build")
    parser.add_argument("--seed", type=int, default=7, help="picks the searched organisation")
    parser.add_argument(
        "--parts", default="knowledge,pages", help="knowledge, pages or both (comma-separated)"
    )
    parser.add_argument(
        "--out", default=None, help="also write the JSON here (after each database)"
    )
    parser.add_argument("--merge", action="store_true", help="keep the cells already in --out")
    parser.add_argument("--svg", default=None, help="also draw the curve here")
    parser.add_argument("--plot-from", default=None, help="only draw --svg from this JSON")
    arguments = parser.parse_args()
    if arguments.plot_from:
        saved = json.loads(Path(arguments.plot_from).read_text(encoding="utf-8"))
        Path(arguments.svg).write_text(svg(saved), encoding="utf-8")
    else:
        h.emit(h.run(main(arguments)), Path(arguments.out) if arguments.out else None)

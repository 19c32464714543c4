"""Retrieval quality and ranking stability on a BEIR data set through Quire's real upload,
indexing and search code. Prints JSON.

    .venv/bin/python benchmarks/quality.py [--dataset ../shared/data/scifact --split train]
        [--max-documents N --max-queries N] [--variant name:field=value,... ...] [--grid]
        [--no-stability] [--no-pages] [--disturb-documents N] [--model NAME] [--out DIR]
        [--text-config english|simple]

A throw-away database (embedded PostgreSQL in a temporary directory, or a new database on
QUIRE_DATABASE_URL) gets the data set indexed once into a scratch organisation. Every query's
arms are gathered once (depth 300), and LEGACY_FTS, vector-only, the lexical arm alone, the
serving HYBRID tuning, the previous one (RRF k 5, depth 100) and each variant are scored on the
DEV and HELD-OUT halves of the queries (sha256 of the query id, even: dev): tune on dev, read
held-out. `--grid` scores the fusion grid of docs/retrieval-quality.md and names the best cell on
dev.

Stability (unless --no-stability): the share of queries whose serving HYBRID top 10 (through
`search.hybrid`) is identical (i) on the same corpus ingested a second time into another
collection, (ii) before and after a gate run (`runner.run_gate`: ingest into a scratch
organisation, every query in every mode, purge), (iii) before and after another collection of
the organisation is created, filled (`--disturb-documents`, default the whole corpus) and
deleted (purge job included).

`--text-config simple` indexes with the `simple` lexical analysis that generations built
before migration 0020 keep, instead of new generations' English stems (the comparison of
docs/retrieval-quality.md, "Stemmed lexemes").

Published pages (unless --no-pages): `benchmarks/pages_quality.py` on the labelled FastAPI
questions — top-1 / top-3 / top-10 / MRR@10 per split and language, plain and with the
alternatives, and each arm alone — under "pages".

Writes quality.json, quality.md and quality.png to --out (default benchmarks/results), and
for a whole split the gate run of (ii) as gate-<split>.json (`quire gate run --json` form).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import time
import uuid
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import _harness as h

REPO = Path(__file__).resolve().parents[1]
GATHER_DEPTH = 300  # the deepest variant; shallower ones use a prefix of each arm
LIMIT = 10

# Named variants scored beside the serving tuning (fields of KnowledgeTuning).
VARIANTS: dict[str, dict[str, Any]] = {
    "rrf-k5-depth200": {"fusion": "rrf", "rrf_k": 5, "fts_weight": 1.0, "vector_weight": 1.0},
    "zscore-depth100": {"depth": 100},
    "zscore-depth300-v0.60": {"depth": 300, "vector_weight": 0.6, "fts_weight": 0.4},
    "zscore-nopad-v0.60": {"pad_sparse_arms": False, "vector_weight": 0.6, "fts_weight": 0.4},
    "zscore-v0.45": {"vector_weight": 0.45, "fts_weight": 0.55},
    "zscore-v0.65": {"vector_weight": 0.65, "fts_weight": 0.35},
    "minmax": {"normalisation": "minmax"},
    "minmax-nopad-v0.60": {
        "normalisation": "minmax",
        "pad_sparse_arms": False,
        "vector_weight": 0.6,
        "fts_weight": 0.4,
    },
}


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    name, _, body = text.partition(":")
    fields: dict[str, Any] = {}
    for part in filter(None, body.split(",")):
        key, _, value = part.partition("=")
        if value in ("true", "false"):
            fields[key] = value == "true"
        elif value.replace(".", "", 1).isdigit():
            fields[key] = float(value) if "." in value else int(value)
        else:
            fields[key] = value
    return name, fields


def half(query_id: str) -> str:
    """DEV or HELD-OUT, fixed by the query id alone."""
    return "dev" if int(hashlib.sha256(query_id.encode()).hexdigest(), 16) % 2 == 0 else "held_out"


def grid() -> list[tuple[str, dict[str, Any]]]:
    cells: list[tuple[str, dict[str, Any]]] = []
    for norm, pad, depth in itertools.product(
        ("zscore", "minmax"), (True, False), (50, 100, 150, 200, 300)
    ):
        for w in range(30, 85, 5):
            fields = {
                "normalisation": norm,
                "pad_sparse_arms": pad,
                "depth": depth,
                "vector_weight": w / 100,
                "fts_weight": round(1 - w / 100, 2),
            }
            cells.append((f"{norm}-{'pad' if pad else 'nopad'}-d{depth}-v{w / 100:.2f}", fields))
    for k, depth, lexical in itertools.product((2, 5, 10, 20, 60), (100, 300), (1.0, 1.3)):
        fields = {"fusion": "rrf", "rrf_k": k, "depth": depth, "fts_weight": lexical}
        fields["vector_weight"] = 1.0
        cells.append((f"rrf-k{k}-d{depth}-l{lexical}", fields))
    return cells


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """A small grouped bar chart (held-out nDCG@10 and Recall@100 per mode), with Pillow."""
    from PIL import Image, ImageDraw

    bars = [(r["name"], r["held_out"]["ndcg@10"], r["held_out"]["recall@100"]) for r in rows]
    width, height, left, bottom = 120 + 70 * len(bars), 360, 60, 300
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.line((left, 20, left, bottom), fill="black")
    draw.line((left, bottom, width - 10, bottom), fill="black")
    for tick in range(0, 11, 2):
        y = bottom - tick * 25
        draw.text((10, y - 6), f"{tick / 10:.1f}", fill="black")
        draw.line((left - 4, y, width - 10, y), fill=(225, 225, 225))
    for i, (label, ndcg, recall) in enumerate(bars):
        x = left + 20 + i * 70
        draw.rectangle((x, bottom - ndcg * 250, x + 25, bottom), fill=(52, 101, 164))
        draw.rectangle((x + 27, bottom - recall * 250, x + 52, bottom), fill=(115, 210, 22))
        draw.text((x, bottom + 5 + (i % 2) * 14), label[:18], fill="black")
    draw.text((left + 10, 5), "held-out nDCG@10 (blue), Recall@100 (green)", fill="black")
    image.save(path)


def markdown(report: dict[str, Any]) -> str:
    out = [
        "| mode / variant | dev nDCG@10 | dev R@100 | held-out nDCG@10 | held-out R@100 |",
        "|---|---|---|---|---|",
    ]
    for r in report["modes"] + report["variants"]:
        d, o = r["dev"], r["held_out"]
        out.append(
            f"| {r['name']} | {d['ndcg@10']:.4f} | {d['recall@100']:.4f} | "
            f"{o['ndcg@10']:.4f} | {o['recall@100']:.4f} |"
        )
    pages = report.get("pages")
    if pages:
        out += [
            "",
            "| pages (FastAPI questions) | split | top-1 | top-3 | top-10 | n | MRR@10 |",
            "|---|---|---|---|---|---|---|",
        ]
        for run in ("plain", "alternatives", "fts_alone", "vector_alone"):
            for split, m in pages.get(run, {}).items():
                if "/" in split:
                    out.append(
                        f"| {run} | {split} | {m['top1']} | {m['top3']} | {m['top10']} | "
                        f"{m['n']} | {m['mrr@10']:.3f} |"
                    )
    if report.get("stability"):
        out += ["", "| stability (identical top 10) | share |", "|---|---|"]
        for name, s in report["stability"].items():
            if isinstance(s, dict) and "identical_top10" in s:
                out.append(f"| {name} | {s['identical_top10']:.4f} ({s['queries']} queries) |")
    return "\n".join(out)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.indexer import fingerprint as fingerprint_module
    from quire.server.app import prepare_database
    from quire.server.config import Settings
    from quire.server.gate import dataset, runner
    from quire.server.gate.metrics import evaluate
    from quire.server.knowledge import search

    h.setup_logging()
    if args.text_config:
        # Read by the generation's creation and every fingerprint of the run.
        fingerprint_module.KNOWLEDGE_TEXT_CONFIG = args.text_config
    embeddings = h.load_model(name=args.model)
    data = dataset.load(
        Path(args.dataset),
        args.split,
        max_documents=args.max_documents,
        max_queries=args.max_queries,
    )
    halves = {
        name: {q: j for q, j in data.qrels.items() if half(q) == name}
        for name in ("dev", "held_out")
    }
    report: dict[str, Any] = {
        "benchmark": "quality",
        "machine_at_start": h.machine(),
        "dataset": data.name,
        "split": data.split,
        "documents": len(data.corpus),
        "queries": {"all": len(data.queries), **{k: len(v) for k, v in halves.items()}},
        "split_rule": "sha256(query id) even: dev, odd: held_out",
        "embedder": embeddings.fingerprint,
        "serving_tuning": asdict(search.DEFAULT_TUNING),
        "serving_fingerprint": search.serving_fingerprint(embeddings.fingerprint),
        "text_config": fingerprint_module.KNOWLEDGE_TEXT_CONFIG,
    }

    def scored(name: str, rankings: dict[str, list[str]], **extra: Any) -> dict[str, Any]:
        row: dict[str, Any] = {"name": name, **extra}
        for key, judged in halves.items():
            row[key] = evaluate(rankings, judged).as_dict()
        row["all"] = evaluate(rankings, data.qrels).as_dict()
        return row

    async def progress(stage: str, done: int, total: int) -> None:
        if done == total or done % 1000 == 0:
            h.note(f"{stage}: {done}/{total}")

    def score_gathered(index: Any, gathered: dict[str, Any]) -> dict[str, Any]:
        """The modes, the named variants and (with --grid) the fusion grid's best cells."""
        out: dict[str, Any] = {}
        ids = index.corpus_id
        serving_depth = search.DEFAULT_TUNING.depth
        out["modes"] = [
            scored("LEGACY_FTS", {q: g.legacy for q, g in gathered.items()}),
            scored("vector_only", {q: g.vector for q, g in gathered.items()}),
            scored(
                "lexical_arm_alone",
                {
                    q: list(dict.fromkeys(ids[str(d)] for (d, _), _ in g.arms.fts[:serving_depth]))
                    for q, g in gathered.items()
                },
            ),
            scored(
                "HYBRID",
                fused(runner, gathered, index, search.DEFAULT_TUNING),
                tuning="serving",
            ),
            scored(
                "HYBRID_previous",
                fused(runner, gathered, index, search.PREVIOUS_TUNING),
                tuning=asdict(search.PREVIOUS_TUNING),
            ),
        ]
        named = list(VARIANTS.items()) + [parse_variant(v) for v in args.variant]
        out["variants"] = []
        for name, fields in named:
            tuning = replace(search.DEFAULT_TUNING, **fields)
            out["variants"].append(
                scored(name, fused(runner, gathered, index, tuning), fields=fields)
            )
        if args.grid:
            cells = [
                scored(
                    name,
                    fused(runner, gathered, index, replace(search.DEFAULT_TUNING, **fields)),
                    fields=fields,
                )
                for name, fields in grid()
            ]
            cells.sort(key=lambda c: -c["dev"]["ndcg@10"])
            out["grid_best_on_dev"] = cells[:10]
            out["grid_cells"] = len(cells)
        return out

    async with h.database("bench_quality") as url:
        pool = await prepare_database(url, Settings(database_url=url))
        try:
            index = await runner.build_index(pool, embeddings, data, progress)
            report["ingest_seconds"] = round(index.ingest_seconds, 1)
            async with pool.acquire() as conn:
                report["chunks"] = await conn.fetchval(
                    "SELECT count(*) FROM knowledge_chunks WHERE org_id = $1", index.org_id
                )
            started = time.perf_counter()
            deep = replace(search.DEFAULT_TUNING, depth=GATHER_DEPTH)
            gathered = await runner.gather_queries(pool, embeddings, index, data, deep, progress)
            report["gather_seconds"] = round(time.perf_counter() - started, 1)
            report["exact_vector_arm"] = all(g.arms.exact_vector for g in gathered.values())
            report.update(score_gathered(index, gathered))
            for row in report["modes"]:
                h.note(f"{row['name']}: {json.dumps({k: row[k] for k in ('dev', 'held_out')})}")
            if not args.no_stability:
                report["stability"] = await stability(pool, embeddings, data, index, args)
        finally:
            async with pool.acquire() as conn:
                await runner.purge_organisation(conn, index.org_id)
            await pool.close()
    embeddings.close()
    if not args.no_pages:
        report["pages"] = await pages_section(args.model)
    return report


async def pages_section(model: str | None) -> dict[str, Any]:
    """The published-pages figures of benchmarks/pages_quality.py (its own database)."""
    import pages_quality

    options = pages_quality.argument_parser().parse_args(["--arms", "--model", model or ""])
    run = await pages_quality.main(options)
    serving = run["variants"][0]
    return {
        "questions": run["questions"],
        "splits": run["splits"],
        "sync": run["sync"],
        **{k: serving[k] for k in ("plain", "alternatives", "fts_alone", "vector_alone")},
        "plain_p50_ms": serving["plain_p50_ms"],
    }


def with_ties(arm: list[Any], depth: int) -> list[Any]:
    """The first `depth` candidates and those tied with the last of them, as the arm's SQL
    returns at that depth (FETCH FIRST … WITH TIES, at most 4 × depth)."""
    cut = arm[:depth]
    if cut:
        cut += [c for c in arm[depth : 4 * depth] if c[1] == cut[-1][1]]
    return cut


def fused(runner: Any, gathered: Any, index: Any, tuning: Any) -> dict[str, list[str]]:
    """HYBRID's document ranking per query under `tuning`, from arms gathered deeper: each
    arm cut to the tuning's depth as its SQL would cut it."""
    from quire.server.knowledge import search

    out: dict[str, list[str]] = {}
    for query_id, g in gathered.items():
        arms = search.Arms(
            fts=with_ties(g.arms.fts, tuning.depth),
            vector=with_ties(g.arms.vector, tuning.depth),
            file_name=with_ties(g.arms.file_name, tuning.depth),
            legacy=g.arms.legacy,
        )
        fused_arms = search.fuse(arms, tuning, None)[0]
        ranked = [(index.corpus_id[str(doc)], score) for doc, score in fused_arms]
        ranked.sort(key=lambda item: (-item[1], item[0]))  # ties by file name: hits_for
        out[query_id] = [doc for doc, _ in ranked[:100]]
    return out


async def top10(pool: Any, embeddings: Any, org_id: uuid.UUID, cid: uuid.UUID, data: Any) -> Any:
    """Every query's serving HYBRID top 10 through `search.hybrid`, as data set ids."""
    from quire.server.knowledge import reachable, search
    from quire.server.storage.database import apply_settings

    tuning = search.DEFAULT_TUNING
    out: dict[str, list[str]] = {}
    async with pool.acquire() as conn:
        scoped = await reachable.resolve(conn, org_id, "", [str(cid)])
        for query_id, text in data.queries.items():
            vector = (await embeddings.embed_queries([text]))[0]
            async with conn.transaction(isolation="repeatable_read", readonly=True):
                await apply_settings(conn, tuning.settings())
                hits = await search.hybrid(conn, org_id, scoped, text, vector, LIMIT, tuning)
            out[query_id] = [hit.file_name.removesuffix(".txt") for hit in hits]
    return out


def identical(first: dict[str, list[str]], second: dict[str, list[str]]) -> dict[str, Any]:
    same = sum(first[q] == second[q] for q in first)
    return {"identical_top10": round(same / len(first), 4), "queries": len(first), "same": same}


async def stability(
    pool: Any, embeddings: Any, data: Any, index: Any, args: argparse.Namespace
) -> dict[str, Any]:
    from quire.indexer.extraction import ExtractionPool
    from quire.indexer.worker import jobs
    from quire.indexer.worker.pipeline import Worker
    from quire.indexer.worker.settle import PURGE
    from quire.server.gate import runner
    from quire.server.gate.dataset import Dataset
    from quire.server.gate.report import summary
    from quire.server.knowledge import search
    from quire.server.knowledge.collection_store import DELETE as DELETE_COLLECTION
    from quire.server.knowledge.collection_store import LOCK_FOR_DELETE

    async def progress(stage: str, done: int, total: int) -> None:
        if done == total and stage != "uploading":
            h.note(f"{stage}: {done}/{total}")

    org, first = index.org_id, index.collection_id
    out: dict[str, Any] = {}
    h.note("stability: baseline")
    baseline = await top10(pool, embeddings, org, first, data)

    h.note("stability: (i) the corpus ingested again into a second collection")
    second = uuid.uuid4()
    async with pool.acquire() as conn:
        await conn.execute(runner.CREATE_COLLECTION, org, second, "second")
    await runner.ingest(pool, embeddings, data, org, second, progress)
    out["reingested_collection"] = identical(
        baseline, await top10(pool, embeddings, org, second, data)
    )

    h.note("stability: (ii) a gate run (scratch organisation, every query, purge)")
    started = time.perf_counter()
    gate = await runner.run_gate(
        pool,
        embeddings,
        data,
        fingerprint=search.serving_fingerprint(embeddings.fingerprint),
        recorded_by=None,
        progress=progress,
    )
    out["gate_run_seconds"] = round(time.perf_counter() - started, 1)
    out["gate"] = summary(gate)
    out["after_gate_run"] = identical(baseline, await top10(pool, embeddings, org, first, data))

    h.note("stability: (iii) another collection created, filled and deleted")
    doomed = uuid.uuid4()
    corpus = dict(list(data.corpus.items())[: args.disturb_documents or len(data.corpus)])
    filler = Dataset(data.name, data.split, corpus, data.queries, data.qrels)
    async with pool.acquire() as conn:
        await conn.execute(runner.CREATE_COLLECTION, org, doomed, "doomed")
    await runner.ingest(pool, embeddings, filler, org, doomed, progress)
    async with pool.acquire() as conn, conn.transaction():  # what DeleteCollection does
        await conn.fetchval(LOCK_FOR_DELETE, org, doomed)
        await conn.execute(DELETE_COLLECTION, org, doomed)
        await jobs.enqueue(conn, org, PURGE, {"collection_id": str(doomed)})
    async with ExtractionPool() as extraction:
        await Worker(pool, embeddings, extraction).run_until_idle()
    await runner.wait_settled(pool, org)
    async with pool.acquire() as conn:
        left = await conn.fetchval(
            "SELECT count(*) FROM knowledge_chunks WHERE org_id = $1 AND collection_id = $2",
            org,
            doomed,
        )
    out["after_deleted_collection"] = identical(
        baseline, await top10(pool, embeddings, org, first, data)
    ) | {"documents": len(corpus), "chunks_left_after_purge": left}
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default=str(h.SCIFACT))
    parser.add_argument("--split", default="train")
    parser.add_argument("--max-documents", type=int, default=0)
    parser.add_argument("--max-queries", type=int, default=0)
    parser.add_argument("--variant", action="append", default=[], help="name:field=value,...")
    parser.add_argument("--grid", action="store_true", help="score the whole fusion grid")
    parser.add_argument("--model", default=None, help="an embedding model (quire model list)")
    parser.add_argument("--no-stability", action="store_true")
    parser.add_argument(
        "--text-config",
        choices=["english", "simple"],
        default=None,
        help="the lexical analysis of the scratch index (default: new generations', english)",
    )
    parser.add_argument("--no-pages", action="store_true", help="skip the pages questions")
    parser.add_argument(
        "--disturb-documents", type=int, default=0, help="(iii)'s collection size (0: all)"
    )
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    arguments = parser.parse_args()
    result = h.run(main(arguments))
    out_dir = Path(arguments.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    h.emit(result, out_dir / "quality.json")
    (out_dir / "quality.md").write_text(markdown(result) + "\n")
    gate = result.get("stability", {}).get("gate")
    if gate and not (arguments.max_documents or arguments.max_queries):
        # The gate run of (ii) on the whole split, as `quire gate run --json` writes it.
        (out_dir / f"gate-{result['split']}.json").write_text(json.dumps(gate, indent=2) + "\n")
    plot(result["modes"] + result["variants"], out_dir / "quality.png")

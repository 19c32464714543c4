"""Retrieval quality on a BEIR data set through Quire's real upload, indexing and search code.

    .venv/bin/python benchmarks/quality.py --dataset ../shared/data/scifact --split train \\
        [--max-documents N --max-queries N] [--variant name:field=value,field=value ...]

Indexes the data set once into a scratch organisation (embedded PostgreSQL under
$QUIRE_HOME, or QUIRE_DATABASE_URL), then scores LEGACY_FTS, HYBRID and vector-only for the
serving tuning and for every --variant of it (HybridTuning fields), on the same index. Prints
JSON; writes quality.json, quality.md and quality.png to --out (default benchmarks/results).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    name, _, body = text.partition(":")
    fields: dict[str, Any] = {}
    for part in filter(None, body.split(",")):
        key, _, value = part.partition("=")
        if value.replace(".", "", 1).isdigit():
            fields[key] = float(value) if "." in value else int(value)
        else:
            fields[key] = value
    return name, fields


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """A small grouped bar chart (nDCG@10 and Recall@100 per mode and variant), with Pillow."""
    from PIL import Image, ImageDraw

    bars = [
        (f"{r['variant']}/{mode}", scores["ndcg@10"], scores["recall@100"])
        for r in rows
        for mode, scores in r["metrics"].items()
    ]
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
    draw.text((left + 10, 5), "nDCG@10 (blue), Recall@100 (green)", fill="black")
    image.save(path)


def markdown(rows: list[dict[str, Any]]) -> str:
    out = [
        "| variant | mode | nDCG@10 | Recall@10 | Recall@100 | MRR@10 |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        for mode, s in r["metrics"].items():
            out.append(
                f"| {r['variant']} | {mode} | {s['ndcg@10']:.4f} | {s['recall@10']:.4f} | "
                f"{s['recall@100']:.4f} | {s['mrr@10']:.4f} |"
            )
    return "\n".join(out)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    import os

    from quire.indexer.model_prepare import prepare_model
    from quire.server.app import prepare_database
    from quire.server.config import Settings
    from quire.server.embeddings import load_default
    from quire.server.gate import dataset, runner
    from quire.server.gate.metrics import evaluate
    from quire.server.knowledge import search
    from quire.server.storage.embedded import EmbeddedPostgres

    prepare_model()
    embeddings = load_default()
    embedded = None
    url = os.environ.get("QUIRE_DATABASE_URL", "")
    if not url:
        embedded = EmbeddedPostgres()
        url = embedded.start()
    data = dataset.load(
        Path(args.dataset),
        args.split,
        max_documents=args.max_documents,
        max_queries=args.max_queries,
    )
    pool = await prepare_database(url, Settings(database_url=url))

    async def progress(stage: str, done: int, total: int) -> None:
        print(f"{stage}: {done}/{total}", file=sys.stderr, flush=True)

    rows = []
    try:
        index = await runner.build_index(pool, embeddings, data, progress, args.title_mode)
        try:
            started = time.perf_counter()
            gathered = await runner.gather_queries(
                pool, embeddings, index, data, search.DEFAULT_TUNING, progress
            )
            elapsed = time.perf_counter() - started
            base = {
                "legacy": {q: g.legacy for q, g in gathered.items()},
                "vector": {q: g.vector for q, g in gathered.items()},
                "lexical_arm": {
                    q: [index.corpus_id[str(d)] for d in dict.fromkeys(d for d, _ in g.arms.fts)]
                    for q, g in gathered.items()
                },
            }
            variants = [("serving", {})] + [parse_variant(v) for v in args.variant]
            for name, fields in variants:
                tuning = replace(search.DEFAULT_TUNING, **fields)
                hybrid = runner.fused_rankings(gathered, index, tuning)
                scores = {"hybrid": evaluate(hybrid, data.qrels).as_dict()}
                if name == "serving":
                    scores = {
                        "legacy_fts": evaluate(base["legacy"], data.qrels).as_dict(),
                        **scores,
                        "vector_only": evaluate(base["vector"], data.qrels).as_dict(),
                        "lexical_arm_only": evaluate(base["lexical_arm"], data.qrels).as_dict(),
                    }
                rows.append({"variant": name, "tuning": asdict(tuning), "metrics": scores})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        finally:
            async with pool.acquire() as conn:
                await runner.purge_organisation(conn, index.org_id)
    finally:
        await pool.close()
        embeddings.close()
        if embedded is not None:
            embedded.stop()
    return {
        "dataset": data.name,
        "split": data.split,
        "documents": len(data.corpus),
        "queries": len(data.queries),
        "ingest_seconds": round(index.ingest_seconds, 1),
        "ingest_documents_per_second": round(len(data.corpus) / index.ingest_seconds, 1),
        "query_seconds": round(elapsed, 1),
        "seconds_per_query": round(elapsed / max(1, len(data.queries)), 3),
        "embedder": embeddings.fingerprint,
        "title_mode": args.title_mode,
        "rows": rows,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default=str(REPO.parent / "shared" / "data" / "scifact"))
    parser.add_argument("--split", default="train")
    parser.add_argument("--max-documents", type=int, default=0)
    parser.add_argument("--max-queries", type=int, default=0)
    parser.add_argument("--variant", action="append", default=[], help="name:field=value,...")
    parser.add_argument(
        "--title-mode", default="first_line", choices=["first_line", "file_name", "none"]
    )
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    arguments = parser.parse_args()
    report = asyncio.run(main(arguments))
    out = Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "quality.json").write_text(json.dumps(report, indent=2))
    (out / "quality.md").write_text(markdown(report["rows"]) + "\n")
    plot(report["rows"], out / "quality.png")
    print(json.dumps(report, indent=2))

"""Published-pages ranking quality on the labelled FastAPI questions (benchmarks/data/).

    .venv/bin/python benchmarks/pages_quality.py [--variant name:field=value,...] [--arms]

Syncs the FastAPI site (served on 127.0.0.1 from a child process) through the real SyncPages
RPC, then asks every labelled question through the real ranking code
(`quire.server.pages.search.search_pages`), plain and with its two alternatives, for the
serving `PageTuning` and for each `--variant` of it. Reports page-level top-1, top-3,
top-10 and MRR@10 per split (dev, heldout) and language, and with `--arms` each arm alone.
Prints one JSON object.

The questions (`benchmarks/data/fastapi-questions.jsonl`) were written from the site's headings
and the text under them before any ranking was looked at; the held-out split is every question
whose expected page hashes into 3 of 10 buckets (sha256 of the path), so no page is in both.
Tune on `dev`; `heldout` shows over-fitting.

`--model NAME` syncs the namespace with another prepared embedding model (loaded beside the
default, as `quire up --models NAME` does) and embeds the questions with it.

`--disturb N` then measures drift: every variant's top 10 for each question, then N page
chunks of another organisation inserted (benchmarks/scale_pages.py's rows, through the live
HNSW index), then the same questions again; identical rankings and changed top-1 per variant.

With QUIRE_DATABASE_URL set and `--keep`, the synced namespace is kept in that database, so
later runs re-sync in under a second (nothing changed) and go straight to the questions.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import _harness as h

QUESTIONS = h.REPO / "benchmarks" / "data" / "fastapi-questions.jsonl"
NAMESPACE = "fastapi"
ORG = "pages-quality"


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    """Labelled questions: id, query, alternatives, expected (a page path), lang, kind,
    split ("dev" or "heldout")."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    name, _, body = text.partition(":")
    fields: dict[str, Any] = {}
    for part in filter(None, body.split(",")):
        key, _, value = part.partition("=")
        try:
            fields[key] = int(value)
        except ValueError:
            try:
                fields[key] = float(value)
            except ValueError:
                fields[key] = value
    return name, fields


def scores(ranks: Sequence[int | None]) -> dict[str, Any]:
    """Page-level measures from the rank of the expected page (None: not in the top 10)."""
    n = len(ranks)
    if n == 0:
        return {"n": 0}
    return {
        "n": n,
        "top1": sum(1 for r in ranks if r == 1),
        "top3": sum(1 for r in ranks if r is not None and r <= 3),
        "top10": sum(1 for r in ranks if r is not None and r <= 10),
        "mrr@10": round(sum(1 / r for r in ranks if r is not None) / n, 4),
    }


def summarise(questions: list[dict[str, Any]], ranks: list[int | None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    groups: dict[str, list[int | None]] = {}
    for q, r in zip(questions, ranks, strict=True):
        for key in (q["split"], f"{q['split']}/{q['lang']}", "all"):
            groups.setdefault(key, []).append(r)
    for key in sorted(groups):
        out[key] = scores(groups[key])
    return out


def page_ranks(paths: Sequence[str], expected: str) -> int | None:
    pages = list(dict.fromkeys(paths))[:10]
    return pages.index(expected) + 1 if expected in pages else None


class Evaluator:
    def __init__(self, pool: Any, org_id: Any, embeddings: Any) -> None:
        self.pool = pool
        self.org_id = org_id
        self.embeddings = embeddings

    async def search(self, query: str, alternatives: Sequence[str], tuning: Any) -> list[str]:
        from quire.server.embeddings import discard
        from quire.server.pages import search

        vectors = await self.embeddings.start_queries([query, *alternatives])
        try:
            result = await search.search_pages(
                self.pool,
                org_id=self.org_id,
                namespace=NAMESPACE,
                query=query,
                alternatives=list(alternatives),
                vectors=vectors,
                limit=10,
                max_output_bytes=1 << 30,
                tuning=tuning,
            )
        finally:
            discard(vectors)
        assert result is not None
        return [hit.path for hit in result.hits]

    async def arm(self, query: str, tuning: Any, which: str) -> list[str]:
        """The full-text or vector arm alone: its chunk candidates' pages, best first."""
        from quire.server.pages import search
        from quire.server.retrieval import search_config
        from quire.server.storage.database import apply_settings

        vector = (await self.embeddings.embed_queries([query]))[0]
        async with (
            self.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            await apply_settings(
                conn,
                {
                    **search_config.to_settings(search_config.DEPLOYMENT_DEFAULT),
                    **search._arm_settings(tuning.depth),
                },
            )
            row = await conn.fetchrow(search.VERSION, self.org_id, NAMESPACE)
            searched = search.SearchedNamespace(
                self.org_id, NAMESPACE, row["chunks"] <= tuning.exact_vector_max_chunks
            )
            keys = await search.arm_candidates(conn, searched, query, vector, tuning, which)
        return [path for path, _ in keys]

    async def run(
        self, questions: list[dict[str, Any]], tuning: Any, *, alternatives: bool
    ) -> tuple[list[int | None], list[float]]:
        ranks: list[int | None] = []
        latencies: list[float] = []
        for q in questions:
            started = time.perf_counter()
            paths = await self.search(q["query"], q["alternatives"] if alternatives else (), tuning)
            latencies.append(time.perf_counter() - started)
            ranks.append(page_ranks(paths, q["expected"]))
        return ranks, latencies


async def evaluate(
    evaluator: Evaluator, questions: list[dict[str, Any]], args: argparse.Namespace
) -> list[dict[str, Any]]:
    from quire.server.pages import search

    variants = [("serving", {})] + [parse_variant(v) for v in args.variant]
    results = []
    for name, fields in variants:
        tuning = replace(search.PageTuning(), **fields)
        row: dict[str, Any] = {"variant": name, "tuning": asdict(tuning)}
        plain, latencies = await evaluator.run(questions, tuning, alternatives=False)
        row["plain"] = summarise(questions, plain)
        row["plain_p50_ms"] = round(1000 * h.percentile(latencies, 50), 2)
        if not args.no_alternatives:
            alts, _ = await evaluator.run(questions, tuning, alternatives=True)
            row["alternatives"] = summarise(questions, alts)
        if args.misses:
            row["misses"] = [
                {"id": x["id"], "query": x["query"], "expected": x["expected"], "rank": r}
                for x, r in zip(questions, plain, strict=True)
                if r != 1 and x["split"] == "dev"
            ]
        if args.arms:
            for which in ("fts", "vector"):
                arm_ranks = []
                for x in questions:
                    paths = await evaluator.arm(x["query"], tuning, which)
                    arm_ranks.append(page_ranks(paths, x["expected"]))
                row[f"{which}_alone"] = summarise(questions, arm_ranks)
        dev, held = row["plain"]["dev"], row["plain"]["heldout"]
        h.note(f"{name}: top1 dev {dev['top1']}/{dev['n']} heldout {held['top1']}/{held['n']}")
        results.append(row)
    return results


async def main(args: argparse.Namespace) -> dict[str, Any]:
    questions = load_questions(args.questions)
    if args.max_questions:
        questions = questions[: args.max_questions]
    embeddings = h.load_model()
    # `--model`: the namespace is synced with that model (loaded beside the default, as
    # `quire up --models` does) and the questions are embedded with it.
    extra = {args.model: h.load_model(name=args.model)} if args.model else {}
    report: dict[str, Any] = {
        "benchmark": "pages_quality",
        "embedding_model": args.model or "default",
        "machine": h.machine(),
        "questions": len(questions),
        "splits": {s: sum(1 for q in questions if q["split"] == s) for s in ("dev", "heldout")},
    }
    url = os.environ.get("QUIRE_DATABASE_URL", "") if args.keep else ""
    async with _database(url) as database_url:
        with h.site_process(args.site) as site:
            async with h.Quire(
                database_url, embeddings=embeddings, allow_sources=[site], extra_models=extra
            ) as q:
                key = await q.key(ORG)
                async with q.client(key.token) as client:
                    synced, seconds = await h.sync_site(
                        client,
                        NAMESPACE,
                        f"{site}/llms.txt",
                        transform=args.transform,
                        embedding_model=args.model or "",
                    )
                report["sync"] = {**h.report_fields(synced), "seconds": round(seconds, 1)}
                h.note(f"synced in {seconds:.1f} s: {report['sync']}")
                evaluator = Evaluator(q.pool, key.org_id, extra.get(args.model, embeddings))
                report["variants"] = await evaluate(evaluator, questions, args)
                if args.disturb:
                    report["drift"] = await drift(evaluator, q.pool, questions, args)
    return report


async def drift(
    evaluator: Evaluator, pool: Any, questions: list[dict[str, Any]], args: argparse.Namespace
) -> dict[str, Any]:
    """Rankings against unrelated data: each variant's top 10 (plain) for every question,
    then `--disturb` page chunks of another organisation are inserted (scale_pages' rows:
    real SciFact texts and perturbed real vectors, through the live HNSW index, as a sync
    elsewhere would), then the same questions again. Reports per variant how many rankings
    stayed identical and how many top-1 pages changed."""
    import uuid

    import scale_pages as sp
    import vector_exact as ve

    from quire.server.pages import search

    variants = [("serving", {})] + [parse_variant(v) for v in args.variant]
    tunings = {name: replace(search.PageTuning(), **fields) for name, fields in variants}

    async def rankings(tuning: Any) -> list[list[str]]:
        return [
            list(dict.fromkeys(await evaluator.search(x["query"], (), tuning)))[:10]
            for x in questions
        ]

    before = {name: await rankings(t) for name, t in tunings.items()}
    texts = ve.base_texts(args.disturb_base)
    vectors = await evaluator.embeddings.embed_bulk(texts)
    h.note(f"inserting {args.disturb} page chunks of another organisation")
    started = time.perf_counter()
    async with pool.acquire() as conn:
        await ve.load_base(conn, texts, vectors)  # drops the knowledge HNSW index: unused here
        await conn.execute(sp.STEM_BASE)
        other = uuid.uuid4()
        await sp.load_namespace(conn, other, "unrelated", args.disturb, len(texts), 0.03, 0)
    inserted_s = round(time.perf_counter() - started, 1)
    out: dict[str, Any] = {"inserted_chunks": args.disturb, "insert_s": inserted_s}
    for name, tuning in tunings.items():
        after = await rankings(tuning)
        out[name] = {
            "identical_top10": sum(a == b for a, b in zip(before[name], after, strict=True)),
            "changed_top1": sum(a[:1] != b[:1] for a, b in zip(before[name], after, strict=True)),
            "questions": len(questions),
        }
        h.note(f"{name}: {out[name]}")
    return out


def _database(url: str) -> Any:
    import contextlib

    if url:

        @contextlib.asynccontextmanager
        async def kept() -> Any:
            yield url

        return kept()
    return h.database("pages_quality")


def argument_parser() -> argparse.ArgumentParser:
    """This benchmark's options (quality.py and token_window.py run it with theirs)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", action="append", default=[], help="name:field=value,...")
    parser.add_argument("--arms", action="store_true", help="also score each arm alone")
    parser.add_argument("--misses", action="store_true", help="list dev questions not at 1")
    parser.add_argument("--no-alternatives", action="store_true")
    parser.add_argument("--max-questions", type=int, default=0)
    parser.add_argument("--model", default="", help="sync and ask with this embedding model")
    parser.add_argument(
        "--keep", action="store_true", help="use QUIRE_DATABASE_URL itself and keep the namespace"
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--site", type=Path, default=h.FASTAPI_SITE, help="a static site with llms.txt"
    )
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="labelled JSONL")
    parser.add_argument("--transform", default="markdown", help="the sync's transform profile")
    parser.add_argument(
        "--disturb", type=int, default=0, help="then add this many unrelated page chunks"
    )
    parser.add_argument(
        "--disturb-base", type=int, default=1000, help="real SciFact chunks they copy"
    )
    return parser


if __name__ == "__main__":
    parser = argument_parser()
    h.setup_logging()
    result = h.run(main(parser.parse_args()))
    h.emit(result, parser.parse_args().out)
    sys.exit(0)

"""Page sync benchmark: first sync, unchanged re-sync and a sync after edits, beside the raw
embedding time of the same chunks, in one run. Prints JSON.

    .venv/bin/python benchmarks/sync.py [--pages N] [--edits 5 --removals 2] [--quick] [--out F]

A private copy of ../shared/data/docs-fastapi/site (277 pages) is served on 127.0.0.1 by
tests/support/site_server.SiteServer in a child process; Quire runs in this process on a fresh
database (throw-away embedded PostgreSQL, or a new database on QUIRE_DATABASE_URL) with the real
int8 model, the site origin allow-listed. Through the Python client it measures:

1. the first sync of the whole site (wall time of the SyncPages call, client side);
2. the raw embedding of exactly the chunks that sync embedded (every stored page body through
   `chunk_text` + `embedding_text`, embedded by the same EmbeddingService), two ways: all
   texts in one `embed_bulk` call (best case: one global length sort) and in the sync's
   groups (the shared embedding stage's `GROUP_TEXTS` texts, in page order);
3. a second sync with nothing changed;
4. a sync after `--edits` pages were edited and `--removals` removed (file and llms.txt line).

`--quick` syncs the first 60 pages only. Design targets (DESIGN.md §9, whole site): first sync
≤ 29 s, unchanged ≤ 1 s (goal: ≤ 5 % of the first), 5 edits + 2 removals ≤ 2 s; peak RSS of
the serving process ≤ 360 MB.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

import _harness as h

NAMESPACE = "fastapi"
TARGETS = {"first_s": 29.0, "unchanged_s": 1.0, "edited_s": 2.0, "unchanged_ratio": 0.05}


def edit_site(site: Path, kept: list[str], edits: int, removals: int) -> dict[str, list[str]]:
    """Appends a paragraph to `edits` pages and removes `removals` others (spread out)."""
    step = max(1, len(kept) // (edits + removals + 1))
    chosen = [kept[(i + 1) * step % len(kept)] for i in range(edits + removals)]
    edited, removed = chosen[:edits], chosen[edits:]
    for n, path in enumerate(edited):
        file = site / path.lstrip("/")
        file.write_text(
            file.read_text(encoding="utf-8")
            + f"\n\n## Benchmark note {n}\n\nThis paragraph was added by the sync benchmark to "
            f"change page {n}; it mentions dependency injection and path parameters.\n",
            encoding="utf-8",
        )
    llms = site / "llms.txt"
    lines = llms.read_text(encoding="utf-8").splitlines()
    for path in removed:
        (site / path.lstrip("/")).unlink()
        lines = [line for line in lines if f"]({path})" not in line]
    llms.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"edited": edited, "removed": removed}


async def chunk_texts(pool: Any, org_id: Any) -> tuple[list[str], int]:
    """The texts the sync embedded: each stored page body chunked as the sync does it."""
    from quire.indexer.chunking import chunk_text, embedding_text
    from quire.indexer.pages.sync import PAGE_CEILING

    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT path, title, body FROM pages WHERE org_id = $1 AND namespace = $2",
            org_id,
            NAMESPACE,
        )
    texts: list[str] = []
    for r in rows:
        chunks = chunk_text(r["body"], ceiling=PAGE_CEILING)
        texts.extend(embedding_text(c, r["title"]) for c in chunks)
    return texts, len(rows)


async def raw_embedding(embeddings: Any, texts: list[str]) -> dict[str, Any]:
    started = time.perf_counter()
    await embeddings.embed_bulk(texts)
    one_call = time.perf_counter() - started
    from quire.indexer.ingest.embed_stage import GROUP_TEXTS

    started = time.perf_counter()
    for i in range(0, len(texts), GROUP_TEXTS):
        await embeddings.embed_bulk(texts[i : i + GROUP_TEXTS])
    grouped = time.perf_counter() - started
    return {
        "chunks": len(texts),
        "one_call_s": round(one_call, 2),
        "sync_groups_s": round(grouped, 2),
        "sync_group_texts": GROUP_TEXTS,
        "chunks_per_s_one_call": round(len(texts) / one_call, 1),
        "chunks_per_s_sync_groups": round(len(texts) / grouped, 1),
    }


class SyncLogLines(logging.Handler):
    """Keeps the sync's own "sync finished" lines (stage seconds, embedder busy time)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == "sync finished":
            self.lines.append(
                {
                    "stage_seconds": getattr(record, "stage_seconds", {}),
                    "embedder_busy_s": getattr(record, "embedder_busy_s", None),
                }
            )


async def cpu_now(url: str) -> dict[str, Any]:
    return {
        "threads": h.thread_cpu(),
        "postgres_s": await h.postgres_cpu(url),
        "sample": h.cpu_sample(),
    }


def cpu_split(start: dict[str, Any], end: dict[str, Any]) -> dict[str, Any]:
    """CPU seconds of the first sync by who spent them: this process's threads by name (the
    ONNX runs are `onnx-run` and `embed-bulk`; `MainThread` is the event loop, server and
    client), this run's PostgreSQL, the site server (a child process)."""
    spent = h.cpu_spent(start["sample"], end["sample"])
    threads = h.thread_cpu_spent(start["threads"], end["threads"])
    embedding = sum(v for k, v in threads.items() if k in ("onnx-run", "embed-bulk"))
    postgres = round(end["postgres_s"] - start["postgres_s"], 2)
    other = round(sum(threads.values()) - embedding + postgres, 2)
    return {
        "wall_s": spent["wall_s"],
        "threads_s": threads,
        "postgres_s": postgres,
        "site_server_s": spent["children_s"],
        "embedding_cpu_s": round(embedding, 2),
        "non_embedding_cpu_s": other,
        "non_embedding_share": h.ratio(other, other + embedding),
        "machine_idle_core_s": spent["idle_core_s"],
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    h.setup_logging(args.verbose)
    pages = 60 if args.quick and not args.pages else args.pages
    report: dict[str, Any] = {"benchmark": "sync", "machine_at_start": h.machine()}
    with tempfile.TemporaryDirectory(prefix="quire-sync-") as tmp:
        site = h.copy_site(Path(tmp))
        kept = h.limit_llms(site, pages)
        report["pages_listed"] = len(kept)
        report["quick"] = bool(args.quick)
        embeddings = h.load_model()
        embeddings.embedder.embed(["warm up the session"] * 8)  # allocator, thread pool
        with h.site_process(site) as base_url:
            async with (
                h.database("bench_sync") as url,
                h.Quire(url, embeddings=embeddings, allow_sources=[base_url]) as quire,
            ):
                key = await quire.key()
                rss_before = h.rss_mb()
                log_lines = SyncLogLines()
                logging.getLogger("quire.indexer.pages.sync").addHandler(log_lines)
                logging.getLogger("quire.indexer.pages.sync").setLevel(logging.INFO)
                cpu_start = await cpu_now(url)
                async with quire.client(key.token) as client:
                    h.note(f"first sync of {len(kept)} pages from {base_url}")
                    first, first_s = await h.sync_site(client, NAMESPACE, f"{base_url}/llms.txt")
                    first_cpu = cpu_split(cpu_start, await cpu_now(url))
                    peak_after_first = h.peak_rss_mb()
                    h.note(f"first sync {first_s:.1f} s; raw embedding of the same chunks")
                    texts, stored = await chunk_texts(quire.pool, key.org_id)
                    raw = await raw_embedding(embeddings, texts)
                    h.note("unchanged re-sync")
                    unchanged, unchanged_s = await h.sync_site(
                        client, NAMESPACE, f"{base_url}/llms.txt"
                    )
                    changes = edit_site(site, kept, args.edits, args.removals)
                    h.note(f"sync after {args.edits} edits + {args.removals} removals")
                    edited, edited_s = await h.sync_site(client, NAMESPACE, f"{base_url}/llms.txt")
                    async with quire.pool.acquire() as conn:
                        chunk_rows = await conn.fetchval(
                            "SELECT count(*) FROM page_chunks WHERE org_id = $1", key.org_id
                        )
    report.update(
        {
            "first_sync": {"wall_s": round(first_s, 2), **h.report_fields(first)},
            "first_sync_split": {
                "cpu": first_cpu,
                "stages": log_lines.lines[0] if log_lines.lines else None,
                "note": "stage seconds are summed over pages and overlap one another",
            },
            "unchanged_sync": {"wall_s": round(unchanged_s, 3), **h.report_fields(unchanged)},
            "edited_sync": {
                "wall_s": round(edited_s, 3),
                "changes": changes,
                **h.report_fields(edited),
            },
            "stored_pages_after_first": stored,
            "page_chunks_after_edits": chunk_rows,
            "raw_embedding": raw,
            "ratios": {
                "unchanged_over_first": h.ratio(unchanged_s, first_s, 4),
                "first_sync_over_raw_one_call": h.ratio(first_s, raw["one_call_s"]),
                "first_sync_over_raw_sync_groups": h.ratio(first_s, raw["sync_groups_s"]),
                "first_sync_chunks_per_s": round(first.embedded_chunks / first_s, 1),
                "first_sync_over_embedder_busy": h.ratio(
                    first_s, (log_lines.lines[0] if log_lines.lines else {}).get("embedder_busy_s")
                ),
            },
            "memory": {
                "rss_before_first_sync_mb": rss_before,
                "peak_rss_after_first_sync_mb": peak_after_first,
                "peak_rss_end_mb": h.peak_rss_mb(),
                "note": "one process: server + client + raw baseline (site served by a child)",
            },
            "targets": {
                "first_s": {"goal": TARGETS["first_s"], "value": round(first_s, 2)},
                "unchanged_s": {"goal": TARGETS["unchanged_s"], "value": round(unchanged_s, 3)},
                "edited_s": {"goal": TARGETS["edited_s"], "value": round(edited_s, 3)},
                "unchanged_over_first": {
                    "goal": TARGETS["unchanged_ratio"],
                    "value": h.ratio(unchanged_s, first_s, 4),
                },
                "peak_rss_mb": {"goal": 360, "value": peak_after_first},
                "note": "targets are for the whole 277-page site on an idle machine",
            },
        }
    )
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=0, help="first N pages of llms.txt (0=all)")
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--removals", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="60 pages")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), arguments.out)

"""End-to-end ingestion benchmark: SciFact documents uploaded over gRPC until the collection's
serving generation holds them all, beside the embedder's own throughput on the same texts, in
one run. Prints JSON.

    .venv/bin/python benchmarks/ingest.py [--documents 1000] [--upload-concurrency 8] [--quick]
                                          [--embed-threads N]

Quire runs in this process with the indexer worker (`run_worker`, as `quire up` does) on a
fresh database. The pipeline figure is the wall time from the first UploadDocument call to the
moment every job of the organisation is done and the collection has a serving generation:
upload → store_upload → extract job (ExtractionPool) → chunk → embed → chunk writes →
generation flip. The raw figure chunks the same texts as the worker does (`chunk_text` +
`embedding_text`, titled by `document_title` in the worker's `TITLE_MODE`: the abstract's
first line, its SciFact title) and embeds them with the same EmbeddingService, measured
after the pipeline in the same process: once in one `embed_bulk` call, and in the worker's
groups (up to `GROUP_TEXTS` texts / `GROUP_CHARS` characters per call, as the
embedding schedule hands them out when one organisation is loading).

Goal: pipeline documents/s ≥ 0.85 × raw. `--quick` ingests 150 documents. Reports the peak
RSS of the process (server + worker + client) and of the extraction child processes.

`cpu` says where the CPU went in both phases: this process (server, worker, upload client and
the embedder), PostgreSQL, extraction processes, and idle cores. The raw call's process time is
the embedding's own cost; the pipeline's CPU beyond it is the work of everything else (uploads,
extraction, full-text and vector indexing), and `ratio_if_no_core_idle` is the ratio the
pipeline would reach if all that work fitted in the cores' idle time perfectly. When the
embedder alone keeps every core busy, that bound is below 1 however well the stages overlap.
`--embed-threads N` runs both sides with N ONNX Runtime threads (default: every core, as the
service runs), which leaves the other cores to the rest of the pipeline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from itertools import islice
from pathlib import Path
from typing import Any

import _harness as h

GOAL_RATIO = 0.85
PROGRESS = """
SELECT (SELECT count(*) FROM jobs WHERE org_id = $1 AND state IN ('queued', 'running')) AS pending,
       (SELECT serving_generation FROM collections WHERE org_id = $1 AND collection_id = $2) AS gen,
       (SELECT count(*) FROM documents WHERE org_id = $1 AND status = $3) AS ready
"""
INDEXED = """
SELECT count(DISTINCT document_id) AS docs, count(*) AS chunks FROM knowledge_chunks
WHERE org_id = $1 AND collection_id = $2 AND generation = $3
"""


def load_corpus(n: int) -> list[tuple[str, str]]:
    corpus = h.SCIFACT / "corpus.jsonl"
    if not corpus.is_file():
        raise SystemExit(f"SciFact not found at {corpus} (expected ../shared)")
    with corpus.open(encoding="utf-8") as fh:
        return [
            (d["_id"], f"{d.get('title', '')}\n\n{d.get('text', '')}".strip())
            for d in map(json.loads, islice(fh, n))
        ]


def worker_groups(texts: list[str]) -> list[list[str]]:
    """The embed calls the shared embedding stage makes for these texts when one organisation is
    loading (up to GROUP_TEXTS texts / GROUP_CHARS characters, at least one)."""
    from quire.indexer.ingest.embed_stage import GROUP_CHARS, GROUP_TEXTS

    groups: list[list[str]] = [[]]
    size = 0
    for text in texts:
        full = len(groups[-1]) >= GROUP_TEXTS or size + len(text) > GROUP_CHARS
        if groups[-1] and full:
            groups.append([])
            size = 0
        groups[-1].append(text)
        size += len(text)
    return [g for g in groups if g]


async def raw_throughput(embeddings: Any, docs: list[tuple[str, str]]) -> dict[str, Any]:
    from quire.indexer.chunking import chunk_text, document_title, embedding_text
    from quire.indexer.worker.pipeline import TITLE_MODE

    started = time.perf_counter()
    per_doc: list[list[str]] = []
    for doc_id, text in docs:
        title = document_title(f"{doc_id}.txt", text, TITLE_MODE)
        per_doc.append([embedding_text(c, title) for c in chunk_text(text)])
    chunking_s = time.perf_counter() - started
    texts = [t for group in per_doc for t in group]
    before = h.cpu_sample()
    await embeddings.embed_bulk(texts)
    cpu = h.cpu_spent(before, h.cpu_sample())
    one_call = cpu["wall_s"] + chunking_s
    t0 = time.perf_counter()
    for group in worker_groups(texts):
        await embeddings.embed_bulk(group)
    grouped = time.perf_counter() - t0 + chunking_s
    return {
        "documents": len(docs),
        "chunks": len(texts),
        "chunking_s": round(chunking_s, 3),
        "one_call_s": round(one_call, 2),
        "worker_groups_s": round(grouped, 2),
        "docs_per_s_one_call": round(len(docs) / one_call, 1),
        "docs_per_s_worker_groups": round(len(docs) / grouped, 1),
        "cpu_one_call": cpu,
    }


def children_peak_mb() -> list[float]:
    import psutil

    out = []
    for child in psutil.Process().children(recursive=True):
        peak = h.peak_rss_mb(child.pid)
        if peak is not None:
            out.append(peak)
    return out


async def main(args: argparse.Namespace) -> dict[str, Any]:
    h.setup_logging(args.verbose)
    n = args.documents or (150 if args.quick else 1000)
    docs = load_corpus(n)
    report: dict[str, Any] = {
        "benchmark": "ingest",
        "machine_at_start": h.machine(),
        "quick": bool(args.quick),
        "documents": len(docs),
        "upload_concurrency": args.upload_concurrency,
    }
    embeddings = h.load_model(args.embed_threads)
    report["embed_threads"] = args.embed_threads or h.machine()["cores"]
    embeddings.embedder.embed(["warm up the session"] * 8)
    async with (
        h.database("bench_ingest") as url,
        h.Quire(url, embeddings=embeddings, worker=True) as quire,
    ):
        key = await quire.key()
        rss_before = h.rss_mb()
        stage = embeddings.ingest_stage
        async with quire.client(key.token) as client:
            cpu_start = h.cpu_sample()
            embedded_before = stage.texts_embedded
            uploaded_s, pipeline_s, row, indexed = await ingest(
                client, quire, key, docs, "scifact", args
            )
            pipeline_cpu = h.cpu_spent(cpu_start, h.cpu_sample())
            first_embedded = stage.texts_embedded - embedded_before
            # The same files into a second collection of the same organisation: every vector
            # comes from the vector store (docs/embedding.md).
            h.note("re-ingesting the same documents into a second collection")
            embedded_before, reused_before = stage.texts_embedded, stage.texts_reused
            _, again_s, _, again_indexed = await ingest(
                client, quire, key, docs, "scifact-again", args
            )
            reingest = {
                "wall_s": round(again_s, 2),
                "texts_embedded": stage.texts_embedded - embedded_before,
                "texts_reused": stage.texts_reused - reused_before,
                "first_ingestion_texts_embedded": first_embedded,
                "indexed_chunks": again_indexed["chunks"],
                "speedup_over_first": h.ratio(pipeline_s, again_s),
            }
        peak_pipeline = h.peak_rss_mb()
        children = children_peak_mb()
        h.note(f"pipeline {pipeline_s:.1f} s; raw embedding of the same texts")
        raw = await raw_throughput(embeddings, docs)
    pipeline_rate = len(docs) / pipeline_s
    report.update(
        {
            "pipeline": {
                "wall_s": round(pipeline_s, 2),
                "upload_phase_s": round(uploaded_s, 2),
                "docs_per_s": round(pipeline_rate, 1),
                "ready_documents": row["ready"],
                "indexed_documents": indexed["docs"],
                "indexed_chunks": indexed["chunks"],
                "serving_generation": row["gen"],
            },
            "raw_embedding": raw,
            "reingest_same_organisation": reingest,
            "ratios": {
                "pipeline_over_raw_one_call": h.ratio(pipeline_rate, raw["docs_per_s_one_call"]),
                "pipeline_over_raw_worker_groups": h.ratio(
                    pipeline_rate, raw["docs_per_s_worker_groups"]
                ),
                "goal": GOAL_RATIO,
            },
            "cpu": cpu_report(
                pipeline_cpu, raw["cpu_one_call"], raw["one_call_s"], report["embed_threads"]
            ),
            "memory": {
                "rss_before_mb": rss_before,
                "peak_rss_after_pipeline_mb": peak_pipeline,
                "extraction_children_peak_mb": children,
                "note": "one process: server + worker + upload client; raw baseline runs after",
            },
        }
    )
    return report


async def ingest(
    client: Any, quire: Any, key: Any, docs: list[tuple[str, str]], name: str, args: Any
) -> tuple[float, float, Any, Any]:
    """Uploads `docs` into a new collection and waits until its serving generation holds them:
    (upload seconds, pipeline seconds, progress row, indexed counts)."""
    from quire.v1 import knowledge_pb2

    collection = await client.create_collection(name=name)
    cid = collection.collection_id
    h.note(f"uploading {len(docs)} documents into {name}")
    started = time.perf_counter()
    await h.run_load(
        lambda i: client.upload_document(
            collection_id=cid,
            file_name=f"{docs[i][0]}.txt",
            data=docs[i][1].encode(),
            mime_type="text/plain",
        ),
        requests=len(docs),
        concurrency=args.upload_concurrency,
    )
    uploaded_s = time.perf_counter() - started
    h.note(f"uploads done in {uploaded_s:.1f} s; waiting for the index")
    bound = max(120.0, len(docs) * 1.0)
    async with quire.pool.acquire() as conn:
        while True:
            row = await conn.fetchrow(
                PROGRESS, key.org_id, _uuid(cid), knowledge_pb2.DOCUMENT_STATUS_READY
            )
            if row["pending"] == 0 and (row["gen"] or 0) > 0:
                break
            if time.perf_counter() - started > bound:
                raise SystemExit(f"ingestion not finished after {bound:.0f} s: {dict(row)}")
            await asyncio.sleep(0.1)
        pipeline_s = time.perf_counter() - started
        indexed = await conn.fetchrow(INDEXED, key.org_id, _uuid(cid), row["gen"])
    return uploaded_s, pipeline_s, row, indexed


def cpu_report(
    pipeline: dict[str, float], raw: dict[str, float], raw_s: float, threads: int
) -> dict[str, Any]:
    """Both phases' CPU, the pipeline's work beyond the embedding itself, and the ratio the
    pipeline could reach if that work used only idle core time. `raw_s`: the raw one-call
    time the headline ratio uses (chunking included)."""
    cores = h.machine()["cores"]
    busy = pipeline["process_s"] + pipeline["children_s"] + pipeline["postgres_s"]
    embedding = raw["process_s"]
    others = busy - embedding
    return {
        "cores": cores,
        "embed_threads": threads,
        "pipeline": pipeline,
        "raw_one_call": raw,
        "embedding_core_s": round(embedding, 2),
        "non_embedding_core_s": round(others, 2),
        "non_embedding_share": round(others / busy, 3) if busy else None,
        # The pipeline can finish no sooner than max(raw wall, all its CPU spread on the cores).
        "ratio_if_no_core_idle": h.ratio(raw_s, max(raw_s, busy / cores)),
    }


def _uuid(text: str) -> Any:
    import uuid

    return uuid.UUID(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=0, help="default 1000")
    parser.add_argument("--upload-concurrency", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="150 documents")
    parser.add_argument(
        "--embed-threads", type=int, default=None, help="ONNX Runtime threads (default: cores)"
    )
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), arguments.out)

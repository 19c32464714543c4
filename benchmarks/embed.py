"""Embedding benchmark: throughput, query latency, int8 accuracy and memory. Prints JSON.

    .venv/bin/python benchmarks/embed.py [--docs 512] [--queries 200] [--out FILE]

Documents are SciFact abstracts (`title + " " + text`, truncated at the model's 256-token window)
from ../shared/data/scifact. The baseline, sentence-transformers on PyTorch, cannot run here
(PyTorch must not be installed), so its figure is the one measured on this machine kind and
recorded in ../shared/data/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
for extra in ("indexer", "server", "clients/python", "."):
    if str(REPO / extra) not in sys.path:
        sys.path.insert(0, str(REPO / extra))

from tests.support.shared_data import SHARED  # noqa: E402

SCIFACT = SHARED / "data" / "scifact"

from quire.indexer.embedding import Embedder, Precision  # noqa: E402

BASELINE_DOCS_PER_S = 27.5
BASELINE_SOURCE = (
    "sentence-transformers 6.2.0 on PyTorch 2.13 CPU, all-MiniLM-L6-v2, SciFact title + abstract "
    "at 256 tokens, batch 32, idle 2-core machine of this kind (../shared/data/README.md); not "
    "re-run here because PyTorch must not be installed"
)
GOALS = {"int8_docs_per_s": 83.0, "query_p50_ms": 5.0, "rss_mb": 600.0}


def _rss_mb() -> float:
    """Peak resident set size of this process in MiB.

    `VmHWM` is per address space, so a child started with fork + exec reports its own peak;
    `ru_maxrss` would carry over the parent's peak across exec."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def load_texts(docs: int, queries: int) -> tuple[list[str], list[str]]:
    corpus, claims = SCIFACT / "corpus.jsonl", SCIFACT / "queries-train.jsonl"
    if not corpus.is_file():
        raise SystemExit(f"SciFact not found at {corpus.resolve()} (expected ../shared)")
    with corpus.open(encoding="utf-8") as fh:
        doc_texts = [f"{d['title']} {d['text']}" for d in map(json.loads, islice(fh, docs))]
    with claims.open(encoding="utf-8") as fh:
        query_texts = [q["text"] for q in map(json.loads, islice(fh, queries))]
    return doc_texts, query_texts


def throughput(embedder: Embedder, docs: list[str], tokens: int, repeats: int) -> dict[str, Any]:
    embedder.embed(docs[:16], max_batch_tokens=tokens)  # warm-up: allocator, thread pool
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        embedder.embed(docs, max_batch_tokens=tokens)
        rates.append(len(docs) / (time.perf_counter() - started))
    return {"docs_per_s": round(max(rates), 1), "runs": [round(r, 1) for r in rates]}


def one_run_at_a_time(model: str, docs: list[str], repeats: int) -> dict[str, Any]:
    """The baseline in the same run: the same int8 model executed as before this engine, one
    text per ONNX run, each run spread over every core (intra-op threads, no spinning)."""
    import onnxruntime as ort

    embedder = Embedder.load(model, precision="int8")
    options = ort.SessionOptions()
    options.intra_op_num_threads = len(os.sched_getaffinity(0))
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        str(Path(model) / "model-int8.onnx"),
        options,
        providers=["CPUExecutionProvider"],
        disabled_optimizers=["SkipLayerNormFusion"],
    )
    embedder._session = session
    embedder._runs = None
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        for doc in docs:
            embedder.embed_query(doc)
        rates.append(len(docs) / (time.perf_counter() - started))
    return {"docs_per_s": round(max(rates), 1), "runs": [round(r, 1) for r in rates]}


def latency(embedder: Embedder, queries: list[str]) -> tuple[dict[str, float], np.ndarray]:
    for q in queries[:10]:
        embedder.embed_query(q)
    times, vectors = [], []
    for q in queries:
        started = time.perf_counter()
        vectors.append(embedder.embed_query(q))
        times.append((time.perf_counter() - started) * 1000.0)
    cuts = statistics.quantiles(times, n=100)
    return (
        {"p50_ms": round(cuts[49], 3), "p95_ms": round(cuts[94], 3), "n": len(times)},
        np.stack(vectors),
    )


def rss_probe(model: str | None, precision: Precision, threads: int | None) -> dict[str, Any]:
    """Run in a fresh process: peak RSS after load and after embedding at batch 8 and 32."""
    before = _rss_mb()
    embedder = Embedder.load(model, precision=precision, threads=threads)
    loaded = _rss_mb()
    docs, _ = load_texts(64, 0)
    embedder.embed_query("warm up")
    after_query = _rss_mb()
    embedder.embed(docs[:32])
    after_b8 = _rss_mb()
    embedder.embed(docs[:64], max_batch_tokens=2048)
    return {
        "python_baseline_mb": round(before, 1),
        "after_load_mb": round(loaded, 1),
        "after_query_mb": round(after_query, 1),
        "after_batch8_mb": round(after_b8, 1),
        "after_batch32_mb": round(_rss_mb(), 1),
    }


def measure_rss(model: str | None, precision: str, threads: int | None) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--rss-probe", precision]
    if model:
        cmd += ["--model", model]
    if threads:
        cmd += ["--threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def cos_stats(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    cos = (a.astype(np.float64) * b).sum(axis=1)
    return {"min": round(float(cos.min()), 5), "mean": round(float(cos.mean()), 5)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=512)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--batch-tokens", default="1,256,2048", help="micro-batch token budgets (1: a text a run)"
    )
    parser.add_argument("--repeats", type=int, default=2, help="best of N runs per setting")
    parser.add_argument("--model", default=None, help="model name or directory (default: prepare)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    parser.add_argument("--rss-probe", choices=["int8", "fp32"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.rss_probe:
        print(json.dumps(rss_probe(args.model, args.rss_probe, args.threads)))
        return

    model = args.model
    prepare_s = None
    if model is None:
        from quire.indexer.model_prepare import prepare_model

        started = time.perf_counter()
        model = str(prepare_model())
        prepare_s = round(time.perf_counter() - started, 2)

    docs, queries = load_texts(args.docs, args.queries)
    batch_sizes = [int(b) for b in args.batch_tokens.split(",") if b]
    report: dict[str, Any] = {
        "benchmark": "embed",
        "model_dir": model,
        "machine": {
            "cores": len(os.sched_getaffinity(0)),
            "processor": platform.processor() or platform.machine(),
            "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "prepare_model_s": prepare_s,
        "docs": len(docs),
        "queries": len(queries),
        "doc_format": "title + ' ' + text, truncated at 256 tokens",
        "baseline_docs_per_s": BASELINE_DOCS_PER_S,
        "baseline_source": BASELINE_SOURCE,
        "precisions": {},
    }
    vectors: dict[str, dict[str, np.ndarray]] = {}
    for precision in ("fp32", "int8"):
        embedder = Embedder.load(model, precision=precision, threads=args.threads)
        entry: dict[str, Any] = {"fingerprint": embedder.fingerprint, "throughput": {}}
        for batch in batch_sizes:
            result = throughput(embedder, docs, batch, args.repeats)
            result["vs_baseline"] = round(result["docs_per_s"] / BASELINE_DOCS_PER_S, 2)
            entry["throughput"][f"tokens_{batch}"] = result
        entry["query_latency"], query_vectors = latency(embedder, queries)
        vectors[precision] = {"docs": embedder.embed(docs), "queries": query_vectors}
        entry["rss"] = measure_rss(model, precision, args.threads)
        report["precisions"][precision] = entry
        del embedder

    report["baseline_same_run"] = one_run_at_a_time(model, docs, args.repeats)
    report["int8_vs_fp32_cosine"] = {
        "docs": cos_stats(vectors["int8"]["docs"], vectors["fp32"]["docs"]),
        "queries_single": cos_stats(vectors["int8"]["queries"], vectors["fp32"]["queries"]),
    }
    int8 = report["precisions"]["int8"]
    best_int8 = max(int8["throughput"][f"tokens_{b}"]["docs_per_s"] for b in batch_sizes)
    report["int8_vs_one_run_at_a_time"] = round(
        best_int8 / report["baseline_same_run"]["docs_per_s"], 2
    )
    rss = int8["rss"]["after_batch8_mb"]
    report["goals"] = {
        "int8_docs_per_s_best": {
            "value": best_int8,
            "goal": GOALS["int8_docs_per_s"],
            "met": best_int8 >= GOALS["int8_docs_per_s"],
        },
        "int8_query_p50_ms": {
            "value": int8["query_latency"]["p50_ms"],
            "goal": GOALS["query_p50_ms"],
            "met": int8["query_latency"]["p50_ms"] < GOALS["query_p50_ms"],
        },
        "int8_rss_mb_loaded_batch8": {
            "value": rss,
            "goal": GOALS["rss_mb"],
            "met": rss < GOALS["rss_mb"],
        },
    }
    report["peak_rss_this_process_mb"] = round(_rss_mb(), 1)
    report["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

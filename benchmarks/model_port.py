"""A prepared model's vectors alone on a BEIR data set: dense nDCG@10 and documents/s. Prints JSON.

    .venv/bin/python benchmarks/model_port.py [--model bge-small-en-v1.5] [--split train]
        [--dataset ../shared/data/scifact] [--max-documents N] [--cache DIR] [--out FILE]

Checks a port end to end without the reference implementation: documents are embedded as
`title + " " + text` through `Embedder.embed` (the model's own window), queries through
`embed_query` (with the model's instruction prefix), ranked by cosine over the whole corpus and
scored with nDCG@10 against the split's qrels. `--cache` keeps the document vectors (keyed by
the model fingerprint) so a rerun only scores.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
for extra in ("indexer", "server", "clients/python", "."):
    if str(REPO / extra) not in sys.path:
        sys.path.insert(0, str(REPO / extra))

from quire.indexer.embedding import Embedder  # noqa: E402
from tests.support.shared_data import SHARED  # noqa: E402


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        qid, did, score = line.split("\t")
        if int(score) > 0:
            out.setdefault(qid, {})[did] = int(score)
    return out


def ndcg_at_10(ranked: list[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def main(args: argparse.Namespace) -> dict[str, Any]:
    root = Path(args.dataset)
    corpus = read_jsonl(root / "corpus.jsonl")
    if args.max_documents:
        corpus = corpus[: args.max_documents]
    qrels = read_qrels(root / "qrels" / f"{args.split}.tsv")
    queries = [q for q in read_jsonl(root / f"queries-{args.split}.jsonl") if q["_id"] in qrels]
    embedder = Embedder.load(args.model, threads=args.threads or None)
    load_before = [round(x, 2) for x in os.getloadavg()]
    texts = [f"{d.get('title', '')} {d['text']}".strip() for d in corpus]
    name = f"{embedder.fingerprint[:16]}-{len(texts)}.npy"
    cache = Path(args.cache) / name if args.cache else None
    started = time.perf_counter()
    if cache is not None and cache.is_file():
        docs, docs_per_s = np.load(cache), None
    else:
        docs = embedder.embed(texts)
        docs_per_s = round(len(texts) / (time.perf_counter() - started), 2)
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            np.save(cache, docs)
    ids = [d["_id"] for d in corpus]
    scores = []
    for query in queries:
        sims = docs @ embedder.embed_query(query["text"])
        top = np.argsort(-sims, kind="stable")[:10]
        scores.append(ndcg_at_10([ids[i] for i in top], qrels[query["_id"]]))
    return {
        "model": args.model,
        "fingerprint": embedder.fingerprint,
        "dataset": str(root),
        "split": args.split,
        "documents": len(texts),
        "queries": len(queries),
        "ndcg@10": round(float(np.mean(scores)), 4),
        "docs_per_s": docs_per_s,
        "threads": embedder.threads,
        "max_batch_texts": embedder.max_batch_texts,
        "loadavg_before": load_before,
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bge-small-en-v1.5")
    parser.add_argument("--dataset", default=str(SHARED / "data" / "scifact"))
    parser.add_argument("--split", default="train")
    parser.add_argument("--max-documents", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="ONNX runs at once (0: cores)")
    parser.add_argument("--cache", help="directory keeping the document vectors")
    parser.add_argument("--out", help="also write the JSON here")
    report = main(parser.parse_args())
    text = json.dumps(report, indent=2)
    print(text)
    if parser.parse_args().out:
        Path(parser.parse_args().out).write_text(text + "\n", encoding="utf-8")

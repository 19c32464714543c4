"""BEIR-layout data sets: corpus.jsonl, queries*.jsonl, qrels/<split>.tsv."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from quire.server.failures import invalid


@dataclass(frozen=True)
class Dataset:
    name: str
    split: str
    corpus: dict[str, str]  # document id → text (title, blank line, body)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


# Messages name files relative to the data set only: RunGate callers must not learn server paths.
def _queries_file(root: Path, split: str) -> Path:
    for name in (f"queries-{split}.jsonl", f"queries_{split}.jsonl", "queries.jsonl"):
        if (root / name).is_file():
            return root / name
    raise invalid("dataset", f"the data set has no queries file for split {split!r}")


def load(
    root: Path,
    split: str,
    *,
    max_documents: int = 0,
    max_queries: int = 0,
    name: str = "",
) -> Dataset:
    """Loads a split; with bounds, keeps the first judged queries and every document they
    judge, then fills up with other documents in corpus order. `name` defaults to the
    directory's."""
    if not (root / "corpus.jsonl").is_file():
        raise invalid("dataset", "the data set has no corpus.jsonl")
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        raise invalid("split", f"the data set has no qrels/{split}.tsv")
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open(newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        for row in reader:
            if len(row) < 3 or row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    queries: dict[str, str] = {}
    with _queries_file(root, split).open() as handle:
        for line in handle:
            item = json.loads(line)
            if item["_id"] in qrels:
                queries[item["_id"]] = item["text"]
    if max_queries:
        queries = dict(list(queries.items())[:max_queries])
    qrels = {q: qrels[q] for q in queries}
    needed = {doc for judged in qrels.values() for doc in judged}
    corpus: dict[str, str] = {}
    others: dict[str, str] = {}
    with (root / "corpus.jsonl").open() as handle:
        for line in handle:
            item = json.loads(line)
            text = f"{item.get('title', '')}\n\n{item.get('text', '')}".strip()
            target = corpus if item["_id"] in needed or not max_documents else others
            target[item["_id"]] = text
    if max_documents:
        for doc_id, text in others.items():
            if len(corpus) >= max_documents:
                break
            corpus[doc_id] = text
    return Dataset(name or root.name, split, corpus, queries, qrels)

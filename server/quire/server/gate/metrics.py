"""Retrieval metrics with the standard (trec_eval / BEIR) definitions.

Rankings are lists of document ids, best first; judgments map a document id to a graded
relevance (> 0 is relevant). nDCG uses linear gain rel / log2(rank + 1), as trec_eval's
ndcg_cut does; the ideal ranking sorts the judged relevant documents by grade.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


def ndcg_at(ranking: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    dcg = sum(
        judged.get(doc, 0) / math.log2(rank + 1) for rank, doc in enumerate(ranking[:k], start=1)
    )
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranking: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    relevant = {doc for doc, g in judged.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant & set(ranking[:k])) / len(relevant)


def mrr_at(ranking: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    for rank, doc in enumerate(ranking[:k], start=1):
        if judged.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


@dataclass(frozen=True)
class Scores:
    ndcg_at_10: float
    recall_at_10: float
    recall_at_100: float
    mrr_at_10: float

    def as_dict(self) -> dict[str, float]:
        return {
            "ndcg@10": self.ndcg_at_10,
            "recall@10": self.recall_at_10,
            "recall@100": self.recall_at_100,
            "mrr@10": self.mrr_at_10,
        }


def evaluate(
    rankings: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]
) -> Scores:
    """Means over every judged query (a query with no ranking scores 0)."""
    queries = [q for q, judged in qrels.items() if any(g > 0 for g in judged.values())]
    if not queries:
        return Scores(0.0, 0.0, 0.0, 0.0)
    n = len(queries)

    def mean(metric: str, k: int) -> float:
        fn = {"ndcg": ndcg_at, "recall": recall_at, "mrr": mrr_at}[metric]
        return sum(fn(rankings.get(q, ()), qrels[q], k) for q in queries) / n

    return Scores(mean("ndcg", 10), mean("recall", 10), mean("recall", 100), mean("mrr", 10))

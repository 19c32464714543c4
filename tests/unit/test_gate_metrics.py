"""Retrieval metrics on hand-checked toy cases."""

from __future__ import annotations

import math

import pytest

from quire.server.gate.metrics import evaluate, mrr_at, ndcg_at, recall_at
from quire.server.gate.runner import passed


def test_ndcg_hand_computed() -> None:
    judged = {"a": 1, "b": 1}
    # Relevant at ranks 1 and 3: DCG = 1/log2(2) + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3).
    expected = 1.5 / (1 + 1 / math.log2(3))
    assert ndcg_at(["a", "x", "b"], judged, 10) == pytest.approx(expected)
    assert ndcg_at(["a", "b"], judged, 10) == pytest.approx(1.0)
    assert ndcg_at(["x", "y"], judged, 10) == 0.0
    # Cut at k: the relevant document at rank 3 does not count for nDCG@2.
    assert ndcg_at(["a", "x", "b"], judged, 2) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_graded_relevance_uses_linear_gain() -> None:
    judged = {"a": 2, "b": 1}
    ideal = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at(["b", "a"], judged, 10) == pytest.approx((1 + 2 / math.log2(3)) / ideal)


def test_recall_and_mrr() -> None:
    judged = {"a": 1, "b": 1, "c": 1, "d": 0}
    ranking = ["x", "d", "b", "y", "a"]
    assert recall_at(ranking, judged, 3) == pytest.approx(1 / 3)
    assert recall_at(ranking, judged, 100) == pytest.approx(2 / 3)
    assert mrr_at(ranking, judged, 10) == pytest.approx(1 / 3)
    assert mrr_at(ranking, judged, 2) == 0.0


def test_evaluate_averages_over_judged_queries_and_counts_missing_rankings_as_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    scores = evaluate({"q1": ["a"], "q3": ["c"]}, qrels)
    # q3 has no relevant document and is not a judged query; q2 has no ranking (scores 0).
    assert scores.ndcg_at_10 == pytest.approx(0.5)
    assert scores.recall_at_100 == pytest.approx(0.5)
    assert scores.mrr_at_10 == pytest.approx(0.5)


def test_gate_passes_only_when_hybrid_is_no_worse_on_both_measures() -> None:
    from quire.server.gate.metrics import Scores

    legacy = Scores(0.60, 0.7, 0.90, 0.5)
    assert passed(legacy, Scores(0.60, 0.1, 0.90, 0.1))
    assert not passed(legacy, Scores(0.59, 0.9, 0.99, 0.9))
    assert not passed(legacy, Scores(0.70, 0.9, 0.89, 0.9))

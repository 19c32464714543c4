"""Reciprocal rank fusion: score(d) = Σ_arms weight / (k + rank_arm(d)), ranks 1-based."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

DEFAULT_K = 60


def rrf(
    rankings: Sequence[Sequence[K]],
    *,
    k: int = DEFAULT_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[K, float]]:
    """Fuses ranked lists of keys; ties keep the order in which keys were first seen."""
    scores: dict[K, float] = {}
    for index, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[index]
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])

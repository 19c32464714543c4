"""Fusion of ranked arms.

- Reciprocal rank fusion: score(d) = Σ_arms weight / (k + rank_arm(d)), ranks 1-based. Only
  ranks count, so a very confident arm weighs no more than a hesitant one.
- Convex combination of normalised scores: score(d) = Σ_arms weight × norm_arm(d), where each
  arm's scores over its own candidates are normalised per query (min-max to [0, 1], or z-scores
  shifted so the arm's lowest candidate is 0) and a candidate an arm did not return gets 0
  from it. Score gaps count: a rare exact token that puts one page far ahead of the rest in
  the full-text arm keeps that lead.

`fuse` chooses one of the two by name, as both searches' tunings do (retrieval/tuning.py).

Both are deterministic: equal scores keep the order in which keys were first seen (the arms in
the order given, each best first).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

DEFAULT_K = 60


def _ordered(scores: dict[K, float]) -> list[tuple[K, float]]:
    return sorted(scores.items(), key=lambda item: -item[1])  # stable: first seen first


def rrf(
    rankings: Sequence[Sequence[K]],
    *,
    k: float = DEFAULT_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[K, float]]:
    """Fuses ranked lists of keys (best first)."""
    scores: dict[K, float] = {}
    for index, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[index]
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return _ordered(scores)


def normalise(scored: Sequence[tuple[K, float]], method: str, pad_to: int = 0) -> dict[K, float]:
    """Per-query normalisation of one arm's scores: "minmax" to [0, 1] (all equal: 1), or
    "zscore" shifted so the lowest is 0 (all equal: 1). With `pad_to`, the arm's list counts
    as that long, the missing places scoring 0: for an arm whose non-candidates truly score 0
    (full-text), a query matching a handful of chunks then gets them far above the rest
    instead of a spread measured among those few alone."""
    if not scored:
        return {}
    values = [score for _, score in scored]
    values += [0.0] * max(0, pad_to - len(values))
    low, high = min(values), max(values)
    if method == "minmax":
        if high - low <= 1e-12:
            return {key: 1.0 for key, _ in scored}
        return {key: (score - low) / (high - low) for key, score in scored}
    if method == "zscore":
        mean = sum(values) / len(values)
        spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
        if spread <= 1e-12:
            return {key: 1.0 for key, _ in scored}
        return {key: (score - low) / spread for key, score in scored}
    raise ValueError(f"unknown normalisation {method!r}")


def convex(
    arms: Sequence[Sequence[tuple[K, float]]],
    *,
    weights: Sequence[float],
    method: str = "minmax",
    pad_to: Sequence[int] | None = None,
) -> list[tuple[K, float]]:
    """Weighted sum of each arm's normalised scores (see the module docstring); `pad_to`:
    per arm, see `normalise`."""
    scores: dict[K, float] = {}
    pads = pad_to or [0] * len(arms)
    for arm, weight, pad in zip(arms, weights, pads, strict=True):
        for key, value in normalise(arm, method, pad).items():
            scores[key] = scores.get(key, 0.0) + weight * value
    return _ordered(scores)


def fuse(
    arms: Sequence[Sequence[tuple[K, float]]],
    *,
    method: str,
    weights: Sequence[float],
    rrf_k: float = DEFAULT_K,
    normalisation: str = "minmax",
    pad_to: Sequence[int] | None = None,
    what: str = "fusion",
) -> list[tuple[K, float]]:
    """The arms (each best first, with its scores) fused by `method`: "rrf" (their ranks, at
    `rrf_k`) or "convex" (their scores normalised by `normalisation`, padded by `pad_to`).
    Another method is a ValueError naming `what`, never a silent default."""
    if method == "rrf":
        return rrf([[key for key, _ in arm] for arm in arms], k=rrf_k, weights=weights)
    if method == "convex":
        return convex(arms, weights=weights, method=normalisation, pad_to=pad_to)
    raise ValueError(f"unknown {what} {method!r}")

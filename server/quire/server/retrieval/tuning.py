"""The knobs every hybrid search has, named once: how deep each arm reads, how the arms are
fused, and the BM25 parameters of the full-text arm.

Pages (`pages.search.PageTuning`) and knowledge (`knowledge.search.KnowledgeTuning`) each
extend `HybridTuning` with the knobs only that corpus has and give every knob its own value:
the two corpora were tuned apart (docs/retrieval-quality.md), so a shared knob has no
default here, and a corpus that forgot one fails when its tuning is built.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from quire.server.retrieval.fusion import fuse

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, kw_only=True)
class HybridTuning:
    # Candidates per arm (for knowledge: chunk candidates per chunk arm, documents per
    # document arm).
    depth: int
    # "convex": Σ weight × per-query normalised score (retrieval/fusion.py); "rrf":
    # Σ weight / (rrf_k + rank).
    fusion: str
    # Convex only: "zscore" (shifted so an arm's lowest candidate is 0) or "minmax".
    normalisation: str
    # Convex only: the sparse arms (full-text, and knowledge's file-name and legacy arms)
    # count as `depth` long, the places they did not fill scoring 0 (what BM25 gives a
    # candidate that matches no query term), so a query matching a handful of candidates puts
    # them far above the rest.
    pad_sparse_arms: bool
    rrf_k: float
    fts_weight: float
    vector_weight: float
    # BM25 of the full-text arm (retrieval/bm25.py): term saturation and length normalisation.
    k1: float
    b: float
    # Lexemes in more than this share of the chunks carry little idf and would make the arm
    # rank most of the corpus; they are left to the vector arm.
    max_df_ratio: float
    # The vector arm scans exactly (the same ranking whatever else the shared HNSW index
    # holds) when the chunks searched are at most this many; above it, HNSW (approximate).
    exact_vector_max_chunks: int

    @property
    def sparse_pad(self) -> int:
        """How long a sparse arm counts as in convex fusion (`pad_sparse_arms`)."""
        return self.depth if self.pad_sparse_arms else 0

    def fuse(
        self,
        arms: Sequence[Sequence[tuple[K, float]]],
        weights: Sequence[float],
        sparse: Sequence[bool],
    ) -> list[tuple[K, float]]:
        """The arms (each best first, with its scores) fused by this tuning; `sparse`, per
        arm: whether it is padded to `depth` (`pad_sparse_arms`)."""
        return fuse(
            arms,
            method=self.fusion,
            weights=weights,
            rrf_k=self.rrf_k,
            normalisation=self.normalisation,
            pad_to=[self.sparse_pad if each else 0 for each in sparse],
        )

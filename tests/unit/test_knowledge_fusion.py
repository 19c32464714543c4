"""HYBRID's document fusion (knowledge.search.fuse) and BM25 term choice, without a database:
the result depends on the candidates and their scores only, never on the order rows came in."""

from __future__ import annotations

import random
import uuid
from dataclasses import replace

import pytest

from quire.server.knowledge import bm25, search
from quire.server.retrieval.fusion import normalise
from quire.v1 import knowledge_pb2

D = [uuid.UUID(int=i) for i in range(10)]


def arms(**kwargs: object) -> search.Arms:
    return search.Arms(**kwargs)  # type: ignore[arg-type]


def test_convex_fusion_ranks_by_each_documents_best_chunk() -> None:
    fused, best = search.fuse(
        arms(
            fts=[((D[1], 2), 9.0), ((D[2], 0), 5.0), ((D[1], 0), 4.0), ((D[3], 1), 1.0)],
            vector=[((D[2], 1), 0.80), ((D[1], 0), 0.70), ((D[3], 0), 0.20)],
        ),
        search.DEFAULT_TUNING,
        10,
    )
    assert [doc for doc, _ in fused] == [D[1], D[2], D[3]]
    scores = [score for _, score in fused]
    assert scores == sorted(scores, reverse=True)
    # D1's best chunk: ordinal 2 leads the lexical arm by far; ordinal 0 is only second in both.
    assert best == {D[1]: 2, D[2]: 0, D[3]: 1}


def test_a_sparse_lexical_match_keeps_its_lead() -> None:
    """Padded to the arm's depth, one chunk matching a rare term stands far above the vector
    arm's spread, which has no such gaps."""
    vector = [((D[i], 0), 0.60 - i * 0.01) for i in range(1, 9)]
    fused, _ = search.fuse(arms(fts=[((D[9], 0), 3.0)], vector=vector), search.DEFAULT_TUNING, 10)
    assert fused[0][0] == D[9]
    unpadded = replace(search.DEFAULT_TUNING, pad_sparse_arms=False)
    assert search.fuse(arms(fts=[((D[9], 0), 3.0)], vector=vector), unpadded, 10)[0][0][0] == D[1]


def test_file_name_and_legacy_arms_are_fused_in() -> None:
    legacy = knowledge_pb2.KnowledgeHit(document_id=str(D[5]), score=0.3)
    fused, best = search.fuse(
        arms(
            fts=[((D[1], 0), 2.0)],
            vector=[((D[1], 0), 0.5)],
            file_name=[(D[4], 1.0)],
            legacy={D[5]: legacy},
        ),
        search.DEFAULT_TUNING,
        10,
    )
    assert {doc for doc, _ in fused} == {D[1], D[4], D[5]}
    assert D[4] not in best and D[5] not in best  # no chunk: snippet from elsewhere


def test_a_pending_document_gets_a_vector_share_in_proportion_to_its_full_text_one() -> None:
    """A pending document (no vectors yet) is a full-text candidate, and gets the vector
    arm's best share scaled by its full-text score relative to the best: without it, it would
    sink below every indexed document the vector arm returns at all."""
    tuning = search.DEFAULT_TUNING
    vector = [((D[1], 0), 0.9)] + [((D[i], 0), 0.5 - i * 0.01) for i in range(3, 9)]
    fts = [((D[1], 0), 4.0), ((D[3], 0), 1.0)]
    fused, best = search.fuse(arms(fts=fts, vector=vector, pending=[(D[2], 3.0)]), tuning, 10)
    scores = dict(fused)
    lexical = normalise([(D[1], 4.0), (D[2], 3.0), (D[3], 1.0)], "zscore", tuning.depth)
    top_vector = normalise([(key[0], score) for key, score in vector], "zscore")[D[1]]
    share = top_vector * lexical[D[2]] / lexical[D[1]]
    assert scores[D[2]] == pytest.approx(
        tuning.fts_weight * lexical[D[2]] + tuning.vector_weight * share
    )
    assert [doc for doc, _ in fused][:3] == [D[1], D[2], D[3]]
    assert D[2] not in best  # no chunk: a document-level hit
    for fusion in (tuning, search.PREVIOUS_TUNING):
        only, _ = search.fuse(arms(fts=[], vector=vector, pending=[(D[2], 3.0)]), fusion, 10)
        assert only[0][0] == D[2]  # the only full-text match leads
        weak, _ = search.fuse(arms(fts=fts, vector=vector, pending=[(D[2], 0.5)]), fusion, 10)
        order = [doc for doc, _ in weak]
        assert order.index(D[1]) < order.index(D[3]) < order.index(D[2])


def test_rrf_fusion_is_still_available() -> None:
    fused, _ = search.fuse(
        arms(fts=[((D[1], 0), 9.0), ((D[2], 0), 1.0)], vector=[((D[2], 0), 0.9)]),
        search.PREVIOUS_TUNING,
        10,
    )
    assert [doc for doc, _ in fused] == [D[2], D[1]]


def test_fusion_is_deterministic_and_bounded_by_the_limit() -> None:
    rng = random.Random(7)
    fts = sorted(
        (((D[i % 10], i), round(rng.random() * 5, 3)) for i in range(40)), key=lambda r: -r[1]
    )
    vector = sorted(
        (((D[i % 10], i), round(rng.random(), 3)) for i in range(40)), key=lambda r: -r[1]
    )
    first = search.fuse(arms(fts=fts, vector=vector), search.DEFAULT_TUNING, 5)
    again = search.fuse(arms(fts=list(fts), vector=list(vector)), search.DEFAULT_TUNING, 5)
    assert first == again and len(first[0]) == 5


def test_ties_that_reach_the_shown_ranks_are_found() -> None:
    ranked = [(D[1], 3.0), (D[2], 2.0), (D[3], 2.0), (D[4], 1.0), (D[5], 0.5), (D[6], 0.5)]
    assert search._tied(ranked, 2) == [D[2], D[3]]  # D3 is past the limit, still tied
    assert search._tied(ranked, 4) == [D[2], D[3]]
    assert search._tied(ranked, 5) == [D[2], D[3], D[5], D[6]]
    assert search._tied([(D[1], 1.0)], 1) == []


def test_bm25_terms_do_not_depend_on_row_order() -> None:
    cid = uuid.UUID(int=1)
    rows = [
        {
            "collection_id": cid,
            "generation": 1,
            "chunks": 1000,
            "avgdl": 50.0,
            "lexeme": f"w{i:03d}",
            "df": 5 + i % 3,  # many equal dfs: equal idf
        }
        for i in range(120)
    ]
    chosen = [t.lexeme for t in bm25.select_terms(rows, 0.25)]  # type: ignore[arg-type]
    assert len(chosen) == bm25.MAX_TERMS
    for seed in range(5):
        shuffled = rows[:]
        random.Random(seed).shuffle(shuffled)
        assert [t.lexeme for t in bm25.select_terms(shuffled, 0.25)] == chosen  # type: ignore[arg-type]

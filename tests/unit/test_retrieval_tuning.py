"""The hybrid knobs named once (retrieval/tuning.py): each corpus gives every shared knob its
own value, and renaming knowledge's BM25 knobs left its serving fingerprint, under which gate
results and cache entries are recorded, as it was."""

from __future__ import annotations

import dataclasses

import pytest

from quire.server.knowledge import search as knowledge
from quire.server.pages import search as pages
from quire.server.retrieval.fusion import fuse
from quire.server.retrieval.tuning import HybridTuning

# serving_fingerprint("onnx:test") of the default and the previous tuning, computed by the code
# before the knobs were renamed (bm25_k1, bm25_b: k1, b). Recorded gate results are keyed by
# such fingerprints: a rename that changed them would make every one of them stale.
RECORDED = {
    "default": "e8570930f5f2257f7ef765e28dbda83f",
    "previous": "d970009039673af93c705546a5af10d3",
}


def test_the_fingerprint_is_the_one_recorded_before_the_rename() -> None:
    """Over generations of `simple` lexemes (all of them before text analyses existed)."""
    simple = ["simple"]
    assert knowledge.serving_fingerprint("onnx:test", text_configs=simple) == RECORDED["default"]
    previous = knowledge.serving_fingerprint("onnx:test", knowledge.PREVIOUS_TUNING, simple)
    assert previous == RECORDED["previous"]


def test_the_text_analysis_is_part_of_the_fingerprint() -> None:
    """Gate results measured on stemmed generations do not vouch for `simple` ones, nor the
    reverse; a search over both kinds has a fingerprint of its own."""
    simple = knowledge.serving_fingerprint("onnx:test", text_configs=["simple"])
    english = knowledge.serving_fingerprint("onnx:test", text_configs=["english"])
    both = knowledge.serving_fingerprint("onnx:test", text_configs=["english", "simple"])
    assert len({simple, english, both}) == 3
    # New generations are stemmed: the default is theirs.
    assert knowledge.serving_fingerprint("onnx:test") == english


def test_every_tuning_knob_changes_the_fingerprint() -> None:
    base = knowledge.serving_fingerprint("onnx:test")
    for knob in dataclasses.fields(knowledge.KnowledgeTuning):
        value = getattr(knowledge.DEFAULT_TUNING, knob.name)
        changed = (
            not value
            if isinstance(value, bool)
            else value + 1
            if isinstance(value, int | float)
            else value + "-other"
        )
        tuned = dataclasses.replace(knowledge.DEFAULT_TUNING, **{knob.name: changed})
        assert knowledge.serving_fingerprint("onnx:test", tuned) != base, knob.name


def test_each_corpus_gives_every_shared_knob_its_own_value() -> None:
    """The shared knobs have no corpus-free default: a corpus tuning missing one could not be
    built without naming it, so these defaults are each corpus's own."""
    with pytest.raises(TypeError):
        HybridTuning()  # type: ignore[call-arg]
    page, chunk = pages.PageTuning(), knowledge.KnowledgeTuning()
    differing = {
        f.name
        for f in dataclasses.fields(HybridTuning)
        if getattr(page, f.name) != getattr(chunk, f.name)
    }
    assert {"depth", "rrf_k", "fts_weight", "vector_weight", "b"} <= differing


def test_an_unknown_fusion_names_what_it_was_for() -> None:
    arms = [[("a", 1.0)], [("a", 0.5)]]
    with pytest.raises(ValueError, match="unknown phrasing fusion 'rff'"):
        fuse(arms, method="rff", weights=[1.0, 1.0], what="phrasing fusion")

"""bge-small-en-v1.5 from its pinned Maven jar: CLS pooling, the query instruction, vectors that
do not depend on their batch-mates, regression against recorded vectors, and refusals (a jar
that is not the pinned one, a tampered model file).

`make model` prepares the model (`quire model prepare --model bge-small-en-v1.5`: a 25 MB jar
download, checked against its pinned sha256); without it these tests skip, saying so.
"""

from __future__ import annotations

import json
import random
import shutil
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from quire.indexer.embedding import Embedder, ModelNotPreparedError, micro_batches, pool_rows
from quire.indexer.model_prepare import KNOWN_MODELS, ModelSourceError, prepare_model
from tests.conftest import FIXTURES
from tests.support.models import prepared_or_skip

# The module takes 3 s (loading bge-small-en-v1.5) under load (`make test-fast` leaves it out).
pytestmark = pytest.mark.slow

NAME = "bge-small-en-v1.5"
BATCH_SIZES = (3, 8, 17)
# Recorded with ONNX Runtime 1.32 on this machine kind; another CPU's int8 kernels may round
# differently in the last bits, never by this much.
GOLDEN_MIN_COSINE = 0.9999


@pytest.fixture(scope="module")
def bge() -> Embedder:
    return Embedder.load(prepared_or_skip(NAME))


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "golden" / f"{NAME}.json").read_text("utf-8"))
    return data


def test_manifest_settings_reach_the_embedder(bge: Embedder) -> None:
    known = KNOWN_MODELS[NAME]
    assert (bge.dimension, bge.max_tokens, bge.pooling) == (384, 512, "cls")
    assert bge.query_prefix == known.query_prefix
    assert bge.query_prefix.startswith("Represent this sentence")
    assert bge.max_batch_texts == 1


def test_recorded_vectors_are_reproduced(bge: Embedder, golden: dict[str, Any]) -> None:
    for item in golden["items"]:
        expected = np.asarray(item["embedding"], dtype=np.float64)
        if item["kind"] == "query":
            got = bge.embed_query(item["text"])
            tokens = bge.count_tokens([bge.query_prefix + item["text"]])[0]
        else:
            got = bge.embed([item["text"]])[0]
            tokens = bge.count_tokens([item["text"]])[0]
        assert tokens == item["tokens_after_truncation"], item["text"][:40]
        cosine = float(got @ expected / np.linalg.norm(expected))
        assert cosine >= GOLDEN_MIN_COSINE, (item["text"][:40], cosine)
        assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5


def test_queries_get_the_instruction_and_documents_do_not(bge: Embedder) -> None:
    text = "which enzymes repair DNA?"
    query = bge.embed_query(text)
    np.testing.assert_array_equal(query, bge.embed([bge.query_prefix + text])[0])
    np.testing.assert_array_equal(bge.embed_queries([text, "x"])[0], query)
    assert float(query @ bge.embed([text])[0]) < 0.999


def test_cls_pooling_takes_each_rows_first_token() -> None:
    hidden = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) + 1
    pooled = pool_rows(hidden, [3, 1], "cls")
    for row in range(2):
        first = hidden[row, 0] / np.linalg.norm(hidden[row, 0])
        np.testing.assert_allclose(pooled[row], first, rtol=1e-6)
    assert not np.allclose(pool_rows(hidden, [3, 1], "mean")[0], pooled[0])


def test_a_run_holds_at_most_max_texts() -> None:
    lengths = [5, 7, 5, 9, 3]
    assert sorted(map(len, micro_batches(lengths, 4096, max_texts=1))) == [1] * 5
    two = micro_batches(lengths, 4096, max_texts=2)
    assert max(map(len, two)) == 2 and sorted(i for g in two for i in g) == list(range(5))
    assert len(micro_batches(lengths, 4096)) == 1  # no text limit: one run


def test_vectors_do_not_depend_on_batch_mates(bge: Embedder, golden: dict[str, Any]) -> None:
    """The jar's int8 model takes its activation ranges per run, so the embedder runs each text
    alone (max_batch_texts = 1): through `embed`, any company gives the same bits."""
    mini = FIXTURES / "gate" / "mini"
    rows = [json.loads(line) for line in (mini / "corpus.jsonl").open(encoding="utf-8")]
    texts = [item["text"] for item in golden["items"]]
    texts += [f"{r.get('title', '')} {r['text']}".strip() for r in rows[:20]]
    alone = np.stack([bge.embed([text])[0] for text in texts])
    for seed, size in enumerate(BATCH_SIZES):
        order = list(range(len(texts)))
        random.Random(seed).shuffle(order)
        batched = np.empty_like(alone)
        for start in range(0, len(order), size):
            part = order[start : start + size]
            batched[part] = bge.embed([texts[i] for i in part], max_batch_tokens=4096)
        differing = np.flatnonzero((batched != alone).any(axis=1))
        assert differing.size == 0, (size, [texts[i][:60] for i in differing[:5]])


def _fake_jar(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("bge-small-en-v1.5-q.onnx", b"not a model")
        zf.writestr("bge-small-en-v1.5-q-tokenizer.json", b"{}")
    return path


def test_a_jar_other_than_the_pinned_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_HOME", str(tmp_path / "home"))
    with pytest.raises(ModelSourceError, match="pinned"):
        prepare_model(str(_fake_jar(tmp_path / "other.jar")), name=NAME)
    models = tmp_path / "home" / "models"
    assert not (models / NAME).exists()
    assert [p.name for p in models.iterdir() if not p.name.endswith(".lock")] == []


def test_a_tampered_model_file_is_refused_naming_the_command(bge: Embedder, tmp_path: Path) -> None:
    copy = tmp_path / NAME
    shutil.copytree(bge.directory, copy)
    model = copy / "model-int8.onnx"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(ModelNotPreparedError, match=f"quire model prepare --model {NAME}"):
        Embedder.load(copy)

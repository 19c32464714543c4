"""A text's vector is a function of the text alone: bit-identical whether it is embedded alone
or inside any batch (DESIGN §12). Checked on the golden texts and the repository's judged set
everywhere, and with the shared data on 500 SciFact documents and 500 queries, each alone and in
three different random batchings; int8 stays ≥ 0.99 cosine to fp32 at the minimum."""

from __future__ import annotations

import json
import random
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

from quire.indexer.embedding import Embedder, micro_batches
from quire.indexer.model_prepare import prepare_model
from tests.conftest import FIXTURES, shared_or_skip

# The module takes 8 s under load (`make test-fast` leaves it out).
pytestmark = pytest.mark.slow

INT8_MIN_COSINE = 0.99
BATCH_SIZES = (3, 8, 17)  # one random batching each


def _jsonl(path: Path, limit: int) -> list[str]:
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in islice(fh, limit)]
    return [f"{r.get('title', '')} {r['text']}".strip() for r in rows]


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return prepare_model()


@pytest.fixture(
    scope="module", params=["fixture", pytest.param("scifact", marks=pytest.mark.large_data)]
)
def texts(request: pytest.FixtureRequest) -> list[str]:
    golden = json.loads((FIXTURES / "golden" / "all-minilm-l6-v2.json").read_text("utf-8"))
    out = [item["text"] for item in golden["items"]]
    if request.param == "fixture":
        root = FIXTURES / "gate" / "mini"
        return out + _jsonl(root / "corpus.jsonl", 500) + _jsonl(root / "queries.jsonl", 500)
    shared = json.loads(shared_or_skip("golden", "all-minilm-l6-v2.json").read_text("utf-8"))
    root = shared_or_skip("data", "scifact")
    return (
        [item["text"] for item in shared["items"]]
        + _jsonl(root / "corpus.jsonl", 500)
        + _jsonl(root / "queries-train.jsonl", 500)
    )


def _random_batches(embedder: Embedder, texts: list[str], size: int, seed: int) -> np.ndarray:
    """Each batch one ONNX run (padded to its longest text), texts in random company."""
    order = list(range(len(texts)))
    random.Random(seed).shuffle(order)
    out = np.empty((len(texts), embedder.dimension), dtype=np.float32)
    ids = embedder.token_ids(texts)
    for start in range(0, len(order), size):
        part = order[start : start + size]
        out[part] = embedder._run([ids[i] for i in part])
    return out


def test_vectors_do_not_depend_on_batch_mates(model_dir: Path, texts: list[str]) -> None:
    embedder = Embedder.load(model_dir, precision="int8")
    alone = np.stack([embedder.embed_query(t) for t in texts])
    for seed, size in enumerate(BATCH_SIZES):
        batched = _random_batches(embedder, texts, size, seed)
        differing = np.flatnonzero((batched != alone).any(axis=1))
        assert differing.size == 0, (size, [texts[i][:60] for i in differing[:5]])
    np.testing.assert_array_equal(embedder.embed(texts), alone)


def test_int8_stays_close_to_fp32(model_dir: Path, texts: list[str]) -> None:
    int8 = Embedder.load(model_dir, precision="int8").embed(texts)
    fp32 = Embedder.load(model_dir, precision="fp32").embed(texts)
    cos = (int8.astype(np.float64) * fp32).sum(axis=1)
    assert cos.min() >= INT8_MIN_COSINE, (float(cos.min()), texts[int(cos.argmin())][:80])


def test_micro_batches_cover_every_text_once() -> None:
    lengths = [5, 300, 12, 12, 40, 7, 256, 1]
    groups = micro_batches(lengths, max_tokens=32)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    for group in groups:
        longest = max(lengths[i] for i in group)
        assert len(group) == 1 or len(group) * longest <= 32
    assert micro_batches([], 32) == []

"""The ONNX embedder reproduces the reference sentence-transformers embeddings.

Reference: four of its texts (short, Unicode, Markdown with code, empty) copied into
tests/fixtures/golden/all-minilm-l6-v2.json, so the embedder is checked on every machine; with
the shared data, also all eight of ../shared/golden/all-minilm-l6-v2.json (sentence-transformers
on PyTorch; a longer one fills the 256-token window). The model is prepared by `make test`
beforehand (`quire model prepare`); `prepare_model()` here is idempotent and returns at once
when the prepared model is current.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from quire.indexer.embedding import Embedder, ModelNotPreparedError
from quire.indexer.model_prepare import prepare_model
from tests.conftest import FIXTURES, shared_or_skip

GOLDEN = "all-minilm-l6-v2.json"

FP32_MIN_COSINE = 0.9999
INT8_MIN_COSINE = 0.99


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return prepare_model()


@pytest.fixture(
    scope="module", params=["fixture", pytest.param("shared", marks=pytest.mark.large_data)]
)
def golden(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The reference embeddings: the repository's four texts, then (large data) all eight."""
    if request.param == "fixture":
        path = FIXTURES / "golden" / GOLDEN
    else:
        path = shared_or_skip("golden", GOLDEN)
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert len(data["items"]) >= 4 and "" in [item["text"] for item in data["items"]]
    return data


@pytest.fixture(scope="module")
def fp32(model_dir: Path) -> Embedder:
    return Embedder.load(model_dir, precision="fp32")


@pytest.fixture(scope="module")
def int8(model_dir: Path) -> Embedder:
    return Embedder.load(model_dir, precision="int8")


def _reference(golden: dict[str, Any]) -> tuple[list[str], np.ndarray]:
    texts = [item["text"] for item in golden["items"]]
    ref = np.array([item["embedding"] for item in golden["items"]], dtype=np.float64)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)  # the file is rounded to 7 decimals
    return texts, ref


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a.astype(np.float64) * b).sum(axis=1))


@pytest.mark.parametrize(("precision", "threshold"), [("fp32", FP32_MIN_COSINE), ("int8", 0.99)])
def test_golden_one_at_a_time(
    golden: dict[str, Any], model_dir: Path, precision: str, threshold: float
) -> None:
    embedder = Embedder.load(model_dir, precision="fp32" if precision == "fp32" else "int8")
    texts, ref = _reference(golden)
    alone = np.stack([embedder.embed_query(t) for t in texts])
    cos = _cosines(alone, ref)
    assert cos.min() >= threshold, dict(zip(texts, cos.round(5).tolist(), strict=True))
    singles = np.concatenate([embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(singles, alone, atol=1e-6)


@pytest.mark.parametrize(("precision", "threshold"), [("fp32", FP32_MIN_COSINE), ("int8", 0.99)])
def test_golden_in_one_padded_batch(
    golden: dict[str, Any], model_dir: Path, precision: str, threshold: float
) -> None:
    """All texts (2 to 41 tokens; with the shared file 2 to 256) in one batch: a wrongly
    broadcast attention mask would pass the one-at-a-time test and fail this one."""
    embedder = Embedder.load(model_dir, precision="fp32" if precision == "fp32" else "int8")
    texts, ref = _reference(golden)
    batch = embedder.embed(texts, max_batch_tokens=1_000_000)  # one run, padded to the longest
    cos = _cosines(batch, ref)
    assert cos.min() >= threshold, dict(zip(texts, cos.round(5).tolist(), strict=True))


def test_token_counts_after_truncation(golden: dict[str, Any], int8: Embedder) -> None:
    texts = [item["text"] for item in golden["items"]]
    expected = [item["tokens_after_truncation"] for item in golden["items"]]
    assert int8.count_tokens(texts) == expected
    assert int8.max_tokens == golden["max_seq_length"] == 256


def test_output_contract(int8: Embedder, fp32: Embedder) -> None:
    for embedder in (int8, fp32):
        out = embedder.embed(["alpha", "a somewhat longer sentence about beta", ""])
        assert out.shape == (3, 384) and out.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-4)
        query = embedder.embed_query("alpha")
        assert query.shape == (384,) and query.dtype == np.float32
        assert embedder.dimension == 384
        assert embedder.embed([]).shape == (0, 384)
    assert int8.fingerprint != fp32.fingerprint
    assert len(int8.fingerprint) == 64
    again = Embedder.load(int8.directory, precision="int8")
    assert again.fingerprint == int8.fingerprint


@pytest.mark.slow  # 1 s under load (`make test-fast` leaves it out)
def test_results_keep_input_order(fp32: Embedder, int8: Embedder) -> None:
    """Length-sorted micro-batches hand rows back in input order, each the vector its text
    gets alone (bit for bit: tests/unit/test_embedding_invariance.py)."""
    texts = ["a much longer text " * 20, "short", "", "medium length text here", "short"]
    for embedder in (fp32, int8):
        alone = np.stack([embedder.embed_query(t) for t in texts])
        for budget in (1, 16, 1_000_000):
            np.testing.assert_array_equal(embedder.embed(texts, max_batch_tokens=budget), alone)


def test_empty_and_hostile_inputs(int8: Embedder) -> None:
    assert np.isfinite(int8.embed_query("")).all()
    huge = "word " * 4000  # 20,000 characters, far past the 256-token window
    assert len(huge) == 20_000
    assert int8.count_tokens([huge]) == [256]
    head = int8.embed_query(huge)
    assert np.isfinite(head).all()
    # Truncation: only the first 254 word pieces count, so more text changes nothing.
    np.testing.assert_allclose(head, int8.embed_query(huge + " tail " * 100), atol=1e-6)
    surrogate = int8.embed(["lone \ud800 surrogate", "\udfff"])
    assert np.isfinite(surrogate).all()
    raw = int8.embed([b"invalid \xff\xfe utf-8", "ok"])
    assert np.isfinite(raw).all()


def test_concurrent_calls_match_sequential(int8: Embedder) -> None:
    texts = [f"query number {i} about topic {i % 7}" for i in range(24)]
    sequential = np.stack([int8.embed_query(t) for t in texts])
    chunks = [texts[i : i + 6] for i in range(0, len(texts), 6)]
    sequential_batches = [int8.embed(chunk) for chunk in chunks]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(int8.embed_query, texts))
        parallel_batches = list(pool.map(int8.embed, chunks))
    np.testing.assert_array_equal(np.stack(parallel), sequential)
    np.testing.assert_array_equal(
        np.concatenate(parallel_batches), np.concatenate(sequential_batches)
    )


def test_missing_model_raises(tmp_path: Path) -> None:
    with pytest.raises(ModelNotPreparedError, match="quire model prepare"):
        Embedder.load(tmp_path / "no-such-model")
    assert issubclass(ModelNotPreparedError, RuntimeError)


def test_corrupt_model_raises(tmp_path: Path, model_dir: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("manifest.json", "tokenizer.json"):
        shutil.copy(model_dir / name, broken / name)
    size = (model_dir / "model-int8.onnx").stat().st_size
    (broken / "model-int8.onnx").write_bytes(b"\0" * size)  # right size, wrong content
    with pytest.raises(ModelNotPreparedError, match="quire model prepare"):
        Embedder.load(broken, precision="int8")
    with pytest.raises(ModelNotPreparedError, match="quire model prepare"):
        Embedder.load(broken, precision="fp32")  # listed in the manifest but absent
    (broken / "manifest.json").write_text("{not json")
    with pytest.raises(ModelNotPreparedError, match="quire model prepare"):
        Embedder.load(broken)


def test_prepare_is_idempotent(model_dir: Path) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in model_dir.iterdir()}
    started = time.perf_counter()
    assert prepare_model() == model_dir
    elapsed = time.perf_counter() - started
    after = {p.name: p.stat().st_mtime_ns for p in model_dir.iterdir()}
    assert after == before
    assert elapsed < 5.0
    manifest = json.loads((model_dir / "manifest.json").read_text())
    assert manifest["dimension"] == 384 and manifest["max_tokens"] == 256
    assert manifest["pooling"] == "mean" and manifest["normalize"] is True
    assert set(manifest["files"]) == {"model-fp32.onnx", "model-int8.onnx", "tokenizer.json"}


def _jsonl(path: Path, limit: int) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in islice(fh, limit):
            yield json.loads(line)


@pytest.fixture(
    scope="module", params=["fixture", pytest.param("scifact", marks=pytest.mark.large_data)]
)
def corpus(request: pytest.FixtureRequest) -> tuple[list[str], list[str]]:
    """Documents (title and text) and queries: the repository's judged set, or (large data)
    200 SciFact abstracts and 100 claims."""
    if request.param == "fixture":
        root, limit, queries = FIXTURES / "gate" / "mini", 200, "queries.jsonl"
    else:
        root, limit, queries = shared_or_skip("data", "scifact"), 200, "queries-train.jsonl"
    docs = [f"{d['title']} {d['text']}" for d in _jsonl(root / "corpus.jsonl", limit)]
    return docs, [q["text"] for q in _jsonl(root / queries, 100)]


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
def test_int8_matches_fp32(
    int8: Embedder, fp32: Embedder, corpus: tuple[list[str], list[str]]
) -> None:
    docs, queries = corpus
    for texts in (docs, queries):
        cos = _cosines(int8.embed(texts), fp32.embed(texts))
        assert cos.min() >= INT8_MIN_COSINE, (float(cos.min()), texts[int(cos.argmin())][:80])
    short = queries[:20]
    alone = np.stack([int8.embed_query(q) for q in short])
    assert _cosines(alone, fp32.embed(short)).min() >= INT8_MIN_COSINE


def test_failed_prepare_leaves_no_half_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash mid-build leaves neither a partial model nor a temporary directory, and an
    existing model survives a failed rebuild."""
    from quire.indexer.modelprep import prepare as prep

    monkeypatch.setenv("QUIRE_HOME", str(tmp_path / "home"))
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        (checkpoint / name).write_text("{}")

    def crash(_checkpoint: object, out: Path, _work: Path, _name: str) -> None:
        (out / "model-fp32.onnx").write_bytes(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(prep, "_build", crash)
    models = tmp_path / "home" / "models"
    with pytest.raises(OSError, match="disk full"):
        prepare_model(str(checkpoint), name="crashy")
    assert not (models / "crashy").exists()
    assert not [p for p in models.iterdir() if p.is_dir()]

    existing = models / "crashy"
    existing.mkdir()
    (existing / "marker").write_text("old model")
    with pytest.raises(OSError, match="disk full"):
        prepare_model(str(checkpoint), name="crashy", force=True)
    assert (existing / "marker").read_text() == "old model"
    assert [p.name for p in models.iterdir() if p.is_dir()] == ["crashy"]

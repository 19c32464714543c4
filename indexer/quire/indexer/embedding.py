"""Sentence embeddings with ONNX Runtime and Hugging Face `tokenizers` (no PyTorch).

`Embedder.load()` opens a model prepared by `quire model prepare` (see
`quire.indexer.modelprep`): `model-int8.onnx` or `model-fp32.onnx`, `tokenizer.json` and
`manifest.json` under `$QUIRE_HOME/models/<name>/`. The graph returns token embeddings; each
row is pooled and L2-normalised here (`pool_rows`), so every vector returned is a unit vector.

**A vector is a function of its text alone** (bit for bit, whatever it was batched with): the
int8 model quantises activations with fixed, calibrated scales (no per-batch range), padded
positions never reach a real token, and pooling runs per row in a fixed order (ONNX Runtime's
reductions sum a batch of one in another order than a batch of several). So texts may be
batched freely; tests/unit/test_embedding_invariance.py holds this.

**Execution.** Each ONNX run is single-threaded and up to `threads` runs go at once, one per
core, each on a micro-batch of similar-length texts (at most MICRO_BATCH_TOKENS tokens). A run
alone on a core keeps its activations in that core's cache and never waits at an intra-op
barrier, so nothing needs to spin, and a core taken by PostgreSQL or extraction slows one run,
not every run (docs/embedding.md has the measurements). The runs of every `embed` call share
one pool, first come first served: while one call's last text runs, a concurrent call's first
texts use the other cores (the sync's embedding stage keeps two calls in flight for this).

An `Embedder` is safe to share between threads: the tokenizer is only read after loading and
`InferenceSession.run` is thread-safe. Calls are blocking and CPU-bound; from asyncio code run
them in an executor.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Tokenizer

from quire.indexer.home import models_dir

Precision = Literal["int8", "fp32"]
FloatArray = npt.NDArray[np.float32]

DEFAULT_MODEL_NAME = "all-minilm-l6-v2"
# The manifest format this embedder reads: 2 = the graph returns token embeddings and the
# int8 model has fixed activation scales (batch-invariant vectors). Older models are refused
# with the command that rebuilds them.
MODEL_FORMAT = 2
# Tokens (padded) per ONNX run. Long texts run alone: batching 256-token texts was slower per
# text on one core (the activations leave the cache); short texts share a run so the per-run
# overhead is paid once.
MICRO_BATCH_TOKENS = 256
MODEL_FILES: dict[str, str] = {"int8": "model-int8.onnx", "fp32": "model-fp32.onnx"}
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "manifest.json"
# Text longer than this many characters per token of the window is cut before tokenisation.
# A WordPiece token covers at most ~100 non-space characters (longer words become [UNK]), so
# this only bounds the tokenizer's work on huge inputs; the window itself is exact.
_CHARS_PER_TOKEN_CAP = 128
# Used when a manifest predates the field: ORT's CPU SkipLayerNormalization kernel is slower than
# the Add + LayerNormalization it would replace (see docs/embedding.md).
_DEFAULT_DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)


class ModelNotPreparedError(RuntimeError):
    """No usable prepared model: missing, incomplete or corrupt. Run `quire model prepare`."""


class ModelTamperedError(ModelNotPreparedError):
    """A prepared model's files no longer match its manifest (edited, truncated or replaced).
    The server refuses to start on it: its vectors would not match the stored ones."""


def _not_prepared(
    directory: Path, problem: str, error: type[ModelNotPreparedError] = ModelNotPreparedError
) -> ModelNotPreparedError:
    return error(
        f"embedding model at {directory} is not usable ({problem}); "
        f"run `quire model prepare --model {directory.name}` to (re)build it"
    )


def resolve_model_dir(name_or_dir: str | Path | None) -> Path:
    """None → `$QUIRE_HOME/models/all-minilm-l6-v2`; a bare name → `$QUIRE_HOME/models/<name>`;
    anything else (a Path, or a string with a path separator or naming a directory) is a path."""
    if name_or_dir is None or name_or_dir == "":
        return models_dir() / DEFAULT_MODEL_NAME
    if isinstance(name_or_dir, Path):
        return name_or_dir.expanduser()
    candidate = Path(name_or_dir).expanduser()
    if os.sep in name_or_dir or name_or_dir.startswith(".") or candidate.is_dir():
        return candidate
    return models_dir() / name_or_dir


def _available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def clean_text(text: str | bytes) -> str:
    """Valid Unicode for the tokenizer: bytes are decoded as UTF-8 and lone surrogates replaced."""
    if isinstance(text, bytes | bytearray | memoryview):
        return bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise TypeError(f"expected str or bytes, got {type(text).__name__}")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace").decode("utf-8")
    return text


POOLINGS = ("mean", "cls")


def pool_rows(hidden: FloatArray, lengths: Sequence[int], pooling: str = "mean") -> FloatArray:
    """Mean over each row's real tokens (or, for "cls", the row's first token), then L2
    normalisation: one row at a time, summed in float64 in token order and normalised with an
    exactly rounded sum, so a row's vector does not depend on the other rows or on padding."""
    out = np.empty((len(lengths), hidden.shape[2]), dtype=np.float32)
    for row, length in enumerate(lengths):
        if pooling == "cls":
            pooled = hidden[row, 0].astype(np.float64)
        else:
            pooled = hidden[row, : max(length, 1)].astype(np.float64).sum(axis=0) / max(length, 1)
        norm = math.sqrt(math.fsum(float(v) * float(v) for v in pooled))
        out[row] = pooled / max(norm, 1e-12)
    return out


def micro_batches(
    lengths: Sequence[int], max_tokens: int = MICRO_BATCH_TOKENS, max_texts: int = 0
) -> list[list[int]]:
    """Indices grouped by token length: sorted, and cut where the padded batch (rows × the
    longest) would pass `max_tokens` (a longer text runs alone) or, when `max_texts` > 0, where
    it would hold more than `max_texts` texts."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    groups: list[list[int]] = []
    current: list[int] = []
    for i in order:
        full = 0 < max_texts <= len(current)
        if current and (full or (len(current) + 1) * lengths[i] > max_tokens):
            groups.append(current)
            current = []
        current.append(i)
    if current:
        groups.append(current)
    return groups


class Embedder:
    """A loaded sentence encoder. Build it with `Embedder.load()`."""

    def __init__(
        self,
        *,
        session: ort.InferenceSession,
        tokenizer: Tokenizer,
        directory: Path,
        precision: Precision,
        dimension: int,
        max_tokens: int,
        pooling: str,
        fingerprint: str,
        threads: int = 1,
        pad_id: int = 0,
        query_prefix: str = "",
        max_batch_texts: int = 0,
    ) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._pad_id = pad_id
        self._output = session.get_outputs()[0].name
        self._inputs = {i.name for i in session.get_inputs()}
        self._char_cap = max_tokens * _CHARS_PER_TOKEN_CAP
        self._runs = (
            ThreadPoolExecutor(threads, thread_name_prefix="onnx-run") if threads > 1 else None
        )
        self.directory = directory
        self.precision: Precision = precision
        self.dimension = dimension
        self.max_tokens = max_tokens
        self.pooling = pooling
        self.fingerprint = fingerprint
        self.threads = threads
        # Prepended to queries only (bge-small's retrieval instruction; "" for MiniLM).
        self.query_prefix = query_prefix
        # Texts per ONNX run at most (0: no limit); 1 for a model whose int8 activation ranges
        # are taken per run, so that a vector never depends on its batch-mates.
        self.max_batch_texts = max_batch_texts

    @classmethod
    def load(
        cls,
        name_or_dir: str | Path | None = None,
        precision: Precision = "int8",
        threads: int | None = None,
        verify: bool = True,
    ) -> Embedder:
        """Open a prepared model. `threads`: ONNX runs at once, each single-threaded (default:
        every core this process may use). `verify`: check the model file's sha256 against the
        manifest.

        Raises `ModelNotPreparedError` when the model is missing, incomplete, corrupt or of an
        older format."""
        if precision not in MODEL_FILES:
            raise ValueError(f"precision must be 'int8' or 'fp32', not {precision!r}")
        directory = resolve_model_dir(name_or_dir)
        manifest = cls._read_manifest(directory)
        if manifest.get("format") != MODEL_FORMAT:
            raise _not_prepared(
                directory,
                f"manifest format {manifest.get('format')!r}, this Quire reads {MODEL_FORMAT}",
            )
        model_file = MODEL_FILES[precision]
        files = manifest.get("files")
        if not isinstance(files, dict):
            raise _not_prepared(directory, "manifest lists no files")
        hashes: dict[str, str] = {}
        for fname in (model_file, TOKENIZER_FILE):
            meta = files.get(fname)
            path = directory / fname
            if not isinstance(meta, dict) or not path.is_file():
                raise _not_prepared(directory, f"{fname} is missing")
            expected = str(meta.get("sha256", ""))
            if path.stat().st_size != meta.get("bytes"):
                raise _not_prepared(directory, f"{fname} has the wrong size", ModelTamperedError)
            if verify and _sha256(path) != expected:
                raise _not_prepared(
                    directory, f"{fname} does not match its sha256", ModelTamperedError
                )
            hashes[fname] = expected
        try:
            dimension = int(manifest["dimension"])
            max_tokens = int(manifest["max_tokens"])
            pooling = str(manifest["pooling"])
            query_prefix = str(manifest.get("query_prefix", ""))
            max_batch_texts = int(manifest.get("max_batch_texts", 0))
        except (KeyError, TypeError, ValueError) as exc:
            raise _not_prepared(directory, f"manifest field missing: {exc}") from exc
        if pooling not in POOLINGS:
            raise _not_prepared(directory, f"pooling {pooling!r} is not supported")

        try:
            tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
        except Exception as exc:
            raise _not_prepared(directory, f"tokenizer.json cannot be read: {exc}") from exc
        padding = cast(dict[str, Any] | None, tokenizer.padding) or {}
        pad_id = int(padding.get("pad_id", 0))
        tokenizer.no_padding()  # batches are padded here, per micro-batch
        tokenizer.enable_truncation(max_length=max_tokens)

        options = ort.SessionOptions()
        # One thread per run; parallelism comes from running micro-batches side by side.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        disabled = manifest.get("session_disabled_optimizers", _DEFAULT_DISABLED_OPTIMIZERS)
        try:
            session = ort.InferenceSession(
                str(directory / model_file),
                options,
                providers=["CPUExecutionProvider"],
                disabled_optimizers=[str(name) for name in disabled],
            )
        except Exception as exc:
            raise _not_prepared(directory, f"{model_file} cannot be loaded: {exc}") from exc
        out_shape = session.get_outputs()[0].shape
        if len(out_shape) != 3 or out_shape[2] != dimension:
            raise _not_prepared(
                directory, f"model output shape {out_shape} != [batch, sequence, {dimension}]"
            )

        key = "|".join(
            [
                hashes[model_file],
                hashes[TOKENIZER_FILE],
                f"pooling={pooling}",
                "normalize=True",
                f"max_tokens={max_tokens}",
                f"precision={precision}",
                f"format={MODEL_FORMAT}",
            ]
            # Only models with an instruction add it, so the default model's fingerprint (and
            # the vectors stored under it) stay valid.
            + ([f"query_prefix={query_prefix}"] if query_prefix else [])
        )
        return cls(
            session=session,
            tokenizer=tokenizer,
            directory=directory,
            precision=precision,
            dimension=dimension,
            max_tokens=max_tokens,
            pooling=pooling,
            fingerprint=hashlib.sha256(key.encode()).hexdigest(),
            threads=threads if threads else _available_cores(),
            pad_id=pad_id,
            query_prefix=query_prefix,
            max_batch_texts=max_batch_texts,
        )

    @staticmethod
    def _read_manifest(directory: Path) -> dict[str, Any]:
        path = directory / MANIFEST_FILE
        if not path.is_file():
            raise _not_prepared(directory, "no manifest.json")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise _not_prepared(directory, f"manifest.json is unreadable: {exc}") from exc
        if not isinstance(data, dict):
            raise _not_prepared(directory, "manifest.json is not an object")
        return data

    # -- tokenisation -------------------------------------------------------------------------

    def _prepare(self, text: str | bytes) -> str:
        cleaned = clean_text(text)
        return cleaned if len(cleaned) <= self._char_cap else cleaned[: self._char_cap]

    def token_ids(self, texts: Sequence[str | bytes]) -> list[list[int]]:
        """Token ids after truncation to the window, special tokens included."""
        encodings = self._tokenizer.encode_batch([self._prepare(t) for t in texts])
        return [e.ids for e in encodings]

    def count_tokens(self, texts: Sequence[str | bytes]) -> list[int]:
        return [len(ids) for ids in self.token_ids(texts)]

    # -- inference ----------------------------------------------------------------------------

    def _run(self, batch: Sequence[Sequence[int]]) -> FloatArray:
        width = max(len(ids) for ids in batch)
        input_ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feed = {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        hidden = self._session.run(
            [self._output], {k: v for k, v in feed.items() if k in self._inputs}
        )[0]
        return pool_rows(
            np.asarray(hidden, dtype=np.float32), [len(ids) for ids in batch], self.pooling
        )

    def embed(
        self, texts: Sequence[str | bytes], max_batch_tokens: int = MICRO_BATCH_TOKENS
    ) -> FloatArray:
        """Embed texts: array (len(texts), dimension), float32, rows L2-normalised, in input
        order. Text beyond the model's window is truncated. How texts are grouped into runs
        (`max_batch_tokens`) changes speed, never a vector."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        ids = self.token_ids(texts)
        groups = micro_batches([len(i) for i in ids], max_batch_tokens, self.max_batch_texts)

        def run(group: list[int]) -> None:
            out[group] = self._run([ids[i] for i in group])

        if self._runs is None or len(groups) == 1:  # one run: no hand-over to the pool
            for group in groups:
                run(group)
        else:
            for _ in self._runs.map(run, groups):
                pass
        return out

    def embed_query(self, text: str | bytes) -> FloatArray:
        """Embed one query: shape (dimension,), float32, unit norm (the vector `embed` gives
        the query with the model's `query_prefix` in front)."""
        ids = self._tokenizer.encode(self._prepare(self.query_prefix + clean_text(text))).ids
        return cast(FloatArray, self._run([ids])[0])

    def embed_queries(self, texts: Sequence[str | bytes]) -> FloatArray:
        """`embed_query` for several queries at once (rows in input order)."""
        return self.embed([self.query_prefix + clean_text(t) for t in texts])

    def close(self) -> None:
        if self._runs is not None:
            self._runs.shutdown(wait=False, cancel_futures=True)

    def __repr__(self) -> str:
        return (
            f"Embedder({self.directory.name!r}, precision={self.precision!r}, "
            f"dimension={self.dimension}, max_tokens={self.max_tokens})"
        )

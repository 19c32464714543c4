"""The namespace as a read-only file system: paths, implied directories, globs, tree walks.

Pages are files; a directory exists when some page path continues below it ("/" always
exists). Paths are normalised lexically: relative paths resolve against "/", "." and empty
segments vanish, ".." removes the previous segment and stops at the root ("/../x" is "/x"),
so nothing can name anything outside the namespace.
"""

from __future__ import annotations

import bisect
import fnmatch
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from quire.server.pages.body_cache import PageEntry


def normalize(raw: str) -> str:
    parts: list[str] = []
    for segment in raw.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if parts:
                parts.pop()
            continue
        parts.append(segment)
    return "/" + "/".join(parts)


def parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


def basename(path: str) -> str:
    return path.rsplit("/", 1)[1] if path != "/" else "/"


def dir_prefix(path: str) -> str:
    """The string every path strictly below directory `path` starts with."""
    return path if path.endswith("/") else path + "/"


@dataclass
class Dir:
    """A directory node; children in name order (code point order)."""

    path: str
    dirs: dict[str, Dir] = field(default_factory=dict)
    files: dict[str, PageEntry] = field(default_factory=dict)

    def children(self) -> list[tuple[str, Dir | PageEntry]]:
        merged: list[tuple[str, Dir | PageEntry]] = [*self.dirs.items(), *self.files.items()]
        merged.sort(key=lambda item: item[0])
        return merged

    def count(self) -> int:
        return len(self.files) + sum(d.count() for d in self.dirs.values())


class Namespace:
    """A snapshot of the listed pages (all pages under one listing prefix)."""

    def __init__(self, entries: Sequence[PageEntry]) -> None:
        ordered = sorted(entries, key=lambda e: e.path)
        self._entries = ordered
        self._paths = [e.path for e in ordered]
        self._files = {e.path: e for e in ordered}

    def file(self, path: str) -> PageEntry | None:
        return self._files.get(path)

    def is_dir(self, path: str) -> bool:
        if path == "/":
            return True
        prefix = dir_prefix(path)
        index = bisect.bisect_left(self._paths, prefix)
        return index < len(self._paths) and self._paths[index].startswith(prefix)

    def files_under(self, path: str) -> list[PageEntry]:
        """Every page strictly below directory `path`, in path order."""
        prefix = dir_prefix(path)
        start = bisect.bisect_left(self._paths, prefix)
        end = start
        while end < len(self._paths) and self._paths[end].startswith(prefix):
            end += 1
        return self._entries[start:end]

    def tree(self, path: str) -> Dir:
        root = Dir(path)
        prefix = dir_prefix(path)
        for entry in self.files_under(path):
            node = root
            segments = entry.path[len(prefix) :].split("/")
            for segment in segments[:-1]:
                child = node.dirs.get(segment)
                if child is None:
                    child = Dir(dir_prefix(node.path) + segment)
                    node.dirs[segment] = child
                node = child
            node.files[segments[-1]] = entry
        return root

    def glob(self, pattern: str) -> list[str]:
        """Existing paths (files and directories) matching an absolute fnmatch pattern, sorted.

        Each segment matches one path segment; ``*`` does not cross "/", and a leading "." in
        a name must be matched explicitly, as in the shell.
        """
        segments = [s for s in normalize_glob(pattern).split("/") if s]
        found: list[str] = []
        self._glob(self.tree("/"), segments, found)
        return sorted(found)

    def _glob(self, node: Dir, segments: list[str], found: list[str]) -> None:
        if not segments:
            found.append(node.path)
            return
        head, rest = segments[0], segments[1:]
        for name, child in node.children():
            if name.startswith(".") and not head.startswith("."):
                continue
            if not fnmatch.fnmatchcase(name, head):
                continue
            if isinstance(child, Dir):
                self._glob(child, rest, found)
            elif not rest:
                found.append(child.path)


def normalize_glob(pattern: str) -> str:
    """Like `normalize`, for patterns (".." and "." are still resolved lexically)."""
    return normalize(pattern)


def walk(
    node: Dir, max_depth: int | None = None, depth: int = 0
) -> Iterator[tuple[int, str, Dir | PageEntry]]:
    """Pre-order (depth, path, node) below `node`, children in name order; depth 1 = children."""
    if max_depth is not None and depth >= max_depth:
        return
    for _name, child in node.children():
        if isinstance(child, Dir):
            yield depth + 1, child.path, child
            yield from walk(child, max_depth, depth + 1)
        else:
            yield depth + 1, child.path, child

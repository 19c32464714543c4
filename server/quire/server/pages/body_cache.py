"""Page listing protocol and a bounded LRU cache of page bodies, revalidated before reuse.

The grep and command engines read pages only through `PageStore`: one listing (the namespace
snapshot) and batch body reads. `load_bodies` serves bodies from a `BodyCache` when the cached
copy is the one currently listed, and batch-reads the rest.

Cache sizing counts the in-memory size of each Python ``str`` (``sys.getsizeof``, O(1)): about
1 byte a character for ASCII/Latin-1 text, 2 for other BMP text, 4 when the text holds a
character outside the BMP (e.g. an emoji), plus a ~50-byte header. So the default 32 MiB bounds
real memory, not characters or UTF-8 bytes.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_ENTRIES = 8192


@dataclass(frozen=True, slots=True)
class PageEntry:
    """One listed page of a namespace snapshot. `path` always starts with "/"."""

    path: str
    content_id: str
    revision: str
    filesystem_version: int
    total_chars: int
    title: str = ""
    url: str = ""


class PageStore(Protocol):
    """What the engines need from storage. Both calls may raise on a service failure."""

    async def list_entries(self, prefix: str) -> list[PageEntry]:
        """Pages whose path starts with `prefix` (plain string prefix), in path order."""
        ...

    async def read_bodies(self, entries: Sequence[PageEntry]) -> dict[str, str]:
        """path → text for the given entries; a page gone since listing is simply absent."""
        ...


@dataclass(slots=True)
class _Slot:
    revision: str
    filesystem_version: int
    text: str
    size: int
    # ``text.casefold()`` once a case-insensitive grep asked for it (counted in ``size``).
    folded: str | None = None


@dataclass(frozen=True, slots=True)
class CacheStats:
    hits: int
    misses: int
    stale: int
    entries: int
    size_bytes: int


class BodyCache:
    """LRU over page bodies, bounded by total size and entry count.

    Keyed by (content_id, revision, filesystem_version) with one slot per content id: a lookup
    hits only when the cached slot has the revision and filesystem version of the entry being
    read (the one currently listed), so a republished page never serves stale text; a stale
    slot is dropped at the lookup that finds it. All methods are synchronous (no awaits), so
    they are atomic on one asyncio event loop; the class is not meant to be shared across
    threads.
    """

    def __init__(
        self, max_bytes: int = DEFAULT_MAX_BYTES, max_entries: int = DEFAULT_MAX_ENTRIES
    ) -> None:
        if max_bytes < 0 or max_entries < 0:
            raise ValueError("cache bounds must be >= 0")
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._slots: OrderedDict[str, _Slot] = OrderedDict()
        self._size = 0
        self.hits = 0
        self.misses = 0
        self.stale = 0

    def __len__(self) -> int:
        return len(self._slots)

    @property
    def size_bytes(self) -> int:
        return self._size

    def stats(self) -> CacheStats:
        return CacheStats(self.hits, self.misses, self.stale, len(self._slots), self._size)

    def get(self, entry: PageEntry) -> str | None:
        slot = self._slots.get(entry.content_id)
        if slot is None:
            self.misses += 1
            return None
        if not _current(slot, entry):
            self._drop(entry.content_id)
            self.stale += 1
            self.misses += 1
            return None
        self._slots.move_to_end(entry.content_id)
        self.hits += 1
        return slot.text

    def put(self, entry: PageEntry, text: str) -> None:
        size = sys.getsizeof(text)
        if entry.content_id in self._slots:
            self._drop(entry.content_id)
        if size > self.max_bytes or self.max_entries == 0:
            return
        self._slots[entry.content_id] = _Slot(entry.revision, entry.filesystem_version, text, size)
        self._size += size
        self._shrink()

    def folded(self, entry: PageEntry, text: str) -> str:
        """``text.casefold()`` for the listed `entry` whose body is `text`, kept beside the
        cached body so repeated case-insensitive greps do not fold every page again. Text that
        folds to itself (nothing upper-case in it) costs no extra memory."""
        slot = self._slots.get(entry.content_id)
        if slot is not None and slot.folded is not None and _current(slot, entry):
            return slot.folded
        folded = text.casefold()
        if folded == text:
            folded = text
        if slot is not None and slot.text is text and _current(slot, entry):
            extra = 0 if folded is text else sys.getsizeof(folded)
            slot.folded = folded
            slot.size += extra
            self._size += extra
            self._shrink()
        return folded

    def clear(self) -> None:
        self._slots.clear()
        self._size = 0

    def _drop(self, content_id: str) -> None:
        slot = self._slots.pop(content_id)
        self._size -= slot.size

    def _shrink(self) -> None:
        while self._size > self.max_bytes or len(self._slots) > self.max_entries:
            _, evicted = self._slots.popitem(last=False)
            self._size -= evicted.size


def _current(slot: _Slot, entry: PageEntry) -> bool:
    return slot.revision == entry.revision and slot.filesystem_version == entry.filesystem_version


async def load_bodies(
    store: PageStore, cache: BodyCache | None, entries: Sequence[PageEntry]
) -> dict[str, str]:
    """path → body for `entries`: cached copies of the listed revision, one batch read for the rest.

    Pages that vanished between listing and reading are absent from the result. Store failures
    propagate.
    """
    out: dict[str, str] = {}
    missing: list[PageEntry] = []
    for entry in entries:
        text = cache.get(entry) if cache is not None else None
        if text is None:
            missing.append(entry)
        else:
            out[entry.path] = text
    if missing:
        read = await store.read_bodies(missing)
        for entry in missing:
            body = read.get(entry.path)
            if body is None:
                continue
            out[entry.path] = body
            if cache is not None:
                cache.put(entry, body)
    return out

"""BodyCache: LRU bounds, revalidation against the listed entry, counters, load_bodies."""

from __future__ import annotations

import sys

import pytest

from quire.server.pages.body_cache import BodyCache, PageEntry, load_bodies
from tests.unit.test_commands_support import MemoryStore


def entry(content_id: str, revision: str = "r1", version: int = 1) -> PageEntry:
    return PageEntry(f"/{content_id}.md", content_id, revision, version, 0)


def test_hit_after_put_and_miss_when_absent() -> None:
    cache = BodyCache()
    assert cache.get(entry("a")) is None
    cache.put(entry("a"), "text")
    assert cache.get(entry("a")) == "text"
    assert (cache.hits, cache.misses) == (1, 1)


def test_revision_or_filesystem_version_change_is_a_miss_and_drops_the_stale_copy() -> None:
    cache = BodyCache()
    cache.put(entry("a", "r1", 1), "old")
    assert cache.get(entry("a", "r2", 1)) is None
    assert len(cache) == 0 and cache.stale == 1
    cache.put(entry("a", "r2", 1), "new")
    assert cache.get(entry("a", "r2", 2)) is None
    assert cache.stale == 2 and cache.size_bytes == 0


def test_entry_count_bound_evicts_least_recently_used() -> None:
    cache = BodyCache(max_entries=2)
    cache.put(entry("a"), "A")
    cache.put(entry("b"), "B")
    assert cache.get(entry("a")) == "A"  # b is now least recent
    cache.put(entry("c"), "C")
    assert cache.get(entry("b")) is None
    assert cache.get(entry("a")) == "A" and cache.get(entry("c")) == "C"


def test_size_bound_counts_in_memory_size() -> None:
    text = "x" * 1000
    size = sys.getsizeof(text)
    cache = BodyCache(max_bytes=2 * size)
    cache.put(entry("a"), text)
    cache.put(entry("b"), "y" * 1000)
    assert cache.size_bytes == 2 * size
    cache.put(entry("c"), "z" * 1000)
    assert len(cache) == 2 and cache.get(entry("a")) is None
    # Non-ASCII text costs more per character (2 or 4 bytes), as in CPython's memory.
    assert sys.getsizeof("é" * 1000) < sys.getsizeof("ж" * 1000) < sys.getsizeof("🚀" * 1000)


def test_oversized_body_is_not_cached_and_replacing_updates_size() -> None:
    cache = BodyCache(max_bytes=200)
    cache.put(entry("big"), "x" * 1000)
    assert len(cache) == 0 and cache.size_bytes == 0
    cache.put(entry("a"), "short")
    first = cache.size_bytes
    cache.put(entry("a"), "short too")
    assert len(cache) == 1 and cache.size_bytes > first
    cache.clear()
    assert len(cache) == 0 and cache.size_bytes == 0


def test_zero_entries_disables_and_negative_bounds_are_rejected() -> None:
    cache = BodyCache(max_entries=0)
    cache.put(entry("a"), "A")
    assert cache.get(entry("a")) is None
    with pytest.raises(ValueError):
        BodyCache(max_bytes=-1)


async def test_load_bodies_reads_only_misses_and_never_serves_a_republished_page() -> None:
    store = MemoryStore({"/a.md": "alpha\n", "/b.md": "beta\n"})
    cache = BodyCache()
    entries = await store.list_entries("/")
    assert await load_bodies(store, cache, entries) == {"/a.md": "alpha\n", "/b.md": "beta\n"}
    assert store.body_reads == 2
    await load_bodies(store, cache, entries)
    assert store.body_reads == 2 and cache.hits == 2
    store.publish("/a.md", "alpha v2\n")
    fresh = await store.list_entries("/")
    assert (await load_bodies(store, cache, fresh))["/a.md"] == "alpha v2\n"
    assert store.body_reads == 3 and cache.stale == 1
    stats = cache.stats()
    assert (stats.hits, stats.entries) == (3, 2)


async def test_load_bodies_skips_pages_deleted_after_listing_and_works_without_cache() -> None:
    store = MemoryStore({"/a.md": "alpha\n", "/b.md": "beta\n"})
    entries = await store.list_entries("/")
    store.delete("/b.md")
    assert await load_bodies(store, None, entries) == {"/a.md": "alpha\n"}


def test_folded_text_is_kept_with_a_current_slot_and_counted() -> None:
    cache = BodyCache()
    text = "Die STRASSE ist lang. " * 20
    cache.put(entry("a"), text)
    before = cache.size_bytes
    folded = cache.folded(entry("a"), text)
    assert folded == text.casefold()
    assert cache.size_bytes == before + sys.getsizeof(folded)
    assert cache.folded(entry("a"), text) is folded  # reused, not folded again
    assert cache.size_bytes == before + sys.getsizeof(folded)


def test_text_that_folds_to_itself_costs_nothing() -> None:
    cache = BodyCache()
    text = "def read_item(item_id: int):\n    return item_id\n"
    cache.put(entry("a"), text)
    before = cache.size_bytes
    assert cache.folded(entry("a"), text) is text
    assert cache.size_bytes == before


def test_folded_text_of_a_stale_or_absent_slot_is_not_kept() -> None:
    cache = BodyCache()
    cache.put(entry("a", "r1"), "ABC")
    assert cache.folded(entry("a", "r2"), "XYZ") == "xyz"
    assert cache.folded(entry("b"), "DEF") == "def"
    assert cache.size_bytes == sys.getsizeof("ABC") and len(cache) == 1
    # The stale slot still answers only its own revision.
    assert cache.get(entry("a", "r2")) is None


def test_folded_copies_count_against_the_size_bound() -> None:
    text = "X" * 1000
    size = sys.getsizeof(text)
    cache = BodyCache(max_bytes=3 * size)
    cache.put(entry("a"), text)
    cache.put(entry("b"), "".join(["Y"] * 1000))
    cache.folded(entry("b"), "".join(["Y"] * 1000))  # not the cached object: not kept
    assert cache.size_bytes == 2 * size
    b_text = cache.get(entry("b"))
    assert b_text is not None
    cache.folded(entry("b"), b_text)  # 2 bodies + 1 folded copy: at the bound
    assert cache.size_bytes == 3 * size and len(cache) == 2
    a_text = cache.get(entry("a"))
    assert a_text is not None
    cache.folded(entry("a"), a_text)  # one more copy: the least recent slot (b) goes
    assert cache.get(entry("b")) is None and cache.size_bytes == 2 * size

"""The embedding schedule's turns: round robin across organisations, then lanes (collections
or page namespaces), in slices of at most SLICE_TEXTS texts, within a group's bounds."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from quire.indexer.ingest.schedule import SLICE_TEXTS, EmbedSchedule

BULK, SMALL = uuid.UUID(int=1), uuid.UUID(int=2)
BIG, BURST, ONE = uuid.UUID(int=10), uuid.UUID(int=11), uuid.UUID(int=12)


@dataclass(eq=False)
class Doc:
    org_id: uuid.UUID
    lane: uuid.UUID
    texts: list[str]
    name: str = ""
    handed_out: int = field(default=0)
    owner: str = "worker"


def names(group: list) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    return [(part.item.name, part.end - part.start) for part in group]


def test_a_big_document_alternates_with_another_orgs_upload() -> None:
    schedule: EmbedSchedule[Doc] = EmbedSchedule()
    big = Doc(BULK, BIG, ["x" * 10] * 1000, "big")
    schedule.put(big)
    first = schedule.take(16, 10_000)
    assert names(first) == [("big", SLICE_TEXTS), ("big", 16 - SLICE_TEXTS)]
    schedule.put(Doc(SMALL, ONE, ["y" * 10] * 2, "small"))
    second = schedule.take(16, 10_000)
    # the big document's turn, then the other organisation's whole upload in the same group
    assert names(second) == [("big", SLICE_TEXTS), ("small", 2), ("big", 16 - SLICE_TEXTS - 2)]
    assert len(schedule) == 1 and big.handed_out == 32 - 2
    assert schedule.queued_chars == (1000 - 30) * 10


def test_collections_of_one_org_share_texts_not_documents() -> None:
    schedule: EmbedSchedule[Doc] = EmbedSchedule()
    schedule.put(Doc(BULK, BIG, ["x"] * 100, "big"))
    for i in range(20):
        schedule.put(Doc(BULK, BURST, ["b"], f"b{i}"))
    group = schedule.take(2 * SLICE_TEXTS, 10_000)
    taken = [n for n, _ in names(group)]
    assert taken[0] == "big" and taken[1:] == [f"b{i}" for i in range(SLICE_TEXTS)]
    assert sum(size for _, size in names(group)) == 2 * SLICE_TEXTS


def test_a_group_takes_at_least_one_text_and_respects_its_bounds() -> None:
    schedule: EmbedSchedule[Doc] = EmbedSchedule()
    schedule.put(Doc(SMALL, ONE, ["z" * 500, "z" * 500], "long"))
    assert names(schedule.take(16, 100)) == [("long", 1)], "one text even over the char bound"
    assert names(schedule.take(16, 10_000)) == [("long", 1)]
    assert not schedule and schedule.take(16, 100) == []


def test_empty_documents_pass_and_clear_hands_back_the_rest() -> None:
    schedule: EmbedSchedule[Doc] = EmbedSchedule()
    empty = Doc(SMALL, ONE, [], "empty")
    schedule.put(empty)
    group = schedule.take(16, 10_000)
    assert names(group) == [("empty", 0)] and group[0].last
    schedule.put(Doc(BULK, BIG, ["x"] * 40, "big"))
    schedule.take(4, 10_000)
    waiting = schedule.clear("worker")
    assert [d.name for d in waiting] == ["big"] and not schedule and schedule.queued_chars == 0


def test_a_huge_document_counts_at_most_the_cap_towards_the_queue() -> None:
    schedule: EmbedSchedule[Doc] = EmbedSchedule(doc_chars_cap=100)
    schedule.put(Doc(BULK, BIG, ["x" * 10] * 1000, "big"))
    schedule.put(Doc(BULK, BURST, ["b" * 10] * 3, "small"))
    assert schedule.queued_chars == 100 + 30
    schedule.take(16, 10_000)  # 8 of big's texts, then all of small's
    assert schedule.queued_chars == 100
    while schedule:
        schedule.take(16, 10_000)
    assert schedule.queued_chars == 0


def test_remove_takes_one_document_out_and_keeps_the_turns() -> None:
    schedule: EmbedSchedule[Doc] = EmbedSchedule()
    big = Doc(BULK, BIG, ["x"] * 40, "big")
    small = Doc(SMALL, ONE, ["y"] * 2, "small")
    schedule.put(big)
    schedule.put(small)
    schedule.take(4, 10_000)  # a slice of big: it stays waiting
    schedule.remove(big)
    assert len(schedule) == 1 and schedule.queued_chars == 2
    assert names(schedule.take(16, 10_000)) == [("small", 2)]
    schedule.remove(big)  # no longer waiting: nothing to do
    assert not schedule and schedule.queued_chars == 0


def test_a_page_sync_takes_turns_with_knowledge_indexing() -> None:
    """One schedule serves both pipelines: a big site's pages (one namespace lane, one
    owner per sync) alternate with another organisation's upload, and with the same
    organisation's collection, instead of going first."""
    schedule: EmbedSchedule[Doc] = EmbedSchedule()
    for i in range(50):
        schedule.put(Doc(BULK, BIG, ["p"] * 4, f"page{i}", owner="sync"))
    schedule.put(Doc(SMALL, ONE, ["k"] * 3, "upload"))
    schedule.put(Doc(BULK, BURST, ["c"] * 3, "own-collection"))
    group = schedule.take(2 * SLICE_TEXTS + 6, 10_000)
    taken = [n for n, _ in names(group)]
    assert taken == ["page0", "page1", "upload", "own-collection", "page2", "page3"]


def test_each_owner_sees_only_what_it_queued_and_clears_only_that() -> None:
    schedule: EmbedSchedule[Doc] = EmbedSchedule()
    schedule.put(Doc(BULK, BIG, ["x" * 10] * 10, "page", owner="sync"))
    schedule.put(Doc(SMALL, ONE, ["y" * 5] * 2, "doc"))
    assert (schedule.queued("sync").entries, schedule.queued("sync").chars) == (1, 100)
    assert (schedule.queued("worker").entries, schedule.queued("worker").chars) == (1, 10)
    schedule.take(10, 10_000)  # 8 of the page's texts, then the whole document
    assert schedule.queued("sync").chars == 20 and not schedule.queued("worker").entries
    assert [d.name for d in schedule.clear("sync")] == ["page"]
    assert not schedule and schedule.queued_chars == 0 and schedule.queued("sync").entries == 0

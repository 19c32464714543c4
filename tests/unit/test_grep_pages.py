"""grep_pages: literal line search with limits, output budget, deadline and Unicode folding."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.server.contract import bounds as B
from quire.server.failures import QuireError
from quire.server.pages.body_cache import BodyCache, PageEntry
from quire.server.pages.grep import (
    CLIP_CHARS,
    MAX_QUERY_CHARS,
    Match,
    clip_line,
    grep_pages,
    original_index,
)
from tests.unit.test_commands_support import LONG_LINE, MemoryStore, make_store


async def test_matches_in_path_order_with_one_based_line_numbers() -> None:
    result = await grep_pages(make_store(), BodyCache(), "FastAPI", prefix="/tutorial/")
    assert result.complete and result.stop_reason is None
    assert [(m.path, m.line_number) for m in result.matches] == [
        ("/tutorial/first-steps.md", 5),
        ("/tutorial/first-steps.md", 6),
        ("/tutorial/first-steps.md", 9),
    ]
    assert result.matches[1].line == "app = FastAPI()"


async def test_literal_not_regex_and_one_match_per_line() -> None:
    store = make_store()
    result = await grep_pages(store, None, "(a|b)")
    assert [m.line for m in result.matches] == ["(a|b)"]
    twice = await grep_pages(MemoryStore({"/x.md": "aa aa\nb\n"}), None, "aa")
    assert [m.line_number for m in twice.matches] == [1]


async def test_ignore_case_uses_full_case_folding() -> None:
    store = make_store()
    german = await grep_pages(store, None, "STRASSE", prefix="/i18n/", ignore_case=True)
    assert [m.line for m in german.matches] == ["# Straße", "Die STRASSE ist lang."]
    greek = await grep_pages(store, None, "σας", prefix="/i18n/el/", ignore_case=True)
    assert [m.line_number for m in greek.matches] == [2, 3]
    sensitive = await grep_pages(store, None, "strasse", prefix="/i18n/")
    assert sensitive.matches == [] and sensitive.complete


async def test_limit_stops_only_when_more_matches_exist() -> None:
    store = make_store()
    exact = await grep_pages(store, None, "FastAPI", prefix="/tutorial/", limit=3)
    assert exact.complete and len(exact.matches) == 3
    more = await grep_pages(store, None, "FastAPI", prefix="/tutorial/", limit=2)
    assert not more.complete and more.stop_reason == "limit" and len(more.matches) == 2
    many = await grep_pages(store, None, "line", prefix="/many/", limit=100)
    assert len(many.matches) == 100 and many.stop_reason == "limit"


async def test_output_budget() -> None:
    store = make_store()
    cost = len("/many/lines.md") + len("line 1") + 32
    result = await grep_pages(store, None, "line", prefix="/many/", max_output_chars=cost * 3)
    assert result.stop_reason == "output_limit" and not result.complete
    assert len(result.matches) == 3


async def test_long_lines_are_clipped_around_the_match() -> None:
    result = await grep_pages(make_store(), None, "needle", prefix="/long/")
    (match,) = result.matches
    assert match.clipped and "needle" in match.line
    assert match.line.startswith("…") and match.line.endswith("…")
    assert len(match.line) == CLIP_CHARS + 2
    folded = await grep_pages(make_store(), None, "NEEDLE", prefix="/long/", ignore_case=True)
    assert "needle" in folded.matches[0].line
    assert clip_line("short", 0) == ("short", False)
    assert len(LONG_LINE) > CLIP_CHARS


async def test_deadline_reports_incomplete() -> None:
    class SlowStore(MemoryStore):
        async def read_bodies(self, entries: Sequence[PageEntry]) -> dict[str, str]:
            await asyncio.sleep(1)
            return await super().read_bodies(entries)

    slow = SlowStore({"/a.md": "x\n"})
    result = await grep_pages(slow, None, "x", deadline_s=0.05)
    assert not result.complete and result.stop_reason == "deadline"
    zero = await grep_pages(make_store(), None, "x", deadline_s=0)
    assert zero.stop_reason == "deadline"


async def test_cache_is_used_and_store_failures_propagate() -> None:
    store = make_store()
    cache = BodyCache()
    await grep_pages(store, cache, "FastAPI")
    reads = store.body_reads
    await grep_pages(store, cache, "FastAPI")
    assert store.body_reads == reads and cache.hits > 0
    store.fail = True
    with pytest.raises(ConnectionError):
        await grep_pages(store, cache, "FastAPI")


MOST_MATCHES = B.GrepPagesRequest.limit.max or 0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "a\nb"}, "query"),
        ({"query": "x" * (MAX_QUERY_CHARS + 1)}, "query"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": MOST_MATCHES + 1}, "limit"),
        ({"query": "x", "prefix": "docs"}, "prefix"),
    ],
)
async def test_invalid_arguments_name_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(QuireError) as info:
        await grep_pages(make_store(), None, **kwargs)  # type: ignore[arg-type]
    assert info.value.violations[0].field == field


async def test_limit_bounds_accept_edges() -> None:
    store = make_store()
    assert len((await grep_pages(store, None, "line", limit=1)).matches) == 1
    most = await grep_pages(store, None, "line", limit=MOST_MATCHES)
    assert len(most.matches) == MOST_MATCHES


def _reference_grep(pages: dict[str, str], needle: str, ignore_case: bool) -> list[Match]:
    """The documented semantics, line by line: the oracle for the sliced implementation."""
    wanted = needle.casefold() if ignore_case else needle
    out = []
    for path in sorted(pages):
        for number, raw in enumerate(pages[path].split("\n"), start=1):
            haystack = raw.casefold() if ignore_case else raw
            at = haystack.find(wanted)
            if at < 0:
                continue
            column = min(original_index(raw, at), len(raw)) if ignore_case else at
            line = raw[:-1] if raw.endswith("\r") else raw
            text, clipped = clip_line(line, column)
            out.append(Match(path, number, text, clipped))
    return out


_ALPHABET = st.sampled_from([*"abAB ßẞﬁΣσς\r\nxX日é", "ss", "SS", "fi"])
_PAGE = st.lists(_ALPHABET, max_size=300).map("".join)


@pytest.mark.slow  # 5 s under load (`make test-fast` leaves it out)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pages=st.lists(_PAGE, min_size=1, max_size=4),
    needle=st.sampled_from(["a", "ss", "SS", "ß", "fi", "σ", "Σς", "ab", "日", "x x", "é"]),
    ignore_case=st.booleans(),
    cached=st.booleans(),
    long_line=st.booleans(),
)
def test_matches_equal_the_line_by_line_reference(
    pages: list[str], needle: str, ignore_case: bool, cached: bool, long_line: bool
) -> None:
    """Lines are sliced from the page, not split from it, whenever folding kept positions
    (ß, ﬁ and other expanding folds fall back to splitting): same matches either way."""
    texts = {
        f"/p{i}.md": t + ("\n" + "a" * 700 + "ß" if long_line else "") for i, t in enumerate(pages)
    }
    store = MemoryStore(texts)
    cache = BodyCache() if cached else None
    for _ in range(2):  # the second pass reads folded text from the cache
        result = asyncio.run(
            grep_pages(
                store, cache, needle, ignore_case=ignore_case, limit=100, max_output_chars=10**9
            )
        )
        expected = _reference_grep(texts, needle, ignore_case)[:100]
        assert result.matches == expected


async def test_folded_pages_are_cached_for_case_insensitive_greps() -> None:
    store = make_store()
    cache = BodyCache()
    first = await grep_pages(store, cache, "STRASSE", prefix="/i18n/", ignore_case=True)
    size = cache.size_bytes
    again = await grep_pages(store, cache, "STRASSE", prefix="/i18n/", ignore_case=True)
    assert again.matches == first.matches
    assert cache.size_bytes == size  # folded once, then reused

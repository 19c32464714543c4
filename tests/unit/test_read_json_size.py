"""ReadPage's JSON budget is counted without converting the whole result per call
(reading.json_size); the count must equal the canonical JSON's size byte for byte."""

from __future__ import annotations

import pytest

from quire.server import canonical_json
from quire.server.pages import reading
from quire.server.storage.timestamps import timestamp
from quire.v1 import pages_pb2

CONTENTS = [
    "",
    "plain ascii text",
    'quotes " and \\ backslashes, tabs\t and\nnewlines',
    "control \x00\x01\x1f characters",
    "accents é, CJK 漢字, emoji 🙂, RTL עברית",
    "x" * 20_000,
]


def page(title: str = "Title", published: bool = True) -> pages_pb2.Page:
    from datetime import UTC, datetime

    return pages_pb2.Page(
        schema_version=1,
        content_id="c0ffee",
        namespace="docs",
        path="/guide/intro",
        url="https://example.com/guide/intro",
        title=title,
        revision="r1",
        digest="d" * 64,
        filesystem_version=123_456_789_012,
        expected_chunk_count=7,
        total_chars=99_999,
        published_at=timestamp(datetime(2026, 1, 2, tzinfo=UTC)) if published else None,
        language="en",
        description="a page",
    )


@pytest.mark.parametrize("content", CONTENTS)
@pytest.mark.parametrize(
    "numbers", [(0, 0, 0, False), (7, 12_007, 99_999, True), (2**40, 2**40 + 3, 2**41, False)]
)
@pytest.mark.parametrize("title", ["Title", 'Ti"tle ✓', ""])
def test_json_size_equals_the_canonical_json_size(
    content: str, numbers: tuple[int, int, int, bool], title: str
) -> None:
    offset, next_offset, total, truncated = numbers
    read = pages_pb2.PageRead(
        schema_version=1,
        page=page(title, published=bool(title)),
        content=content,
        offset=offset,
        next_offset=next_offset,
        total_chars=total,
        truncated=truncated,
    )
    assert reading.json_size(read) == canonical_json.size(read)


def test_fit_text_keeps_the_result_within_its_budget() -> None:
    read = pages_pb2.PageRead(schema_version=1, page=page(), content="é\n" * 30_000)
    reading.fit_text(read, 24_000)
    assert 0 < canonical_json.size(read) <= 24_000
    assert canonical_json.size(read) > 24_000 - 8  # cut at the budget, not far below it


def reference_fit(result: pages_pb2.SearchResult, max_bytes: int) -> int:
    """The hits kept by converting the whole result once per hit dropped (the old way)."""
    hits = list(result.hits)
    keep = len(hits)
    while True:
        trial = pages_pb2.SearchResult()
        trial.CopyFrom(result)
        del trial.hits[:]
        trial.hits.extend(hits[:keep])
        trial.truncated = keep < len(hits)
        trial.omitted_count = len(hits) - keep
        if canonical_json.size(trial) <= max_bytes or keep == 0:
            return keep
        keep -= 1


@pytest.mark.parametrize("budget", [0, 300, 2_000, 5_000, 12_000, 24_000, 100_000])
@pytest.mark.parametrize("count", [0, 1, 3, 12])
def test_search_budget_keeps_what_the_whole_conversion_keeps(budget: int, count: int) -> None:
    from quire.server.pages.search import fit_budget

    result = pages_pb2.SearchResult(
        schema_version=1,
        namespace="docs",
        query="how do I é",
        warnings=["alternative 1 failed"],
        filesystem_version=42,
        hits=[
            pages_pb2.SearchHit(
                schema_version=1,
                path=f"/p/{i}",
                url=f"https://example.com/p/{i}",
                title=f'Title "{i}"',
                revision="r",
                chunk_id=f"c{i}",
                content="text é\n " * (40 * (i + 1)),
                score=0.5 / (i + 1),
                rank=i + 1,
                heading_path=["A", "B"],
            )
            for i in range(count)
        ],
    )
    expected = reference_fit(result, budget)
    fitted = fit_budget(result, budget)
    assert len(fitted.hits) == expected
    assert fitted.omitted_count == count - expected and fitted.truncated == (expected < count)
    if expected:
        assert canonical_json.size(fitted) <= budget

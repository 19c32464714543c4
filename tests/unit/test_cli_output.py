"""How the CLI draws for a person: the progress bar on a narrow terminal keeps its counts,
search highlights become bold (or go, with --plain)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from quire.client.cli.output import Output, highlighted, progress_column_names


def drawn_progress(width: int) -> str:
    output = Output(as_json=False)
    buffer = io.StringIO()
    output.err = Console(file=buffer, width=width, force_terminal=True, color_system=None)
    progress = output.progress()
    progress.add_task(
        "embed", total=2000, completed=277, rate="23.4 pages/s", detail="250 embedded, 3 failed"
    )
    output.err.print(progress.get_renderable())
    return buffer.getvalue()


@pytest.mark.parametrize("width", [60, 80, 100, 160])
def test_a_narrow_terminal_drops_columns_not_counts(width: int) -> None:
    line = drawn_progress(width).rstrip("\n")
    assert "277/2000" in line and "…" not in line
    assert len(line) <= width


def test_the_least_important_columns_go_first() -> None:
    assert progress_column_names(200) == [
        "stage", "bar", "count", "percent", "rate", "elapsed", "remaining", "detail",
    ]  # fmt: skip
    narrow = progress_column_names(80)
    assert {"stage", "count", "bar", "percent", "remaining"} <= set(narrow)
    assert "detail" not in narrow
    assert progress_column_names(40) == ["stage", "bar", "count"]


def test_highlights_are_bold_or_plain() -> None:
    text = highlighted("Grey <b>seals</b> haul out\n on the <b>sand</b>", plain=False)
    assert text.plain == "Grey seals haul out on the sand"
    bold = [text.plain[s.start : s.end] for s in text.spans if s.style == "bold"]
    assert bold == ["seals", "sand"]
    plain = highlighted("Grey <b>seals</b>", plain=True)
    assert plain.plain == "Grey seals" and not plain.spans
    # Cut after the marks are read: no half mark left.
    assert highlighted("<b>" + "a" * 300 + "</b>", plain=True, max_chars=10).plain.endswith("…")

"""The embedding text keeps what a reader of the rendered page sees, and only that."""

from __future__ import annotations

import pytest

from quire.indexer.readable_text import readable_text


@pytest.mark.parametrize(
    ("markup", "seen"),
    [
        # links and images
        ("See [the guide](https://example.com/guide).", "See the guide."),
        ('A [titled](https://x.org/a "Title here") link', "A titled link"),
        ("A [titled](https://x.org/a 'single') link", "A titled link"),
        ("PR [#16203](https://github.com/fastapi/fastapi/pull/16203) by x", "PR #16203 by x"),
        ("by [@pr-submit[bot]](https://github.com/apps/pr-submit).", "by @pr-submit[bot]."),
        ("[wiki](https://en.wikipedia.org/wiki/Python_(language)) page", "wiki page"),
        ("![diagram of the flow](/img/flow.png)", "diagram of the flow"),
        ("[![badge](https://b.io/x.svg)](https://ci.io/run)", "badge"),
        ("[](https://empty.io) gone", " gone"),
        ("[relative](../tutorial/index.md#first-steps)", "relative"),
        (
            "[same page](#details) and [file](index.md) and [mail](mailto:a@b.org)",
            "same page and file and mail",
        ),
        ("[dir](tutorial/) and [query](?page=2)", "dir and query"),
        ("Intro\n[docs]: https://example.com/docs\nOutro", "Intro\nOutro"),
        ('   [ref]: <https://example.com> "T"\n', ""),
        # HTML
        ('<abbr title="Application Programming Interface">API</abbr>s', "APIs"),
        ('<a href="https://x.org" class="external">x.org</a>', "x.org"),
        ('one<img src="/img/a.png">two', "one two"),
        ("line<br>next", "line next"),
        ('<div align="center">\nText\n</div>', " \nText\n "),
        # headings, emphasis, code, lists, admonitions, tables
        ("## First Steps { #first-steps }\n\nText", "First Steps\n\nText"),
        ("# Title\n", "Title\n"),
        ("Use **FastAPI** with *care*.", "Use FastAPI with care."),
        ("Call `read_item()` or ``a ` b``.", "Call read_item() or a  b."),
        ("```python\nprint(1)\n```\n", "python\nprint(1)\n\n"),
        ("* one\n  - two\n+ three\n", "one\n  two\nthree\n"),
        (
            "/// tip | Inspired **FastAPI** to\n\nText\n\n///\n",
            "tip | Inspired FastAPI to\n\nText\n\n\n",
        ),
        ("| Name | Type |\n|------|:----:|\n| q | str |\n", "| Name | Type |\n| q | str |\n"),
    ],
)
def test_markup_gives_way_to_what_a_reader_sees(markup: str, seen: str) -> None:
    assert readable_text(markup) == seen


@pytest.mark.parametrize(
    "kept",
    [
        "Plain prose with no markup at all.",
        "A bare URL https://example.com/page stays: the reader sees it.",
        "An autolink <https://example.com> stays too.",
        "Brackets [not a link] and (not a target) stay.",
        "Comparisons like a < b and b > c stay.",
        "def f(items: list[int]) -> dict[str, int]: ...",
        "q: str | None = None",
        "def __init__(self, *args, **kwargs): return 2 * 3",
        "snake_case_name and _private stay whole",
        "[label]: this is prose after a colon, not a definition",
        "a rise in [Ca(2+)](i) and [M + K](+) ions; receptor [GHS-R](-/-) mice",
        "-1 is negative; --- is a rule",
        "",
    ],
)
def test_text_without_markup_is_unchanged(kept: str) -> None:
    assert readable_text(kept) == kept


def test_words_of_a_link_dense_line_survive() -> None:
    line = (
        "* 🌐 Update translations for es. PR [#1](https://github.com/o/r/pull/1) by "
        "[@a](https://github.com/a) and [@b[bot]](https://github.com/apps/b).\n"
    )
    out = readable_text(line * 3)
    assert out == "🌐 Update translations for es. PR #1 by @a and @b[bot].\n" * 3
    assert "https" not in out


def test_every_visible_word_survives() -> None:
    page = (
        "# Query Parameters { #query-parameters }\n\n"
        "When you declare **other** function parameters that are not part of the path "
        "parameters, they are *automatically* interpreted as `query` parameters.\n\n"
        "* See [the tutorial](../tutorial/index.md) and <abbr title='x'>API</abbr> docs.\n"
    )
    words = {w.strip(".,") for w in readable_text(page).split()}
    for expected in ("Query", "Parameters", "other", "automatically", "query", "tutorial", "API"):
        assert expected in words
    assert not any(c in readable_text(page) for c in "*`#{}")


@pytest.mark.parametrize(
    "hostile",
    ["[a" * 5000, "[[" * 5000 + "](http://x", "*a*" * 3000, "[x](" + "(" * 9000, "<a " * 3000],
)
def test_hostile_markup_is_linear_enough(hostile: str) -> None:
    """Uploaded text reaches these patterns; 10,000 characters of the worst shapes found
    (unclosed brackets, stacked emphasis, open parentheses, unclosed tags) stay fast. Chunks
    are at most 900 characters, so this is ten times the real bound."""
    import time

    started = time.perf_counter()
    readable_text(hostile)
    assert time.perf_counter() - started < 1.0

"""Tests for quire.indexer.chunking: invariants as properties, Markdown structure as examples."""

from __future__ import annotations

import itertools
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.indexer.chunking import DEFAULT_CEILING, Chunk, chunk_text, embedding_text

# --- strategies ----------------------------------------------------------------------------------

_FRAGMENTS = [
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\t",
    "\u00a0",
    "\u3000",
    ". ",
    "! ",
    "? ",
    ".",
    "# ",
    "## ",
    "#### ",
    "\n# Title\n",
    "\n## Sub\n",
    "\n```\n",
    "\n~~~\n",
    "\nSetext\n===\n",
    "\n---\n",
    "e\u0301",
    "\u200d",
    "。",
    "」",
    "東京タワー",
    "🚀",
    "Ünïcödé",
    "word",
    "The",
    "sentence",
    "a" * 30,
    "x" * 130,
]

_texts = st.lists(
    st.one_of(
        st.sampled_from(_FRAGMENTS),
        st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8),
    ),
    max_size=60,
).map("".join)
_ceilings = st.integers(min_value=1, max_value=160)

_CJK_SENTENCE_END = re.compile(r"[。！？][」』）”’]*$")


def _run_length(text: str, b: int) -> int:
    """Length of the maximal non-whitespace run that contains text[b - 1] and text[b]."""
    lo = b
    while lo > 0 and not text[lo - 1].isspace():
        lo -= 1
    hi = b
    while hi < len(text) and not text[hi].isspace():
        hi += 1
    return hi - lo


def _joins(ch: str) -> bool:
    return unicodedata.combining(ch) != 0 or ch in "\u200c\u200d"


def _cluster_length(text: str, b: int) -> int:
    """Length of base character + combining marks/joiners around position b."""
    lo = b
    while lo > 0 and _joins(text[lo]):
        lo -= 1
    hi = b
    while hi < len(text) and _joins(text[hi]):
        hi += 1
    return hi - lo


def _check_invariants(text: str, chunks: list[Chunk], ceiling: int) -> None:
    if not text or text.isspace():
        assert chunks == []
        return
    assert "".join(c.text for c in chunks) == text
    assert [c.chunk_ordinal for c in chunks] == list(range(len(chunks)))
    assert chunks[0].start == 0
    assert chunks[-1].end == len(text)
    for prev, nxt in itertools.pairwise(chunks):
        assert prev.end == nxt.start
    for c in chunks:
        assert c.text == text[c.start : c.end]
        assert 0 < len(c.text) <= ceiling
    for c in chunks[1:]:
        b = c.start
        # A CRLF line break is never split (a ceiling of 1 cannot hold it).
        assert ceiling == 1 or not (text[b - 1] == "\r" and text[b] == "\n")
        # A hard cut does not separate a combining mark / joiner from its base character,
        # unless base + marks alone exceed the ceiling.
        if _joins(text[b]) and not text[b - 1].isspace():
            assert _cluster_length(text, b) > ceiling
        # Never inside a word: a boundary between two non-whitespace characters only happens
        # inside a run of non-whitespace longer than the ceiling (the documented hard cut), or
        # right after a CJK sentence terminator (those languages do not put spaces after it).
        if not text[b - 1].isspace() and not text[b].isspace():
            assert _run_length(text, b) > ceiling or _CJK_SENTENCE_END.search(
                text[max(0, b - 40) : b]
            ), (b, text[max(0, b - 20) : b + 20])


# --- properties ----------------------------------------------------------------------------------


@pytest.mark.slow  # 16 s under load (`make test-fast` leaves it out)
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts, ceiling=_ceilings)
def test_chunks_tile_text_within_ceiling_without_splitting_words(text: str, ceiling: int) -> None:
    _check_invariants(text, chunk_text(text, ceiling=ceiling), ceiling)


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=400), ceiling=_ceilings)
def test_invariants_hold_for_arbitrary_unicode(text: str, ceiling: int) -> None:
    _check_invariants(text, chunk_text(text, ceiling=ceiling), ceiling)


@settings(max_examples=300, deadline=None)
@given(
    word=st.text(alphabet="abcdé\u0301", min_size=1, max_size=500),
    ceiling=st.integers(min_value=1, max_value=50),
)
def test_hard_cut_for_a_word_longer_than_the_ceiling(word: str, ceiling: int) -> None:
    text = f"start {word} end"
    chunks = chunk_text(text, ceiling=ceiling)
    _check_invariants(text, chunks, ceiling)


_code_line = st.text(alphabet="abc xyz(){}=;:.#\t", max_size=40)
_para = st.lists(st.sampled_from(["Alpha", "beta.", "Gamma!", "delta", "x" * 12]), min_size=1).map(
    " ".join
)


@st.composite
def _markdown_with_fences(draw: st.DrawFn) -> tuple[str, int, list[tuple[int, int]]]:
    """A document of paragraphs and fenced code blocks whose lines all fit the ceiling."""
    ceiling = draw(st.integers(min_value=45, max_value=200))
    parts: list[str] = []
    fences: list[tuple[int, int]] = []  # (start, end) of each fenced block
    offset = 0
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        if draw(st.booleans()):
            marker = draw(st.sampled_from(["```", "~~~", "````"]))
            lines = draw(st.lists(_code_line, max_size=30))
            block = f"{marker}python\n" + "".join(f"{line}\n" for line in lines) + f"{marker}\n"
            fences.append((offset, offset + len(block)))
        else:
            block = draw(_para) + "\n"
        block += "\n"
        parts.append(block)
        offset += len(block)
    return "".join(parts), ceiling, fences


@pytest.mark.slow  # 5 s under load (`make test-fast` leaves it out)
@settings(max_examples=500, deadline=None)
@given(doc=_markdown_with_fences())
def test_code_fence_lines_are_never_split(doc: tuple[str, int, list[tuple[int, int]]]) -> None:
    text, ceiling, fences = doc
    chunks = chunk_text(text, ceiling=ceiling)
    _check_invariants(text, chunks, ceiling)
    for c in chunks[1:]:
        for start, end in fences:
            if start < c.start < end:
                assert text[c.start - 1] == "\n", (c.start, text[start:end])
        # A fence that fits is kept in one chunk.
    boundaries = {c.start for c in chunks}
    for start, end in fences:
        if end - start <= ceiling:
            assert not any(start < b < end for b in boundaries)


@pytest.mark.slow  # 3 s under load (`make test-fast` leaves it out)
@settings(max_examples=500, deadline=None)
@given(text=_texts, ceiling=st.integers(min_value=2, max_value=160), data=st.data())
def test_overlap_repeats_previous_text_at_word_start(
    text: str, ceiling: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(min_value=0, max_value=ceiling // 2))
    chunks = chunk_text(text, ceiling=ceiling, overlap=overlap)
    plain = chunk_text(text, ceiling=ceiling - overlap)
    assert [c.end for c in chunks] == [c.end for c in plain]
    assert [c.heading_path for c in chunks] == [c.heading_path for c in plain]
    assert [c.chunk_ordinal for c in chunks] == list(range(len(chunks)))
    for c, core in zip(chunks, plain, strict=True):
        assert c.text == text[c.start : c.end]
        assert len(c.text) <= ceiling
        assert core.start - overlap <= c.start <= core.start
        if c.start < core.start:
            assert not text[c.start].isspace()
            assert c.start == 0 or text[c.start - 1].isspace()
            assert c.heading_path == plain[core.chunk_ordinal - 1].heading_path
    # The cores (text after the previous chunk's end) tile the document.
    if chunks:
        ends = [0, *(c.end for c in chunks)]
        assert "".join(text[a:b] for a, b in itertools.pairwise(ends)) == text


# --- examples ------------------------------------------------------------------------------------


def _paths(text: str, ceiling: int = DEFAULT_CEILING) -> list[tuple[str, ...]]:
    return [c.heading_path for c in chunk_text(text, ceiling=ceiling)]


def test_empty_and_whitespace_only_give_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\r\n\t\u3000 ") == []


def test_short_plain_text_is_one_chunk() -> None:
    text = "Just one line of plain text."
    assert chunk_text(text) == [Chunk(text, (), 0, 0, len(text))]


def test_nested_heading_paths() -> None:
    text = (
        "Preamble.\n\n"
        "# Tutorial\n\nIntro.\n\n"
        "## First steps\n\nStep one.\n\n"
        "### Details\n\nMore.\n\n"
        "## Second steps\n\nStep two.\n\n"
        "# Reference\n\nRef.\n"
    )
    assert _paths(text) == [
        (),
        ("Tutorial",),
        ("Tutorial", "First steps"),
        ("Tutorial", "First steps", "Details"),
        ("Tutorial", "Second steps"),
        ("Reference",),
    ]
    chunks = chunk_text(text)
    assert chunks[2].text == "## First steps\n\nStep one.\n\n"


def test_skipped_heading_levels() -> None:
    text = "# A\n\nx\n\n### C\n\ny\n\n## B\n\nz\n\n#### D\n\nw\n"
    assert _paths(text) == [("A",), ("A", "C"), ("A", "B"), ("A", "B", "D")]


def test_a_title_only_heading_joins_the_next_section() -> None:
    text = "# Tutorial\n\n## First steps\n\nHello.\n\n## Next\n\n## Last\n\nBye.\n"
    chunks = chunk_text(text)
    assert [(c.heading_path, c.text) for c in chunks] == [
        (("Tutorial", "First steps"), "# Tutorial\n\n## First steps\n\nHello.\n\n"),
        (("Tutorial", "Last"), "## Next\n\n## Last\n\nBye.\n"),
    ]
    # At the very end there is nothing after it: it joins the section before.
    ending = chunk_text("# A\n\nText.\n\n## Empty\n")
    assert [(c.heading_path, c.text) for c in ending] == [(("A",), "# A\n\nText.\n\n## Empty\n")]


def test_heading_title_cleanup() -> None:
    text = "# Closing hashes ##\n\na\n\n## Python Types { #python-types }\n\nb\n\n### C#\n\nc\n"
    assert _paths(text) == [
        ("Closing hashes",),
        ("Closing hashes", "Python Types"),
        ("Closing hashes", "Python Types", "C#"),
    ]


def test_not_headings() -> None:
    text = "#hashtag is not a heading\n\n    # indented code\n\n####### seven\n"
    assert _paths(text) == [()]


def test_headings_inside_code_fences_are_ignored() -> None:
    text = (
        "# Real\n\n"
        "```bash\n# a shell comment\n## another\n```\n\n"
        "~~~\n# tilde fence\n```\nstill code\n~~~\n\n"
        "````md\n```\n# nested fence\n```\n````\n\n"
        "## After\n\ntext\n"
    )
    assert _paths(text) == [("Real",), ("Real", "After")]


def test_unclosed_fence_runs_to_the_end() -> None:
    assert _paths("# A\n\n```\n# not a heading\n") == [("A",)]


def test_setext_headings() -> None:
    text = "Title\n=====\n\nIntro.\n\nSection\n-------\n\nBody.\n"
    assert _paths(text) == [("Title",), ("Title", "Section")]
    # A thematic break after a blank line is not a heading.
    assert _paths("Para.\n\n---\n\nMore.\n") == [()]


def test_crlf_input() -> None:
    text = "# A\r\n\r\nFirst paragraph.\r\n\r\n## B\r\n\r\n```\r\n# code\r\n```\r\n\r\nEnd.\r\n"
    chunks = chunk_text(text)
    assert [c.heading_path for c in chunks] == [("A",), ("A", "B")]
    assert "".join(c.text for c in chunks) == text
    assert chunks[1].text.startswith("## B\r\n")


def test_unicode_counts_code_points_not_bytes() -> None:
    text = "ü" * 10 + " " + "東" * 10
    chunks = chunk_text(text, ceiling=11)
    assert [c.text for c in chunks] == ["ü" * 10 + " ", "東" * 10]
    assert chunks[1].start == 11 and chunks[1].end == 21


def test_japanese_sentences_split_after_terminator() -> None:
    text = "これは最初の文です。これは二番目の文です。"
    chunks = chunk_text(text, ceiling=12)
    assert [c.text for c in chunks] == ["これは最初の文です。", "これは二番目の文です。"]


def test_paragraphs_then_sentences_then_words() -> None:
    para1 = "First paragraph is short.\n\n"
    para2 = "One sentence here. Another sentence, e.g. with an abbreviation. Last one!\n\n"
    para3 = "word " * 20
    chunks = chunk_text(para1 + para2 + para3, ceiling=50)
    assert [c.text for c in chunks] == [
        para1,
        "One sentence here. ",
        "Another sentence, e.g. with an abbreviation. ",
        "Last one!\n\n",
        "word " * 10,
        "word " * 10,
    ]


def test_paragraphs_are_packed_up_to_the_ceiling() -> None:
    text = "aaa.\n\nbbb.\n\nccc.\n\nddd.\n"
    assert [c.text for c in chunk_text(text, ceiling=12)] == ["aaa.\n\nbbb.\n\n", "ccc.\n\nddd.\n"]


def test_code_block_kept_whole_when_it_fits_else_split_at_line_ends() -> None:
    code = "```\n" + "".join(f"line_{i} = {i}\n" for i in range(10)) + "```\n"
    text = "Intro paragraph.\n\n" + code
    chunks = chunk_text(text, ceiling=len(code))
    assert [c.text for c in chunks] == ["Intro paragraph.\n\n", code]
    small = chunk_text(text, ceiling=40)
    assert all(c.text.endswith("\n") for c in small)
    assert "".join(c.text for c in small) == text


def test_hard_cut_is_the_last_resort() -> None:
    text = "short " + "x" * 25 + " tail"
    assert [c.text for c in chunk_text(text, ceiling=10)] == [
        "short ",
        "x" * 10,
        "x" * 10,
        "x" * 5 + " tail",
    ]


def test_hard_cut_keeps_combining_marks_with_their_base() -> None:
    text = "e\u0301" * 10
    chunks = chunk_text(text, ceiling=5)
    assert all(unicodedata.combining(c.text[0]) == 0 for c in chunks)
    assert all(len(c.text) <= 5 for c in chunks)


def test_overlap() -> None:
    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    chunks = chunk_text(text, ceiling=30, overlap=10)
    assert [c.text for c in chunks] == [
        "Alpha beta gamma. ",
        "gamma. Delta epsilon zeta. ",
        "zeta. Eta theta iota.",
    ]
    assert all(c.text == text[c.start : c.end] for c in chunks)


def test_overlap_does_not_cross_headings() -> None:
    text = "# A\n\nSome text in A.\n\n# B\n\nText in B.\n"
    chunks = chunk_text(text, ceiling=40, overlap=10)
    assert chunks[1].text.startswith("# B")


@pytest.mark.parametrize(("ceiling", "overlap"), [(0, 0), (10, -1), (10, 6)])
def test_invalid_arguments(ceiling: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_text("text", ceiling=ceiling, overlap=overlap)


def test_embedding_text() -> None:
    chunk = Chunk("Body text.", ("Tutorial", "First steps"), 0, 0, 10)
    assert embedding_text(chunk, "Guide") == "Guide > Tutorial > First steps\n\nBody text."
    assert embedding_text(chunk, None) == "Tutorial > First steps\n\nBody text."
    plain = Chunk("Body text.", (), 0, 0, 10)
    assert embedding_text(plain, "  ") == "Body text."
    assert embedding_text(plain, "Title") == "Title\n\nBody text."


def test_embedding_text_says_the_title_once_and_keeps_what_a_reader_sees() -> None:
    page = Chunk("See [the guide](https://x.org/guide).", ("Release Notes", "Latest"), 0, 0, 37)
    assert embedding_text(page, "Release Notes") == "Release Notes > Latest\n\nSee the guide."
    assert embedding_text(page, "release notes ") == "release notes > Latest\n\nSee the guide."
    # Only a first heading equal to the title is folded; a later repeat is a real heading.
    deeper = Chunk("Body.", ("Intro", "Guide"), 0, 0, 5)
    assert embedding_text(deeper, "Guide") == "Guide > Intro > Guide\n\nBody."
    assert embedding_text(page, None) == "Release Notes > Latest\n\nSee the guide."
    # Headings are read the same way: no link targets or code marks in the breadcrumb.
    linked = Chunk(
        "Body.", ("Tools", "[Flask-apispec](https://f.io/en/latest/)", "`a` *b*"), 0, 0, 5
    )
    assert (
        embedding_text(linked, "Alternatives")
        == "Alternatives > Tools > Flask-apispec > a b\n\nBody."
    )


def test_large_document_is_fast() -> None:
    import time

    section = "## Section\n\n" + ("Some prose sentence here. " * 30 + "\n\n") * 5
    section += "```python\n" + "print('hello world')\n" * 50 + "```\n\n"
    text = ("# Doc\n\n" + section * 400)[:1_000_000]
    started = time.perf_counter()
    chunks = chunk_text(text)
    elapsed = time.perf_counter() - started
    assert "".join(c.text for c in chunks) == text
    assert elapsed < 2.0  # about 0.1 s on the 2-core dev machine; generous for CI


def test_a_heading_stays_with_the_start_of_its_long_paragraph() -> None:
    body = "Budget lines are reviewed every quarter by the committee. " * 30
    text = "# Chapter\n\n## Part one\n\n" + body
    chunks = chunk_text(text, ceiling=400)
    assert all(len(c.text.strip()) > 40 for c in chunks), [c.text[:30] for c in chunks]
    assert chunks[0].text.startswith("# Chapter\n\n## Part one\n\nBudget")
    assert "".join(c.text for c in chunks) == text


def test_document_title_modes() -> None:
    from quire.indexer.chunking import document_title

    text = "# Aspirin and heart attacks\n\nBody text here."
    assert document_title("42.txt", text) == "Aspirin and heart attacks"
    assert document_title("42.txt", text, "file_name") == "42.txt"
    assert document_title("42.txt", text, "none") is None
    assert document_title("notes.md", "x" * 300 + "\nmore") == "notes"  # not title-like
    assert document_title("notes.md", "\n\n  \n") == "notes"


def test_a_code_block_stays_with_the_paragraph_that_introduces_it() -> None:
    before = "Some earlier explanation that fills the chunk. " * 2
    intro = "If you call it without the parameter you will see an error like:\n\n"
    code = (
        '```JSON\n{\n  "detail": [\n    {"type": "missing", "loc": ["query", "needy"]}\n'
        "  ]\n}\n```\n"
    )
    after = "After that, more text follows here. " * 4
    text = f"## Required\n\n{before}\n\n{intro}{code}\n{after}\n"
    chunks = chunk_text(text, ceiling=400)
    holding = [c for c in chunks if "```JSON" in c.text]
    assert len(holding) == 1 and intro.strip() in holding[0].text, [c.text for c in chunks]
    assert "".join(c.text for c in chunks) == text
    # Without the glue the balanced cut falls between the intro and the code.
    assert not any(c.text.lstrip().startswith("```") for c in chunks)


def test_a_heading_and_one_sentence_do_not_make_a_chunk_of_their_own() -> None:
    code = "```python\n" + "".join(f"value_{i} = compute({i})\n" for i in range(30)) + "```\n"
    text = f"## Settings\n\nDeclare the values:\n\n{code}\nThat is all.\n"
    assert len(code) < 900
    chunks = chunk_text(text, ceiling=500)
    assert len(chunks) > 1
    first = chunks[0].text
    assert first.startswith("## Settings") and "value_0 = compute(0)" in first, first
    # Code is only ever cut at a line end.
    assert all(c.text.endswith("\n") for c in chunks[:-1])
    assert "".join(c.text for c in chunks) == text


def test_a_heading_never_ends_a_chunk() -> None:
    para = "A paragraph of text about the section. " * 5
    text = "# Title\n\n" + (para + "\n\n") * 3 + "## Next\n\n" + para + "\n"
    for ceiling in (200, 250, 300, 400):
        chunks = chunk_text(text, ceiling=ceiling)
        for c in chunks:
            lines = [line for line in c.text.splitlines() if line.strip()]
            assert not lines[-1].startswith("#"), (ceiling, c.text)

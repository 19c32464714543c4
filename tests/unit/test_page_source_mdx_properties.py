"""Property test for the MDX transform: stray backticks never leave component tags behind.

Random prose (words, punctuation, stray and paired backticks, ``{" "}`` expressions, character
references, line breaks, blank lines) with known components placed at line starts goes through
the ``mintlify`` profile. Component bodies are indented at random (JSX children may be), may
start on their tag's line and may hold a nested component at any indentation. Whatever the
backticks do, no component or ``<div>`` tag, no ``{" "}`` and no character reference may be left
outside code, no word may be lost, and no line outside fences may be indented four columns or
more (Markdown's indented code; MDX has none) unless a list item above it accounts for it.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.indexer.pages.transforms import apply_transform

VOCABULARY = (
    "alpha beta gamma delta omega river stone cloud apple lemon quick brown fox lazy dog "
    "run build deploy cache token vector index query"
)
WORDS = st.sampled_from(VOCABULARY.split())
PUNCT = st.sampled_from([".", ",", ";", ":", "!", "?", "(", ")", "-", "'", '"'])
# Stray backticks, and paired code spans (also holding tags, which are code and stay).
STRAY = st.sampled_from(["`", "``", "a`", "`b", "\\`"])
CODE = st.sampled_from(["`x`", "`<Tip>`", "`</Note>`", "``a ` b``", "`<div>`", "`run()`"])
SPACE = st.sampled_from(['{" "}', "{' '}", 'x{" "}'])
ENTITY = st.sampled_from(["&amp;", "&nbsp;", "&lt;", "&#39;", "a&quot;"])
INDENT = st.sampled_from(["", "  ", "    ", "      ", "        "])

TAG = re.compile(r"</?(?:Tip|Note|Steps|Step|Card|div)\b")
LEFTOVER = re.compile(r"\{\s*(?:\"\s*\"|'\s*')\s*\}|&(?:#\d+|[a-z]+);")


@st.composite
def lines(draw: st.DrawFn) -> str:
    tokens = draw(
        st.lists(st.one_of(WORDS, WORDS, WORDS, PUNCT, STRAY, CODE, SPACE, ENTITY), max_size=8)
    )
    return " ".join(tokens)


@st.composite
def prose(draw: st.DrawFn) -> str:
    """Lines joined by single line breaks (one paragraph) or blank lines."""
    parts = draw(st.lists(lines(), min_size=1, max_size=4))
    joins = draw(
        st.lists(st.sampled_from(["\n", "\n\n"]), min_size=len(parts), max_size=len(parts))
    )
    return "".join(part + join for part, join in zip(parts, joins, strict=True)).rstrip("\n")


@st.composite
def component(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["Tip", "Note", "Card", "div", "Steps"]))
    title = " ".join(draw(st.lists(WORDS, min_size=1, max_size=3)))
    if kind == "Steps":
        steps = draw(st.lists(st.tuples(WORDS, lines()), min_size=1, max_size=3))
        inner = "\n".join(f'  <Step title="{t}">{body}</Step>' for t, body in steps)
        return f"<Steps>\n{inner}\n</Steps>"
    attrs = f' title="{title}"' if kind == "Card" else ' className="box"' if kind == "div" else ""
    if draw(st.booleans()):
        return f"<{kind}{attrs}>{draw(lines())}</{kind}>"
    body_lines = draw(prose()).split("\n")
    if kind != "div" and draw(st.booleans()):  # a nested component somewhere in the body
        at = draw(st.integers(0, len(body_lines)))
        body_lines[at:at] = ["", f"<Tip>\n{draw(lines())}\n</Tip>", ""]
    body = "\n".join(
        "\n".join(draw(INDENT) + part for part in line.split("\n")) for line in body_lines
    )
    start = "" if draw(st.booleans()) else "\n"  # the body may start on the tag's line
    return f"<{kind}{attrs}>{start}{body}\n</{kind}>"


@st.composite
def pages(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(st.one_of(prose(), component()), min_size=1, max_size=6))
    joins = draw(
        st.lists(st.sampled_from(["\n", "\n\n"]), min_size=len(blocks), max_size=len(blocks))
    )
    return "".join(block + join for block, join in zip(blocks, joins, strict=True))


def outside_code(markdown: str) -> str:
    """``markdown`` without fenced code and inline code spans (CommonMark: a run of N backticks
    up to the next run of exactly N in the same blank-line-separated paragraph)."""
    kept: list[str] = []
    for paragraph in re.split(r"\n[ \t>]*\n", markdown):
        position = 0
        for run in re.finditer(r"(?<![`\\])`+", paragraph):
            if run.start() < position:
                continue
            closer = re.compile(rf"(?<!`)`{{{len(run.group())}}}(?!`)").search(paragraph, run.end())
            if closer is None:
                continue
            kept.append(paragraph[position : run.start()])
            position = closer.end()
        kept.append(paragraph[position:])
    return "\n\n".join(kept)


def words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\b[a-z]+\b", text))


def indented_code(markdown: str) -> list[str]:
    """Lines outside fences (after block-quote markers) indented 4+ columns that no list item
    accounts for (the nearest less indented line above is not a list item)."""
    found: list[str] = []
    fence: str | None = None
    above: list[str] = []  # the non-blank lines so far, outside fences
    for line in markdown.split("\n"):
        line = re.sub(r"^(?:> ?)+", "", line)
        opened = re.match(r"^[ \t]*(`{3,}|~{3,})", line)
        if fence is not None:
            fence = None if opened and opened.group(1).startswith(fence) else fence
            continue
        if opened:
            fence = opened.group(1)
        if not line.strip():
            continue
        width = len(line) - len(line.lstrip(" \t"))  # not NBSP: it is no indentation
        if width >= 4:
            parent = next((a for a in reversed(above) if len(a) - len(a.lstrip(" \t")) < width), "")
            if not re.match(r"^\s*(?:[-*+]|\d+[.)])(?:\s|$)", parent):
                found.append(line)
        above.append(line)
    return found


@pytest.mark.slow  # 8 s under load (`make test-fast` leaves it out)
@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(pages())
def test_mintlify_leaves_no_tag_outside_code_and_keeps_every_word(page: str) -> None:
    out = apply_transform("mintlify", page).text
    prose = outside_code(out)
    leaked = TAG.findall(prose) + LEFTOVER.findall(prose)
    assert not leaked, f"left outside code: {leaked}\n--- in\n{page}\n--- out\n{out}"
    code = indented_code(out)
    assert not code, f"indented lines: {code}\n--- in\n{page}\n--- out\n{out}"
    # Words of the prose and of titles; tag names, attributes and references are markup.
    source_words = words(re.sub(r"</?[A-Za-z][^<>]*>|&[#\w]+;", " ", page))
    source_words += words(" ".join(re.findall(r'title="([^"]*)"', page)))
    missing = source_words - words(out)
    assert not missing, f"lost words: {missing}\n--- in\n{page}\n--- out\n{out}"

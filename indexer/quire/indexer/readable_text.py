"""The words a reader sees in a Markdown chunk, for the embedder.

The model sees at most 256 word pieces per chunk, and Markdown spends many of them on syntax:
a link target tokenizes into a dozen or more pieces (``https : / / github . com / fastapi /
fastapi / pull / 16203``), every ``**bold**`` costs four asterisks, every ``inline code`` two
backticks, every heading its ``#`` marks and ``{ #anchor-id }``. None of it is something a
reader searches for, and on link-dense pages (release notes, reference lists) it pushes most of
a chunk's words out of the window. ``readable_text`` keeps what a rendered page shows — link
text, image alt text, the text inside inline HTML, emphasised words, code — and drops the rest.

It is applied only to the text sent to the embedder; stored chunk text, full-text search, grep
and reads see the raw Markdown. On the FastAPI site it removes 28 % of the embedded tokens
(docs/chunking.md).

Regular expressions over the chunk text, not a Markdown parser: a chunk is a slice of a
document (it may start inside a code fence or a list), and an approximation that never loses a
visible word is what the embedder needs. Things it does not touch: underscores (``__init__``,
``snake_case`` are words in code), ``|`` (Python's ``str | None``), bare URLs and autolinks
(the reader sees them). Code that happens to look like a link (``handlers[0](event)``) or
emphasis (``a *b* c``) loses those characters in the embedding text only.
"""

from __future__ import annotations

import re

__all__ = ["readable_text"]

# Link text: anything but brackets and line ends, or one nested pair (``[@bot[bot]]``).
_TEXT = r"((?:[^\[\]\n]|\[[^\[\]\n]*\])*)"
# Target: something that looks like a URL or a path (a scheme, ``/``, ``#``, ``.``, or a word
# followed by ``.`` ``/`` ``#``), so scientific notation such as ``[Ca(2+)](i)`` or
# ``[GHS-R](-/-)`` is not taken for a link; no whitespace, balanced single-level parentheses;
# an optional quoted title.
_TARGET = (
    r"\((?=[A-Za-z][A-Za-z0-9+.-]*:|[/#.~?]|\w[\w-]*[./#])(?:[^()\s]|\([^()\s]*\))*"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_IMAGE = re.compile(r"!\[" + _TEXT + r"\]" + _TARGET)
_LINK = re.compile(r"\[" + _TEXT + r"\]" + _TARGET)
# ``[label]: https://… "title"`` reference definitions: a line holding only a destination and
# an optional title (``[note]: some prose`` is prose).
_DEFINITION = re.compile(
    r"^ {0,3}\[[^\]\n]+\]:[ \t]*(?:<[^>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*(?:\n|$)",
    re.MULTILINE,
)
# An HTML tag: ``<name attr="…">``, ``</name>`` or ``<name/>``. An autolink ``<https://…>`` is
# not a tag (``:`` after the name) and stays.
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?/?>")
# Inline elements whose tags vanish without a space (``<abbr …>API</abbr>s`` stays one word).
_INLINE = re.compile(r"a|abbr|b|code|em|i|kbd|mark|s|small|span|strong|sub|sup|u", re.IGNORECASE)
# Line-level syntax, each removed with the whitespace it owns:
_LINE_SYNTAX = [
    # a heading's attribute list: ``## Title { #title .class }``
    re.compile(r"[ \t]*\{[ \t]*[#.][^{}\n]*\}[ \t]*$", re.MULTILINE),
    # ATX heading marks (the heading text stays)
    re.compile(r"^ {0,3}#{1,6}[ \t]+", re.MULTILINE),
    # admonition fences: ``/// note | Title`` keeps ``note | Title``
    re.compile(r"^[ \t]*/{3,}[ \t]*", re.MULTILINE),
    # table rules: ``|---|:--:|``
    re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*\n", re.M),
]
# List bullets (``* item``, ``- item``, ``+ item``); the indentation stays.
_BULLET = re.compile(r"^([ \t]*)[*+-][ \t]+", re.MULTILINE)
# ``**strong**`` and ``*emphasis*`` around words (not ``2 * 3`` nor ``*args``).
_STRONG = re.compile(r"\*\*(?=\S)([^*\n]*?\S)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])")


def _tag(match: re.Match[str]) -> str:
    return "" if _INLINE.fullmatch(match.group(1)) else " "


def readable_text(text: str) -> str:
    """``text`` without the Markdown and HTML syntax a rendered page does not show.

    ``[text](url "title")`` → ``text``; ``![alt](src)`` → ``alt``; ``[id]: url`` lines →
    nothing; ``<abbr title="…">API</abbr>`` → ``API``; block tags (``<img …>``, ``<br>``,
    ``<div>``) → a space; ``## Title { #title }`` → ``Title``; ``**bold**`` / ``*em*`` →
    the words; backticks, list bullets, ``///`` admonition fences and table rules → nothing.
    """
    if "](" in text:
        text = _IMAGE.sub(r"\1", text)
        text = _LINK.sub(r"\1", text)
    if "]:" in text:
        text = _DEFINITION.sub("", text)
    if "<" in text:
        text = _TAG.sub(_tag, text)
    for pattern in _LINE_SYNTAX:
        text = pattern.sub("", text)
    text = _BULLET.sub(r"\1", text)
    if "*" in text:
        text = _STRONG.sub(r"\1", text)
        text = _EMPHASIS.sub(r"\1", text)
    return text.replace("`", "")

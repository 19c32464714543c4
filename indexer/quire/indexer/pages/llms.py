"""Links in an ``llms.txt``-style Markdown index.

Every inline Markdown link ``[Title](href)`` or ``[Title](<href> "tooltip")`` outside fenced code
blocks and inline code is returned in document order; images (``![alt](src)``) are not links.
The title is the link text with whitespace collapsed and simple inline markup (backticks,
``**``/``__`` emphasis, backslash escapes) removed; an empty title is ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["IndexLink", "parse_index_links"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK = re.compile(
    r"(?<![!\\])\[(?P<text>(?:\\.|[^\[\]\\]|\[(?:\\.|[^\[\]\\])*\])*)\]"
    r"\(\s*(?:<(?P<angle>[^<>\n]*)>|(?P<bare>(?:\\.|[^\s()\\]|\((?:\\.|[^\s()\\])*\))*))"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")


@dataclass(frozen=True)
class IndexLink:
    title: str | None
    href: str


def _clean_title(text: str) -> str | None:
    title = _EMPHASIS.sub(r"\2", text)
    title = title.replace("`", "")
    title = _ESCAPE.sub(r"\1", title)
    title = " ".join(title.split())
    return title or None


def parse_index_links(text: str) -> list[IndexLink]:
    """All links of a Markdown index, in order (see the module docstring)."""
    links: list[IndexLink] = []
    fence: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is not None:
            if (
                match is not None
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
            ):
                fence = None
            continue
        if match is not None:
            fence = match.group(1)
            continue
        masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for link in _LINK.finditer(masked):
            href = link.group("angle") if link.group("angle") is not None else link.group("bare")
            href = _ESCAPE.sub(r"\1", (href or "").strip())
            if not href:
                continue
            links.append(IndexLink(_clean_title(line[link.start("text") : link.end("text")]), href))
    return links

"""MDX → plain Markdown: ESM lines, comments, JSX components and HTML (used by the site transforms).

Fenced code blocks and inline code spans are never changed. A fence is a line of three or more
backticks or tildes at any indentation (JSX children are indented); it is closed by a line of
the same character, at least as long, with nothing after it, so a four-backtick fence may hold
three-backtick lines. As in CommonMark, a backtick fence's info string may not contain a
backtick: a one-line "```bash npm i```" is an inline code span in a paragraph, not a fence.

A code span is a run of N backticks closed by the next run of exactly N backticks in the same
paragraph. Here a paragraph ends at a blank line or at a line that starts with a block tag (a
component, a fragment or a block-level HTML element; inline ones like ``<Tooltip>`` or
``<span>`` stay in the paragraph), so an unmatched backtick is literal text and never hides the
components after it. A backslash before a backtick makes it literal. Outside code:

- top-level ``import``/``export`` statements (also multi-line ones) and ``{/* comments */}`` are
  dropped;
- a JSX component (a tag whose name starts with an upper-case letter) is rendered by the
  profile's ``Renderer`` for its name, given its attributes (character references in string
  values decoded, as JSX does), its body (reindented, below; blank edges trimmed) and its 1-based
  position among the rendered children of its parent (for numbered steps and
  ``<Tabs items=[...]>``). Components without a renderer are unwrapped: their body is
  kept, as a block when it spans lines or the element stands on lines of its own, inline
  otherwise; self-closing ones disappear.
  Fragments (``<>``/``</>``) are unwrapped. A stray closing tag is dropped; an unclosed tag is
  unwrapped at the end of the document (or where an enclosing tag closes).
- ``inline`` components (e.g. ``Tooltip``) render as their child text, inline, with whitespace
  collapsed; their attributes (hover text) are dropped.
- ``badges`` (decorative components such as ``Badge``, ``Icon``) are dropped when they stand on
  a line of their own — nothing but whitespace and other badges between the line's start and
  the opening tag, and between the closing tag and the line's end (this covers version and
  status labels at the top of a page); anywhere else (in a sentence, a heading, a list item or
  a table cell) they render as their child text, inline.
- with ``html`` (the default), lower-case HTML elements (known HTML element names only; other
  lower-case names such as ``<placeholder>`` are left as text) are removed and their visible
  text kept: block elements (``div``, ``p``, ``section``, ``figure``, ``table``, ``tr``, ...)
  are unwrapped as blocks, ``h1``–``h6`` become ATX headings and ``li`` list items; inline ones
  (``span``, ``strong``, ``em``, ...) keep their text inline, ``a href`` becomes a Markdown
  link, ``code``/``kbd`` an inline code span, ``abbr title`` "text (title)" and table cells
  are separated by spaces; other ``title`` attributes are hover text and dropped. Void and
  media elements are dropped: ``img`` leaves its ``alt`` text, ``br`` a line break (a space in
  a ``|`` table row), ``hr`` a paragraph break; ``video``, ``audio``, ``iframe``, ``svg``,
  ``script``, ``style``, ... are dropped with their body when explicitly closed (an unclosed
  one is unwrapped, so no page text is lost to a missing closing tag).
- in a Markdown table row (a line starting with ``|``) nothing breaks the line: blocks are
  rendered inline, space-separated, and ``br`` is a space.
- a block rendered at the top level from a tag indented under a list item (or written right
  after a list marker, ``1. <Tip>``) is indented to the item's content column, so it stays in
  the item; inside a body it is placed at its tag's column (after the marker when hugged), so
  reindenting the body keeps it where the tag stood.
- MDX has no indented code blocks, so indentation means nothing outside lists and fences: each
  body, and the page at the end, is reindented. Outside list items every line starts at column
  0 (JSX children indented at will, a body whose first line starts on its tag's line, lines
  indented more than their siblings); list items keep their nesting, with their content at the
  item's content column; fenced code keeps its indentation relative to its opening fence (as in
  CommonMark, up to the fence's indentation is removed from each code line).
- a JSX whitespace expression ``{" "}`` / ``{' '}`` (with the spaces after it) is a single
  space between words (nothing at a line start or next to whitespace).
- character references (``&amp;``, ``&lt;``, ``&#39;``, ``&nbsp;``; the ``;`` is required) are
  decoded in text, never in code spans or fences.
- whitespace is collapsed (inline components, badges, headings, links) only in a closed,
  one-paragraph body without a fence; otherwise the body is unwrapped as a block.
- runs of three or more line breaks left behind are collapsed to one blank line.
"""

from __future__ import annotations

import functools
import html
import itertools
import re
import textwrap
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field

__all__ = ["Component", "Renderer", "code_span", "quote_block", "render_mdx"]

# Backtick fences: the info string may not contain a backtick (CommonMark), so
# "```bash npm i```" is not a fence. Tilde fences may have backticks in their info string.
_FENCE = re.compile(r"^[ \t]*(?:(`{3,})(?=[^`]*$)|(~{3,}))")
_ESM = re.compile(
    r"^(?:import(?:\s+[\w*{\"']|\s*[{*\"'])|export\s+(?:const|let|var|function|default|async|class)\b"
    r"|export\s*[{*])"
)
_ATTRS = r"(?:\"[^\"]*\"|'[^']*'|\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|[^\"'{}<>/]|/(?!>))*"
# The name must be followed by whitespace, "/" or ">" so autolinks (<https://x>, <a@b.c>) are
# not tags.
_TOKEN = re.compile(
    r"(?P<ticks>`+)"
    r"|(?P<comment>\{/\*.*?\*/\})"
    r"|(?P<space>\{[ \t]*(?:\"[ \t]*\"|'[ \t]*')[ \t]*\}[ \t]*)"  # with the spaces after it
    r"|(?P<fragment></?>)"
    rf"|<(?P<close>/)?(?P<name>[A-Za-z][\w.:-]*)(?=[\s/>])(?P<attrs>{_ATTRS})(?P<selfclose>/)?>",
    re.DOTALL,
)
_ATTR = re.compile(
    r"(?P<key>[A-Za-z_][\w:-]*)(?:\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'"
    r"|\{(?P<expr>(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}))?"
)
_STRING_EXPR = re.compile(r"^\s*(?:\"([^\"]*)\"|'([^']*)'|`([^`$]*)`)\s*$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
_THEMATIC_BREAK = re.compile(r"^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
# A character reference as CommonMark and JSX read it (the ";" is required).
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_PLAIN_URL = re.compile(r"^[^\s()<>]+$")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_LINE_WINDOW = 10_000  # how far to look along a line for what stands beside a tag
_DECORATION_WINDOW = 1_000  # longer text beside a badge is not just decoration

# --- lower-case HTML -----------------------------------------------------------------------------

_HTML_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
)
#: Not visible as text (media, embeds, scripts): dropped with their body.
_HTML_DROP = frozenset(
    {"audio", "canvas", "iframe", "map", "noscript", "object", "script", "style", "svg"}
    | {"template", "video"}
)
_HTML_BLOCK = frozenset(
    {"address", "article", "aside", "blockquote", "caption", "center", "dd", "details", "dialog"}
    | {"div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header"}
    | {"hgroup", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody"}
    | {"tfoot", "thead", "tr", "ul", "colgroup", "h1", "h2", "h3", "h4", "h5", "h6"}
)
_HTML_INLINE = frozenset(
    {"a", "abbr", "b", "bdi", "bdo", "big", "button", "cite", "code", "data", "del", "dfn", "em"}
    | {"font", "i", "ins", "kbd", "label", "mark", "nobr", "picture", "q", "s", "samp", "small"}
    | {"span", "strike", "strong", "sub", "sup", "td", "th", "time", "tt", "u", "var"}
)
_HTML = _HTML_VOID | _HTML_DROP | _HTML_BLOCK | _HTML_INLINE
_HTML_CODE = frozenset({"code", "kbd", "samp", "tt"})


@dataclass(frozen=True)
class Component:
    """One component occurrence as given to a renderer."""

    name: str
    attrs: Mapping[str, str]
    body: str
    position: int  # 1-based among the rendered children of the parent
    parent_attrs: Mapping[str, str]


#: Returns Markdown for a component; "" drops it. The result is set off as a block.
Renderer = Callable[[Component], str]


@dataclass
class _Frame:
    name: str
    attrs: dict[str, str]
    html: bool = False
    indent: str = ""  # list-item indentation for a block rendered at the top level
    hug: bool = False  # the tag follows a list marker on its line: the block starts there
    standalone: bool = False  # a badge with only whitespace/badges before it on its line
    line_start: bool = False  # only whitespace (or a list marker) before the tag on its line
    in_row: bool = False  # inside a Markdown table row ("| ... |"): blocks must stay on the line
    parts: list[str] = field(default_factory=list)
    children: int = 0
    space: bool = False  # an inline element ended in whitespace: a space before the next word
    after_block: bool = False  # a block was just emitted: drop spaces left on the tag's line


def _parse_attrs(raw: str) -> dict[str, str]:
    attrs: dict[str, str] = {}
    for match in _ATTR.finditer(raw):
        key = match.group("key")
        if match.group("dq") is not None:  # JSX string attributes hold character references
            attrs[key] = _decode(match.group("dq"))
        elif match.group("sq") is not None:
            attrs[key] = _decode(match.group("sq"))
        elif match.group("expr") is not None:
            expr = match.group("expr")
            literal = _STRING_EXPR.match(expr)
            if literal is not None:
                attrs[key] = next(g for g in literal.groups() if g is not None)
            else:
                attrs[key] = expr.strip()
        else:
            attrs[key] = "true"
    return attrs


def _decode(text: str) -> str:
    """``text`` with its character references (``&amp;``, ``&#39;``, ``&nbsp;``) decoded."""
    return _ENTITY.sub(lambda match: html.unescape(match.group()), text) if "&" in text else text


def quote_block(text: str) -> str:
    """``text`` as a Markdown block quote."""
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


def _trim(body: str) -> str:
    return _reindent(body.strip("\n").rstrip()).strip("\n")


def _width(line: str) -> int:
    """The width of ``line``'s leading whitespace (tab stops every 4 columns)."""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return len(indent.expandtabs(4))


def _shift(line: str, width: int, new: int) -> str:
    """``line`` (leading whitespace ``width`` columns wide) with ``new`` columns of it instead;
    code keeps its own characters (tabs) past the columns removed."""
    if new >= width:
        return " " * (new - width) + line
    remove, column, index = width - new, 0, 0
    while column < remove:
        column = column + 4 - column % 4 if line[index] == "\t" else column + 1
        index += 1
    return " " * (column - remove) + line[index:]


def _reindent(text: str) -> str:
    """``text`` without the indentation that means nothing in MDX, which has no indented code
    blocks: JSX children are indented at will, a body may start on its tag's line and blocks
    rendered from child tags sit at the tag's column. Outside list items every line starts at
    column 0; list items keep their nesting, their content sits at the item's content column;
    fenced code keeps its indentation relative to its opening fence (CommonMark: up to the
    fence's indentation is removed from each line); whitespace-only lines become empty."""
    out: list[str] = []
    items: list[tuple[int, int]] = []  # open list items: (source, output) content column
    fence: str | None = None
    fence_width = fence_new = 0
    lazy = False  # the line before continues a paragraph: a less indented line may go on it
    for line in text.split("\n"):
        stripped = line.strip()
        if fence is not None:
            run = len(stripped) - len(stripped.lstrip(fence[0]))
            if run >= len(fence) and not stripped[run:].strip():
                out.append(" " * fence_new + stripped)
                fence = None
            elif stripped:
                out.append(
                    _shift(line, _width(line), fence_new + max(0, _width(line) - fence_width))
                )
            else:
                out.append("")
            continue
        if not stripped:
            out.append("")
            lazy = False
            continue
        width = _width(line)
        opened = _fence_open(line)
        item = None if opened or _THEMATIC_BREAK.match(stripped) else _LIST_ITEM.match(stripped)
        while items and width < items[-1][0] and (opened or item or not lazy):
            items.pop()
        new = items[-1][1] if items else 0
        text_start = line.lstrip(" \t")
        if item is not None:
            if items:
                new += min(width - items[-1][0], 3)
            marker = item.group(0).rstrip(" \t")
            spaces = len(item.group(0).expandtabs(4)) - len(marker)
            content = len(marker) + (spaces if 1 <= spaces <= 4 else 1)
            items.append((width + content, new + content))
        out.append(" " * new + text_start)
        if opened is not None:
            fence, fence_width, fence_new = opened, width, new
        lazy = opened is None
    return "\n".join(out)


def _fence_open(line: str) -> str | None:
    match = _FENCE.match(line)
    if match is None:
        return None
    return match.group(1) or match.group(2)


def _split_fences(text: str) -> list[tuple[bool, str]]:
    """Split into (is_code, text) pieces: fenced code blocks vs the rest (unclosed runs to end)."""
    segments: list[tuple[bool, str]] = []
    prose: list[str] = []
    block: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        if fence is None:
            fence = _fence_open(line)
            if fence is None:
                prose.append(line)
                continue
            segments.append((False, "".join(prose)))
            prose = []
            block = [line]
            continue
        block.append(line)
        stripped = line.strip()
        run = len(stripped) - len(stripped.lstrip(fence[0]))
        if run >= len(fence) and not stripped[run:].strip():
            segments.append((True, "".join(block)))
            fence = None
    if fence is not None:
        segments.append((True, "".join(block)))
    segments.append((False, "".join(prose)))
    return [(code, piece) for code, piece in segments if piece]


def _strip_esm(prose: str) -> str:
    kept: list[str] = []
    depth = 0
    for line in prose.splitlines(keepends=True):
        if depth > 0:
            depth += _depth(line)
            continue
        if _ESM.match(line):
            depth = max(0, _depth(line))
            continue
        kept.append(line)
    return "".join(kept)


def _depth(line: str) -> int:
    return sum(line.count(c) for c in "{[(") - sum(line.count(c) for c in "}])")


@functools.lru_cache(maxsize=16)
def _decoration_line(badges: frozenset[str], inline: frozenset[str]) -> re.Pattern[str]:
    """Matches text made only of whitespace, whole one-line badges and bare inline-component
    tags (a ``<Tooltip>`` around a badge); visible text elsewhere on the line does not match."""
    alt = "|".join(sorted(re.escape(name) for name in badges)) or "(?!)"
    tag = "|".join(sorted(re.escape(name) for name in badges | inline)) or "(?!)"
    whole = rf"<(?P<badge>{alt})\b[^<>]*>.*?</(?P=badge)\s*>"
    return re.compile(rf"(?:\s|</?(?:{tag})\b[^<>]*>|{whole})*")


@functools.lru_cache(maxsize=16)
def _paragraph_end(phrasing: frozenset[str], html: bool) -> re.Pattern[str]:
    """Where a code span search stops: a blank line, or a line that starts with a block tag (a
    component, a fragment or a block-level HTML element; not an inline one such as
    ``<Tooltip>`` or ``<span>``, which stays in its paragraph)."""
    inline = "|".join(sorted(re.escape(name) for name in phrasing)) or "(?!)"
    block = rf"|</?(?:{'|'.join(sorted(_HTML_BLOCK | _HTML_DROP))})(?=[\s/>])" if html else ""
    return re.compile(rf"\n[ \t]*(?:\n|</?>|</?(?!(?:{inline})\b)[A-Z]{block})")


@functools.lru_cache(maxsize=64)
def _has_fence(text: str) -> bool:
    return ("```" in text or "~~~" in text) and any(code for code, _ in _split_fences(text))


@functools.lru_cache(maxsize=64)
def _closer(run: int) -> re.Pattern[str]:
    return re.compile(rf"(?<!`)`{{{run}}}(?!`)")


def code_span(text: str, ticks: int) -> str:
    """``text`` as an inline code span (a backtick run longer than any inside it)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(ticks, longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _lines_back(parts: list[str]) -> Iterator[str]:
    """The lines of ``"".join(parts)``, last first (cut short at an overlong line)."""
    carry = ""
    for part in reversed(parts):
        end = len(part)
        while (newline := part.rfind("\n", 0, end)) >= 0:
            yield part[newline + 1 : end] + carry
            carry, end = "", newline
        carry = part[:end] + carry
        if len(carry) > _LINE_WINDOW:
            return
    yield carry


def _list_indent(parts: list[str], width: int) -> int | None:
    """The content column of the list item that a line indented by ``width`` belongs to, if
    any: the nearest line above (in the text emitted so far, ``parts``) that is indented less
    must be a list item. Looks back at most 200 lines."""
    for line in itertools.islice(_lines_back(parts), 200):
        if not line.strip():
            continue
        expanded = line.expandtabs(4)
        if len(expanded) - len(expanded.lstrip()) >= width:
            continue
        item = _LIST_ITEM.match(expanded)
        if item is None:
            return None
        marker = item.group(0).rstrip()
        spaces = len(item.group(0)) - len(marker)
        return len(marker) + (spaces if 1 <= spaces <= 4 else 1)  # the content column
    return None


def _line_prefix(segment: str, start: int) -> str | None:
    """The text before ``start`` on its line; None when the line is longer than we look back
    (bounded so that pages made of one huge line stay linear)."""
    low = max(0, start - _LINE_WINDOW)
    newline = segment.rfind("\n", low, start)
    if newline < 0 and low > 0:
        return None
    return segment[newline + 1 : start]


def _line_rest(segment: str, end: int) -> str | None:
    """The text after ``end`` on its line; None when it is longer than we look ahead."""
    newline = segment.find("\n", end, end + _LINE_WINDOW)
    if newline < 0:
        return segment[end:] if len(segment) - end <= _LINE_WINDOW else None
    return segment[end:newline]


class _Render:
    def __init__(
        self,
        renderers: Mapping[str, Renderer],
        html: bool,
        badges: frozenset[str],
        inline: frozenset[str],
    ) -> None:
        self.renderers = renderers
        self.html = html
        self.badges = badges
        self.inline = inline
        self.decoration = _decoration_line(badges, inline)
        self.paragraph_end = _paragraph_end(badges | inline, html)
        self.root = _Frame("", {})
        self.stack = [self.root]
        self.open_tags: Counter[tuple[str, bool]] = Counter()  # (name, html) of open frames

    def pop(self) -> _Frame:
        frame = self.stack.pop()
        self.open_tags[frame.name, frame.html] -= 1
        return frame

    def emit(self, piece: str) -> None:
        frame = self.stack[-1]
        if frame.after_block:
            piece = piece.lstrip(" \t")
        if not piece:
            return
        if frame.space and not piece[0].isspace():
            piece = " " + piece
        elif piece[0] == "`" and frame.parts and frame.parts[-1][-1] in "`\\":
            # Text was removed between them: joined, the backticks would make a longer run (or
            # an escaped one) and pair differently.
            piece = " " + piece
        frame.space = frame.after_block = False
        frame.parts.append(piece)

    def space(self) -> None:
        """A space before the next word, unless whitespace is there already."""
        frame = self.stack[-1]
        if frame.parts and not frame.parts[-1][-1:].isspace():
            frame.space = True

    def emit_block(self, frame: _Frame, text: str) -> None:
        target = self.stack[-1]
        if frame.in_row:  # a line break would end the table row: keep it on one line
            self.emit_spaced(" ".join(text.split()))
            return
        target.space = False
        if not frame.hug:  # spaces before the tag would be trailing spaces (a hard break)
            while target.parts and not target.parts[-1].rstrip(" \t"):
                target.parts.pop()
            if target.parts:
                target.parts[-1] = target.parts[-1].rstrip(" \t")
        lines = [f"{frame.indent}{line}" if line.strip() else "" for line in text.split("\n")]
        if frame.hug:  # the list marker is already out: the block starts on its line
            lines[0] = lines[0][len(frame.indent) :]
            self.emit("\n".join(lines) + "\n\n")
        else:
            self.emit("\n\n" + "\n".join(lines) + "\n\n")
        target.after_block = True

    def emit_inline(self, body: str, text: str) -> None:
        """``text`` for an inline element, with a space on a side where ``body`` had whitespace
        (so words stay apart), unless there is whitespace there already."""
        parts = self.stack[-1].parts
        before = next((part[-1] for part in reversed(parts) if part), "\n")
        lead = " " if body[:1].isspace() and not before.isspace() else ""
        self.emit(f"{lead}{text}")
        if body[-1:].isspace() and text:
            self.stack[-1].space = True

    def emit_spaced(self, text: str) -> None:
        """``text`` set apart from the words on either side by a single space."""
        self.emit_inline(" ", text)

    def unwrap(self, frame: _Frame, body: str) -> None:
        if "\n" in body:  # its content spans lines (or holds a rendered block): a block
            self.emit_block(frame, _trim(body))
        else:
            self.emit(body.strip())

    def close_top(self, closed: bool, line_rest: str | None = "") -> None:
        """Close the innermost frame; ``closed``: by its own closing tag (then ``line_rest``
        is the source text after that tag on its line, None for a long one)."""
        frame = self.pop()
        body = "".join(frame.parts) + (" " if frame.space else "")
        # Whitespace may be collapsed only in a closed one-paragraph body without code (an
        # unclosed tag's body runs to the end of the page, fences included).
        flat = closed and not _BLANK_LINE.search(body.strip()) and not _has_fence(body)
        if frame.html:
            self.close_html(frame, body, closed, flat)
        elif frame.name in self.badges or frame.name in self.inline:
            if not flat:
                self.unwrap(frame, body)
            elif frame.name in self.inline:
                self.emit_inline(body, " ".join(body.split()))
            elif not (
                frame.standalone
                and line_rest is not None
                and len(line_rest) <= _DECORATION_WINDOW
                and self.decoration.fullmatch(line_rest)
            ):
                self.emit(" ".join(body.split()))
        else:
            own_line = (
                closed and frame.line_start and line_rest is not None and not line_rest.strip()
            )
            self.close_component(frame, body, own_line)

    def close_component(self, frame: _Frame, body: str, own_line: bool) -> None:
        renderer = self.renderers.get(frame.name)
        if renderer is None:
            if own_line and body.strip():  # a component on lines of its own is a block
                self.emit_block(frame, _trim(body))
            else:
                self.unwrap(frame, body)
            return
        parent = self.stack[-1]
        parent.children += 1
        component = Component(frame.name, frame.attrs, _trim(body), parent.children, parent.attrs)
        rendered = renderer(component)
        if rendered:
            self.emit_block(frame, rendered)

    def close_html(self, frame: _Frame, body: str, closed: bool, flat: bool) -> None:
        name = frame.name
        text = " ".join(body.split())
        if name in _HTML_DROP:
            if not closed:  # never lose the rest of the page to a missing closing tag
                self.unwrap(frame, body)
            return
        if name in _HTML_BLOCK:
            if name[0] == "h" and name[1:].isdigit():
                if not flat:
                    self.unwrap(frame, body)
                elif text:
                    self.emit_block(frame, f"{'#' * int(name[1:])} {text}")
            elif name == "li":
                parent = self.stack[-1]
                parent.children += 1
                marker = f"{parent.children}. " if parent.name == "ol" else "- "
                first, _, rest = _trim(body).partition("\n")
                rest = textwrap.dedent(rest)  # the first line sat right after <li>
                item = "\n".join([first, *rest.split("\n")] if rest else [first])
                item = item.replace("\n", "\n" + " " * len(marker))
                self.emit_block(frame, marker + item)
            elif body.strip():
                self.emit_block(frame, _trim(body))
            return
        if not flat or ("\n" in body.strip() and name not in ("a", *_HTML_CODE)):
            self.unwrap(frame, body)
        elif name in ("td", "th"):
            self.emit_spaced(text)
        elif name == "a" and text and _PLAIN_URL.match(frame.attrs.get("href", "")):
            self.emit_inline(body, f"[{text}]({frame.attrs['href']})")
        elif name in _HTML_CODE and text:
            self.emit_inline(body, code_span(body.strip(), 1))
        elif name == "abbr" and text and frame.attrs.get("title", text) != text:
            # The expansion is what the abbreviation means, not commentary: keep it.
            self.emit_inline(body, f"{text} ({' '.join(frame.attrs['title'].split())})")
        else:
            self.emit_inline(body, text)

    def void(self, name: str, attrs: Mapping[str, str], segment: str, start: int, end: int) -> None:
        if name == "img":
            self.emit(" ".join(attrs.get("alt", "").split()))
        elif name == "br":
            line = _line_prefix(segment, start)
            if line is not None and line.lstrip().startswith("|"):
                self.emit(" ")  # a line break would end a Markdown table row
            elif not segment.startswith("\n", end):
                self.emit("\n")
        elif name == "hr":
            self.emit("\n\n")

    def open(self, name: str, attrs: dict[str, str], html: bool, prefix: str | None) -> _Frame:
        """Push a frame; ``prefix``: the text before the tag on its line (None: a long one)."""
        frame = _Frame(name, attrs, html=html)
        self.stack.append(frame)
        self.open_tags[frame.name, html] += 1
        frame.in_row = self.stack[-2].in_row or (prefix or "").lstrip().startswith("|")
        if prefix is None:
            return frame
        if not html and name in self.badges and len(prefix) <= _DECORATION_WINDOW:
            frame.standalone = self.decoration.fullmatch(prefix) is not None
        frame.line_start = not prefix.strip() or _LIST_MARKER.fullmatch(prefix) is not None
        prefix = prefix.expandtabs(4)
        if prefix and _LIST_MARKER.fullmatch(prefix):
            frame.indent, frame.hug = " " * len(prefix), True
        elif prefix and not prefix.strip():
            if len(self.stack) == 2:  # a top-level tag: only a list item's indentation counts
                frame.indent = " " * (_list_indent(self.root.parts, len(prefix)) or 0)
            else:  # at the tag's column among its siblings; the parent's body is reindented
                frame.indent = prefix
        return frame

    def run(self, text: str) -> str:
        for is_code, piece in _split_fences(text):
            if is_code:
                self.emit(piece)
            else:
                self.prose(_strip_esm(piece))
        while len(self.stack) > 1:
            self.close_top(closed=False)
        return _collapse(_reindent("".join(self.root.parts)))

    def prose(self, segment: str) -> None:
        position = 0
        scan = 0
        no_closer: dict[int, int] = {}  # run length -> end of the paragraph it has no closer in
        limit = -1  # the end of the paragraph last looked up (reused until passed)
        while (match := _TOKEN.search(segment, scan)) is not None:
            start = match.start()
            scan = match.end()
            if match.group("ticks") is not None:
                run = len(match.group("ticks"))
                slashes = 0
                while start - slashes > 0 and segment[start - slashes - 1] == "\\":
                    slashes += 1
                if slashes % 2:  # an escaped backtick is literal; the rest may open a span
                    start += 1
                    run -= 1
                    if run == 0:
                        continue
                if limit < scan:
                    end = self.paragraph_end.search(segment, scan)
                    limit = end.start() if end is not None else len(segment)
                if no_closer.get(run) == limit:
                    continue
                closer = _closer(run).search(segment, scan, limit)
                if closer is None:
                    no_closer[run] = limit
                    continue
                # The text before it + the span (one piece: see ``emit`` on backtick runs).
                self.emit(_decode(segment[position:start]) + segment[start : closer.end()])
                position = scan = closer.end()
                continue
            name = match.group("name")
            html = name is not None and name[0].islower()
            if html and (not self.html or name not in _HTML):
                scan = start + 1  # not a tag we handle: literal text
                continue
            self.emit(_decode(segment[position:start]))
            position = match.end()
            if match.group("space") is not None:  # {" "}: a space between words
                self.space()
                continue
            if match.group("comment") is not None or match.group("fragment") is not None:
                continue
            if match.group("close"):
                if self.open_tags[name, html]:
                    while self.stack[-1].name != name or self.stack[-1].html != html:
                        self.close_top(closed=False)
                    self.close_top(closed=True, line_rest=_line_rest(segment, position))
                continue
            attrs = _parse_attrs(match.group("attrs"))
            if html and re.search(r"\bhref\s*=\s*\{", match.group("attrs")):
                attrs.pop("href", None)  # a JS expression, not a URL
            if html and name in _HTML_VOID:
                self.void(name, attrs, segment, start, match.end())
                continue
            self.open(name, attrs, html, _line_prefix(segment, start))
            if match.group("selfclose"):
                if html:
                    self.pop()  # a self-closed HTML element has no text
                else:
                    self.close_top(closed=True)
        self.emit(_decode(segment[position:]))


def render_mdx(
    text: str,
    renderers: Mapping[str, Renderer],
    *,
    html: bool = True,
    badges: Collection[str] = (),
    inline: Collection[str] = (),
) -> str:
    """Render the MDX in ``text`` to Markdown with ``renderers`` (see the module docstring)."""
    return _Render(renderers, html, frozenset(badges), frozenset(inline)).run(text)


def _collapse(text: str) -> str:
    """Drop blank lines that follow a blank line (outside code); trim blank edges."""
    out: list[str] = []
    for is_code, segment in _split_fences(text):
        if is_code:
            out.append(segment)
            continue
        for line in segment.splitlines(keepends=True):
            blank = not line.strip()
            if blank and (not out or out[-1] == "\n" or out[-1].endswith("\n\n")):
                continue
            out.append("\n" if blank else line)
    result = "".join(out).strip("\n")
    return result + "\n" if result else ""

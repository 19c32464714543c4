"""Markdown/structure-aware chunking (DESIGN §5).

A document is cut into contiguous chunks of at most ``ceiling`` characters (code points, not
bytes). Boundaries are chosen in this order of preference, falling back to the next level only
for a piece that alone exceeds the ceiling:

1. ATX headings (``#`` .. ``######``, outside fenced code) and single-line setext headings
   (``Title`` underlined with ``===`` / ``---``) always start a new chunk; they also give each
   chunk its ``heading_path`` breadcrumb.
2. Blocks: paragraphs (runs of non-blank lines) and fenced code blocks (````` ``` ````` or
   ``~~~``, kept whole when they fit; an unclosed fence runs to the end) are packed whole.
3. Inside an oversized paragraph: sentence ends (``.``, ``!``, ``?``, ``…`` followed by
   whitespace and not by a lowercase letter, so ``e.g. the`` is not an end; ``。！？`` need no
   whitespace after them).
4. Line ends (the first fallback for fenced code, which never splits at sentences).
5. Word starts (a boundary falls after whitespace, before the next non-whitespace character).
6. The whitespace/non-whitespace transition inside "word + trailing whitespace".
7. Last resort, only for a single run of non-whitespace characters (or of whitespace) longer than
   the ceiling: a hard cut every ``ceiling`` characters, moved back so it does not separate a
   combining mark / zero-width joiner / variation selector from the character before it, nor
   ``\\r`` from ``\\n``.

At every level the pieces are packed *balanced* rather than greedily: a span that needs ``k``
chunks is cut at the piece boundaries nearest to its ``k - 1`` equidistant marks (the ceiling
still wins), so a 1,300-character abstract becomes two chunks of about 650 characters instead of
900 + 400. A piece that is too long only because of its trailing whitespace keeps its content
(and first line end) whole and lets the whitespace start the next chunk.

Blocks that belong together are glued into one piece when they fit the ceiling together: a
heading and the block after it, and a paragraph and the fenced code block right after it (the
"for example:" that introduces the code). And a section's heading never makes a chunk alone or
with only a sentence or two (a quarter ceiling): when the next block does not fit beside it,
that block's first part (cut at sentence ends, or line ends for code) joins the heading's
chunk, even if the block would fit in a chunk of its own.

Invariants (all tested in ``tests/unit/test_chunking.py``):

- ``chunk.text == text[chunk.start:chunk.end]`` and ``len(chunk.text) <= ceiling``.
- ``chunk_ordinal`` runs 0..n-1.
- With ``overlap == 0`` the chunks tile the input: ``"".join(c.text for c in chunks) == text``.
  Whitespace is never dropped: blank lines and trailing spaces stay at the end of the chunk that
  precedes them (leading whitespace of the document goes to the first chunk).
- A text that is empty or consists only of whitespace (``str.isspace``) gives ``[]``: there is
  nothing to embed or to search.
- With ``overlap > 0`` chunks are first cut with the reduced ceiling ``ceiling - overlap``; the
  resulting *cores* tile the text as above. Each chunk after the first of a section then extends
  its ``start`` back by up to ``overlap`` characters, to the earliest word start in that window
  (no overlap when there is none) and never before the start of its section (overlap never
  crosses a heading). ``text == source[start:end]`` still holds, chunks overlap, and the core of
  chunk ``i`` is ``source[chunks[i-1].end:chunks[i].end]`` (``[0:chunks[0].end]`` for the first).
  Every chunk still fits the full ``ceiling``.

A heading belongs to the chunk it starts. A heading with no body is merged into the section
after it (``# Tutorial`` + ``## First steps`` + text gives one chunk with ``heading_path ==
("Tutorial", "First steps")``; ``## 0.104.0`` + ``## Features`` + text one chunk with
``("Features",)``), or, at the end of the document, into the section before it, rather than
making a chunk of just a title. Heading titles are the stripped heading text without the
optional closing ``#`` sequence and without a trailing attribute list such as
``{ #anchor-id }``; empty titles are left out of the path. Indented code blocks, lists,
tables, block quotes and HTML are treated as paragraphs.

Pure Python, standard library only, linear in the size of the input.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from quire.indexer.readable_text import readable_text

__all__ = ["CHUNKING_FORMAT", "DEFAULT_CEILING", "Chunk", "chunk_text", "embedding_text"]

#: Part of every index fingerprint: bump when the same text would be cut differently.
CHUNKING_FORMAT = "structure/v2;heading+next;intro+code;heading-lead;title-only-joins-next"

#: Character ceiling per chunk. Chosen on SciFact with ``benchmarks/chunk_ceiling.py``; see
#: ``docs/chunking.md`` for the numbers (to be re-tuned against retrieval quality).
DEFAULT_CEILING = 900


@dataclass(frozen=True)
class Chunk:
    """A contiguous span of a document; ``text == source[start:end]`` (code point offsets)."""

    text: str
    heading_path: tuple[str, ...]
    chunk_ordinal: int
    start: int
    end: int


# --- Markdown block structure --------------------------------------------------------------------

_LINE_END = re.compile(r"\r\n|\r|\n")
_FENCE_OPEN = re.compile(r" {0,3}(?:(`{3,})[^`]*|(~{3,}).*)")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_ATTR_LIST = re.compile(r"[ \t]*\{[ \t]*[#.][^{}]*\}$")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")

_PARA, _CODE, _HEADING = 0, 1, 2


@dataclass
class _Block:
    kind: int
    start: int
    level: int = 0  # headings only
    title: str = ""  # headings only
    lines: int = 1  # paragraphs: number of lines so far (setext needs exactly one)


def _heading_title(raw: str) -> str:
    title = _ATX_CLOSING.sub("", raw.strip()).strip()
    return _ATTR_LIST.sub("", title).strip()


def _blocks(text: str) -> list[_Block]:
    """Parse the line structure into blocks; each block runs to the start of the next one."""
    blocks: list[_Block] = []
    fence: str | None = None  # closing fence prefix while inside a fenced code block
    prev_blank = True
    pos = 0
    n = len(text)
    while pos < n:
        m = _LINE_END.search(text, pos)
        content_end, next_pos = (m.start(), m.end()) if m else (n, n)
        line = text[pos:content_end]
        if fence is not None:
            stripped = line.strip(" \t")
            if (
                stripped.startswith(fence)
                and not stripped.strip(fence[0])
                and len(line) - len(line.lstrip(" ")) <= 3
            ):
                fence = None
            prev_blank = False
        elif not line or line.isspace():
            prev_blank = True
        else:
            fm = _FENCE_OPEN.fullmatch(line)
            hm = _ATX.fullmatch(line) if fm is None else None
            sm = _SETEXT.fullmatch(line) if fm is None and hm is None else None
            last = blocks[-1] if blocks else None
            if fm is not None:
                fence = fm.group(1) or fm.group(2)
                blocks.append(_Block(_CODE, pos))
            elif hm is not None:
                title = _heading_title(hm.group(2) or "")
                blocks.append(_Block(_HEADING, pos, len(hm.group(1)), title))
            elif (
                sm is not None
                and not prev_blank
                and last is not None
                and last.kind == _PARA
                and last.lines == 1
            ):
                last.kind = _HEADING
                last.level = 1 if sm.group(1)[0] == "=" else 2
                last.title = _heading_title(text[last.start : pos])
            elif not prev_blank and last is not None and last.kind == _PARA:
                last.lines += 1
            else:
                blocks.append(_Block(_PARA, pos))
            prev_blank = False
        pos = next_pos
    if blocks:
        blocks[0].start = 0  # leading blank lines belong to the first block
    return blocks


@dataclass
class _Section:
    path: tuple[str, ...]
    level: int  # 0 for text before the first heading
    blocks: list[_Block]
    has_body: bool


def _sections(blocks: list[_Block]) -> list[_Section]:
    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []
    for block in blocks:
        if block.kind == _HEADING:
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.title))
            path = tuple(title for _, title in stack if title)
            sections.append(_Section(path, block.level, [block], False))
        else:
            if not sections:
                sections.append(_Section((), 0, [], True))
            sections[-1].blocks.append(block)
            sections[-1].has_body = True
    # A title-only section joins the section after it (no title-only chunks); a deeper one
    # keeps its breadcrumb, which then names both headings. One at the very end joins the
    # section before it.
    merged: list[_Section] = []
    for section in reversed(sections):
        if merged and not section.has_body and section.level > 0:
            merged[-1].blocks[:0] = section.blocks
        else:
            merged.append(section)
    if len(merged) > 1 and not merged[0].has_body and merged[0].level > 0:
        merged[1].blocks.extend(merged[0].blocks)
        del merged[0]
    merged.reverse()
    return merged


# --- Fallback boundaries inside an oversized piece ----------------------------------------------

_SENTENCE_END = re.compile(r"(?:[.!?…][\"'”’»)\]]*\s++(?![a-z])|[。！？][」』）”’]*\s*)")
_WORD_START = re.compile(r"(?<=\s)\S")
_RUN_START = re.compile(r"(?<=\s)\S|(?<=\S)\s")


def _match_ends(pattern: re.Pattern[str]) -> Callable[[str, int, int], list[int]]:
    def cuts(text: str, a: int, b: int) -> list[int]:
        return [e for m in pattern.finditer(text, a, b) if a < (e := m.end()) < b]

    return cuts


def _match_starts(pattern: re.Pattern[str]) -> Callable[[str, int, int], list[int]]:
    def cuts(text: str, a: int, b: int) -> list[int]:
        return [s for m in pattern.finditer(text, a, b) if a < (s := m.start()) < b]

    return cuts


def _sentence_cuts(text: str, a: int, b: int) -> list[int]:
    # "。" needs no whitespace after it; never cut off a combining mark or joiner that follows.
    return [
        e
        for m in _SENTENCE_END.finditer(text, a, b)
        if a < (e := m.end()) < b and not _joins_previous(text[e])
    ]


_LEVELS: tuple[Callable[[str, int, int], list[int]], ...] = (
    _sentence_cuts,  # 0: sentences (paragraphs only)
    _match_ends(_LINE_END),  # 1: lines
    _match_starts(_WORD_START),  # 2: words with their trailing whitespace
    _match_starts(_RUN_START),  # 3: a word apart from its trailing whitespace
)
_SENTENCES, _LINES, _RUNS = 0, 1, 3


def _joins_previous(ch: str) -> bool:
    """True for a code point that must not start a chunk (it modifies the one before it)."""
    return (
        unicodedata.combining(ch) != 0
        or ch in "\u200c\u200d"
        or "\ufe00" <= ch <= "\ufe0f"
        or "\U000e0100" <= ch <= "\U000e01ef"
    )


class _Packer:
    """Packs contiguous pieces into chunks of at most ``ceiling``, of balanced sizes."""

    def __init__(self, text: str, ceiling: int) -> None:
        self.text = text
        self.ceiling = ceiling
        self.cuts: list[int] = []
        self.current = 0  # start of the chunk being filled
        self.section_start = 0
        self.lead_end: int | None = None

    def begin(self, start: int, lead_end: int | None = None) -> None:
        """Starts a section at ``start``; ``lead_end``: where its heading blocks end (None for
        text before the first heading)."""
        self.current = start
        self.section_start = start
        self.lead_end = lead_end
        self.cuts.append(start)

    def _cut(self, at: int) -> None:
        if at > self.current:
            self.cuts.append(at)
            self.current = at

    def sequence(
        self, a: int, b: int, pieces: list[tuple[int, int, int]], *, top: bool = False
    ) -> None:
        """Pack ``pieces`` ``(lo, hi, level)``, which tile ``text[a:b]``; a chunk starts at a.

        A span longer than the ceiling needs at least ``k = ceil((b - a) / ceiling)`` chunks;
        rather than filling each chunk to the brim (and leaving a small remainder), chunk ``j``
        ends at the piece boundary nearest to the ideal mark ``a + j * (b - a) / k``, unless the
        ceiling forces an earlier cut. A piece longer than the ceiling starts a new chunk and is
        split at the next level down.
        """
        ceiling = self.ceiling
        k = -(-(b - a) // ceiling)
        step = (b - a) / k
        for lo, hi, level in pieces:
            if hi - self.current > ceiling:
                lead = self._heading_lead(lo)
                if lead and hi - lo > ceiling:
                    # The piece must be split anyway: its first part shares the chunk with the
                    # heading before it rather than leaving a heading-only chunk behind.
                    self._descend(lo, hi, level)
                    continue
                if lead and top and level < len(_LEVELS) and _LEVELS[level](self.text, lo, hi):
                    # Nor is a heading with a sentence or two left alone when the next block
                    # would fit on its own: that block's first part (cut at sentence ends, or
                    # line ends for code) shares their chunk.
                    self._descend(lo, hi, level, keep_whole=False)
                    continue
                self._cut(lo)
                if hi - lo > ceiling:
                    self._descend(lo, hi, level)
            elif k > 1 and lo > self.current:
                mark = a + step * (round((self.current - a) / step) + 1)
                if lo + hi > 2 * mark:  # the mark is nearer to lo than to hi
                    self._cut(lo)

    def _heading_lead(self, b: int) -> bool:
        """The chunk being filled, up to ``b``, is its section's heading(s) with at most a
        quarter ceiling of anything else."""
        return (
            self.lead_end is not None
            and self.current == self.section_start
            and b - self.lead_end <= self.ceiling // 4
        )

    def _descend(self, a: int, b: int, level: int, *, keep_whole: bool = True) -> None:
        content_end = a + len(self.text[a:b].rstrip())
        newline = _LINE_END.match(self.text, content_end, b)
        if newline:
            content_end = newline.end()  # the line end stays with its line
        if keep_whole and a < content_end < b and content_end - a <= self.ceiling:
            # Only the trailing whitespace makes it too long: keep the content whole.
            self.sequence(a, b, [(a, content_end, level), (content_end, b, _RUNS)])
            return
        while level < len(_LEVELS):
            inner = _LEVELS[level](self.text, a, b)
            if inner:
                bounds = [a, *inner, b]
                pieces = [(bounds[i], bounds[i + 1], level + 1) for i in range(len(bounds) - 1)]
                self.sequence(a, b, pieces)
                return
            level += 1
        self._hard(b)

    def _hard(self, b: int) -> None:
        text, ceiling = self.text, self.ceiling
        while b - self.current > ceiling:
            cut = self.current + ceiling
            while cut - 1 > self.current and (
                _joins_previous(text[cut]) or (text[cut] == "\n" and text[cut - 1] == "\r")
            ):
                cut -= 1
            self._cut(cut)


# --- Public API ---------------------------------------------------------------------------------


def chunk_text(text: str, *, ceiling: int = DEFAULT_CEILING, overlap: int = 0) -> list[Chunk]:
    """Cut ``text`` into structure-aware chunks of at most ``ceiling`` code points.

    See the module docstring for the boundary rules and invariants. ``overlap`` (characters,
    ``0 <= overlap <= ceiling // 2``) lets each chunk repeat up to that much of the text before it
    in the same section, starting at a word boundary.
    """
    if ceiling < 1:
        raise ValueError(f"ceiling must be positive, got {ceiling}")
    if not 0 <= overlap <= ceiling // 2:
        raise ValueError(f"overlap must be between 0 and ceiling // 2, got {overlap}")
    if not text or text.isspace():
        return []
    blocks = _blocks(text)
    sections = _sections(blocks)
    ends = {
        id(b): (blocks[i + 1].start if i + 1 < len(blocks) else len(text))
        for i, b in enumerate(blocks)
    }
    packer = _Packer(text, ceiling - overlap)
    spans: list[tuple[int, int, int]] = []  # (start, end, section index)
    for index, section in enumerate(sections):
        first = len(packer.cuts)
        section_start, section_end = section.blocks[0].start, ends[id(section.blocks[-1])]
        headings = 0
        while headings < len(section.blocks) and section.blocks[headings].kind == _HEADING:
            headings += 1
        packer.begin(section_start, ends[id(section.blocks[headings - 1])] if headings else None)
        pieces = _glued(
            [(block.start, ends[id(block)], block.kind) for block in section.blocks],
            packer.ceiling,
        )
        packer.sequence(section_start, section_end, pieces, top=True)
        bounds = [*packer.cuts[first:], section_end]
        spans.extend((bounds[i], bounds[i + 1], index) for i in range(len(bounds) - 1))

    chunks: list[Chunk] = []
    for ordinal, (start, end, index) in enumerate(spans):
        if overlap and ordinal and spans[ordinal - 1][2] == index:
            start = _overlap_start(
                text, start, max(start - overlap, sections[index].blocks[0].start)
            )
        chunks.append(Chunk(text[start:end], sections[index].path, ordinal, start, end))
    return chunks


def _glued(blocks: list[tuple[int, int, int]], ceiling: int) -> list[tuple[int, int, int]]:
    """The section's blocks as pieces ``(lo, hi, level)`` for the packer, where a heading is
    glued to the block after it and a paragraph to the code block it introduces, as long as
    the glued piece fits the ceiling: a chunk never ends on a heading or on "for example:"
    while what it announces starts the next one."""
    pieces: list[tuple[int, int, int]] = []
    previous_kind = -1
    for lo, hi, kind in blocks:
        level = _SENTENCES if kind == _PARA else _LINES
        glue = previous_kind == _HEADING or (previous_kind == _PARA and kind == _CODE)
        if pieces and glue and hi - pieces[-1][0] <= ceiling:
            start = pieces[-1][0]
            # A glued piece that holds code is never split at sentence ends.
            glued_level = _LINES if kind == _CODE or pieces[-1][2] == _LINES else level
            pieces[-1] = (start, hi, glued_level)
        else:
            pieces.append((lo, hi, level))
        previous_kind = kind
    return pieces


def _overlap_start(text: str, core_start: int, lowest: int) -> int:
    """Earliest word start in ``[lowest, core_start)``, else ``core_start``."""
    for p in range(lowest, core_start):
        if not text[p].isspace() and (p == 0 or text[p - 1].isspace()):
            return p
    return core_start


def embedding_text(chunk: Chunk, title: str | None, *, summary: str | None = None) -> str:
    """The text sent to the embedder for ``chunk``: a breadcrumb line, a blank line, the text.

    The breadcrumb is the document title (when given and not blank) followed by the chunk's
    heading path, joined with ``" > "``, e.g. ``"Title > Tutorial > First steps\\n\\n<text>"``;
    a first heading that repeats the title (a page's ``# Title``) is said once. Breadcrumb
    and text are what a reader sees (`readable_text`: no link targets, HTML tags, heading
    marks, emphasis asterisks or backticks), which spend the model's window without meaning.
    Without title and headings it is just the text. The stored chunk text stays raw.
    ``summary`` (a page's front matter description, given for its first chunk) goes between
    the breadcrumb and the text, as its own paragraph.
    """
    parts = [readable_text(title).strip()] if title and title.strip() else []
    headings = [readable_text(heading) for heading in chunk.heading_path]
    if parts and headings and headings[0].strip().casefold() == parts[0].casefold():
        del headings[0]
    parts.extend(headings)
    text = readable_text(chunk.text)
    if summary and summary.strip():
        text = f"{readable_text(summary).strip()}\n\n{text}"
    return f"{' > '.join(parts)}\n\n{text}" if parts else text


def document_title(file_name: str, text: str, mode: str = "first_line") -> str | None:
    """The title added to every chunk's embedding text.

    ``first_line``: the document's first non-blank line (without Markdown heading marks) when
    it reads like a title (3–200 characters), else the file name without its extension.
    ``file_name``: the file name. ``none``: no title.
    """
    if mode == "none":
        return None
    if mode == "first_line":
        for line in text.splitlines():
            line = line.strip().lstrip("#").strip()
            if line:
                if 3 <= len(line) <= 200:
                    return line
                break
    stem = file_name.rsplit(".", 1)[0] if mode == "first_line" else file_name
    return stem or None

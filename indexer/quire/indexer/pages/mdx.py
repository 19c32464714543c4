"""MDX → plain Markdown: ESM lines, comments and JSX components (used by the site transforms).

Fenced code blocks (any indentation, ````` ``` ````` or ``~~~``) and inline code spans are never
changed. Outside them:

- top-level ``import``/``export`` statements (also multi-line ones) and ``{/* comments */}`` are
  dropped;
- a JSX component (a tag whose name starts with an upper-case letter) is rendered by the
  profile's ``Renderer`` for its name, given its attributes, its body (dedented, blank edges
  trimmed) and its 1-based position among the rendered children of its parent (for numbered
  steps and ``<Tabs items=[...]>``). Components without a renderer are unwrapped: their body is
  kept, as a block when it spans lines, inline otherwise; self-closing ones disappear.
  Fragments (``<>``/``</>``) are unwrapped. A stray closing tag is dropped; an unclosed tag is
  unwrapped at the end of the document. Lower-case HTML tags are left alone.
- runs of three or more line breaks left behind are collapsed to one blank line.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["Component", "Renderer", "quote_block", "render_mdx"]

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_ESM = re.compile(
    r"^(?:import(?:\s+[\w*{\"']|\s*[{*\"'])|export\s+(?:const|let|var|function|default|async|class)\b"
    r"|export\s*[{*])"
)
_ATTRS = r"(?:\"[^\"]*\"|'[^']*'|\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|[^\"'{}<>/]|/(?!>))*"
_TOKEN = re.compile(
    r"(?P<code>(?P<ticks>`+)(?:(?!(?P=ticks)).)+?(?P=ticks))"
    r"|(?P<comment>\{/\*.*?\*/\})"
    r"|(?P<fragment></?>)"
    rf"|<(?P<close>/)?(?P<name>[A-Z][\w.]*)(?P<attrs>{_ATTRS})(?P<selfclose>/)?>",
    re.DOTALL,
)
_ATTR = re.compile(
    r"(?P<key>[A-Za-z_][\w:-]*)(?:\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'"
    r"|\{(?P<expr>(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}))?"
)
_STRING_EXPR = re.compile(r"^\s*(?:\"([^\"]*)\"|'([^']*)'|`([^`$]*)`)\s*$")


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
    parts: list[str] = field(default_factory=list)
    children: int = 0


def _parse_attrs(raw: str) -> dict[str, str]:
    attrs: dict[str, str] = {}
    for match in _ATTR.finditer(raw):
        key = match.group("key")
        if match.group("dq") is not None:
            attrs[key] = match.group("dq")
        elif match.group("sq") is not None:
            attrs[key] = match.group("sq")
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


def quote_block(text: str) -> str:
    """``text`` as a Markdown block quote."""
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


def _trim(body: str) -> str:
    return textwrap.dedent(body.strip("\n").rstrip()).strip("\n")


def _split_fences(text: str) -> list[tuple[bool, str]]:
    """Split into (is_code, text) pieces: fenced code blocks vs the rest (unclosed runs to end)."""
    segments: list[tuple[bool, str]] = []
    prose: list[str] = []
    block: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None:
            if match is None:
                prose.append(line)
                continue
            fence = match.group(1)
            segments.append((False, "".join(prose)))
            prose = []
            block = [line]
            continue
        block.append(line)
        if (
            match is not None
            and match.group(1)[0] == fence[0]
            and len(match.group(1)) >= len(fence)
            and not line.strip()[len(match.group(1)) :].strip()
        ):
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


def render_mdx(text: str, renderers: Mapping[str, Renderer]) -> str:
    """Render the MDX in ``text`` to Markdown with ``renderers`` (see the module docstring)."""
    root = _Frame("", {})
    stack = [root]

    def emit(piece: str) -> None:
        stack[-1].parts.append(piece)

    def close_top() -> None:
        frame = stack.pop()
        parent = stack[-1]
        body = "".join(frame.parts)
        renderer = renderers.get(frame.name)
        if renderer is None:
            if "\n" in body.strip():
                emit(f"\n\n{_trim(body)}\n\n")
            else:
                emit(body.strip())
            return
        parent.children += 1
        component = Component(frame.name, frame.attrs, _trim(body), parent.children, parent.attrs)
        rendered = renderer(component)
        if rendered:
            emit(f"\n\n{rendered}\n\n")

    for is_code, piece in _split_fences(text):
        if is_code:
            emit(piece)
            continue
        segment = _strip_esm(piece)
        position = 0
        for match in _TOKEN.finditer(segment):
            emit(segment[position : match.start()])
            position = match.end()
            if match.group("code") is not None:
                emit(match.group(0))
            elif match.group("comment") is not None or match.group("fragment") is not None:
                continue
            elif match.group("close"):
                name = match.group("name")
                if any(frame.name == name for frame in stack[1:]):
                    while stack[-1].name != name:
                        close_top()
                    close_top()
            else:
                stack.append(_Frame(match.group("name"), _parse_attrs(match.group("attrs"))))
                if match.group("selfclose"):
                    close_top()
        emit(segment[position:])
    while len(stack) > 1:
        close_top()
    return _collapse("".join(root.parts))


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

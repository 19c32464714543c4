"""Server-side transform profiles applied to a fetched page (DESIGN §3, ``docs/page-sources.md``).

============  ==================================================================================
name          what it does
============  ==================================================================================
``none``      the text unchanged (NUL is still rejected); no title
``markdown``  (default) strip a leading BOM, CRLF/CR → LF, strip YAML/TOML front matter and take
              its ``title``, ``description``, ``keywords`` and language (``lang``/``language``/
              ``locale``); lower-case HTML is kept
``mintlify``  ``markdown`` + Mintlify MDX: ESM lines and comments dropped; ``<Note>``, ``<Tip>``,
              ``<Info>``, ``<Warning>``, ``<Check>``, ``<Danger>`` → block quotes; ``<Card>`` →
              bold (linked) title + body; ``<Tab>``, ``<Accordion>``, ``<Expandable>``, ``<Step>``
              → bold title (steps numbered) + body; ``<ParamField>``/``<ResponseField>`` → a
              name, type, required line with the description on the next line (one
              paragraph); containers (``<Tabs>``, ``<CardGroup>``, ``<Steps>``, ...) and
              unknown components unwrapped; self-closing components removed; badges and
              tooltips (below); lower-case HTML removed, its visible text kept; an ``openapi``
              front matter value (``"GET /regions"``) → the body's first line, as inline code
``fumadocs``  ``markdown`` + Fumadocs MDX: ``<Callout type title>`` → block quote; ``<Tabs
              items>``/``<Tab value>`` → bold tab name + body; ``<Steps>``/``<Step>`` → body
              (numbered when titled); ``<Cards>``/``<Card title href>`` → bold linked title +
              description/body; ``<Accordion title>`` → bold title + body; others as above
============  ==================================================================================

Badges and tooltips (both MDX profiles): ``<Tooltip>`` renders its visible child text inline
(its ``tip`` is hover text). ``BADGES`` (``<Badge>``, ``<Tag>``, ``<Pill>``, ``<Chip>``,
``<Icon>``) are decoration: one standing on a line of its own (only whitespace and other badges
beside it — e.g. a ``<Badge>v2.1.0</Badge>`` line at the top of a page) is dropped; anywhere
else (in a sentence, a heading, a list item, a table cell) it renders its text inline. See
``quire.indexer.pages.mdx`` for code spans, fences, HTML and list-item indentation.

Both MDX profiles reindent (MDX has no indented code blocks), turn ``{" "}`` into a space and
decode character references outside code (see ``quire.indexer.pages.mdx``).

Any NUL character rejects the page (``TransformRejected``); an unknown profile name raises
``UnknownTransform``. ``TransformedPage.title``, ``.description``, ``.keywords`` and
``.language`` come from the front matter (None/empty without it, and always for ``none``);
``title_from_markdown`` gives the first-heading fallback.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from quire.indexer.pages.frontmatter import front_matter_string, split_front_matter
from quire.indexer.pages.mdx import Component, Renderer, code_span, quote_block, render_mdx

__all__ = [
    "DEFAULT_TRANSFORM",
    "TRANSFORMS",
    "TransformRejected",
    "TransformedPage",
    "UnknownTransform",
    "apply_transform",
    "title_from_markdown",
]

DEFAULT_TRANSFORM = "markdown"


class UnknownTransform(ValueError):
    """Not a transform profile name."""


class TransformRejected(ValueError):
    """The page cannot be accepted (it contains NUL)."""


@dataclass(frozen=True)
class TransformedPage:
    text: str
    title: str | None
    description: str | None = None  # front matter (every profile but ``none``)
    keywords: tuple[str, ...] = ()
    language: str | None = None  # a lower-cased language tag, e.g. "ja", "en-us"


def _no_nul(text: str) -> None:
    if "\x00" in text:
        raise TransformRejected("page contains a NUL character")


def _normalise(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- component renderers -------------------------------------------------------------------------

_CALLOUT_LABELS = {
    "info": "Info",
    "note": "Note",
    "tip": "Tip",
    "idea": "Tip",
    "warn": "Warning",
    "warning": "Warning",
    "caution": "Warning",
    "error": "Error",
    "danger": "Danger",
    "success": "Success",
    "check": "Check",
}


def _callout(label: str | None) -> Renderer:
    def render(c: Component) -> str:
        kind = label or _CALLOUT_LABELS.get(c.attrs.get("type", "info").lower(), "Note")
        title = c.attrs.get("title")
        heading = f"**{kind}: {title}**" if title else f"**{kind}**"
        if not c.body and not title:
            return ""
        return quote_block(f"{heading}\n\n{c.body}" if c.body else heading)

    return render


def _titled(*keys: str, numbered: bool = False) -> Renderer:
    def render(c: Component) -> str:
        title = next((c.attrs[k] for k in keys if c.attrs.get(k)), None)
        if title is None and "items" in c.parent_attrs:
            items = re.findall(r"\"([^\"]*)\"|'([^']*)'", c.parent_attrs["items"])
            if 0 < c.position <= len(items):
                title = next((part for part in items[c.position - 1] if part), None)
        if title is None:
            return c.body
        if numbered:
            title = f"{c.position}. {title}"
        return f"**{title}**\n\n{c.body}" if c.body else f"**{title}**"

    return render


def _card(c: Component) -> str:
    title = c.attrs.get("title")
    href = c.attrs.get("href")
    description = c.attrs.get("description")
    head = ""
    if title:
        head = f"**[{title}]({href})**" if href else f"**{title}**"
    elif href:
        head = f"<{href}>"
    body = "\n\n".join(part for part in (description, c.body) if part)
    return "\n\n".join(part for part in (head, body) if part)


def _field(c: Component) -> str:
    name = next(
        (c.attrs[k] for k in ("path", "query", "body", "header", "name", "param") if k in c.attrs),
        None,
    )
    if name is None:
        return c.body
    line = f"**{name}**"
    if c.attrs.get("type"):
        line += f" `{c.attrs['type']}`"
    if c.attrs.get("required") in ("true", "True"):
        line += " (required)"
    if c.attrs.get("default"):
        line += f" (default: `{c.attrs['default']}`)"
    if not c.body:
        return line
    # One paragraph: the description goes on the next line, unless that line would turn the
    # name line into a setext heading.
    underline = _SETEXT.match(c.body.partition("\n")[0]) is not None
    return f"{line}\n\n{c.body}" if underline else f"{line}\n{c.body}"


def _drop(_c: Component) -> str:
    return ""


_COMMON: dict[str, Renderer] = {
    "Tab": _titled("title", "value", "label"),
    "Accordion": _titled("title"),
    "Card": _card,
}

MINTLIFY: Mapping[str, Renderer] = {
    **_COMMON,
    "Note": _callout("Note"),
    "Tip": _callout("Tip"),
    "Info": _callout("Info"),
    "Warning": _callout("Warning"),
    "Check": _callout("Check"),
    "Danger": _callout("Danger"),
    "Callout": _callout(None),
    "Step": _titled("title", numbered=True),
    "Expandable": _titled("title"),
    "ParamField": _field,
    "ResponseField": _field,
}

FUMADOCS: Mapping[str, Renderer] = {
    **_COMMON,
    "Callout": _callout(None),
    "Step": _titled("title", numbered=True),
    "TypeTable": _drop,
}


# --- profiles ------------------------------------------------------------------------------------


#: Decorative components: dropped on a line of their own (version/status labels at the top of
#: a page), their text inline elsewhere (see ``render_mdx``).
BADGES = frozenset({"Badge", "Chip", "Icon", "Pill", "Tag"})
#: Always their visible child text, inline; ``<Tooltip tip>`` is hover text, not page text.
INLINE = frozenset({"Tooltip"})


def _none(text: str) -> TransformedPage:
    return TransformedPage(text, None)


def _markdown(text: str) -> TransformedPage:
    front = split_front_matter(_normalise(text))
    return TransformedPage(
        front.body, front.title, front.description, front.keywords, front.language
    )


def _openapi(text: str) -> str | None:
    """Mintlify's ``openapi: "GET /regions"`` front matter (an endpoint page, often with no
    body) as an inline code line, so the page names its method and path."""
    endpoint = front_matter_string(text, "openapi")
    return code_span(endpoint, 1) if endpoint else None


def _mdx(
    renderers: Mapping[str, Renderer], lead: Callable[[str], str | None] | None = None
) -> Callable[[str], TransformedPage]:
    def transform(text: str) -> TransformedPage:
        page = _markdown(text)
        body = render_mdx(page.text, renderers, badges=BADGES, inline=INLINE)
        first = lead(_normalise(text)) if lead is not None else None
        if first:
            body = f"{first}\n\n{body}" if body else f"{first}\n"
        return dataclasses.replace(page, text=body)

    return transform


_PROFILES: dict[str, Callable[[str], TransformedPage]] = {
    "none": _none,
    "markdown": _markdown,
    "mintlify": _mdx(MINTLIFY, _openapi),
    "fumadocs": _mdx(FUMADOCS),
}
TRANSFORMS: tuple[str, ...] = tuple(_PROFILES)


def apply_transform(name: str, text: str) -> TransformedPage:
    """Apply the profile ``name`` to ``text``; see the module docstring."""
    profile = _PROFILES.get(name)
    if profile is None:
        raise UnknownTransform(f"unknown transform {name!r} (one of {', '.join(TRANSFORMS)})")
    _no_nul(text)
    return profile(text)


# --- title fallback ------------------------------------------------------------------------------

# A backtick fence's info string may not contain a backtick ("```bash cmd```" is not a fence).
_FENCE = re.compile(r"^ {0,3}(?:(`{3,})(?=[^`]*$)|(~{3,}))")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_ATTR_LIST = re.compile(r"\s*\{\s*[#.][^{}]*\}\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(\S(?:.*?\S)?)\1")


def _plain_heading(text: str) -> str | None:
    text = _ATTR_LIST.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = text.replace("`", "")
    text = _EMPHASIS.sub(r"\2", text)
    text = " ".join(text.split())
    return text or None


def title_from_markdown(text: str) -> str | None:
    """The first level-1 heading's text, else the first heading of any level, else None.

    ATX (``# Title``) and setext (``Title`` / ``===``) headings count; headings inside fenced
    code do not (CommonMark fences: the closing fence is at least as long as the opening one,
    so a four-backtick fence may hold three-backtick lines; a backtick fence's info string
    may not hold a backtick, so a one-line "```bash cmd```" opens nothing).
    Closing ``#``s, attribute lists (``{ #anchor }``), link syntax, backticks and emphasis
    markers are removed. Front matter is not skipped: pass the transformed text.
    """
    first_any: str | None = None
    fence: str | None = None
    previous = ""
    for line in _normalise(text).split("\n"):
        if fence is not None:
            # Closed by a run of the same character, at least as long, with nothing after it.
            stripped = line.strip()
            run = len(stripped) - len(stripped.lstrip(fence[0]))
            if (
                run >= len(fence)
                and not stripped[run:].strip()
                and len(line) - len(line.lstrip(" ")) <= 3
            ):
                fence = None
            previous = ""
            continue
        match = _FENCE.match(line)
        if match is not None:
            fence = match.group(1) or match.group(2)
            previous = ""
            continue
        level: int | None = None
        heading: str | None = None
        atx = _ATX.match(line)
        setext = _SETEXT.match(line)
        if atx is not None:
            level, heading = len(atx.group(1)), atx.group(2) or ""
        elif setext is not None and previous.strip() and not _ATX.match(previous):
            level, heading = (1 if setext.group(1)[0] == "=" else 2), previous
        previous = line
        if heading is None or level is None:
            continue
        title = _plain_heading(heading)
        if title is None:
            continue
        if level == 1:
            return title
        if first_any is None:
            first_any = title
    return first_any

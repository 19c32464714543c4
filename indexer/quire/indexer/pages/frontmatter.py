"""Front matter: split a leading YAML (``---``) or TOML (``+++``) block and read its metadata.

YAML front matter opens with a ``---`` line and closes with ``---`` or ``...``; TOML opens and
closes with ``+++``. Without a closing line the text has no front matter and is left alone.

Only top-level keys are read:

- ``title`` and ``description``: strings, whitespace collapsed; empty, ``null``/``~`` or not a
  string → None. (Mintlify's ``sidebarTitle``, ``icon``, ``og:*`` ... are ignored.)
- ``keywords``: a tuple of strings, from a list (YAML flow ``[a, "b"]`` or block ``- a`` form,
  TOML array) or a comma-separated string; empty items and repeats are dropped.
- ``language``: the first of ``lang``, ``language``, ``locale`` that is a language tag,
  lower-cased with ``_`` → ``-`` (``en_US`` → ``en-us``). The primary subtag must be an
  ISO 639-1 code (or one of a few common three-letter codes), so an SDK page's
  ``language: python`` is not taken for the page's language.

``front_matter_string(text, key)`` reads any other top-level string the same way as ``title``
(the ``mintlify`` profile reads ``openapi`` with it).

TOML is read with ``tomllib`` (line by line when the whole block does not parse). YAML is read
from PyYAML's event stream (``yaml.parse`` with the safe loader, libyaml when available): only
the top-level keys are kept, nothing is constructed, aliases are not expanded and nesting is
walked without recursion, so hostile front matter costs time linear in its size. A block over
``YAML_MAX_CHARS`` is not read, and reading stops at nesting deeper than ``YAML_MAX_DEPTH``.
Scalars keep the text they were written with (``title: 2024`` is "2024", ``title: no`` is
"no"); a collection where a string is expected reads as its source text. Keys read before a
syntax error are kept.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import yaml

__all__ = ["YAML_MAX_CHARS", "FrontMatter", "front_matter_string", "split_front_matter"]

_YAML_OPEN = re.compile(r"---[ \t]*\n")
_YAML_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_TOML_OPEN = re.compile(r"\+\+\+[ \t]*\n")
_TOML_CLOSE = re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE)
# The plain scalars YAML reads as null.
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
# Front matter is a few hundred bytes; a larger YAML block is not parsed at all.
YAML_MAX_CHARS = 64 * 1024
# Deeper nesting stops the reading: real front matter nests two or three levels, and
# PyYAML's pure-Python scanner slows down with the square of the depth.
YAML_MAX_DEPTH = 32
# libyaml's parser when PyYAML was built with it (its wheels are), else the pure-Python one.
_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_LANGUAGE_KEYS = ("lang", "language", "locale")
_LANGUAGE_TAG = re.compile(r"^([a-z]{2,3})(?:-[a-z0-9]{1,8})*$")
# ISO 639-1, plus a few three-letter codes used on localised docs sites.
_LANGUAGE_CODES = (
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv "
    "cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr "
    "ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw "
    "ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv "
    "ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr "
    "ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi "
    "yo za zh zu fil yue haw ckb ceb gsw"
)
_LANGUAGES = frozenset(_LANGUAGE_CODES.split())


@dataclass(frozen=True)
class FrontMatter:
    title: str | None
    body: str  # the text after the front matter (the whole text when there is none)
    raw: str | None  # the front matter block without its delimiter lines
    description: str | None = None
    keywords: tuple[str, ...] = ()
    language: str | None = None


@dataclass(frozen=True)
class _Fields:
    title: str | None = None
    description: str | None = None
    keywords: tuple[str, ...] = ()
    language: str | None = None


def _clean(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    title = " ".join(value.split())
    return title or None


def _keywords(values: Iterable[object]) -> tuple[str, ...]:
    cleaned = (_clean(value) for value in values)
    return tuple(dict.fromkeys(value for value in cleaned if value))


def _split_keywords(value: object) -> tuple[str, ...]:
    """A keywords value: a list of strings, or one comma-separated string."""
    if isinstance(value, str):
        return _keywords(value.split(","))
    if isinstance(value, list):
        return _keywords(item if isinstance(item, str) else None for item in value)
    return ()


def _language(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    tag = value.strip().lower().replace("_", "-")
    match = _LANGUAGE_TAG.match(tag)
    return tag if match is not None and match.group(1) in _LANGUAGES else None


# --- YAML ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _YamlValue:
    """A top-level value: a scalar's text (None for null), or a collection's source text and,
    for a sequence, its scalar items."""

    text: str | None
    items: tuple[str | None, ...] | None = None


class _TooDeep(Exception):
    """Nesting past ``YAML_MAX_DEPTH``."""


def _scalar_text(event: yaml.ScalarEvent) -> str | None:
    plain = event.implicit[0]  # unquoted, untagged: the only form that can spell null
    return None if plain and event.value in _NULL else event.value


def _yaml_value(first: yaml.Event, events: Iterator[yaml.Event], block: str) -> _YamlValue:
    """The value that starts with ``first``, reading ``events`` to its end (iteratively, so
    deep nesting costs no stack). Aliases are not followed: an alias value reads as null."""
    if isinstance(first, yaml.ScalarEvent):
        return _YamlValue(_scalar_text(first))
    if not isinstance(first, yaml.CollectionStartEvent):
        return _YamlValue(None)
    items: list[str | None] = []
    depth = 1
    last: yaml.Event = first
    while depth:
        last = next(events)
        if isinstance(last, yaml.CollectionStartEvent):
            depth += 1
            if depth > YAML_MAX_DEPTH:
                raise _TooDeep
        elif isinstance(last, yaml.CollectionEndEvent):
            depth -= 1
        elif depth == 1 and isinstance(last, yaml.ScalarEvent):
            items.append(_scalar_text(last))
    # PyYAML's marks are character offsets into `block` (libyaml's too, for a str).
    start = first.start_mark.index if first.start_mark is not None else 0
    end = last.end_mark.index if last.end_mark is not None else len(block)
    source = block[start:end]
    sequence = isinstance(first, yaml.SequenceStartEvent)
    return _YamlValue(source, tuple(items) if sequence else None)


def _yaml_values(block: str) -> dict[str, _YamlValue]:
    """The top-level keys of the block's first document (the first of repeated keys wins).

    A block over ``YAML_MAX_CHARS`` is not read. On a syntax error the keys read before it are
    kept, so one malformed line does not lose a title above it.
    """
    found: dict[str, _YamlValue] = {}
    if len(block) > YAML_MAX_CHARS:
        return found
    events = iter(yaml.parse(block, Loader=_YAML_LOADER))
    try:
        event = next(events)
        while isinstance(event, yaml.StreamStartEvent | yaml.DocumentStartEvent):
            event = next(events)
        if not isinstance(event, yaml.MappingStartEvent):
            return found
        # A value is kept once the event after it is read: a syntax error right after a
        # value ("description: a: b") means it was not what the author wrote.
        pending: tuple[str, _YamlValue] | None = None
        while True:
            key = next(events)
            if pending is not None:
                found.setdefault(*pending)
                pending = None
            if isinstance(key, yaml.MappingEndEvent):
                break
            name = key.value if isinstance(key, yaml.ScalarEvent) else None
            if name is None:
                _yaml_value(key, events, block)  # a complex key: skip it
            value = _yaml_value(next(events), events, block)
            if name is not None:
                pending = (name, value)
    except (yaml.YAMLError, StopIteration, _TooDeep):
        pass
    return found


def _yaml_fields(block: str) -> _Fields:
    values = _yaml_values(block)

    def scalar(key: str) -> str | None:
        return _clean(values[key].text) if key in values else None

    keywords: tuple[str, ...] = ()
    if "keywords" in values:
        found = values["keywords"]
        keywords = (
            _keywords(found.items) if found.items is not None else _split_keywords(found.text)
        )
    language = next(
        (tag for key in _LANGUAGE_KEYS if (tag := _language(scalar(key))) is not None), None
    )
    return _Fields(scalar("title"), scalar("description"), keywords, language)


# --- TOML ----------------------------------------------------------------------------------------


def _toml_values(block: str) -> dict[str, object]:
    """The block as ``tomllib`` reads it; for a block it rejects, each top-level
    ``key = value`` line read on its own, so one bad line loses only itself."""
    try:
        return tomllib.loads(block)
    except tomllib.TOMLDecodeError:
        pass
    found: dict[str, object] = {}
    for line in block.split("\n"):
        if line.lstrip().startswith("["):
            break  # a table: the keys after it are not top-level
        try:
            value = tomllib.loads(line)
        except tomllib.TOMLDecodeError:
            continue
        for key, item in value.items():
            found.setdefault(key, item)
    return found


def _toml_fields(block: str) -> _Fields:
    data = _toml_values(block)
    language = next(
        (tag for key in _LANGUAGE_KEYS if (tag := _language(data.get(key))) is not None), None
    )
    return _Fields(
        _clean(data.get("title")),
        _clean(data.get("description")),
        _split_keywords(data.get("keywords")),
        language,
    )


def _locate(text: str) -> tuple[str, str, bool] | None:
    """(block without its delimiter lines, body, is TOML), or None without front matter."""
    for opener, closer, toml in ((_YAML_OPEN, _YAML_CLOSE, False), (_TOML_OPEN, _TOML_CLOSE, True)):
        opened = opener.match(text)
        if opened is None:
            continue
        closed = closer.search(text, opened.end())
        if closed is None:
            return None
        body = text[closed.end() :]
        if body.startswith("\n"):
            body = body[1:]
        return text[opened.end() : closed.start()].rstrip("\n"), body, toml
    return None


def split_front_matter(text: str) -> FrontMatter:
    """Split front matter off ``text`` (LF line ends expected); see the module docstring."""
    located = _locate(text)
    if located is None:
        return FrontMatter(None, text, None)
    raw, body, toml = located
    fields = _toml_fields(raw) if toml else _yaml_fields(raw)
    return FrontMatter(
        fields.title, body, raw, fields.description, fields.keywords, fields.language
    )


def front_matter_string(text: str, key: str) -> str | None:
    """The top-level string ``key`` of ``text``'s front matter, whitespace collapsed (read like
    ``title``); None without front matter or without such a string."""
    located = _locate(text)
    if located is None:
        return None
    raw, _body, toml = located
    if toml:
        return _clean(_toml_values(raw).get(key))
    found = _yaml_values(raw).get(key)
    return None if found is None else _clean(found.text)

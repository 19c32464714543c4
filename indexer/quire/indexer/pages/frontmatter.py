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

TOML is read with ``tomllib`` (with a per-key regex fallback when the block does not parse);
YAML with a small reader (plain, ``'single'``, ``"double"`` quoted, ``|``/``>`` block scalars,
indented continuation lines, flow and block sequences) so no YAML library is needed.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["FrontMatter", "front_matter_string", "split_front_matter"]

_YAML_OPEN = re.compile(r"---[ \t]*\n")
_YAML_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_TOML_OPEN = re.compile(r"\+\+\+[ \t]*\n")
_TOML_CLOSE = re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE)
_BLOCK = re.compile(r"^[|>][+-]?[0-9]?[ \t]*(?:#.*)?$")
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_FLOW_ITEM = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'|[^,\[\]]+")
_SEQUENCE_ITEM = re.compile(r"^[ \t]*-(?:[ \t]+(.*))?$")
_TOML_STRING = r"(\"(?:[^\"\\]|\\.)*\"|'[^']*')"
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


def _yaml_quoted(text: str) -> str:
    """The value of a quoted scalar (``text`` starts with its quote; an unclosed one runs on)."""
    if text.startswith('"'):
        end = text.rfind('"')
        literal = text[: end + 1] if end > 0 else text + '"'
        try:
            value = json.loads(literal)
        except ValueError:
            return literal.strip('"')
        return value if isinstance(value, str) else literal.strip('"')
    end = text.rfind("'")
    inner = text[1:end] if end > 0 else text[1:]
    return inner.replace("''", "'")


def _yaml_plain(text: str) -> str | None:
    """A one-line scalar: quoted, or plain without its comment; ``null``/``~`` → None."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        return _yaml_quoted(text)
    text = re.split(r"[ \t]#", text, maxsplit=1)[0].strip()
    return None if text in _NULL or text.startswith("#") else text


def _continuation(rest: list[str]) -> list[str]:
    """The indented (or blank) lines that continue a top-level key's value."""
    lines = []
    for line in rest:
        if line.strip() and not line[:1].isspace():
            break
        lines.append(line)
    return lines


def _yaml_scalar(first: str, rest: list[str]) -> str | None:
    value = first.strip()
    continuation = [line.strip() for line in _continuation(rest)]
    if _BLOCK.match(value):
        joiner = "\n" if value.startswith("|") else " "
        return _clean(joiner.join(continuation))
    if value[:1] in ("'", '"'):
        return _clean(_yaml_quoted(" ".join([value, *[c for c in continuation if c]])))
    value = re.split(r"[ \t]#", value, maxsplit=1)[0]
    if value.strip() in _NULL and not any(continuation):
        return None
    return _clean(" ".join([value, *[c for c in continuation if c and not c.startswith("#")]]))


def _yaml_sequence(first: str, rest: list[str]) -> tuple[str, ...] | None:
    """A flow (``[a, b]``) or block (``- a``) sequence; None when the value is not one."""
    value = first.strip()
    if value.startswith("["):
        text = " ".join([value, *(line.strip() for line in _continuation(rest))])
        end = text.find("]")
        inner = text[1:end] if end > 0 else text[1:]
        return _keywords(_yaml_plain(item) for item in _FLOW_ITEM.findall(inner))
    if value and not value.startswith("#"):
        return None
    items: list[str | None] = []
    for line in rest:  # block items may sit at the key's own indentation
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _SEQUENCE_ITEM.match(line)
        if item is None:
            if line[:1].isspace():
                continue  # a nested or continued item: not read
            break
        items.append(_yaml_plain(item.group(1) or ""))
    return _keywords(items)


def _yaml_values(block: str) -> dict[str, tuple[str, list[str]]]:
    """Top-level ``key: value`` lines → (value on the key's line, the lines after it)."""
    lines = block.split("\n")
    found: dict[str, tuple[str, list[str]]] = {}
    for index, line in enumerate(lines):
        match = re.match(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$", line)
        if match is not None and match.group(1) not in found:
            found[match.group(1)] = (match.group(2) or "", lines[index + 1 :])
    return found


def _yaml_fields(block: str) -> _Fields:
    values = _yaml_values(block)

    def scalar(key: str) -> str | None:
        return _yaml_scalar(*values[key]) if key in values else None

    keywords: tuple[str, ...] = ()
    if "keywords" in values:
        sequence = _yaml_sequence(*values["keywords"])
        keywords = sequence if sequence is not None else _split_keywords(scalar("keywords") or "")
    language = next(
        (tag for key in _LANGUAGE_KEYS if (tag := _language(scalar(key))) is not None), None
    )
    return _Fields(scalar("title"), scalar("description"), keywords, language)


# --- TOML ----------------------------------------------------------------------------------------


def _toml_string(block: str, key: str) -> str | None:
    """A top-level string ``key`` found by pattern (for a block ``tomllib`` rejects)."""
    match = re.search(rf"^{re.escape(key)}\s*=\s*{_TOML_STRING}", block, re.MULTILINE)
    if match is None:
        return None
    literal = match.group(1)
    if literal.startswith("'"):
        return literal[1:-1]
    try:
        value = json.loads(literal)
    except ValueError:
        return literal[1:-1]
    return value if isinstance(value, str) else None


def _toml_fields(block: str) -> _Fields:
    data: dict[str, object]
    try:
        data = tomllib.loads(block)
    except tomllib.TOMLDecodeError:
        array = re.search(r"^keywords\s*=\s*\[([^\]]*)\]", block, re.MULTILINE)
        if array is not None:
            keywords = _keywords(_yaml_plain(item) for item in _FLOW_ITEM.findall(array.group(1)))
        else:
            keywords = _split_keywords(_toml_string(block, "keywords") or "")
        data = {key: _toml_string(block, key) for key in ("title", "description", *_LANGUAGE_KEYS)}
        data["keywords"] = list(keywords)
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
    if not toml:
        values = _yaml_values(raw)
        return _yaml_scalar(*values[key]) if key in values else None
    try:
        return _clean(tomllib.loads(raw).get(key))
    except tomllib.TOMLDecodeError:
        return _clean(_toml_string(raw, key))

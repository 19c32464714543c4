"""Front matter: split a leading YAML (``---``) or TOML (``+++``) block and read its ``title``.

YAML front matter opens with a ``---`` line and closes with ``---`` or ``...``; TOML opens and
closes with ``+++``. Without a closing line the text has no front matter and is left alone. Only
the top-level ``title`` key is read: for TOML with ``tomllib``; for YAML with a small scalar
reader (plain, ``'single'``, ``"double"`` quoted, ``|``/``>`` block scalars, indented
continuation lines) so no YAML library is needed. A title that is empty or not a string is None.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass

__all__ = ["FrontMatter", "split_front_matter"]

_YAML_OPEN = re.compile(r"---[ \t]*\n")
_YAML_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_TOML_OPEN = re.compile(r"\+\+\+[ \t]*\n")
_TOML_CLOSE = re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE)
_YAML_TITLE = re.compile(r"^title[ \t]*:(?:[ \t]+(.*))?$")
_TOML_TITLE = re.compile(r"^title\s*=\s*(\"(?:[^\"\\]|\\.)*\"|'[^']*')", re.MULTILINE)
_BLOCK = re.compile(r"^[|>][+-]?[0-9]?[ \t]*(?:#.*)?$")


@dataclass(frozen=True)
class FrontMatter:
    title: str | None
    body: str  # the text after the front matter (the whole text when there is none)
    raw: str | None  # the front matter block without its delimiter lines


def _clean(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    title = " ".join(value.split())
    return title or None


def _yaml_scalar(first: str, rest: list[str]) -> str | None:
    value = first.strip()
    continuation = []
    for line in rest:
        if line.strip() and not line[:1].isspace():
            break
        continuation.append(line.strip())
    if _BLOCK.match(value):
        joiner = "\n" if value.startswith("|") else " "
        return _clean(joiner.join(continuation))
    if value.startswith('"'):
        text = " ".join([value, *[c for c in continuation if c]])
        end = text.rfind('"')
        literal = text[: end + 1] if end > 0 else text + '"'
        try:
            return _clean(json.loads(literal))
        except ValueError:
            return _clean(literal.strip('"'))
    if value.startswith("'"):
        text = " ".join([value, *[c for c in continuation if c]])
        end = text.rfind("'")
        inner = text[1:end] if end > 0 else text[1:]
        return _clean(inner.replace("''", "'"))
    value = re.split(r"[ \t]#", value, maxsplit=1)[0]
    return _clean(" ".join([value, *[c for c in continuation if c and not c.startswith("#")]]))


def _yaml_title(block: str) -> str | None:
    lines = block.split("\n")
    for index, line in enumerate(lines):
        match = _YAML_TITLE.match(line)
        if match is not None:
            return _yaml_scalar(match.group(1) or "", lines[index + 1 :])
    return None


def _toml_title(block: str) -> str | None:
    try:
        return _clean(tomllib.loads(block).get("title"))
    except tomllib.TOMLDecodeError:
        match = _TOML_TITLE.search(block)
        if match is None:
            return None
        literal = match.group(1)
        if literal.startswith("'"):
            return _clean(literal[1:-1])
        try:
            return _clean(json.loads(literal))
        except ValueError:
            return _clean(literal[1:-1])


def split_front_matter(text: str) -> FrontMatter:
    """Split front matter off ``text`` (LF line ends expected); see the module docstring."""
    for opener, closer, reader in (
        (_YAML_OPEN, _YAML_CLOSE, _yaml_title),
        (_TOML_OPEN, _TOML_CLOSE, _toml_title),
    ):
        opened = opener.match(text)
        if opened is None:
            continue
        closed = closer.search(text, opened.end())
        if closed is None:
            return FrontMatter(None, text, None)
        block = text[opened.end() : closed.start()]
        body = text[closed.end() :]
        if body.startswith("\n"):
            body = body[1:]
        raw = block.rstrip("\n")
        return FrontMatter(reader(raw), body, raw)
    return FrontMatter(None, text, None)

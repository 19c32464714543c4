"""Canonical page paths and the URLs built from them (DESIGN §3, ``docs/page-sources.md``).

A page path is site-relative (it starts at the origin's root), Unicode NFC, percent-decoded and
always names a Markdown endpoint (``.md`` or ``.mdx``):

========================  ======================
index link path           canonical page path
========================  ======================
``/``                     ``/index.md``
``/x``                    ``/x.md``
``/x/``                   ``/x/index.md``
``/x.md``, ``/x.mdx``     unchanged
``/x.html``, ``/x.htm``   ``/x.md``
``/x.png``, ``/x.pdf``    ``NotAPage``
========================  ======================

A last segment "has an extension" when it ends in ``.`` + a letter followed by up to nine
letters/digits (``logo.png``, ``a.tar.gz``); ``v1.2`` (digits after the dot) has none and is a
page. A last segment that starts with a dot (``/.env``) is not a page.

Rejected with ``InvalidPagePath``: empty segments (``//``), backslashes, ``?``, ``#``, NUL and
other control characters, ``.`` and ``..`` segments, percent-encoded ``/`` or ``\\`` (``%2f``,
``%5c``, any case), malformed or non-UTF-8 percent escapes, a literal ``%`` after decoding (so
the function is idempotent), and paths longer than 1,024 characters (before or after mapping).
A missing leading ``/`` is added.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, unquote, urlsplit

__all__ = [
    "MAX_PATH_CHARS",
    "InvalidPagePath",
    "NotAPage",
    "canonical_path",
    "citation_url",
    "encode_path",
    "is_page_path",
    "origin_of",
    "page_url",
]

MAX_PATH_CHARS = 1024

_ENCODED_SEPARATOR = re.compile(r"%(?:2f|5c)", re.IGNORECASE)
_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_EXTENSION = re.compile(r"\.([A-Za-z][A-Za-z0-9]{0,9})$")
_PAGE_EXTENSIONS = frozenset({"md", "mdx"})
_HTML_EXTENSIONS = frozenset({"html", "htm"})
# RFC 3986 pchar minus "%": what stays unescaped in a URL path.
_PATH_SAFE = "/!$&'()*+,;=:@-._~"


class InvalidPagePath(ValueError):
    """A path that can never name a page (unsafe or malformed)."""


class NotAPage(InvalidPagePath):
    """A well-formed path that names a file that is not a page (``.png``, ``.pdf``, ...)."""


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in text)


def _check_clean(path: str, raw: str) -> None:
    if "\\" in path:
        raise InvalidPagePath(f"backslash in page path {raw!r}")
    if "?" in path or "#" in path:
        raise InvalidPagePath(f"query or fragment in page path {raw!r}")
    if _has_control(path):
        raise InvalidPagePath(f"control character in page path {raw!r}")
    if "//" in path:
        raise InvalidPagePath(f"empty segment in page path {raw!r}")


def canonical_path(raw: str) -> str:
    """The canonical page path for ``raw`` (module docstring); raises ``InvalidPagePath``."""
    if len(raw) > MAX_PATH_CHARS:
        raise InvalidPagePath(f"page path longer than {MAX_PATH_CHARS} characters")
    if not raw:
        raise InvalidPagePath("empty page path")
    if raw.startswith("//"):
        raise InvalidPagePath(f"empty segment in page path {raw!r}")
    _check_clean(raw, raw)
    if _ENCODED_SEPARATOR.search(raw):
        raise InvalidPagePath(f"percent-encoded separator in page path {raw!r}")
    if _PERCENT.search(raw):
        raise InvalidPagePath(f"malformed percent escape in page path {raw!r}")
    try:
        decoded = unquote(raw, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise InvalidPagePath(f"percent escape is not UTF-8 in page path {raw!r}") from None
    if "%" in decoded:
        raise InvalidPagePath(f"literal '%' in page path {raw!r}")
    path = unicodedata.normalize("NFC", decoded)
    if not path.startswith("/"):
        path = "/" + path
    _check_clean(path, raw)
    segments = path.split("/")[1:]
    if any(segment in (".", "..") for segment in segments):
        raise InvalidPagePath(f"dot segment in page path {raw!r}")
    last = segments[-1]
    if last == "":
        path += "index.md"
    elif last.startswith("."):
        raise NotAPage(f"hidden file is not a page: {raw!r}")
    else:
        match = _EXTENSION.search(last)
        if match is not None:
            extension = match.group(1).lower()
            if extension in _HTML_EXTENSIONS:
                path = path[: -len(match.group(0))] + ".md"
            elif extension not in _PAGE_EXTENSIONS:
                raise NotAPage(f"not a page (.{extension}): {raw!r}")
        else:
            path += ".md"
    if len(path) > MAX_PATH_CHARS:
        raise InvalidPagePath(f"page path longer than {MAX_PATH_CHARS} characters")
    return path


def is_page_path(raw: str) -> bool:
    """True when ``canonical_path(raw)`` succeeds."""
    try:
        canonical_path(raw)
    except InvalidPagePath:
        return False
    return True


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of an absolute http(s) URL, lower-cased, default port omitted."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an absolute http(s) URL: {url!r}")
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is None or (scheme, port) in (("http", 80), ("https", 443)):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def encode_path(path: str) -> str:
    """Percent-encode a canonical path for a URL (UTF-8; RFC 3986 path characters kept)."""
    return quote(path, safe=_PATH_SAFE, encoding="utf-8")


def page_url(base_origin: str, path: str) -> str:
    """The URL a page is fetched from: ``base_origin`` + the percent-encoded canonical path.

    ``base_origin`` is ``scheme://host[:port]`` (a trailing ``/`` is tolerated); ``path`` is
    canonicalised first, so ``page_url("https://d.example", "/a b")`` is
    ``https://d.example/a%20b.md``.
    """
    parts = urlsplit(base_origin)
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError(f"base_origin must be scheme://host[:port], got {base_origin!r}")
    return origin_of(base_origin) + encode_path(canonical_path(path))


def citation_url(public_url: str, path: str) -> str:
    """The human-facing URL of a page: ``public_url`` + the path without its Markdown suffix.

    ``public_url`` is the public base that corresponds to the source origin's root (it may carry
    a path prefix, e.g. ``https://example.com/docs``). ``/x.md`` → ``{public_url}/x``,
    ``/x/index.md`` → ``{public_url}/x/``, ``/index.md`` → ``{public_url}/``.
    """
    canonical = canonical_path(path)
    if canonical.endswith("/index.md"):
        public = canonical[: -len("index.md")]
    elif canonical.endswith(".mdx"):
        public = canonical[: -len(".mdx")]
    else:
        public = canonical[: -len(".md")]
    return public_url.rstrip("/") + encode_path(public)

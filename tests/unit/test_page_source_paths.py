"""Tests for quire.indexer.pages.paths: canonical page paths, fetch and citation URLs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.indexer.pages.paths import (
    MAX_PATH_CHARS,
    InvalidPagePath,
    NotAPage,
    canonical_path,
    citation_url,
    is_page_path,
    origin_of,
    page_url,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/", "/index.md"),
        ("/x", "/x.md"),
        ("/x/", "/x/index.md"),
        ("/a/b/c", "/a/b/c.md"),
        ("/x.md", "/x.md"),
        ("/x.mdx", "/x.mdx"),
        ("/x.MD", "/x.MD"),
        ("/x.html", "/x.md"),
        ("/x.htm", "/x.md"),
        ("/x/index.html", "/x/index.md"),
        ("/v1.2", "/v1.2.md"),
        ("/docs/v1.2/intro", "/docs/v1.2/intro.md"),
        ("/.well-known/x", "/.well-known/x.md"),
        ("x", "/x.md"),
        ("/a b", "/a b.md"),
        ("/a%20b.md", "/a b.md"),
        ("/caf%C3%A9", "/café.md"),
        ("/cafe\u0301", "/caf\u00e9.md"),
        ("/caf%65%CC%81.md", "/caf\u00e9.md"),
        ("/日本語/ページ", "/日本語/ページ.md"),
        ("/%E6%97%A5%E6%9C%AC.md", "/日本.md"),
        ("/a:b@c!$&'()*+,;=", "/a:b@c!$&'()*+,;=.md"),
    ],
)
def test_canonical_path_maps(raw: str, expected: str) -> None:
    assert canonical_path(raw) == expected
    assert canonical_path(expected) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "//",
        "//evil.example/x.md",
        "/a//b.md",
        "/a/b//",
        "/a\\b.md",
        "\\\\server\\share",
        "/a%2fb.md",
        "/a%2Fb.md",
        "/a%5cb.md",
        "/a%5Cb.md",
        "/a?b=1",
        "/a.md?",
        "/a#frag",
        "/a%3Fb.md",
        "/a%23b.md",
        "/a\x00.md",
        "/a%00.md",
        "/a\x1b.md",
        "/a\x7f.md",
        "/a\u0085.md",
        "/a\n.md",
        "/a\t.md",
        "/../etc/passwd",
        "/a/../b.md",
        "/a/..",
        "/./a.md",
        "/a/./b.md",
        "/a/.",
        "/%2e%2e/x.md",
        "/%2E%2E/x.md",
        "/a/%2e/b.md",
        "/a%zz.md",
        "/a%4.md",
        "/a%ff.md",
        "/a%C3.md",
        "/a%25b.md",
        "/" + "a" * MAX_PATH_CHARS,
    ],
)
def test_canonical_path_rejects(raw: str) -> None:
    with pytest.raises(InvalidPagePath):
        canonical_path(raw)
    assert not is_page_path(raw)


@pytest.mark.parametrize(
    "raw", ["/logo.png", "/a/b.PDF", "/x.zip", "/x.tar.gz", "/data.json", "/llms.txt", "/.env"]
)
def test_non_pages_are_not_a_page(raw: str) -> None:
    with pytest.raises(NotAPage):
        canonical_path(raw)


def test_invalid_page_path_is_a_value_error() -> None:
    assert issubclass(InvalidPagePath, ValueError)
    assert issubclass(NotAPage, InvalidPagePath)


def test_length_bound_is_1024_characters() -> None:
    exact = "/" + "a" * (MAX_PATH_CHARS - 4) + ".md"
    assert len(exact) == MAX_PATH_CHARS
    assert canonical_path(exact) == exact
    with pytest.raises(InvalidPagePath):
        canonical_path("/" + "a" * (MAX_PATH_CHARS - 3) + ".md")
    # Fits raw, but not once ".md" is added.
    with pytest.raises(InvalidPagePath):
        canonical_path("/" + "a" * (MAX_PATH_CHARS - 2))
    assert MAX_PATH_CHARS == 1024


_PIECES = ["a", "Z", "0", "/", ".", "..", "-", "_", " ", "%", "%2f", "%41", "%C3%A9", "é"]
_PIECES += ["\u0301", "?", "#", "\\", "\x00", "\x1f", ".md", ".mdx", ".html", ".png", "index"]
_PIECES += ["日本"]
_path_chars = st.sampled_from(_PIECES)


@given(st.lists(_path_chars, max_size=30).map("".join))
def test_canonical_path_output_is_safe_and_idempotent(raw: str) -> None:
    try:
        path = canonical_path(raw)
    except InvalidPagePath:
        return
    assert path.startswith("/")
    assert path.endswith((".md", ".mdx", ".MD", ".Md", ".mD", ".MDX", ".mdX"))
    assert "//" not in path and "\\" not in path and "%" not in path
    assert not any(c in path for c in "?#\x00")
    assert all(segment not in (".", "..") for segment in path.split("/"))
    assert len(path) <= MAX_PATH_CHARS
    assert canonical_path(path) == path


def test_page_url() -> None:
    assert page_url("http://127.0.0.1:8000", "/a b/ü.md") == "http://127.0.0.1:8000/a%20b/%C3%BC.md"
    assert page_url("https://Docs.Example.com/", "/x/") == "https://docs.example.com/x/index.md"
    assert page_url("https://d.example:443", "/x") == "https://d.example/x.md"
    assert page_url("https://d.example:8443", "/x.md") == "https://d.example:8443/x.md"
    assert page_url("https://d.example", "/a:b@c") == "https://d.example/a:b@c.md"
    with pytest.raises(ValueError):
        page_url("https://d.example/docs", "/x.md")
    with pytest.raises(ValueError):
        page_url("ftp://d.example", "/x.md")
    with pytest.raises(InvalidPagePath):
        page_url("https://d.example", "/../x.md")


@pytest.mark.parametrize(
    ("public", "path", "expected"),
    [
        (
            "https://fastapi.tiangolo.com",
            "/advanced/events.md",
            "https://fastapi.tiangolo.com/advanced/events",
        ),
        ("https://fastapi.tiangolo.com/", "/index.md", "https://fastapi.tiangolo.com/"),
        ("https://d.example", "/about/index.md", "https://d.example/about/"),
        ("https://d.example/docs", "/x.mdx", "https://d.example/docs/x"),
        ("https://d.example", "/a b/ü.md", "https://d.example/a%20b/%C3%BC"),
        ("https://d.example", "/x", "https://d.example/x"),
    ],
)
def test_citation_url(public: str, path: str, expected: str) -> None:
    assert citation_url(public, path) == expected


def test_origin_of() -> None:
    assert origin_of("HTTPS://Example.COM:443/a") == "https://example.com"
    assert origin_of("http://127.0.0.1:8080/x") == "http://127.0.0.1:8080"
    assert origin_of("http://[::1]:80/") == "http://[::1]"
    with pytest.raises(ValueError):
        origin_of("mailto:x@example.com")

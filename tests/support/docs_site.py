"""The repository's documentation site (tests/fixtures/docs-site), written for the tests: the
docs of "Tidewater", a made-up Python web framework, as Markdown pages.

- 39 pages: 31 English in nested sections (tutorial/, tutorial/dependencies/,
  tutorial/security/, advanced/, deployment/, reference/) and 8 Japanese under /ja/, one of
  them over 11,000 characters (/ja/reference/settings.md) and one with a non-ASCII path
  (/ja/用語集.md); code blocks in most pages, YAML front matter in /advanced/settings.md, and
  two pages without a heading (translation-banner.md, English and Japanese).
- Indexes: /llms.txt lists the English pages and links the nested index /ja/llms.txt;
  /sitemap.xml is a sitemap index of /sitemap-en.xml and /ja/sitemap.xml. Sitemaps need
  absolute URLs: they name https://docs.example.test until `bind_origin` points them at the
  test server.

Tests copy it (`copy_site`) and change the copy between syncs with `append` (edit pages) and
`unlist` (drop pages from every index); `restore` puts a page back as shipped.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "docs-site"
PLACEHOLDER_ORIGIN = "https://docs.example.test"
PAGES = 39
JA_PAGES = 8
UNTITLED = ["ja/translation-banner.md", "translation-banner.md"]
SITEMAPS = ["sitemap.xml", "sitemap-en.xml", "ja/sitemap.xml"]
INDEXES = ["llms.txt", "ja/llms.txt"]


def page_paths(root: Path = SITE) -> list[str]:
    """Every page's path as the site serves it ("/tutorial/body.md"), sorted."""
    return sorted("/" + p.relative_to(root).as_posix() for p in root.rglob("*.md"))


def listed_paths(root: Path = SITE) -> list[str]:
    """The pages in discovery order: /llms.txt's links, then the nested /ja/llms.txt's."""
    return [
        link
        for name in INDEXES
        for link in re.findall(r"\]\((/[^)]+\.md)\)", (root / name).read_text(encoding="utf-8"))
    ]


def copy_site(target: Path) -> Path:
    """A private copy at `target` to serve and edit."""
    shutil.copytree(SITE, target)
    return target


def bind_origin(root: Path, origin: str) -> None:
    """Points the copy's sitemaps at `origin` (e.g. a SiteServer's url)."""
    for name in SITEMAPS:
        path = root / name
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace(PLACEHOLDER_ORIGIN, origin), encoding="utf-8")


def append(root: Path, paths: Iterable[str], text: str) -> None:
    """Adds a paragraph to the end of each page."""
    for path in paths:
        file = root / path.lstrip("/")
        file.write_text(file.read_text(encoding="utf-8") + f"\n{text}\n", encoding="utf-8")


def restore(root: Path, path: str) -> None:
    """Puts one page back as shipped."""
    shutil.copy(SITE / path.lstrip("/"), root / path.lstrip("/"))


def unlist(root: Path, paths: Iterable[str]) -> None:
    """Drops pages from every index (llms.txt links and sitemap entries); the files stay."""
    gone = list(paths)
    for name in INDEXES:
        index = root / name
        if not index.is_file():
            continue
        lines = index.read_text(encoding="utf-8").splitlines()
        index.write_text(
            "\n".join(line for line in lines if not any(f"({p})" in line for p in gone)) + "\n",
            encoding="utf-8",
        )
    for name in SITEMAPS:
        sitemap = root / name
        if not sitemap.is_file():
            continue
        text = sitemap.read_text(encoding="utf-8")
        for path in gone:
            text = re.sub(rf"\s*<url><loc>[^<]*{re.escape(quote(path))}</loc></url>", "", text)
        sitemap.write_text(text, encoding="utf-8")

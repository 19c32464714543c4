"""In-memory `PageStore` and a corpus shared by the command, grep and cache tests."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from quire.server.pages.body_cache import PageEntry


class MemoryStore:
    """A `PageStore` over a dict; counts reads so tests can see cache hits."""

    def __init__(self, pages: dict[str, str], filesystem_version: int = 1) -> None:
        self.pages: dict[str, str] = {}
        self.entries: dict[str, PageEntry] = {}
        self.filesystem_version = filesystem_version
        self.body_reads = 0
        self.list_calls: list[str] = []
        self.fail = False
        for path, text in pages.items():
            self.publish(path, text)

    def publish(self, path: str, text: str, title: str = "") -> None:
        revision = hashlib.sha256(text.encode()).hexdigest()[:16]
        content_id = self.entries[path].content_id if path in self.entries else f"c-{path}"
        self.pages[path] = text
        self.entries[path] = PageEntry(
            path=path,
            content_id=content_id,
            revision=revision,
            filesystem_version=self.filesystem_version,
            total_chars=len(text),
            title=title or path.rsplit("/", 1)[-1],
            url=f"https://docs.example.com{path}",
        )

    def delete(self, path: str) -> None:
        del self.pages[path]
        del self.entries[path]

    async def list_entries(self, prefix: str) -> list[PageEntry]:
        if self.fail:
            raise ConnectionError("database is down")
        self.list_calls.append(prefix)
        return [self.entries[p] for p in sorted(self.entries) if p.startswith(prefix)]

    async def read_bodies(self, entries: Sequence[PageEntry]) -> dict[str, str]:
        if self.fail:
            raise ConnectionError("database is down")
        self.body_reads += len(entries)
        return {e.path: self.pages[e.path] for e in entries if e.path in self.pages}


LONG_LINE = "x" * 5_000 + " needle " + "y" * 5_000

CORPUS: dict[str, str] = {
    "/index.md": "# Welcome\n\nStart with the tutorial.\nSee /tutorial/first-steps.md\n",
    "/tutorial/first-steps.md": (
        "# First Steps\n"
        "\n"
        "Create a file main.py:\n"
        "\n"
        "from fastapi import FastAPI\n"
        "app = FastAPI()\n"
        "\n"
        "Run it with uvicorn.\n"
        "The app object is an instance of FastAPI.\n"
    ),
    "/tutorial/path-params.md": (
        "# Path Parameters\n"
        "You can declare path parameters.\n"
        "@app.get('/items/{item_id}')\n"
        "async def read_item(item_id: int):\n"
        "    return {'item_id': item_id}\n"
        "Data conversion happens automatically.\n"
    ),
    "/tutorial/query-params.md": "# Query Parameters\nskip: int = 0\nlimit: int = 10\n",
    "/tutorial/advanced/security.md": "# Security\nOAuth2 with Password.\nTokens expire.\n",
    "/tutorial/advanced/middleware.md": "# Middleware\nA middleware works with every request.\n",
    "/tutorial/advanced/deep/nested/leaf.md": "# Leaf\ndeep content\n",
    "/reference/apirouter.md": (
        "# APIRouter\nclass APIRouter\nInclude routers with include_router.\n"
    ),
    "/reference/fastapi.md": "# FastAPI class\nclass FastAPI(Starlette)\ntitle: str = 'FastAPI'\n",
    "/reference/request.md": "# Request\nThe Request object.\n",
    "/i18n/de/straße.md": "# Straße\nDie STRASSE ist lang.\nGrüße aus Köln.\n",
    "/i18n/el/σας.md": "# Ελληνικά\nΣΑΣ ευχαριστούμε.\nσας\n",
    "/i18n/ja/はじめに.md": "# はじめに\nFastAPIへようこそ。\n絵文字 🚀 もOK\n",
    "/long/line.md": "short first\n" + LONG_LINE + "\nlast line\n",
    "/long/no-newline.md": "one\ntwo\nthree",
    "/empty.md": "",
    "/long/backtrack.md": "a" * 3_000 + "!\n" + "ok\n",
    "/.hidden.md": "# Hidden\nsecret page\n",
    "/a-b.md": "dash name\n",
    "/a/b.md": "slash name\n",
    "/many/lines.md": "".join(f"line {i}\n" for i in range(1, 201)),
    "/spaces in/name with spaces.md": "spaced out\n",
    "/regex/special.md": (
        "a+b\n(a|b)\nprice: $5\nback\\slash\n[bracket]\nfoo|bar\nword wordy sword\n"
    ),
}


def extra_pages(count: int) -> dict[str, str]:
    return {f"/bulk/page-{i:03d}.md": f"# Bulk {i}\nbulk text {i}\n" for i in range(count)}


def make_store() -> MemoryStore:
    return MemoryStore({**CORPUS, **extra_pages(12)})

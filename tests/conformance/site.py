"""A small, deterministic documentation site on loopback for sync scenarios (stdlib only).

Three sites under one server, each with an `llms.txt` of absolute `.md` links:

- `/v1/`  four pages (guide/intro, guide/install, reference/api, reference/errors)
- `/v2/`  the same site one release later: guide/intro changed, reference/errors removed,
          guide/upgrade added (so a v1 → v2 sync updates 1, adds 1, deletes 1)
- `/big/` twelve long pages with long titles, all about "budget", to overflow the 24,000-byte
          SearchPages output budget
- `/fastapi/` the shared FastAPI docs (data/docs-fastapi/site under the shared root,
          tests/support/shared_data.py) when present

Fixture variables (see README.md): site_url, site_v2_url, big_site_url, site_origin and,
when the shared data exists, fastapi_site_url.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from tests.support.shared_data import SHARED

FASTAPI = SHARED / "data" / "docs-fastapi" / "site"

INTRO_V1 = """# Introduction

Quire keeps documentation searchable. This page mentions marmalade exactly once.

## Why

Agents need pinned revisions so that citations stay stable.
"""

INTRO_V2 = """# Introduction

Quire keeps documentation searchable. Version two replaced the preserves with apricot jam.

## Why

Agents need pinned revisions so that citations stay stable, even across releases.
"""

INSTALL = """# Installation

Install the package, then run `quire up`. The kettle example needs no configuration.
"""

API = """# API reference

## SearchPages

Searches a namespace. The limit is between one and twenty.

## ReadPage

Reads a slice of a page at a pinned revision.
"""

ERRORS = """# Errors

PAGE_CHANGED carries the current revision. Grep for the word zeppelin to find this page.
"""

UPGRADE = """# Upgrading

Upgrading from version one is a resync. Nothing else is needed.
"""


def _big_page(n: int) -> str:
    paragraph = (
        f"Budget planning section {n}: every budget line item is reviewed, and the budget "
        "committee compares the budget forecast with the actual budget spent this quarter. "
    )
    sections = []
    for s in range(6):
        sections.append(f"## Budget part {s}\n\n" + (paragraph * 10).strip() + "\n")
    return f"# Budget chapter {n}\n\n" + "\n".join(sections)


def _pages() -> dict[str, dict[str, tuple[str, str]]]:
    """site → path → (title, markdown)."""
    v1 = {
        "guide/intro.md": ("Introduction", INTRO_V1),
        "guide/install.md": ("Installation", INSTALL),
        "reference/api.md": ("API reference", API),
        "reference/errors.md": ("Errors", ERRORS),
    }
    v2 = dict(v1)
    v2["guide/intro.md"] = ("Introduction", INTRO_V2)
    del v2["reference/errors.md"]
    v2["guide/upgrade.md"] = ("Upgrading", UPGRADE)
    big = {}
    for n in range(12):
        title = f"Budget chapter {n} " + "with a deliberately long descriptive title " * 4
        path = f"chapters/a-very-long-directory-name-for-budget-chapters/chapter-{n:02d}.md"
        big[path] = (title.strip(), _big_page(n))
    return {"v1": v1, "v2": v2, "big": big}


def _llms(origin: str, site: str, pages: dict[str, tuple[str, str]]) -> str:
    lines = [f"# Test site {site}", "", f"> Conformance fixture {site}.", "", "## Docs", ""]
    for path, (title, _) in sorted(pages.items()):
        lines.append(f"- [{title}]({origin}/{site}/{path}): {title}")
    return "\n".join(lines) + "\n"


class _Handler(BaseHTTPRequestHandler):
    server_version = "QuireConformanceSite/1"
    pages: ClassVar[dict[str, dict[str, tuple[str, str]]]] = {}

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        origin = f"http://{self.headers.get('Host') or '127.0.0.1'}"
        site, _, rest = self.path.split("?", 1)[0].lstrip("/").partition("/")
        body: bytes | None = None
        content_type = "text/markdown; charset=utf-8"
        if site == "fastapi" and FASTAPI.is_dir():
            target = (FASTAPI / rest).resolve()
            if target.is_relative_to(FASTAPI) and target.is_file():
                body = target.read_bytes()
                if target.suffix not in (".md", ".txt"):
                    content_type = "application/octet-stream"
        elif site in self.pages:
            pages = self.pages[site]
            if rest == "llms.txt":
                body = _llms(origin, site, pages).encode()
                content_type = "text/plain; charset=utf-8"
            elif rest in pages:
                body = pages[rest][1].encode()
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Site:
    """Serves the fixture sites on 127.0.0.1 in a daemon thread."""

    def __init__(self) -> None:
        handler = type("Handler", (_Handler,), {"pages": _pages()})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> Site:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def fixtures(self) -> dict[str, str]:
        out = {
            "site_origin": self.origin,
            "site_url": f"{self.origin}/v1",
            "site_v2_url": f"{self.origin}/v2",
            "big_site_url": f"{self.origin}/big",
        }
        if FASTAPI.is_dir():
            out["fastapi_site_url"] = f"{self.origin}/fastapi"
        return out

"""Page discovery from an ``llms.txt`` index or a sitemap (DESIGN §3, ``docs/page-sources.md``).

``discover(url, fetcher)`` reads the index at ``url`` and returns every page it (transitively)
lists, with its canonical path, fetch URL and index title:

- ``url`` whose path ends in ``.txt`` (``llms.txt``): a Markdown index. Links to other ``.txt``
  files are nested indexes; links to ``.xml`` files are sitemaps; both are read breadth-first.
  ``llms-full.txt`` (any ``*-full.txt``) is skipped: it repeats the pages' content.
- ``url`` whose path ends in ``.xml`` (``sitemap.xml``): a sitemap (``<urlset>``) or sitemap
  index (``<sitemapindex>``, whose ``<loc>``s are nested sitemaps).
- ``url`` whose path is empty or ends in ``/`` (a site root or directory): ``llms.txt`` there,
  and when that is missing (404/410) or fails, ``sitemap.xml`` there.
- anything else raises ``UnsupportedSource``; a URL the SSRF policy refuses raises
  ``SourceRejected``.

Links are resolved against the index's final URL. Off-origin links are skipped (an off-origin
nested *sitemap* also makes the discovery incomplete: a sitemap index belongs to its site).
A link is a page when ``canonical_path`` accepts its path (``.md``/``.mdx``, ``.html``/``.htm``
mapped to ``.md``, or no extension); other files (images, PDFs, archives, JSON, ...) and unsafe
paths are skipped and counted in ``skipped``. Fragments are dropped; links with a query are
skipped. Duplicates keep the first title. An index is read at most once, so cycles end.

Bounds (defaults): nested depth 3 (the starting index is depth 0, so indexes at depth 1, 2 and 3
are read and a link to a depth-4 index is not followed), 100 indexes read in total (the root
included), 8 MiB per index, 20,000 pages. ``complete`` is False when any index could not be
fetched or parsed, or when any bound was hit; the caller must not prune on an incomplete
discovery. ``errors`` says why (at most ``MAX_ERRORS`` entries). ``source_busy`` says an
index was refused for load (429 or 503 after the retries), with the longest ``retry_after``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urldefrag, urljoin, urlsplit

from quire.indexer.pages.fetch import FetchError, PageFetcher
from quire.indexer.pages.llms import parse_index_links
from quire.indexer.pages.paths import InvalidPagePath, canonical_path, encode_path, origin_of
from quire.indexer.pages.sitemap import SitemapError, parse_sitemap

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_INDEXES",
    "DEFAULT_MAX_INDEX_BYTES",
    "DEFAULT_MAX_PAGES",
    "MAX_ERRORS",
    "DiscoveredPage",
    "Discovery",
    "UnsupportedSource",
    "discover",
]

DEFAULT_MAX_DEPTH = 3
DEFAULT_MAX_INDEXES = 100
DEFAULT_MAX_INDEX_BYTES = 8 * 1024 * 1024
DEFAULT_MAX_PAGES = 20_000
MAX_ERRORS = 100

IndexKind = Literal["llms", "sitemap"]


class UnsupportedSource(ValueError):
    """The URL is neither an index (``.txt``/``.xml``) nor a site root/directory."""


@dataclass(frozen=True)
class DiscoveredPage:
    path: str  # canonical, site-relative (``/a/b.md``)
    url: str  # where to fetch it (source origin + percent-encoded path)
    title: str | None  # the index link's text; None for sitemaps


@dataclass
class Discovery:
    pages: list[DiscoveredPage]
    complete: bool
    errors: list[str]
    indexes: list[str] = field(default_factory=list)  # index URLs read, in order
    skipped: int = 0  # links that are not pages, off-origin or invalid
    # An index fetch was refused for load (429, or 503 Service Unavailable) after its retries;
    # `retry_after` is the longest wait such a response asked for, when it said.
    source_busy: bool = False
    retry_after: float | None = None


@dataclass
class _State:
    origin: str
    max_pages: int
    max_depth: int
    # The indexes still to read (URL, depth, kind), and every index URL queued or read.
    queue: deque[tuple[str, int, IndexKind]] = field(default_factory=deque)
    visited: set[str] = field(default_factory=set)
    pages: list[DiscoveredPage] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    complete: bool = True
    full: bool = False
    skipped: int = 0
    dropped_errors: int = 0
    source_busy: bool = False
    retry_after: float | None = None

    def fetch_failed(self, index_url: str, exc: FetchError) -> None:
        if exc.kind == "rate_limited" or (exc.kind == "server_error" and exc.status == 503):
            self.source_busy = True
            if exc.retry_after is not None:
                self.retry_after = max(self.retry_after or 0.0, exc.retry_after)
        self.fail(f"index {index_url}: {exc}")

    def fail(self, message: str) -> None:
        self.complete = False
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(message)
        else:
            self.dropped_errors += 1

    def add(self, path: str, title: str | None) -> None:
        if path in self.seen or self.full:
            return
        if len(self.pages) >= self.max_pages:
            self.full = True
            self.fail(f"more than {self.max_pages} pages: discovery stopped at {self.max_pages}")
            return
        self.seen.add(path)
        self.pages.append(DiscoveredPage(path, self.origin + encode_path(path), title))


def _kind_of(path: str) -> IndexKind | None:
    lowered = path.lower()
    if lowered.endswith(".txt"):
        return "llms"
    if lowered.endswith(".xml"):
        return "sitemap"
    return None


def _is_full_text(path: str) -> bool:
    return path.lower().rsplit("/", 1)[-1].endswith("-full.txt")


def _key(url: str) -> str:
    return urldefrag(url)[0]


async def discover(
    url: str,
    fetcher: PageFetcher,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_indexes: int = DEFAULT_MAX_INDEXES,
    max_index_bytes: int = DEFAULT_MAX_INDEX_BYTES,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> Discovery:
    """Discover the pages listed by the index at ``url`` (see the module docstring)."""
    url = _key(url.strip())
    await fetcher.policy.check_url(url)  # raises SourceRejected before any request
    state = _State(origin=origin_of(url), max_pages=max_pages, max_depth=max_depth)
    queue, visited = state.queue, state.visited
    path = urlsplit(url).path
    kind = _kind_of(path)
    indexes: list[str] = []
    if kind is not None:
        queue.append((url, 0, kind))
        visited.add(url)
    elif path == "" or path.endswith("/"):
        directory = url if path.endswith("/") else url + "/"
        probe = await _probe(directory, fetcher, max_index_bytes, state)
        if probe is None:
            return _result(state, indexes)
        probe_url, probe_kind, text, final_url = probe
        visited.update({probe_url, _key(final_url)})
        indexes.append(probe_url)
        _read_index(probe_kind, text, final_url, 0, state)
    else:
        raise UnsupportedSource(
            f"not an index or a site root: {url!r} (expected .../llms.txt, .../sitemap.xml or .../)"
        )
    while queue and not state.full:
        index_url, depth, index_kind = queue.popleft()
        if len(indexes) >= max_indexes:
            state.fail(
                f"more than {max_indexes} indexes: {len(queue) + 1} not read (first: {index_url})"
            )
            break
        indexes.append(index_url)
        try:
            fetched = await fetcher.fetch(index_url, max_bytes=max_index_bytes)
        except FetchError as exc:
            state.fetch_failed(index_url, exc)
            continue
        visited.add(_key(fetched.final_url))
        _read_index(index_kind, fetched.text, fetched.final_url, depth, state)
    return _result(state, indexes)


async def _probe(
    directory: str, fetcher: PageFetcher, max_index_bytes: int, state: _State
) -> tuple[str, IndexKind, str, str] | None:
    candidates: tuple[tuple[str, IndexKind], ...] = (
        ("llms.txt", "llms"),
        ("sitemap.xml", "sitemap"),
    )
    for name, kind in candidates:
        candidate = urljoin(directory, name)
        try:
            fetched = await fetcher.fetch(candidate, max_bytes=max_index_bytes)
        except FetchError as exc:
            if exc.kind == "not_found":
                continue
            state.fetch_failed(candidate, exc)
            continue
        return candidate, kind, fetched.text, fetched.final_url
    if state.complete:
        state.fail(f"no llms.txt or sitemap.xml under {directory}")
    return None


def _read_index(kind: IndexKind, text: str, base_url: str, depth: int, state: _State) -> None:
    if kind == "llms":
        for link in parse_index_links(text):
            _consider(link.href, link.title, base_url, depth, state, True)
        return
    try:
        sitemap = parse_sitemap(text)
    except SitemapError as exc:
        state.fail(f"index {base_url}: {exc}")
        return
    nested = sitemap.kind == "sitemapindex"
    for loc in sitemap.locs:
        if nested:
            _follow(loc, "sitemap", base_url, depth, state)
        else:
            _consider(loc, None, base_url, depth, state, False)


def _resolve(href: str, base_url: str, state: _State) -> str | None:
    """The absolute same-origin URL of ``href`` (fragment dropped), or None (skipped)."""
    try:
        target = _key(urljoin(base_url, href))
        parts = urlsplit(target)
        if parts.scheme.lower() not in ("http", "https") or origin_of(target) != state.origin:
            return None
    except ValueError:
        return None
    return target


def _follow(href: str, kind: IndexKind, base_url: str, depth: int, state: _State) -> None:
    target = _resolve(href, base_url, state)
    if target is None:
        state.skipped += 1
        if kind == "sitemap":
            state.fail(f"nested sitemap {href} is not on {state.origin}: not read")
        return
    if target in state.visited:
        return
    if depth + 1 > state.max_depth:
        state.fail(f"index {target} is at depth {depth + 1} (max {state.max_depth}): not read")
        return
    state.visited.add(target)
    state.queue.append((target, depth + 1, kind))


def _consider(
    href: str, title: str | None, base_url: str, depth: int, state: _State, from_llms: bool
) -> None:
    target = _resolve(href, base_url, state)
    if target is None:
        state.skipped += 1
        return
    parts = urlsplit(target)
    if from_llms:
        kind = _kind_of(parts.path)
        if kind is not None:
            if kind == "llms" and _is_full_text(parts.path):
                state.skipped += 1
                return
            _follow(target, kind, base_url, depth, state)
            return
    if parts.query:
        state.skipped += 1
        return
    try:
        path = canonical_path(parts.path or "/")
    except InvalidPagePath:
        state.skipped += 1
        return
    state.add(path, title)


def _result(state: _State, indexes: list[str]) -> Discovery:
    errors = list(state.errors)
    if state.dropped_errors:
        errors.append(f"... and {state.dropped_errors} more errors")
    return Discovery(
        pages=state.pages,
        complete=state.complete,
        errors=errors,
        indexes=indexes,
        skipped=state.skipped,
        source_busy=state.source_busy,
        retry_after=state.retry_after,
    )

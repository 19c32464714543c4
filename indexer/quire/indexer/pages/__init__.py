"""Published Pages sources: where a page is found, fetched and how its text is normalised.

- ``paths``: canonical page paths, fetch and citation URLs.
- ``guard``: the SSRF policy and the pinned, checked transport.
- ``fetch``: ``PageFetcher`` (bounded, retried fetches).
- ``discovery``: ``discover`` (``llms.txt`` indexes and sitemaps).
- ``transforms``: the ``none``/``markdown``/``mintlify``/``fumadocs`` profiles.

See ``docs/page-sources.md``.
"""

from __future__ import annotations

from quire.indexer.pages.discovery import DiscoveredPage, Discovery, UnsupportedSource, discover
from quire.indexer.pages.fetch import FetchedText, FetchError, PageFetcher
from quire.indexer.pages.guard import SourcePolicy, SourceRejected
from quire.indexer.pages.paths import (
    InvalidPagePath,
    NotAPage,
    canonical_path,
    citation_url,
    page_url,
)
from quire.indexer.pages.transforms import (
    DEFAULT_TRANSFORM,
    TRANSFORMS,
    TransformedPage,
    TransformRejected,
    UnknownTransform,
    apply_transform,
    title_from_markdown,
)

__all__ = [
    "DEFAULT_TRANSFORM",
    "TRANSFORMS",
    "DiscoveredPage",
    "Discovery",
    "FetchError",
    "FetchedText",
    "InvalidPagePath",
    "NotAPage",
    "PageFetcher",
    "SourcePolicy",
    "SourceRejected",
    "TransformRejected",
    "TransformedPage",
    "UnknownTransform",
    "UnsupportedSource",
    "apply_transform",
    "canonical_path",
    "citation_url",
    "discover",
    "page_url",
    "title_from_markdown",
]

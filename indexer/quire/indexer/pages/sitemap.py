"""Safe sitemap parsing: ``<urlset>`` and ``<sitemapindex>`` ``<loc>`` values.

Uses the standard library's expat with every DTD entity feature refused (internal or external
entity declarations, external entity references, parameter entities), so "billion laughs" and
XXE documents are rejected instead of expanded. A plain ``<!DOCTYPE>`` without entity
declarations is tolerated. Element names are matched by local name, whatever the namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from xml.parsers import expat

__all__ = ["Sitemap", "SitemapError", "parse_sitemap"]


class SitemapError(ValueError):
    """Not a usable sitemap (malformed XML, entities, unknown root element)."""


@dataclass(frozen=True)
class Sitemap:
    kind: Literal["urlset", "sitemapindex"]
    locs: list[str]


def _local(name: str) -> str:
    return name.rsplit(" ", 1)[-1]


def parse_sitemap(text: str) -> Sitemap:
    """Parse a sitemap or sitemap index; raises ``SitemapError``."""
    parser = expat.ParserCreate(encoding="utf-8", namespace_separator=" ")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[str] = []
    locs: list[str] = []
    buffer: list[str] = []
    root: list[str] = []

    def refuse(*_args: object) -> None:
        raise SitemapError("XML entity declarations and references are not allowed")

    def refuse_external(*_args: object) -> int:
        raise SitemapError("external XML entities are not allowed")

    def start(name: str, _attrs: dict[str, str]) -> None:
        local = _local(name)
        if not stack:
            root.append(local)
        stack.append(local)
        if local == "loc":
            buffer.clear()

    def end(name: str) -> None:
        local = _local(name)
        if local == "loc" and len(stack) >= 2 and stack[-2] in ("url", "sitemap"):
            value = "".join(buffer).strip()
            if value:
                locs.append(value)
        stack.pop()

    def data(chunk: str) -> None:
        if stack and stack[-1] == "loc":
            buffer.append(chunk)

    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse_external
    parser.SkippedEntityHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError as exc:
        raise SitemapError(f"malformed XML: {exc}") from None
    if not root or root[0] not in ("urlset", "sitemapindex"):
        raise SitemapError(f"root element is {root[0] if root else 'missing'!r}, not a sitemap")
    kind: Literal["urlset", "sitemapindex"] = "urlset" if root[0] == "urlset" else "sitemapindex"
    return Sitemap(kind, locs)

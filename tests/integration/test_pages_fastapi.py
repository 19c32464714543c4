"""The real FastAPI documentation (277 pages, 123 of them Japanese; ../shared/data/docs-fastapi)
synced on loopback: the numbers and the search quality a real site gives. Every behaviour is
tested on the repository's own site in test_pages.py; this module needs the shared data.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.server import canonical_json
from quire.server.contract import bounds as B
from quire.v1 import pages_pb2
from tests.conftest import Harness, shared_or_skip
from tests.integration.test_pages import READ, SEARCH, run_sync
from tests.support.site_server import SiteServer

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.large_data]
NEEDS_MODEL = True
NS = "fastapi"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, harness: Harness) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("fastapi") / "site"
    shutil.copytree(shared_or_skip("data", "docs-fastapi", "site"), root)
    server = SiteServer(root=root)
    with server:
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness) -> AsyncIterator[AsyncQuireClient]:
    keys = await harness.keys("fastapi-org")
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def first_sync(client: AsyncQuireClient, site: SiteServer) -> pages_pb2.SyncReport:
    report, _ = await run_sync(client, NS, f"{site.url}/llms.txt")
    return report


async def test_every_page_is_published(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    assert first_sync.status == pages_pb2.SYNC_STATUS_COMPLETED, list(first_sync.errors)
    assert first_sync.discovered == first_sync.updated == 277
    assert first_sync.failed == 0 and first_sync.embedded_chunks > 277
    seen: list[str] = []
    cursor = ""
    while True:
        page = await client.list_pages(namespace=NS, cursor=cursor or None, limit=200)
        seen.extend(p.path for p in page.pages)
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert len(seen) == 277 and seen == sorted(seen)
    ja = await client.list_pages(namespace=NS, prefix="/ja/", limit=200)
    assert len(ja.pages) == 123


async def test_search_finds_the_right_pages(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    result = await client.search_pages(namespace=NS, query="declare query parameters with defaults")
    assert any("query-params" in h.path for h in result.hits[:5]), [h.path for h in result.hits]
    result = await client.search_pages(
        namespace=NS,
        query="upload a file",
        alternatives=["UploadFile form data", "receive files sent by the client"],
    )
    assert any("request-files" in h.path for h in result.hits[:5]), [h.path for h in result.hits]


async def test_budget_and_grep_limits_on_a_large_site(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    least = SEARCH.max_output_bytes.min
    result = await client.search_pages(
        namespace=NS,
        query="dependencies security oauth2 tokens",
        limit=SEARCH.limit.max,
        max_output_bytes=least,
    )
    assert canonical_json.size(result) <= least
    assert result.truncated == (result.omitted_count > 0)
    most = B.GrepPagesRequest.limit.max
    full = await client.grep_pages(namespace=NS, query="FastAPI", limit=most)
    assert len(full.matches) == most and not full.complete
    listing = await client.list_pages(namespace=NS, prefix="/ja/", limit=200)
    largest = max(listing.pages, key=lambda p: p.total_chars)
    read = await client.read_page(namespace=NS, path=largest.path, max_chars=READ.max_chars.max)
    assert canonical_json.size(read) <= READ.max_chars.max and read.truncated

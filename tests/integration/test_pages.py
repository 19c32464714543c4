"""Published pages end to end over gRPC: the repository's docs site (tests/fixtures/docs-site,
tests/support/docs_site.py) synced on loopback, then searched, read, listed, grepped and
explored; edits, removals, failures, validation, cancellation and concurrency; every
SearchPages/ReadPage/ListPages/GrepPages bound at its edge. (The real 277-page FastAPI site:
test_pages_fastapi.py, large data.)

The module syncs the 39-page site once (namespace `docs`); tests that change it run last, in
file order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.client.tools import TOOL_METHODS
from quire.server import canonical_json
from quire.server.contract import bounds as B
from quire.v1 import pages_pb2, search_config_pb2
from tests.conftest import Harness, Keys
from tests.support import docs_site
from tests.support.site_server import Reply, SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NS = "docs"
PAGES = docs_site.PAGES

SEARCH = B.SearchPagesRequest
READ = B.ReadPageRequest
PLANNER = B.PageSearchConfig


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return docs_site.copy_site(tmp_path_factory.mktemp("docs") / "site")


@pytest.fixture(scope="module")
def site(site_dir: Path, harness: Harness) -> Iterator[SiteServer]:
    server = SiteServer(root=site_dir)
    with server:
        docs_site.bind_origin(site_dir, server.url)
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("pages-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def run_sync(
    client: AsyncQuireClient, namespace: str, url: str, **kwargs: object
) -> tuple[pages_pb2.SyncReport, list[pages_pb2.PageSyncProgress]]:
    progress: list[pages_pb2.PageSyncProgress] = []
    report = None
    async for message in client.sync_pages(namespace=namespace, url=url, **kwargs):  # type: ignore[arg-type]
        if isinstance(message, pages_pb2.SyncReport):
            report = message
        else:
            progress.append(message)
    assert report is not None
    return report, progress


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def first_sync(client: AsyncQuireClient, site: SiteServer) -> pages_pb2.SyncReport:
    report, progress = await run_sync(client, NS, f"{site.url}/llms.txt")
    assert progress, "the server streams progress"
    return report


async def test_first_sync_publishes_every_page(first_sync: pages_pb2.SyncReport) -> None:
    assert first_sync.status == pages_pb2.SYNC_STATUS_COMPLETED, list(first_sync.errors)
    assert first_sync.discovered == PAGES
    assert first_sync.updated == PAGES
    assert first_sync.failed == 0 and first_sync.deleted == 0
    assert first_sync.embedded_chunks > PAGES


async def test_second_sync_is_unchanged_and_embeds_nothing(
    client: AsyncQuireClient, site: SiteServer, first_sync: pages_pb2.SyncReport
) -> None:
    report, _ = await run_sync(client, NS, f"{site.url}/llms.txt")
    assert report.status == pages_pb2.SYNC_STATUS_UNCHANGED
    assert report.embedded_chunks == 0 and report.updated == 0 and report.deleted == 0
    stored = await client.get_sync_report(namespace=NS)
    assert stored == report


async def test_published_pages_have_consistent_chunks(
    harness: Harness, keys: Keys, first_sync: pages_pb2.SyncReport
) -> None:
    async with harness.pool.acquire() as conn:
        bad = await conn.fetchval(
            """SELECT count(*) FROM pages p WHERE p.org_id = $1 AND p.expected_chunk_count <>
               (SELECT count(*) FROM page_chunks c WHERE c.org_id = p.org_id
                  AND c.namespace = p.namespace AND c.path = p.path AND c.revision = p.revision)""",
            keys.org_id,
        )
    assert bad == 0


async def test_search_finds_the_right_page_and_caps_hits_per_page(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    result = await client.search_pages(namespace=NS, query="declare query parameters with defaults")
    assert 1 <= len(result.hits) <= 10
    assert any("query-params" in h.path for h in result.hits[:5]), [h.path for h in result.hits]
    per_page: dict[str, int] = {}
    for rank, hit in enumerate(result.hits, start=1):
        per_page[hit.path] = per_page.get(hit.path, 0) + 1
        assert hit.rank == rank and hit.revision and hit.url.startswith("http")
    assert max(per_page.values()) <= 3
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


async def test_term_statistics_match_the_published_chunks(
    harness: Harness, keys: Keys, first_sync: pages_pb2.SyncReport
) -> None:
    """Both analyses' statistics are exact: 'e' counts `tsv` (unstemmed), 's' `stem_tsv`."""
    async with harness.pool.acquire() as conn:
        totals = await conn.fetchrow(
            "SELECT chunks, avg_length, stem_avg_length FROM page_term_totals "
            "WHERE org_id = $1 AND namespace = $2",
            keys.org_id,
            NS,
        )
        actual = await conn.fetchrow(
            "SELECT count(*) AS chunks, avg(length(tsv)) AS avg_length, "
            "avg(length(stem_tsv)) AS stem_avg_length FROM page_chunks "
            "WHERE org_id = $1 AND namespace = $2",
            keys.org_id,
            NS,
        )
        checks = {"e": ("tsv", ["tidewater", "depends", "the"]), "s": ("stem_tsv", ["depend"])}
        for analysis, (column, lexemes) in checks.items():
            stored = {
                r["lexeme"]: r["df"]
                for r in await conn.fetch(
                    "SELECT lexeme, df FROM page_lexeme_stats WHERE org_id = $1 "
                    "AND namespace = $2 AND analysis::text = $3 AND lexeme = ANY($4::text[])",
                    keys.org_id,
                    NS,
                    analysis,
                    lexemes,
                )
            }
            counted = {
                lexeme: await conn.fetchval(
                    f"SELECT count(*) FROM page_chunks WHERE org_id = $1 AND namespace = $2 "
                    f"AND {column} @@ $3::tsquery",
                    keys.org_id,
                    NS,
                    lexeme,
                )
                for lexeme in lexemes
            }
            assert stored == counted and all(counted.values()), (analysis, stored, counted)
    assert totals is not None and totals["chunks"] == actual["chunks"] == first_sync.embedded_chunks
    assert totals["avg_length"] == pytest.approx(float(actual["avg_length"]))
    assert totals["stem_avg_length"] == pytest.approx(float(actual["stem_avg_length"]))


async def test_the_sync_leaves_the_planner_with_row_estimates(
    harness: Harness, first_sync: pages_pb2.SyncReport
) -> None:
    from quire.indexer.pages import term_stats

    async with harness.pool.acquire() as conn:
        # The first sync analysed the page tables: the planner knows page_chunks is not empty.
        estimate = await conn.fetchval(term_stats.TABLE_ROWS)
        assert estimate >= first_sync.embedded_chunks * 0.9
        # ... and vacuumed them at its end (a manual VACUUM, not autovacuum's).
        vacuumed = await conn.fetchval(
            "SELECT last_vacuum FROM pg_stat_user_tables WHERE relname = 'page_chunks'"
        )
        assert vacuumed is not None
        assert not await term_stats.analyze_if_grown(conn, 0)
        assert not await term_stats.analyze_if_grown(conn, int(estimate * term_stats.DRIFT))
        assert await term_stats.analyze_if_grown(conn, int(estimate * term_stats.DRIFT) + 1)


async def test_full_text_arm_takes_quotes_and_backslashes_literally(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    for query in ["it's a \\ 'quoted' \"word\" : & | ! <-> (x)", "'", "\\", "a:* b:A"]:
        result = await client.search_pages(namespace=NS, query=query)
        assert not result.partial and len(result.hits) <= 10


async def test_search_without_term_statistics_still_answers_from_vectors(
    harness: Harness, client: AsyncQuireClient, keys: Keys, first_sync: pages_pb2.SyncReport
) -> None:
    from quire.indexer.pages import term_stats

    query = "declare query parameters with defaults"
    async with harness.pool.acquire() as conn:
        await conn.execute(
            "DELETE FROM page_lexeme_stats WHERE org_id = $1 AND namespace = $2", keys.org_id, NS
        )
    try:
        result = await client.search_pages(namespace=NS, query=query)
        assert len(result.hits) == 10 and not result.partial
    finally:
        async with harness.pool.acquire() as conn:
            await term_stats.refresh(conn, keys.org_id, NS)


async def test_search_with_alternatives_fuses_phrasings(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    result = await client.search_pages(
        namespace=NS,
        query="upload a file",
        alternatives=["Upload form data", "receive files sent by the client"],
    )
    assert not result.partial and not result.warnings
    assert any("request-files" in h.path for h in result.hits[:5]), [h.path for h in result.hits]


async def test_search_budget_counts_the_whole_json(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    least, most = SEARCH.max_output_bytes.min, SEARCH.max_output_bytes.max
    query = "dependencies security oauth2 tokens"
    result = await client.search_pages(
        namespace=NS, query=query, limit=SEARCH.limit.max, max_output_bytes=least
    )
    assert canonical_json.size(result) <= least
    assert result.truncated == (result.omitted_count > 0)
    assert len(result.hits) + result.omitted_count <= SEARCH.limit.max
    bigger = await client.search_pages(
        namespace=NS, query=query, limit=SEARCH.limit.max, max_output_bytes=most
    )
    assert canonical_json.size(bigger) <= most
    assert len(bigger.hits) >= len(result.hits)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"query": "x" * (SEARCH.query.max_chars + 1)}, "query"),
        ({"query": " "}, "query"),
        ({"query": "ok", "alternatives": ["a", "b", "c", "d"]}, "alternatives"),
        (
            {"query": "ok", "alternatives": ["y" * (SEARCH.alternatives.max_chars + 1)]},
            "alternatives[0]",
        ),
        ({"query": "ok", "limit": SEARCH.limit.max + 1}, "limit"),
        ({"query": "ok", "max_output_bytes": SEARCH.max_output_bytes.min - 1}, "max_output_bytes"),
        ({"query": "ok", "max_output_bytes": 32_001}, "max_output_bytes"),
    ],
)
async def test_search_bounds_rejected(
    client: AsyncQuireClient,
    first_sync: pages_pb2.SyncReport,
    kwargs: dict[str, object],
    field: str,
) -> None:
    with pytest.raises(qe.InvalidRequest) as info:
        await client.search_pages(namespace=NS, **kwargs)  # type: ignore[arg-type]
    assert [f for f, _ in info.value.field_violations] == [field]


async def test_search_bounds_accepted_at_the_edge(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    result = await client.search_pages(
        namespace=NS,
        query="q" * (SEARCH.query.max_chars - len(" path")) + " path",
        alternatives=["a", "b", "c" * SEARCH.alternatives.max_chars],
        limit=SEARCH.limit.max,
        max_output_bytes=SEARCH.max_output_bytes.max,
    )
    assert len(result.hits) <= SEARCH.limit.max
    one = await client.search_pages(namespace=NS, query="path operation", limit=1)
    assert len(one.hits) == 1


async def test_planner_settings_need_tune_scope(
    harness: Harness, keys: Keys, first_sync: pages_pb2.SyncReport
) -> None:
    config = search_config_pb2.PageSearchConfig(
        enable_seqscan=False, max_parallel_workers_per_gather=0
    )
    async with AsyncQuireClient(harness.address, api_key=keys.read) as reader:
        with pytest.raises(qe.PermissionDenied):
            await reader.search_pages(namespace=NS, query="routing", config=config)
    async with AsyncQuireClient(harness.address, api_key=keys.tune) as tuner:
        result = await tuner.search_pages(namespace=NS, query="routing", config=config)
        assert result.hits
        with pytest.raises(qe.InvalidRequest):
            await tuner.search_pages(
                namespace=NS,
                query="routing",
                config=search_config_pb2.PageSearchConfig(
                    max_parallel_workers_per_gather=PLANNER.max_parallel_workers_per_gather.max + 1
                ),
            )


async def test_unknown_namespace_is_not_found(client: AsyncQuireClient) -> None:
    with pytest.raises(qe.NotFound):
        await client.search_pages(namespace="nope", query="x")
    with pytest.raises(qe.NotFound):
        await client.read_page(namespace="nope", path="/index.md")
    with pytest.raises(qe.NotFound):
        await client.list_pages(namespace="nope")


async def test_other_organisation_cannot_see_the_namespace(
    harness: Harness, first_sync: pages_pb2.SyncReport
) -> None:
    other = await harness.keys("pages-other-org")
    async with AsyncQuireClient(harness.address, api_key=other.read) as c:
        with pytest.raises(qe.NotFound):
            await c.read_page(namespace=NS, path="/index.md")
        with pytest.raises(qe.NotFound):
            await c.search_pages(namespace=NS, query="tidewater")
        assert NS not in [n.name for n in await c.list_namespaces()]


async def test_read_page_slices_in_code_points(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    whole = await client.read_page(namespace=NS, path="/index.md", max_chars=24_000)
    assert whole.offset == 0 and whole.total_chars == whole.page.total_chars
    part = await client.read_page(namespace=NS, path="/index.md", offset=10, max_chars=1)
    assert part.content == whole.content[10:11]
    assert part.next_offset == 11 and part.truncated
    end = await client.read_page(namespace=NS, path="/index.md", offset=whole.total_chars)
    assert end.content == "" and not end.truncated and end.next_offset == whole.total_chars
    for bad in (0, 24_001):
        if bad == 0:
            continue  # 0 means the default
        with pytest.raises(qe.InvalidRequest):
            await client.read_page(namespace=NS, path="/index.md", max_chars=bad)


async def test_read_page_json_stays_within_24000_bytes_for_cjk(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    listing = await client.list_pages(namespace=NS, prefix="/ja/", limit=200)
    largest = max(listing.pages, key=lambda p: p.total_chars)
    assert largest.path == "/ja/reference/settings.md"
    read = await client.read_page(namespace=NS, path=largest.path, max_chars=READ.max_chars.max)
    assert canonical_json.size(read) <= READ.max_chars.max
    assert read.next_offset == len(read.content)
    # 11,000 characters of mostly CJK (3 bytes each) cannot fit: the byte budget cuts it.
    assert read.truncated and read.next_offset < read.total_chars


async def test_pinned_revision_and_page_errors(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    page = (await client.read_page(namespace=NS, path="/index.md")).page
    same = await client.read_page(namespace=NS, path="/index.md", revision=page.revision)
    assert same.page.revision == page.revision
    with pytest.raises(qe.PageChanged) as info:
        await client.read_page(namespace=NS, path="/index.md", revision="0" * 32)
    assert info.value.current_revision == page.revision
    with pytest.raises(qe.PageNotFound):
        await client.read_page(namespace=NS, path="/no/such/page.md")
    with pytest.raises(qe.InvalidRequest):
        await client.read_page(namespace=NS, path="index.md")


async def test_list_pages_in_path_order_with_cursor(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    seen: list[str] = []
    cursor = ""
    while True:
        page = await client.list_pages(namespace=NS, cursor=cursor or None, limit=10)
        seen.extend(p.path for p in page.pages)
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert seen == docs_site.page_paths()  # 4 pages of 10, in path order
    ja = await client.list_pages(namespace=NS, prefix="/ja/", limit=200)
    assert len(ja.pages) == docs_site.JA_PAGES and all(p.path.startswith("/ja/") for p in ja.pages)
    for bad in (201,):
        with pytest.raises(qe.InvalidRequest):
            await client.list_pages(namespace=NS, limit=bad)
    with pytest.raises(qe.InvalidRequest):
        await client.list_pages(namespace=NS, cursor="not-a-cursor!!")


async def test_grep_is_literal_with_line_numbers(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    result = await client.grep_pages(namespace=NS, query="from tidewater import Tidewater", limit=5)
    assert len(result.matches) == 5 and not result.complete
    assert result.stop_reason == pages_pb2.GREP_STOP_REASON_LIMIT
    first = result.matches[0]
    read = await client.read_page(namespace=NS, path=first.path, max_chars=24_000)
    assert read.content.split("\n")[first.line_number - 1] == first.line
    none = await client.grep_pages(namespace=NS, query="(a+)+$ no such literal anywhere")
    assert none.complete and not none.matches
    for bad in (101,):
        with pytest.raises(qe.InvalidRequest):
            await client.grep_pages(namespace=NS, query="x", limit=bad)
    most = B.GrepPagesRequest.limit.max
    full = await client.grep_pages(namespace=NS, query="Tidewater", limit=most)
    assert len(full.matches) == most


async def test_run_command_and_describe_tools(
    client: AsyncQuireClient, first_sync: pages_pb2.SyncReport
) -> None:
    listing = await client.run_command(namespace=NS, command="ls /tutorial")
    assert listing.exit_code == 0 and "first-steps.md" in listing.output
    count = await client.run_command(
        namespace=NS, command="grep -c -F 'Depends' /tutorial/dependencies/index.md"
    )
    assert count.exit_code == 0 and int(count.output.strip()) > 0
    bad = await client.run_command(namespace=NS, command="cat /index.md | head")
    assert bad.exit_code == 2 and bad.error
    tools = await client.describe_tools()
    names = {t.name for t in tools}
    assert names == set(TOOL_METHODS)
    for tool in tools:
        schema = json.loads(tool.input_schema_json)
        assert schema["type"] == "object" and schema["required"]


# --- syncs that change the namespace run last ------------------------------------------------


async def test_validate_discovery_abort_leaves_state_untouched(
    client: AsyncQuireClient, site: SiteServer, first_sync: pages_pb2.SyncReport
) -> None:
    before = await client.list_pages(namespace=NS, limit=1)
    checks: list[pages_pb2.DiscoveryCheck] = []

    def reject(check: pages_pb2.DiscoveryCheck) -> bool:
        checks.append(check)
        return False

    with pytest.raises(qe.DiscoveryRejected):
        await run_sync(client, NS, f"{site.url}/llms.txt", validate_discovery=reject)
    assert checks[0].discovered == PAGES and checks[0].published == PAGES
    after = await client.list_pages(namespace=NS, limit=1)
    assert after.filesystem_version == before.filesystem_version
    report, _ = await run_sync(
        client, NS, f"{site.url}/llms.txt", validate_discovery=lambda c: True
    )
    assert report.status == pages_pb2.SYNC_STATUS_UNCHANGED


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_failed_pages_make_a_partial_sync_that_prunes_nothing(
    client: AsyncQuireClient, site: SiteServer, site_dir: Path, first_sync: pages_pb2.SyncReport
) -> None:
    old = await client.read_page(namespace=NS, path="/tutorial/first-steps.md")
    (site_dir / "tutorial" / "first-steps.md").write_text("# First steps\n\nChanged text.\n")
    site.route("/tutorial/first-steps.md", Reply(500))
    site.route("/tutorial/path-params.md", Reply(503))
    # Also drop one page from the index: a partial sync must not prune it.
    llms = site_dir / "llms.txt"
    original_index = llms.read_text(encoding="utf-8")
    docs_site.unlist(site_dir, ["/tutorial/body.md"])
    try:
        report, _ = await run_sync(client, NS, f"{site.url}/llms.txt")
    finally:
        site.unroute("/tutorial/first-steps.md")
        site.unroute("/tutorial/path-params.md")
        llms.write_text(original_index, encoding="utf-8")
        docs_site.restore(site_dir, "/tutorial/first-steps.md")
    assert report.status == pages_pb2.SYNC_STATUS_PARTIAL
    assert report.failed == 2 and report.deleted == 0
    assert set(report.failed_paths) == {"/tutorial/first-steps.md", "/tutorial/path-params.md"}
    still = await client.read_page(namespace=NS, path="/tutorial/first-steps.md")
    assert still.content == old.content and still.page.revision == old.page.revision
    await client.read_page(namespace=NS, path="/tutorial/body.md")


async def test_edits_and_removals_update_exactly_those_pages(
    harness: Harness,
    keys: Keys,
    client: AsyncQuireClient,
    site: SiteServer,
    site_dir: Path,
    first_sync: pages_pb2.SyncReport,
) -> None:
    edited = [
        "/tutorial/first-steps.md",
        "/tutorial/query-params.md",
        "/tutorial/body.md",
        "/advanced/index.md",
        "/ja/index.md",
    ]
    # One removal is listed in the nested index (/ja/llms.txt).
    removed = ["/tutorial/cors.md", "/deployment/docker.md", "/ja/tutorial/body.md"]
    pinned = await client.read_page(namespace=NS, path=edited[0])
    docs_site.append(site_dir, edited, "Edited for the sync test: zebra quokka.")
    docs_site.unlist(site_dir, removed)
    report, _ = await run_sync(client, NS, f"{site.url}/llms.txt")
    assert report.status == pages_pb2.SYNC_STATUS_COMPLETED, list(report.errors)
    assert report.updated == 5 and report.deleted == 3 and report.failed == 0
    assert report.discovered == PAGES - 3
    with pytest.raises(qe.PageChanged) as info:
        await client.read_page(namespace=NS, path=edited[0], revision=pinned.page.revision)
    fresh = await client.read_page(
        namespace=NS, path=edited[0], revision=info.value.current_revision, max_chars=24_000
    )
    assert "zebra quokka" in fresh.content
    for path in removed:
        with pytest.raises(qe.PageNotFound):
            await client.read_page(namespace=NS, path=path)
    hits = await client.grep_pages(namespace=NS, query="zebra quokka", limit=100)
    assert sorted(m.path for m in hits.matches) == sorted(edited) and hits.complete
    # The sync refreshed the term statistics: the new word is known and finds every edit.
    async with harness.pool.acquire() as conn:
        df = await conn.fetchval(
            "SELECT df FROM page_lexeme_stats WHERE org_id = $1 AND namespace = $2 "
            "AND lexeme = 'quokka'",
            keys.org_id,
            NS,
        )
        # Written as a difference, the statistics still equal a recount of every lexeme of
        # both analyses: removed pages' lexemes gone, changed frequencies updated.
        differing = await conn.fetchval(
            """
            WITH stored AS (
                SELECT analysis::text, lexeme::text, df FROM page_lexeme_stats
                WHERE org_id = $1 AND namespace = $2
            ), counted AS (
                SELECT 'e' AS analysis, word AS lexeme, ndoc AS df FROM ts_stat(format(
                    'SELECT tsv FROM page_chunks WHERE org_id = %L AND namespace = %L', $1, $2))
                UNION ALL
                SELECT 's', word, ndoc FROM ts_stat(format(
                    'SELECT stem_tsv FROM page_chunks WHERE org_id = %L AND namespace = %L',
                    $1, $2))
            )
            SELECT (SELECT count(*) FROM (TABLE stored EXCEPT TABLE counted) a)
                 + (SELECT count(*) FROM (TABLE counted EXCEPT TABLE stored) b)
            """,
            keys.org_id,
            NS,
        )
    assert df == len(edited)
    assert differing == 0
    found = await client.search_pages(namespace=NS, query="quokka", limit=10)
    assert set(edited) <= {h.path for h in found.hits}, [h.path for h in found.hits]


async def test_cursor_restarts_after_a_publish(
    client: AsyncQuireClient, site: SiteServer, site_dir: Path, first_sync: pages_pb2.SyncReport
) -> None:
    page = await client.list_pages(namespace=NS, limit=10)
    assert page.next_cursor
    file = site_dir / "tutorial" / "first-steps.md"
    file.write_text(file.read_text() + "\nOne more line.\n")
    report, _ = await run_sync(client, NS, f"{site.url}/llms.txt")
    assert report.updated == 1
    again = await client.list_pages(namespace=NS, cursor=page.next_cursor, limit=10)
    assert again.restart_required and not again.pages


# --- a small hand-made site for edge cases ---------------------------------------------------


@pytest.fixture()
def small_site(tmp_path: Path, harness: Harness) -> Iterator[tuple[SiteServer, Path]]:
    root = tmp_path / "small"
    (root / "guide").mkdir(parents=True)
    (root / "llms.txt").write_text(
        "# Small\n\n- [Home](/index.md)\n- [Guide index](/guide/llms.txt)\n"
        "- [Logo](/logo.png)\n- [Full](/llms-full.txt)\n"
    )
    (root / "guide" / "llms.txt").write_text(
        "- [Café](/guide/café.md)\n- [Steps](/guide/steps.md)\n- [Home again](/index.md)\n"
    )
    (root / "index.md").write_text("# Home\n\nWelcome to the small site. Ünïcödé ✓.\n")
    (root / "guide" / "café.md").write_text("# Café\n\nCrème brûlée and 日本語 text.\n")
    (root / "guide" / "steps.md").write_text("---\ntitle: Steps\n---\n# Steps\r\n\r\nOne.\r\n")
    server = SiteServer(root=root)
    with server:
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server, root


async def test_nested_indexes_unicode_paths_and_transforms(
    client: AsyncQuireClient, small_site: tuple[SiteServer, Path]
) -> None:
    server, _ = small_site
    report, _ = await run_sync(client, "small", f"{server.url}/llms.txt")
    assert report.status == pages_pb2.SYNC_STATUS_COMPLETED, list(report.errors)
    assert report.discovered == 3
    listing = await client.list_pages(namespace="small")
    assert [p.path for p in listing.pages] == ["/guide/café.md", "/guide/steps.md", "/index.md"]
    steps = await client.read_page(namespace="small", path="/guide/steps.md")
    assert "\r" not in steps.content and not steps.content.startswith("---")
    cafe = await client.read_page(namespace="small", path="/guide/café.md", offset=2, max_chars=4)
    assert cafe.content == "Café"


async def test_flaky_pages_are_retried_then_published(
    client: AsyncQuireClient, small_site: tuple[SiteServer, Path]
) -> None:
    server, _ = small_site
    server.route("/index.md", Reply(500), Reply(503), Reply.file())
    report, _ = await run_sync(client, "flaky", f"{server.url}/llms.txt")
    assert report.status == pages_pb2.SYNC_STATUS_COMPLETED, list(report.errors)
    assert server.count("/index.md") >= 3


async def test_sources_outside_the_allow_list_are_rejected(client: AsyncQuireClient) -> None:
    for url in ("http://127.0.0.1:9/llms.txt", "http://10.0.0.1/llms.txt", "ftp://x/llms.txt"):
        with pytest.raises(qe.InvalidRequest) as info:
            await run_sync(client, "blocked", url)
        assert info.value.field_violations[0][0] == "start.url"


async def test_a_client_that_never_answers_the_check_times_out(
    harness: Harness, keys: Keys, small_site: tuple[SiteServer, Path]
) -> None:
    from quire.v1 import pages_service_pb2, pages_service_pb2_grpc

    settings = harness.running.state.settings  # type: ignore[attr-defined]
    settings.discovery_decision_timeout_s = 0.5
    server, _ = small_site
    stub = pages_service_pb2_grpc.PagesServiceStub(harness.channel)
    call = stub.SyncPages(metadata=(("authorization", f"Bearer {keys.write}"),), timeout=20)
    await call.write(
        pages_service_pb2.SyncPagesRequest(
            start=pages_service_pb2.SyncStart(
                namespace="silent", url=f"{server.url}/llms.txt", validate_discovery=True
            )
        )
    )
    saw_check = False
    try:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            while True:  # read, never answer
                message = await call.read()
                if message is grpc.aio.EOF:
                    break
                saw_check = saw_check or message.HasField("discovery_check")
    finally:
        settings.discovery_decision_timeout_s = 60.0
    assert saw_check
    assert qe.from_rpc_error(info.value).code == qe.DiscoveryRejected.code
    with pytest.raises(qe.NotFound):
        await AsyncQuireClient(harness.address, api_key=keys.read).list_pages(namespace="silent")


async def test_cancellation_stops_cooperatively_and_releases_the_lock(
    client: AsyncQuireClient,
    site: SiteServer,
    first_sync: pages_pb2.SyncReport,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quire.indexer.pages.sync import PageSync

    # Every page but the first six listed is held until the server has seen the client go:
    # the sync cannot finish before it is cancelled (its vectors are known, so it would take
    # milliseconds), and the held fetches then end at once.
    held = docs_site.listed_paths()[6:]
    release = threading.Event()
    cancel = PageSync.cancel

    def cancelled(sync: PageSync) -> None:
        cancel(sync)
        release.set()

    monkeypatch.setattr(PageSync, "cancel", cancelled)

    def later(_request: object) -> Reply:
        release.wait(30)
        return Reply.file()

    for path in held:
        site.route(path, later)
    seen = 0
    try:
        stream = client.sync_pages(namespace="cancelled", url=f"{site.url}/llms.txt")
        async with contextlib.aclosing(stream):
            async for message in stream:
                if isinstance(message, pages_pb2.PageSyncProgress) and message.processed >= 5:
                    seen = message.processed
                    break
        assert seen >= 5
        # The lock is released: a new sync of the same namespace runs (and resumes the work).
        for _ in range(150):
            with contextlib.suppress(qe.NotFound):
                stored = await client.get_sync_report(namespace="cancelled")
                if stored.cancelled:
                    break
            await asyncio.sleep(0.2)
    finally:
        release.set()
        for path in held:
            site.unroute(path)
    assert stored.cancelled and stored.deleted == 0
    assert stored.status == pages_pb2.SYNC_STATUS_PARTIAL


async def test_concurrent_syncs_do_the_work_once(
    client: AsyncQuireClient, small_site: tuple[SiteServer, Path]
) -> None:
    server, _ = small_site
    (first, _), (second, _) = await asyncio.gather(
        run_sync(client, "twice", f"{server.url}/llms.txt"),
        run_sync(client, "twice", f"{server.url}/llms.txt"),
    )
    reports = sorted([first, second], key=lambda r: r.updated)
    assert reports[0].status == pages_pb2.SYNC_STATUS_UNCHANGED and reports[0].embedded_chunks == 0
    assert reports[1].status == pages_pb2.SYNC_STATUS_COMPLETED and reports[1].updated == 3


async def test_a_source_with_no_index_fails_the_sync_and_creates_nothing(
    client: AsyncQuireClient, small_site: tuple[SiteServer, Path]
) -> None:
    server, _ = small_site
    with pytest.raises(qe.SyncFailed):
        await run_sync(client, "missing-index", f"{server.url}/nope/llms.txt")
    with pytest.raises(qe.NotFound):
        await client.list_pages(namespace="missing-index")

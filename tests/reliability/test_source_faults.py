"""Hostile page sources: each sync ends with a correct SyncReport in bounded time, and nothing
previously published is lost.

Every site is synced once in a good state, then again with faults routed in: slow bodies,
resets, truncated bodies, 429 + Retry-After, off-origin redirects, redirect loops, a body
growing past 4 MiB, an index that lists itself, a page that never answers. The fetcher's
deadlines are shortened for the module (the production defaults — 10 s per attempt, 30 s per
fetch — are the same code path, just slower).
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer.pages import fetch as fetch_mod
from quire.indexer.pages import sync as sync_mod
from quire.v1 import pages_pb2
from tests.conftest import Harness, Keys
from tests.support.site_server import Reply, SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True

ATTEMPT_TIMEOUT = 1.5
FETCH_DEADLINE = 4.0
# A faulty sync must end within the fetch deadline plus embedding/publishing slack.
SYNC_BOUND_S = 25.0

GOOD_PAGES = ["good", "slow", "reset", "truncated", "limited", "offsite", "loop", "huge", "hang"]


def _page(name: str, version: str) -> Reply:
    return Reply.text(
        f"# {name.title()}\n\n{name} page, version {version}, token tok{name}{version}.\n"
    )


def _index(names: list[str], extra: str = "") -> Reply:
    links = "\n".join(f"- [{n.title()}](/{n}.md)" for n in names)
    return Reply.text(f"# Site\n\n{links}\n{extra}", content_type="text/plain; charset=utf-8")


@pytest.fixture(scope="module", autouse=True)
def short_fetch_deadlines() -> Iterator[None]:
    patch = pytest.MonkeyPatch()
    patch.setattr(
        sync_mod,
        "PageFetcher",
        functools.partial(
            fetch_mod.PageFetcher,
            attempt_timeout=ATTEMPT_TIMEOUT,
            fetch_deadline=FETCH_DEADLINE,
            max_attempts=3,
            backoff_base=0.05,
            backoff_cap=0.2,
        ),
    )
    try:
        yield
    finally:
        patch.undo()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("faults-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


@pytest.fixture()
def site(harness: Harness) -> Iterator[SiteServer]:
    server = SiteServer()
    with server:
        allow = harness.running.state.settings.allow_sources  # type: ignore[attr-defined]
        allow.append(server.origin)
        try:
            yield server
        finally:
            allow.remove(server.origin)


async def run_sync(
    client: AsyncQuireClient, namespace: str, url: str
) -> tuple[pages_pb2.SyncReport, float]:
    started = time.monotonic()
    report = None
    async for message in client.sync_pages(namespace=namespace, url=url, timeout=120):
        if isinstance(message, pages_pb2.SyncReport):
            report = message
    assert report is not None
    return report, time.monotonic() - started


async def _contents(client: AsyncQuireClient, namespace: str, names: list[str]) -> dict[str, str]:
    out = {}
    for name in names:
        read = await client.read_page(namespace=namespace, path=f"/{name}.md")
        out[name] = read.content
    return out


async def test_faulty_pages_fail_alone_and_keep_their_published_text(
    client: AsyncQuireClient, site: SiteServer
) -> None:
    ns = "faults"
    site.route("/llms.txt", _index(GOOD_PAGES))
    for name in GOOD_PAGES:
        site.route(f"/{name}.md", _page(name, "v1"))
    first, _ = await run_sync(client, ns, f"{site.url}/llms.txt")
    assert first.status == pages_pb2.SYNC_STATUS_COMPLETED, list(first.errors)
    assert first.updated == len(GOOD_PAGES)

    v2 = {name: _page(name, "v2") for name in GOOD_PAGES}
    body_v2 = v2["slow"].body
    site.route("/good.md", v2["good"])
    site.route("/slow.md", Reply.slow(body_v2, chunk_size=16, chunk_delay=0.02))
    site.route("/reset.md", Reply.reset())
    site.route("/truncated.md", Reply.truncated(v2["truncated"].body, missing=50))
    site.route("/limited.md", Reply.retry_after(1), v2["limited"])
    site.route("/offsite.md", Reply.redirect("http://localhost:9/offsite.md"))
    site.route("/loop.md", Reply.redirect("/loop2.md"))
    site.route("/loop2.md", Reply.redirect("/loop.md"))
    site.route("/huge.md", Reply.endless(4 * 1024 * 1024 + 65536))
    site.route("/hang.md", Reply.hang())
    site.reset_counts()

    report, took = await run_sync(client, ns, f"{site.url}/llms.txt")
    assert took < SYNC_BOUND_S, f"a faulty sync took {took:.1f} s"
    failing = {"reset", "truncated", "offsite", "loop", "huge", "hang"}
    assert report.status == pages_pb2.SYNC_STATUS_PARTIAL
    assert report.discovered == len(GOOD_PAGES)
    assert report.failed == len(failing), list(report.errors)
    assert {p.strip("/").removesuffix(".md") for p in report.failed_paths} == failing
    assert report.updated == len(GOOD_PAGES) - len(failing)  # good, slow, limited
    assert report.deleted == 0, "nothing is pruned after a failed fetch"
    assert report.unknown == 0
    kinds = " ".join(report.errors)
    for kind in ("connection", "truncated", "rejected", "redirect", "too_large", "timeout"):
        assert kind in kinds or (kind == "timeout" and "deadline" in kinds), (kind, kinds)
    assert site.count("/limited.md") >= 2, "a 429 is retried"
    assert site.count("/huge.md") == 1, "an over-size body is not retried"

    stored = await client.get_sync_report(namespace=ns)
    assert stored == report
    contents = await _contents(client, ns, GOOD_PAGES)
    for name in GOOD_PAGES:
        version = "v1" if name in failing else "v2"
        assert f"tok{name}{version}" in contents[name], (name, contents[name])
    # The published pages are whole: every page has all its chunks.
    pages = await client.list_pages(namespace=ns)
    assert {p.path for p in pages.pages} == {f"/{n}.md" for n in GOOD_PAGES}


async def test_a_failing_index_changes_nothing(client: AsyncQuireClient, site: SiteServer) -> None:
    ns = f"index-{uuid.uuid4().hex[:6]}"
    names = ["one", "two"]
    site.route("/llms.txt", _index(names))
    for name in names:
        site.route(f"/{name}.md", _page(name, "v1"))
    first, _ = await run_sync(client, ns, f"{site.url}/llms.txt")
    assert first.status == pages_pb2.SYNC_STATUS_COMPLETED, list(first.errors)
    before = await client.get_sync_report(namespace=ns)
    for reply in (Reply(500), Reply.hang(), Reply.truncated("# Site\n", missing=10), Reply.reset()):
        site.route("/llms.txt", reply)
        started = time.monotonic()
        try:
            report, _ = await run_sync(client, ns, f"{site.url}/llms.txt")
        except Exception as exc:  # a typed error is acceptable; a hang or INTERNAL is not
            from quire.client import exceptions as qe

            assert isinstance(exc, qe.QuireError) and not isinstance(exc, qe.Internal), exc
        else:
            assert report.status == pages_pb2.SYNC_STATUS_PARTIAL, report
            assert report.deleted == 0
        assert time.monotonic() - started < SYNC_BOUND_S
        contents = await _contents(client, ns, names)
        assert all(f"tok{n}v1" in contents[n] for n in names), reply
    listed = await client.list_pages(namespace=ns)
    assert len(listed.pages) == 2
    assert before.finished_at.seconds > 0


async def test_a_busy_source_is_a_typed_error_with_retry_after(
    client: AsyncQuireClient, site: SiteServer
) -> None:
    from quire.client import PageSourceBusy, SyncFailed

    ns = f"busy-{uuid.uuid4().hex[:6]}"
    site.route("/llms.txt", _index(["one"]))
    site.route("/one.md", _page("one", "v1"))
    first, _ = await run_sync(client, ns, f"{site.url}/llms.txt")
    assert first.status == pages_pb2.SYNC_STATUS_COMPLETED, list(first.errors)
    # A wait past the fetch deadline fails the index fetch at once, keeping the server's ask.
    for status, wait in ((429, 120), (503, 90)):
        site.route("/llms.txt", Reply.retry_after(wait, status=status))
        with pytest.raises(PageSourceBusy) as caught:
            await run_sync(client, ns, f"{site.url}/llms.txt")
        assert caught.value.retry_after is not None
        assert caught.value.retry_after.total_seconds() == wait, status
        assert str(status) in caught.value.message or "rate" in caught.value.message
        assert "tokonev1" in (await _contents(client, ns, ["one"]))["one"]
    # Other server errors stay SYNC_FAILED: only load refusals mean "come back later".
    site.route("/llms.txt", Reply(500))
    with pytest.raises(SyncFailed):
        await run_sync(client, f"busy-new-{uuid.uuid4().hex[:6]}", f"{site.url}/llms.txt")
    assert (await client.get_sync_report(namespace=ns)) == first


async def test_an_index_that_lists_itself_ends(client: AsyncQuireClient, site: SiteServer) -> None:
    ns = f"self-{uuid.uuid4().hex[:6]}"
    site.route(
        "/llms.txt",
        _index(
            ["only"],
            extra="- [Me](/llms.txt)\n- [Me again](/./llms.txt)\n- [Nested](/n/llms.txt)\n",
        ),
    )
    site.route("/n/llms.txt", _index(["only"], extra="- [Up](/llms.txt)\n- [Self](/n/llms.txt)\n"))
    site.route("/only.md", _page("only", "v1"))
    report, took = await run_sync(client, ns, f"{site.url}/llms.txt")
    assert took < SYNC_BOUND_S
    assert report.status == pages_pb2.SYNC_STATUS_COMPLETED, list(report.errors)
    assert report.discovered == 1
    assert site.count("/llms.txt") == 1 and site.count("/n/llms.txt") == 1


async def test_a_page_growing_past_the_limit_is_refused_without_reading_it_all(
    client: AsyncQuireClient, site: SiteServer
) -> None:
    ns = f"huge-{uuid.uuid4().hex[:6]}"
    site.route("/llms.txt", _index(["big", "fine"]))
    site.route("/big.md", Reply.endless(64 * 1024 * 1024))  # 64 MiB, streamed
    site.route("/fine.md", _page("fine", "v1"))
    report, took = await run_sync(client, ns, f"{site.url}/llms.txt")
    assert took < SYNC_BOUND_S
    assert report.failed == 1 and list(report.failed_paths) == ["/big.md"]
    assert "too_large" in " ".join(report.errors)
    assert report.updated == 1

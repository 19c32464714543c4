"""Graceful shutdown with a long call in flight: a server stopped in the middle of a SyncPages
ends it within its grace period plus the time the page in flight needs, leaves every published
page whole, and leaves nothing held (lock, connections) that would stop the next sync.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import pytest_asyncio
from grpc import aio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.v1 import pages_pb2
from tests.support.site_server import Reply, SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")

PAGES = [f"p{i:02d}" for i in range(24)]
PAGE_DELAY_S = 0.6  # 24 pages, 8 fetched at a time: about 2 s of fetching
GRACE_S = 1.0
# The grace period, then the page in flight finishes its transaction and the pool closes.
STOP_BOUND_S = GRACE_S + 10.0

WHOLE_PAGES = """
SELECT p.path, p.expected_chunk_count,
       (SELECT count(*) FROM page_chunks c WHERE c.org_id = p.org_id
          AND c.namespace = p.namespace AND c.path = p.path) AS chunks
FROM pages p WHERE p.org_id = $1 AND p.namespace = $2
"""


@dataclass
class Server:
    running: Any
    address: str
    pool: Any


def _page(name: str) -> str:
    return f"# {name}\n\nPage {name}, shutdown token tok{name}.\n\n" + "Some text. " * 60


@pytest_asyncio.fixture(loop_scope="session")
async def site() -> AsyncIterator[SiteServer]:
    server = SiteServer()
    links = "\n".join(f"- [{n}](/{n}.md)" for n in PAGES)
    server.route("/llms.txt", Reply.text(f"# Site\n\n{links}\n", content_type="text/plain"))
    for name in PAGES:
        body = _page(name).encode()
        server.route(
            f"/{name}.md",
            Reply(200, body, {"Content-Type": "text/markdown"}, delay=PAGE_DELAY_S),
        )
    with server:
        yield server


async def _start(database_url: str, embeddings: Any, origin: str) -> Server:
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings

    settings = Settings(
        address="127.0.0.1:0",
        database_url=database_url,
        grace_seconds=GRACE_S,
        allow_sources=[origin],
    )
    pool = await prepare_database(database_url, settings)
    running = await start(settings, pool, embeddings)
    return Server(running, f"127.0.0.1:{running.port}", pool)


async def test_stopping_mid_sync_leaves_whole_pages_and_no_lock(
    database_url: str, embeddings: Any, site: SiteServer
) -> None:
    from quire.server import auth

    first = await _start(database_url, embeddings, site.origin)
    async with first.pool.acquire() as conn:
        org = await auth.ensure_organisation(conn, f"shutdown-{uuid.uuid4().hex[:6]}")
        key = (await auth.create_key(conn, org, frozenset(auth.ALL_SCOPES))).secret
    namespace = "shutdown"
    seen: list[Any] = []
    outcome: list[BaseException | pages_pb2.SyncReport] = []

    async def sync() -> None:
        async with AsyncQuireClient(first.address, api_key=key) as client:
            try:
                async for message in client.sync_pages(
                    namespace=namespace, url=f"{site.url}/llms.txt", timeout=120
                ):
                    seen.append(message)
                    if isinstance(message, pages_pb2.SyncReport):
                        outcome.append(message)
            except Exception as exc:  # the server going away mid-call
                outcome.append(exc)

    syncing = asyncio.create_task(sync())
    deadline = time.monotonic() + 30
    while not any(isinstance(m, pages_pb2.PageSyncProgress) and m.updated >= 2 for m in seen):
        assert time.monotonic() < deadline, "the sync never published a page"
        assert not syncing.done(), outcome
        await asyncio.sleep(0.05)

    started = time.monotonic()
    await first.running.stop()
    took = time.monotonic() - started
    await asyncio.wait_for(syncing, 15)
    assert took < STOP_BOUND_S, f"stop took {took:.1f} s with a sync in flight"
    assert outcome, "the client saw neither a report nor an error"
    ended = outcome[0]
    if isinstance(ended, pages_pb2.SyncReport):
        # The sync may have finished inside the grace period.
        assert ended.status == pages_pb2.SYNC_STATUS_COMPLETED, ended
    else:
        # What grpc says when a server stops with calls in flight: retryable, never INTERNAL.
        assert isinstance(ended, qe.Unavailable), repr(ended)

    # A new server on the same database: every page the stopped sync published is whole, and
    # the namespace lock is free, so the next sync completes and publishes every page.
    second = await _start(database_url, embeddings, site.origin)
    try:
        async with second.pool.acquire() as conn:
            rows = await conn.fetch(WHOLE_PAGES, org, namespace)
        assert rows, "the stopped sync published nothing before the stop"
        for row in rows:
            assert row["chunks"] == row["expected_chunk_count"], dict(row)
        async with AsyncQuireClient(second.address, api_key=key) as client:
            report = None
            async for message in client.sync_pages(
                namespace=namespace, url=f"{site.url}/llms.txt", timeout=120
            ):
                if isinstance(message, pages_pb2.SyncReport):
                    report = message
            assert report is not None
            # Every page may have been published within the stop's grace period (the client
            # then saw the server go away, not the report): nothing is left to do.
            left = pages_pb2.SYNC_STATUS_COMPLETED if len(rows) < len(PAGES) else None
            assert report.status == (left or pages_pb2.SYNC_STATUS_UNCHANGED), report
            assert report.failed == 0 and report.discovered == len(PAGES)
            assert report.updated == len(PAGES) - len(rows), "published pages are not redone"
            listed = await client.list_pages(namespace=namespace)
            assert {p.path for p in listed.pages} == {f"/{n}.md" for n in PAGES}
            read = await client.read_page(namespace=namespace, path="/p23.md")
            assert "tokp23" in read.content
    finally:
        await second.running.stop(grace=1.0)
    await assert_no_server_left(first)


async def assert_no_server_left(server: Server) -> None:
    channel = aio.insecure_channel(server.address)
    try:
        with pytest.raises(aio.AioRpcError) as info:
            from grpc_health.v1 import health_pb2, health_pb2_grpc

            await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=2
            )
        assert info.value.code() in (
            grpc.StatusCode.UNAVAILABLE,
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
    finally:
        await channel.close(None)

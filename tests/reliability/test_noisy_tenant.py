"""A noisy tenant at its concurrency bound: its next call is refused at once with a typed,
retryable RESOURCE_EXHAUSTED, while another tenant's calls go through on the same server.

The per-organisation bound (`QUIRE_ORG_CONCURRENCY`) is set to 4 here and held by four slow
syncs, so the test does not depend on timing under load.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.v1 import pages_pb2
from tests.support.site_server import Reply, SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")

LIMIT = 4
SLOW_PAGE_S = 4.0


async def test_a_tenant_at_its_bound_is_refused_and_others_are_served(
    database_url: str, embeddings: Any
) -> None:
    from quire.server import auth
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings

    site = SiteServer()
    site.route("/llms.txt", Reply.text("# Site\n\n- [Slow](/slow.md)\n", content_type="text/plain"))
    site.route(
        "/slow.md",
        Reply(200, b"# Slow\n\nslow page\n", {"Content-Type": "text/markdown"}, delay=SLOW_PAGE_S),
    )
    with site:
        settings = Settings(
            address="127.0.0.1:0",
            database_url=database_url,
            grace_seconds=1.0,
            allow_sources=[site.origin],
            org_concurrency=LIMIT,
        )
        pool = await prepare_database(database_url, settings)
        running = await start(settings, pool, embeddings)
        address = f"127.0.0.1:{running.port}"
        keys = {}
        async with pool.acquire() as conn:
            for tenant in ("noisy", "quiet"):
                org = await auth.ensure_organisation(conn, f"{tenant}-{uuid.uuid4().hex[:6]}")
                keys[tenant] = (await auth.create_key(conn, org, frozenset(auth.ALL_SCOPES))).secret
        started: list[int] = []

        async def slow_sync(client: AsyncQuireClient, i: int) -> None:
            async for message in client.sync_pages(
                namespace=f"ns{i}", url=f"{site.url}/llms.txt", timeout=60
            ):
                if isinstance(message, pages_pb2.PageSyncProgress) and i not in started:
                    started.append(i)

        try:
            async with (
                AsyncQuireClient(address, api_key=keys["noisy"]) as noisy,
                AsyncQuireClient(address, api_key=keys["quiet"]) as quiet,
            ):
                syncs = [asyncio.create_task(slow_sync(noisy, i)) for i in range(LIMIT)]
                deadline = time.monotonic() + 20
                while len(started) < LIMIT:
                    assert time.monotonic() < deadline, f"only {started} syncs started"
                    await asyncio.sleep(0.05)
                # The noisy tenant is at its bound: the next call is refused at once.
                t0 = time.monotonic()
                with pytest.raises(qe.ResourceExhausted) as refused:
                    await noisy.list_collections()
                assert time.monotonic() - t0 < 1.0
                assert refused.value.retry_after is not None
                assert "concurrent calls" in refused.value.message
                # The quiet tenant is served meanwhile, reads and writes.
                t0 = time.monotonic()
                made = await quiet.create_collection(name="quiet")
                listed = await quiet.list_collections()
                assert [c.collection_id for c in listed] == [made.collection_id]
                assert time.monotonic() - t0 < 2.0, "the quiet tenant waited on the noisy one"
                assert not any(task.done() for task in syncs), "the slow syncs ended early"
                # Once the noisy tenant's calls end, it is served again.
                for task in syncs:
                    task.cancel()
                await asyncio.gather(*syncs, return_exceptions=True)
                deadline = time.monotonic() + 10
                while True:
                    try:
                        await noisy.list_collections()
                        break
                    except qe.ResourceExhausted:
                        assert time.monotonic() < deadline, "the bound was never released"
                        await asyncio.sleep(0.1)
        finally:
            await running.stop(grace=1.0)


async def test_a_burst_waits_its_turn_while_another_tenant_runs(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With QUIRE_ORG_RUNNING at 2, six slow unary calls of one tenant run two at a time (none
    refused), while another tenant's call runs at once instead of queueing behind them."""
    from quire.server import auth
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings
    from quire.server.services.knowledge import KnowledgeService

    slow_s = 0.5
    running: dict[str, int] = {}
    peak: dict[str, int] = {}
    original = KnowledgeService.ListCollections

    async def slow_list(self: Any, request: Any, context: Any) -> Any:
        from quire.server.rpc import principal

        org = str(principal().org_id)
        running[org] = running.get(org, 0) + 1
        peak[org] = max(peak.get(org, 0), running[org])
        try:
            await asyncio.sleep(slow_s)
            return await original(self, request, context)
        finally:
            running[org] -= 1

    # Handlers are bound when the server starts: patch first.
    monkeypatch.setattr(KnowledgeService, "ListCollections", slow_list)
    settings = Settings(
        address="127.0.0.1:0", database_url=database_url, grace_seconds=1.0, org_running=2
    )
    pool = await prepare_database(database_url, settings)
    server = await start(settings, pool, None)
    address = f"127.0.0.1:{server.port}"
    orgs, keys = {}, {}
    async with pool.acquire() as conn:
        for tenant in ("burst", "other"):
            orgs[tenant] = await auth.ensure_organisation(conn, f"{tenant}-{uuid.uuid4().hex[:6]}")
            keys[tenant] = (
                await auth.create_key(conn, orgs[tenant], frozenset(auth.ALL_SCOPES))
            ).secret
    try:
        async with (
            AsyncQuireClient(address, api_key=keys["burst"]) as burst,
            AsyncQuireClient(address, api_key=keys["other"]) as other,
        ):
            t0 = time.monotonic()
            calls = [asyncio.create_task(burst.list_collections()) for _ in range(6)]
            await asyncio.sleep(0.1)
            t1 = time.monotonic()
            await other.list_collections()
            other_took = time.monotonic() - t1
            await asyncio.gather(*calls)  # none refused: they waited their turn
            burst_took = time.monotonic() - t0
        assert peak[str(orgs["burst"])] == 2, peak
        assert burst_took >= 3 * slow_s - 0.05, f"six calls, two at a time: {burst_took:.2f} s"
        assert other_took < 2 * slow_s, f"the other tenant queued: {other_took:.2f} s"
    finally:
        await server.stop(grace=1.0)

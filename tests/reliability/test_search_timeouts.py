"""Spurious DEADLINE_EXCEEDED under load (issue 30): a search's second connection (the exact
vector scan beside the full-text arm) was taken with `pool.acquire(timeout=0.05)`, and asyncpg
keeps an acquisition's timeout for the connection's release: its reset (RESET ALL, ...) had
50 ms. On a loaded server the reset took longer, the release raised TimeoutError, and the
search answered DEADLINE_EXCEEDED with most of its 30 s deadline left (36 of 21,173 searches
at concurrency 64; benchmarks/soak.py --mix search_pages=1). Nothing was logged.

Here the load is replaced by a pool whose connections take 200 ms to reset (a real
`pg_sleep` on release, as asyncpg's `reset` hook allows): the same TimeoutError at every
search, without timing luck.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import grpc
import pytest
import pytest_asyncio
from grpc import aio

from quire.v1 import pages_service_pb2, pages_service_pb2_grpc
from tests.conftest import Harness, Keys, bearer
from tests.reliability._support import seed_pages

pytestmark = pytest.mark.asyncio(loop_scope="session")

NEEDS_MODEL = True
NAMESPACE = "slow-release"
SLOW_RESET_S = 0.2


async def _slow_reset(conn: asyncpg.Connection) -> None:
    """A release that takes as long as one on a busy server (well over 50 ms)."""
    await conn.execute(f"SELECT pg_sleep({SLOW_RESET_S})")


async def _slow_release_pool(database_url: str) -> asyncpg.Pool:
    from pgvector.asyncpg import register_vector

    pool: asyncpg.Pool = await asyncpg.create_pool(
        database_url, min_size=2, max_size=4, init=register_vector, reset=_slow_reset
    )
    return pool


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    keys = await harness.keys("slow-release-org")
    await seed_pages(
        harness.pool,
        keys.org_id,
        NAMESPACE,
        {"/a.md": "# A\n\nslow release of a pooled connection\n", "/b.md": "# B\n\nother\n"},
    )
    return keys


@pytest_asyncio.fixture(loop_scope="session")
async def slow_server(
    harness: Harness, database_url: str, embeddings: object
) -> AsyncIterator[aio.Channel]:
    """A second Quire server on the module's database whose pool releases slowly."""
    from quire.server.app import start
    from quire.server.config import Settings

    pool = await _slow_release_pool(database_url)
    settings = Settings(address="127.0.0.1:0", database_url=database_url, grace_seconds=1.0)
    running = await start(settings, pool, embeddings)  # type: ignore[arg-type]
    channel = aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield channel
    finally:
        await channel.close(None)
        await running.stop(grace=1.0)
        await pool.close()


async def test_a_slow_connection_release_does_not_fail_the_search(
    slow_server: aio.Channel, keys: Keys
) -> None:
    """Was DEADLINE_EXCEEDED after about 0.25 s of a 30 s deadline, at every search."""
    stub = pages_service_pb2_grpc.PagesServiceStub(slow_server)
    for _ in range(3):
        try:
            reply = await stub.SearchPages(
                pages_service_pb2.SearchPagesRequest(namespace=NAMESPACE, query="slow release"),
                metadata=bearer(keys.read),
                timeout=30,
            )
        except aio.AioRpcError as exc:
            pytest.fail(f"{exc.code()}: {exc.details()} with a 30 s deadline")
        assert reply.result.hits


async def test_a_connection_lent_beside_a_search_is_released_without_the_wait_bound(
    harness: Harness, database_url: str
) -> None:
    """storage/snapshots.beside waits at most 50 ms for its connection; giving it back (a
    200 ms reset here) is not bounded by that wait, and the work's result comes back."""
    from quire.server.storage import snapshots

    pool = await _slow_release_pool(database_url)
    try:
        async with pool.acquire() as first, first.transaction(isolation="repeatable_read"):
            snapshot = await first.fetchval(snapshots.EXPORT)
            got = await snapshots.beside(pool, snapshot, {}, lambda c: c.fetchval("SELECT 42"))
            assert got == 42
            # The lent connection went back to the pool whole: it serves the next caller.
            assert await asyncio.wait_for(pool.fetchval("SELECT 1"), 5) == 1
    finally:
        await pool.close()


async def test_a_search_still_fails_fast_when_its_own_deadline_passes(
    slow_server: aio.Channel, keys: Keys
) -> None:
    """The caller's deadline still applies: 1 ms cannot hold a search."""
    stub = pages_service_pb2_grpc.PagesServiceStub(slow_server)
    with pytest.raises(aio.AioRpcError) as info:
        await stub.SearchPages(
            pages_service_pb2.SearchPagesRequest(namespace=NAMESPACE, query="slow release"),
            metadata=bearer(keys.read),
            timeout=0.001,
        )
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED

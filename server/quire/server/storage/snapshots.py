"""Work beside a search transaction on a second connection that reads the same snapshot.

A search runs its statements one after the other on one connection; an arm that does not need
the others' results (an exact vector scan) can run at the same time on another connection
of the same pool, importing the transaction's exported snapshot so both read the same data.

A search that waited for its second connection while holding its first could deadlock with
others doing the same once every pooled connection is someone's first, so `beside` waits at
most SECOND_CONNECTION_WAIT_S for it and otherwise gives up: the caller runs the work on its
own connection after the rest.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

import asyncpg

from quire.server.storage.database import acquire_within, apply_settings

log = logging.getLogger(__name__)

T = TypeVar("T")

EXPORT = "SELECT pg_export_snapshot()"
SECOND_CONNECTION_WAIT_S = 0.05


class NoSecondConnection(Exception):
    """The pool had no connection to spare within SECOND_CONNECTION_WAIT_S."""


async def on_snapshot(
    pool: asyncpg.Pool,
    snapshot: str,
    settings: Mapping[str, str],
    work: Callable[[asyncpg.Connection], Awaitable[T]],
) -> T:
    """`work` on a connection of its own that imports `snapshot` (from EXPORT, in a
    transaction still open), with `settings` and zero parallel workers."""
    async with pool.acquire() as conn:
        return await _imported(conn, snapshot, settings, work)


async def beside(
    pool: asyncpg.Pool,
    snapshot: str,
    settings: Mapping[str, str],
    work: Callable[[asyncpg.Connection], Awaitable[T]],
) -> T:
    """`on_snapshot` for a caller that holds a connection of the same pool: raises
    NoSecondConnection when none is free within SECOND_CONNECTION_WAIT_S."""
    try:
        conn = await acquire_within(pool, SECOND_CONNECTION_WAIT_S)
    except TimeoutError:
        log.debug(
            "timeout",
            extra={"cause": "no second connection", "waited_s": SECOND_CONNECTION_WAIT_S},
        )
        raise NoSecondConnection from None
    try:
        return await _imported(conn, snapshot, settings, work)
    finally:
        await pool.release(conn)


async def _imported(
    conn: asyncpg.Connection,
    snapshot: str,
    settings: Mapping[str, str],
    work: Callable[[asyncpg.Connection], Awaitable[T]],
) -> T:
    async with conn.transaction(isolation="repeatable_read", readonly=True):
        # Must be the transaction's first statement.
        await conn.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")
        await apply_settings(conn, {**settings, "max_parallel_workers_per_gather": "0"})
        return await work(conn)

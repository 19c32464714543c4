"""Work beside a search transaction on a second connection that reads the same snapshot.

A search runs its statements one after the other on one connection; an arm that does not need
the others' results (an exact vector scan) can run at the same time on another connection
of the same pool, importing the transaction's exported snapshot so both read the same data.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

import asyncpg

from quire.server.storage.database import apply_settings

T = TypeVar("T")

EXPORT = "SELECT pg_export_snapshot()"


async def on_snapshot(
    pool: asyncpg.Pool,
    snapshot: str,
    settings: Mapping[str, str],
    work: Callable[[asyncpg.Connection], Awaitable[T]],
) -> T:
    """`work` on a connection of its own that imports `snapshot` (from EXPORT, in a
    transaction still open), with `settings` and zero parallel workers."""
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        # Must be the transaction's first statement.
        await conn.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")
        await apply_settings(conn, {**settings, "max_parallel_workers_per_gather": "0"})
        return await work(conn)

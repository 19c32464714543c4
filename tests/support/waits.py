"""Waiting on a condition instead of sleeping for a guessed time: a test that sleeps "long
enough" is slow where the guess is generous and flaky where the machine is loaded; one that
polls the condition itself moves on as soon as it holds and fails naming what never happened."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

import asyncpg

# Backends of this database waiting on a heavyweight lock (a row, a unique-index entry of an
# uncommitted insert, a table): how a test sees that a call now waits on another transaction.
WAITING_ON_A_LOCK = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND wait_event_type = 'Lock'"
)


async def until(
    condition: Callable[[], bool | Awaitable[bool]],
    *,
    within_s: float,
    what: str,
    every_s: float = 0.02,
) -> None:
    """Returns once `condition()` (plain or awaitable) is true; fails with `what` after
    `within_s` seconds."""
    clock = asyncio.get_running_loop().time
    started = clock()
    while True:
        held = condition()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        assert clock() - started < within_s, what
        await asyncio.sleep(every_s)


async def lock_waiters(conn: asyncpg.Connection) -> int:
    """How many backends of the database wait on a lock now."""
    return int(await conn.fetchval(WAITING_ON_A_LOCK))


def watchers(harness: object, channel: str = "quire_documents") -> Callable[[], int]:
    """How many watches of the in-process server (`harness.running`) listen on `channel`,
    as a function to read before and after opening one: a watch that listens sees every
    change committed after, so a test waits for that instead of sleeping."""
    notifications = harness.running.state.require_notifications()  # type: ignore[attr-defined]
    return lambda: notifications.subscribers(channel)


async def one_more_watcher(count: Callable[[], int], before: int, within_s: float = 30) -> None:
    """Waits until `count()` (see `watchers`) exceeds `before`."""
    await until(lambda: count() > before, within_s=within_s, what="the watch never subscribed")

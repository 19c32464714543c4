"""One LISTEN connection per server process, fanned out to in-process subscribers.

Watch streams subscribe here instead of holding a database connection each. When the
connection drops, the listener reconnects with backoff; subscribers may miss notifications
in between, so after a reconnect every subscriber gets a `RESYNC` event and re-reads state.
A subscriber that falls MAX_QUEUED events behind (a generation flip notifies every document
whose index state it changes) gets one `RESYNC` in place of what it would queue beyond that,
so its memory stays bounded and it still misses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from quire.server.background import cancel

log = logging.getLogger(__name__)

CHANNELS = ("quire_documents", "quire_index")
# Delivered to every subscriber after the listener reconnects: events may have been missed.
RESYNC: dict[str, Any] = {"resync": True}
MAX_QUEUED = 1000


class Notifications:
    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self._subscribers: dict[str, set[asyncio.Queue[dict[str, Any]]]] = {
            c: set() for c in CHANNELS
        }
        self._task: asyncio.Task[None] | None = None
        # Subscribers whose queue ends with an overflow RESYNC they have not read yet.
        self._behind: set[asyncio.Queue[dict[str, Any]]] = set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        await cancel(self._task)
        self._task = None

    def _deliver(self, _conn: object, _pid: int, channel: str, payload: str) -> None:
        try:
            body = json.loads(payload)
        except ValueError:
            return
        for queue in list(self._subscribers.get(channel, ())):
            self._offer(queue, body)

    def _offer(self, queue: asyncio.Queue[dict[str, Any]], event: dict[str, Any]) -> None:
        if queue in self._behind:
            if not queue.empty():
                return  # the RESYNC at the end of the queue covers this event
            self._behind.discard(queue)  # empty: that RESYNC has been read
        if queue.qsize() < MAX_QUEUED:
            queue.put_nowait(event)
        else:
            queue.put_nowait(RESYNC)
            self._behind.add(queue)

    def _resync(self) -> None:
        for subscribers in self._subscribers.values():
            for queue in list(subscribers):
                queue.put_nowait(RESYNC)

    async def _listen(self) -> None:
        delay = 0.5
        connected_before = False
        while True:
            try:
                conn = await asyncpg.connect(self._dsn)
                lost = asyncio.Event()
                conn.add_termination_listener(lambda _conn, lost=lost: lost.set())
                try:
                    for channel in CHANNELS:
                        await conn.add_listener(channel, self._deliver)
                    delay = 0.5
                    if connected_before:
                        self._resync()
                    connected_before = True
                    await lost.wait()
                finally:
                    with contextlib.suppress(Exception):
                        await conn.close()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # reconnect on any connection failure
                log.warning("notification listener lost", extra={"error": type(exc).__name__})
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    def subscribers(self, channel: str) -> int:
        """How many watches listen on `channel` now (a test waits for its watch to be one)."""
        return len(self._subscribers[channel])

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._subscribers[channel].add(queue)
        try:
            yield queue
        finally:
            self._subscribers[channel].discard(queue)
            self._behind.discard(queue)

"""gRPC health that reflects the database.

A probe runs `SELECT 1` every PROBE_EVERY_S (at once when an RPC reports a lost connection),
bounded by PROBE_TIMEOUT_S, so health turns NOT_SERVING for "" and every service within
PROBE_EVERY_S + PROBE_TIMEOUT_S (1.5 s) of losing PostgreSQL, and SERVING at the first probe
that answers again. While the database is unavailable, RPCs fail fast with UNAVAILABLE at the
RPC layer instead of waiting on the pool's connect timeout, and long calls that would otherwise
carry on without a database (a page sync fetching) are ended with UNAVAILABLE.

The probe has its own connection, not a pooled one: a pool busy with long queries must not
read as a lost database. On loss the pool's connections are expired, so none that broke (or
hangs half-open) is handed out again; asyncpg reconnects lazily once PostgreSQL answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

import asyncpg
from grpc_health.v1 import health_pb2

from quire.server.background import cancel
from quire.server.failures import database_unavailable
from quire.server.storage.database import connect

log = logging.getLogger(__name__)

PROBE = "SELECT 1"
PROBE_EVERY_S = 0.5
PROBE_TIMEOUT_S = 1.0
# How long a call ended by a lost database waits for its work to unwind (a dead connection
# fails at once; a half-open one must not hold the call).
UNWIND_S = 1.0

T = TypeVar("T")


class DatabaseHealth:
    def __init__(
        self,
        dsn: str,
        pool: asyncpg.Pool,
        servicer: Any,
        names: Sequence[str],
        *,
        behind_pooler: bool = False,
    ) -> None:
        self._dsn = dsn
        self._behind_pooler = behind_pooler
        self._pool = pool
        self._servicer = servicer  # grpc_health's aio HealthServicer
        self._names = tuple(names)
        self._available = True
        self._lost = asyncio.Event()
        self._wake = asyncio.Event()
        self._conn: asyncpg.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._lost_at = 0.0

    @property
    def available(self) -> bool:
        return self._available

    def suspect(self) -> None:
        """An RPC failed with a connection error: probe now rather than at the next tick."""
        self._wake.set()

    async def start(self) -> None:
        await self._publish(health_pb2.HealthCheckResponse.SERVING)
        self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        await cancel(self._task)
        self._task = None
        if self._conn is not None:
            self._conn.terminate()
            self._conn = None

    async def run_unless_lost(self, work: Coroutine[Any, Any, T]) -> T:
        """Runs `work`; if the database is lost first, cancels it and raises UNAVAILABLE."""
        task = asyncio.create_task(work)
        lost = asyncio.create_task(self._lost.wait())
        try:
            done, _ = await asyncio.wait({task, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lost.cancel()
            if not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=UNWIND_S)
                task.add_done_callback(_retrieve)  # still unwinding: let it end on its own
        if task not in done:
            raise database_unavailable()
        return task.result()

    async def _watch(self) -> None:
        while True:
            answered = await self._probe()
            if answered != self._available:
                await self._change(answered)
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), PROBE_EVERY_S)

    async def _probe(self) -> bool:
        try:
            async with asyncio.timeout(PROBE_TIMEOUT_S):
                if self._conn is None or self._conn.is_closed():
                    self._conn = await connect(self._dsn, behind_pooler=self._behind_pooler)
                await self._conn.fetchval(PROBE)
            return True
        except Exception:  # refused, reset, timed out: all mean "not answering"
            if self._conn is not None:
                self._conn.terminate()
                self._conn = None
            return False

    async def _change(self, available: bool) -> None:
        self._available = available
        if available:
            self._lost.clear()
            log.warning(
                "database answers again: health SERVING",
                extra={"unavailable_s": round(time.monotonic() - self._lost_at, 2)},
            )
            await self._publish(health_pb2.HealthCheckResponse.SERVING)
            return
        self._lost_at = time.monotonic()
        self._lost.set()
        log.warning("database unreachable: health NOT_SERVING, calls fail with UNAVAILABLE")
        await self._publish(health_pb2.HealthCheckResponse.NOT_SERVING)
        await self._pool.expire_connections()

    async def _publish(self, status: int) -> None:
        for name in self._names:
            await self._servicer.set(name, status)


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Reads a cancelled task's outcome so asyncio does not log it as never retrieved."""
    if not task.cancelled():
        task.exception()

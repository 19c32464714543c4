"""The worker's own connection: it hears of new jobs and deleted collections, and keeps the
leases of the jobs it runs.

A running job holds a lease (jobs.LEASE_SECONDS) that `heartbeat` renews every
jobs.HEARTBEAT_SECONDS on this connection, so a busy pool or a long batch cannot delay it past
the lease; each renewal also records the worker's sign of life (jobs.beat) and asks which of
the collections it holds work of were deleted meanwhile (a cancellation it did not hear,
cancel.py). After the database was lost, the next beat opens the connection again (LISTEN
included) and says so (`on_job`), since notifications sent meanwhile were lost. A worker that
dies stops renewing and its jobs are re-queued when their leases expire; one that stops
hands them back at once (`release_jobs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable

import asyncpg

from quire.indexer.worker import cancel, jobs
from quire.indexer.worker.faults import DATABASE_ERRORS

log = logging.getLogger(__name__)

# How long handing the connection back to its pool may take (a lost one does not answer).
RETURN_CONNECTION_S = 10.0

Collection = tuple[uuid.UUID, uuid.UUID]


class Leases:
    """`session_pool` holds the connection (direct, past any transaction pooler: LISTEN);
    `model`: the embedding model whose collections the worker indexes (its heartbeat names it).
    `on_job`: a job was queued (or notifications were lost); `on_cancel(org, collection)`: a
    collection delete's notification; `on_deleted(org, collection)`: a held collection found
    deleted at a renewal; `held`: the (org, collection) pairs the worker holds work of."""

    def __init__(
        self,
        session_pool: asyncpg.Pool,
        worker_id: str,
        model: str,
        *,
        on_job: Callable[[], None],
        on_cancel: Callable[[uuid.UUID, uuid.UUID], None],
        on_deleted: Callable[[uuid.UUID, uuid.UUID], None],
        held: Callable[[], list[Collection]],
    ) -> None:
        self.session_pool = session_pool
        self.worker_id = worker_id
        self.model = model
        self._on_job = on_job
        self._on_cancel = on_cancel
        self._on_deleted = on_deleted
        self._held = held
        self.connection: asyncpg.Connection | None = None

    def _job_queued(self, *_: object) -> None:
        self._on_job()

    def _collection_deleted(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        collection = cancel.parse(payload)
        if collection is not None:
            self._on_cancel(*collection)

    async def open(self) -> None:
        """(Re)opens the connection and LISTENs on it for new jobs and deleted collections."""
        if self.connection is not None:
            with contextlib.suppress(Exception):
                await self.session_pool.release(self.connection, timeout=RETURN_CONNECTION_S)
            self.connection = None
        connection = await self.session_pool.acquire()
        try:
            await connection.add_listener(jobs.CHANNEL, self._job_queued)
            await connection.add_listener(cancel.CHANNEL, self._collection_deleted)
        except BaseException:
            await self.session_pool.release(connection, timeout=RETURN_CONNECTION_S)
            raise
        self.connection = connection

    async def beat(self) -> None:
        """Records that this worker is alive, at once (not a heartbeat later)."""
        assert self.connection is not None
        await jobs.beat(self.connection, self.worker_id, self.model)

    async def heartbeat(self) -> None:
        """Renews the leases of this worker's running jobs while it lives; after the
        database was lost, opens the connection again first."""
        while True:
            await asyncio.sleep(jobs.HEARTBEAT_SECONDS)
            try:
                if self.connection is None or self.connection.is_closed():
                    await self.open()
                    self._on_job()  # notifications sent meanwhile were lost: claim now
                assert self.connection is not None
                await jobs.renew_leases(self.connection, self.worker_id)
                await jobs.beat(self.connection, self.worker_id, self.model)
                # A cancellation this worker did not hear (cancel.py): asked here too.
                deleted = await cancel.deleted_among(self.connection, self._held())
                for collection in deleted:
                    self._on_deleted(*collection)
            except DATABASE_ERRORS:
                log.warning("renewing job leases failed", exc_info=True)

    async def close(self) -> None:
        """Stops listening and hands the connection back (whatever state it is in)."""
        connection, self.connection = self.connection, None
        if connection is None:
            return
        with contextlib.suppress(Exception):
            await connection.remove_listener(jobs.CHANNEL, self._job_queued)
        with contextlib.suppress(Exception):
            await connection.remove_listener(cancel.CHANNEL, self._collection_deleted)
        with contextlib.suppress(Exception):
            await self.session_pool.release(connection, timeout=RETURN_CONNECTION_S)


async def release_jobs(pool: asyncpg.Pool, worker_id: str, within_s: float) -> None:
    """Hands the worker's unfinished jobs back to the queue at once (another worker need not
    wait for their leases to expire)."""
    try:
        async with asyncio.timeout(within_s), pool.acquire() as conn:
            released = await jobs.release(conn, worker_id)
        if released:
            log.info("released unfinished jobs", extra={"jobs": released})
    except DATABASE_ERRORS:
        log.warning("releasing unfinished jobs failed (their leases expire)", exc_info=True)

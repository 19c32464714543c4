"""Claiming jobs: in batches, fairly across organisations, within the pipeline's bound.

Up to CLAIM_BATCH jobs are claimed in one statement (jobs.claim_batch: round robin across
organisations), capped by the room left in the pipeline (in_flight.py). Claims stop while a
full embedding group is queued (QUEUE_AHEAD_DOCS / QUEUE_AHEAD_CHARS), and once every runnable
job is claimed while the embedder is busy, new jobs gather in the table until it takes its
next group and are then claimed together: a busy worker claims in large batches, an idle one
claims a new job at once.

When the pipeline is full, an organisation with little in it (under FAIR_SHARE_DOCS documents
and FAIR_SHARE_CHARS characters) may still claim FAIR_CLAIM jobs at a time, up to
FAIR_SLACK_DOCS documents beyond the bound in all, so a tenant whose bulk load fills the
pipeline does not hold another's upload in the table.

The loop also re-queues expired leases (jobs.RECOVER_EVERY_SECONDS) and, every MAINTENANCE_S,
expires the search cache, sets the queue-depth gauge, forgets old workers and sweeps
unsettled collections. When the database goes away it waits (doubling up to the cap of
LOST_DATABASE_BACKOFF_S) and goes on. What a claimed job does is the caller's (`handle`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Hashable

import asyncpg
from opentelemetry import metrics

from quire.indexer.ingest.embed_stage import EmbedStage
from quire.indexer.worker import jobs, settle
from quire.indexer.worker.faults import LOST_DATABASE
from quire.indexer.worker.in_flight import MAX_IN_FLIGHT_CHARS, MAX_IN_FLIGHT_DOCS, InFlight

log = logging.getLogger(__name__)
queue_depth_gauge = metrics.get_meter("quire.indexer").create_gauge(
    "quire.jobs.queue_depth", description="Queued jobs"
)

# Jobs claimed per statement; the claim is also capped by the room left in the pipeline.
CLAIM_BATCH = 64
# Claims pause while this much is queued for the embedder (it has enough to go on with); jobs
# wait in the table meanwhile and are claimed later in larger batches.
QUEUE_AHEAD_DOCS = 512
QUEUE_AHEAD_CHARS = 512 * 700
# When the pipeline is full, an organisation with fewer than FAIR_SHARE_DOCS documents and
# FAIR_SHARE_CHARS characters in it may still claim FAIR_CLAIM jobs, up to FAIR_SLACK_DOCS
# documents beyond MAX_IN_FLIGHT_DOCS in all.
FAIR_SHARE_DOCS = 16
FAIR_SHARE_CHARS = 4_000_000
FAIR_CLAIM = 8
FAIR_SLACK_DOCS = 256
IDLE_POLL_S = 2.0
# Cache expiry, the queue-depth gauge and the settle sweep run this often.
MAINTENANCE_S = 30.0
EXPIRE_CACHE = "DELETE FROM search_cache WHERE expires_at < now()"
# The database going away under the claim loop: it waits (doubling up to the cap) and goes on.
LOST_DATABASE_BACKOFF_S = (0.5, 5.0)


class Claims:
    """The claim loop. `handle` runs a claimed batch; `extracting` counts the extractions
    under way (they hold documents not yet in `in_flight`); `busy` is True while anything
    else is under way that is not counted there (builds, extractions, large writes)."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        in_flight: InFlight,
        embedding: EmbedStage,
        *,
        owner: Hashable,
        worker_id: str,
        model: str,
        handle: Callable[[list[jobs.Job]], Awaitable[None]],
        extracting: Callable[[], int],
        busy: Callable[[], bool],
    ) -> None:
        self.pool = pool
        self.in_flight = in_flight
        self.embedding = embedding
        self.owner = owner
        self.worker_id = worker_id
        self.model = model
        self._handle = handle
        self._extracting = extracting
        self._busy = busy
        # Set by a new job's notification (or a quiet poll): claim now.
        self.wake = asyncio.Event()
        # Set when the embedder takes a group or waits for one: the claim loop may refill.
        self.refill = asyncio.Event()
        self.refill.set()

    def room(self) -> int:
        """How many jobs the next claim may take without exceeding the pipeline's bounds.

        Nothing while a full embedding group is already queued: the jobs wait in the table
        and are claimed later in larger batches (fewer round trips), still in time to keep
        the embedder busy."""
        if self.in_flight.chars >= MAX_IN_FLIGHT_CHARS:
            return 0
        queued = self.embedding.queued(self.owner)
        if queued.chars >= QUEUE_AHEAD_CHARS or queued.entries >= QUEUE_AHEAD_DOCS:
            return 0
        held = self.in_flight.docs + self._extracting()
        return max(0, min(CLAIM_BATCH, MAX_IN_FLIGHT_DOCS - held))

    def fair_claim(self) -> tuple[int, list[uuid.UUID]]:
        """When `room` is 0: how many jobs organisations with little in the pipeline may
        claim anyway, and the organisations left out (those at their share)."""
        held = self.in_flight.docs + self._extracting()
        if held >= MAX_IN_FLIGHT_DOCS + FAIR_SLACK_DOCS:
            return 0, []
        saturated = [
            org
            for org, docs in self.in_flight.org_docs.items()
            if docs >= FAIR_SHARE_DOCS or self.in_flight.org_chars.get(org, 0) >= FAIR_SHARE_CHARS
        ]
        return FAIR_CLAIM, saturated

    def on_job(self) -> None:
        """A job was queued (its notification), or notifications may have been lost."""
        self.wake.set()

    def on_embedder_turn(self) -> None:
        """The embedding stage took a group or ran out of work: the claim loop may refill."""
        self.refill.set()
        self.in_flight.progress.set()

    async def run(self, stop: asyncio.Event, until_idle: bool) -> None:
        """`_claims`, going on after the database was lost (waiting before each new try)."""
        delay = LOST_DATABASE_BACKOFF_S[0]
        while True:
            started = time.monotonic()
            try:
                return await self._claims(stop, until_idle)
            except LOST_DATABASE as exc:
                if time.monotonic() - started > 60:  # a new outage, not the same one
                    delay = LOST_DATABASE_BACKOFF_S[0]
                log.warning(
                    "worker lost the database; claiming again in %.1f s",
                    delay,
                    extra={"error": repr(exc)[:300]},
                )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
                delay = min(delay * 2, LOST_DATABASE_BACKOFF_S[1])

    async def _claims(self, stop: asyncio.Event, until_idle: bool) -> None:
        last_recovery = last_maintenance = 0.0
        progress, wake = self.in_flight.progress, self.wake
        while not stop.is_set():
            await self.in_flight.retry_unreleased()
            now = time.monotonic()
            if now - last_recovery >= jobs.RECOVER_EVERY_SECONDS:
                last_recovery = now
                async with self.pool.acquire() as conn:
                    await jobs.recover_expired(conn)
                    if now - last_maintenance >= MAINTENANCE_S:
                        last_maintenance = now
                        await conn.execute(EXPIRE_CACHE)
                        queue_depth_gauge.set(await jobs.queue_depth(conn))
                        await jobs.forget_old_workers(conn)
                        await settle.sweep(conn)
            progress.clear()
            room = self.room() if self.refill.is_set() else 0
            skip: list[uuid.UUID] = []
            if room == 0:
                if not wake.is_set():
                    # Full, or the embedder has enough: wait for it to take a group, or for
                    # a new job (another tenant's, which a fair claim may take at once).
                    if not await _either(progress, wake, IDLE_POLL_S):
                        wake.set()  # a quiet poll: jobs due by time notify no one
                    continue
                room, skip = self.fair_claim()
                if room == 0:
                    wake.clear()
                    continue
            wake.clear()  # before the claim: a notification during it is not lost
            claimed = await self._claim(room, skip)
            if skip:
                if claimed:
                    wake.set()  # that tenant may have more: claim again next turn
                    await self._handle(claimed)
                continue
            if len(claimed) < room and (
                self.embedding.busy or self.embedding.queued(self.owner).entries
            ):
                # Everything runnable is claimed and the embedder has work: let new jobs
                # gather in the table until it takes its next group, then claim them at once.
                self.refill.clear()
            if not claimed:
                if until_idle and self.in_flight.docs == 0 and not self._busy():
                    return
                if not self.refill.is_set():
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), 0.05 if until_idle else IDLE_POLL_S)
                continue
            await self._handle(claimed)

    async def _claim(self, room: int, skip: list[uuid.UUID]) -> list[jobs.Job]:
        claimed: list[jobs.Job] = []
        try:
            async with self.pool.acquire() as conn:
                claimed = await jobs.claim_batch(
                    conn, self.worker_id, room, skip_orgs=skip, model=self.model
                )
        except LOST_DATABASE:
            if not claimed:
                raise
            # The claim committed; only returning its connection failed (the database went
            # away just after). Run the jobs: dropped, they would stay `running` for good.
        return claimed


async def _either(first: asyncio.Event, second: asyncio.Event, within_s: float) -> bool:
    """Waits until either event is set; False if `within_s` seconds passed first."""
    waits = [asyncio.ensure_future(first.wait()), asyncio.ensure_future(second.wait())]
    done, pending = await asyncio.wait(waits, timeout=within_s, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    return bool(done)

"""Read replicas: one pool per streaming standby, their health, and which node serves a read.

Read-only RPCs (routing.REPLICA_READS) take their transactions from a healthy replica; all
else uses the primary pool. Consistency is by WAL position: a write's response carries the
primary's insert LSN after its commits (the consistency token); a read that sends a token is
served by a replica only once that replica has replayed that far (waiting up to
`wait_s`), otherwise by the primary. A background task checks every replica each `CHECK_EVERY_S`
(in recovery, replay LSN, lag behind the primary in bytes and seconds) and skips the ones that
fail or lag beyond the bounds until they are healthy again.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import re
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import asyncpg

from quire.server import telemetry
from quire.server.background import cancel
from quire.server.storage.database import acquire_within, connect, create_pool

log = logging.getLogger(__name__)

CHECK_EVERY_S = 1.0
CHECK_TIMEOUT_S = 0.5
# Primary LSN samples kept to turn a replica's replay position into a lag in seconds.
LSN_HISTORY = 600

PRIMARY_LSN = "SELECT pg_current_wal_insert_lsn()"
REPLICA_STATE = "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()"
_TOKEN = re.compile(r"([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})")
REPLAYED = "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)"

reads_routed = telemetry.meter.create_counter(
    "quire.db.reads",
    description="Read-only calls by the node that served them (replica name or primary) and why",
)
# Set at every health check, per replica: what an operator alerts on before reads move to the
# primary (the bounds are QUIRE_REPLICA_MAX_LAG_BYTES / _S).
lag_bytes_gauge = telemetry.meter.create_gauge(
    "quire.replica.lag_bytes", description="WAL bytes the replica's replay is behind the primary"
)
lag_seconds_gauge = telemetry.meter.create_gauge(
    "quire.replica.lag_seconds",
    description="How long ago the primary was where the replica's replay is now",
)
healthy_gauge = telemetry.meter.create_gauge(
    "quire.replica.healthy", description="1 while the replica serves reads, 0 while it is skipped"
)


def parse_token(text: str) -> int:
    """A consistency token (a PostgreSQL LSN, `X/Y` in hex) as a number; ValueError if not."""
    match = _TOKEN.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a consistency token: {text[:40]!r}")
    return (int(match[1], 16) << 32) | int(match[2], 16)


def format_token(lsn: int) -> str:
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def replica_name(dsn: str) -> str:
    """host:port/database of a DSN, without credentials: what logs and metrics show."""
    parts = urlsplit(dsn)
    return f"{parts.hostname or 'local'}:{parts.port or 5432}{parts.path}"


@dataclass
class Replica:
    name: str
    dsn: str
    pool: asyncpg.Pool
    healthy: bool = False
    replay_lsn: int = 0
    lag_bytes: int = 0
    lag_s: float = 0.0
    why_not: str = "not checked yet"
    probe: asyncpg.Connection | None = None


@dataclass
class ReadRoute:
    """One read-only call's routing: the token it carries, and the node it was given."""

    token: int = 0
    primary_only: bool = False
    pool: asyncpg.Pool | None = None
    replica: Replica | None = None


# Set by the RPC layer for read-only calls only; None elsewhere (writes, the worker, tests).
read_route: contextvars.ContextVar[ReadRoute | None] = contextvars.ContextVar(
    "read_route", default=None
)


@dataclass
class LagBounds:
    max_bytes: int = 16 * 1024 * 1024
    max_s: float = 5.0
    # How long a read with a token waits for a replica to replay that far, and how often
    # it looks, before the primary serves it.
    wait_s: float = 0.25
    poll_s: float = 0.01


@dataclass
class ReplicaSet:
    primary: asyncpg.Pool
    primary_dsn: str
    replicas: list[Replica]
    bounds: LagBounds = field(default_factory=LagBounds)
    _history: deque[tuple[float, int]] = field(default_factory=lambda: deque(maxlen=LSN_HISTORY))
    _primary_probe: asyncpg.Connection | None = None
    _task: asyncio.Task[None] | None = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    behind_pooler: bool = False
    _turn: int = 0
    # Read-only calls served so far, by node ("primary" or a replica's name): what the metric
    # counts, readable in-process (tests, debugging).
    served: Counter[str] = field(default_factory=Counter)
    _expiring: asyncio.Future[None] | None = None

    @classmethod
    async def open(
        cls,
        primary: asyncpg.Pool,
        primary_dsn: str,
        dsns: list[str],
        bounds: LagBounds,
        *,
        pool_max: int,
        behind_pooler: bool = False,
    ) -> ReplicaSet:
        """Pools that open no connection yet: a replica down at start-up does not stop it.
        `behind_pooler`: the replica URLs are transaction-mode poolers too."""
        replicas = [
            Replica(
                replica_name(dsn),
                dsn,
                await create_pool(dsn, min_size=0, max_size=pool_max, behind_pooler=behind_pooler),
            )
            for dsn in dsns
        ]
        return cls(primary, primary_dsn, replicas, bounds, behind_pooler=behind_pooler)

    async def start(self) -> None:
        await self.check()  # healthy ones serve from the first call
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        await cancel(self._task)
        self._task = None
        for conn in [self._primary_probe, *(r.probe for r in self.replicas)]:
            if conn is not None:
                conn.terminate()
        for replica in self.replicas:
            try:
                await asyncio.wait_for(replica.pool.close(), 5)
            except TimeoutError:
                replica.pool.terminate()

    # --- health -------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), CHECK_EVERY_S)
            await self.check()

    async def check(self) -> None:
        """One round: the primary's LSN, then every replica at once."""
        primary_lsn = await self._primary_lsn()
        if primary_lsn is not None:
            self._history.append((time.monotonic(), primary_lsn))
        await asyncio.gather(*(self._check(r, primary_lsn) for r in self.replicas))

    async def _primary_lsn(self) -> int | None:
        try:
            async with asyncio.timeout(CHECK_TIMEOUT_S):
                if self._primary_probe is None or self._primary_probe.is_closed():
                    self._primary_probe = await connect(self.primary_dsn)
                return int(await self._primary_probe.fetchval(PRIMARY_LSN))
        except Exception:  # the primary's own health is health.py's job; lag is unknown
            if self._primary_probe is not None:
                self._primary_probe.terminate()
                self._primary_probe = None
            return None

    async def _check(self, replica: Replica, primary_lsn: int | None) -> None:
        try:
            async with asyncio.timeout(CHECK_TIMEOUT_S):
                if replica.probe is None or replica.probe.is_closed():
                    replica.probe = await connect(replica.dsn, behind_pooler=self.behind_pooler)
                in_recovery, replayed = await replica.probe.fetchrow(REPLICA_STATE)
        except Exception as exc:  # refused, reset, timed out: not serving
            if replica.probe is not None:
                replica.probe.terminate()
                replica.probe = None
            self._mark(replica, False, f"check failed: {type(exc).__name__}")
            return
        if not in_recovery or replayed is None:
            # A promoted standby has its own timeline: it is no copy of this primary.
            self._mark(replica, False, "not a standby in recovery")
            return
        replica.replay_lsn = max(replica.replay_lsn, int(replayed))
        if primary_lsn is None:
            self._mark(replica, replica.healthy, replica.why_not)
            return
        replica.lag_bytes = max(0, primary_lsn - replica.replay_lsn)
        replica.lag_s = self._lag_seconds(replica.replay_lsn, primary_lsn)
        if replica.lag_bytes > self.bounds.max_bytes:
            self._mark(replica, False, f"lags {replica.lag_bytes} bytes")
        elif replica.lag_s > self.bounds.max_s:
            self._mark(replica, False, f"lags {replica.lag_s:.1f} s")
        else:
            self._mark(replica, True, "")

    def _lag_seconds(self, replayed: int, primary_lsn: int) -> float:
        """How long ago the primary was where the replica is now. Not
        pg_last_xact_replay_timestamp(): on an idle primary that grows without any lag."""
        if replayed >= primary_lsn:
            return 0.0
        now = time.monotonic()
        caught_up_at = None
        for at, lsn in reversed(self._history):
            if lsn <= replayed:
                caught_up_at = at
                break
        if caught_up_at is None:  # behind every sample kept: at least that old
            caught_up_at = self._history[0][0] if self._history else now
        return now - caught_up_at

    def _mark(self, replica: Replica, healthy: bool, why_not: str) -> None:
        if healthy != replica.healthy:
            if healthy:
                log.warning("replica serves reads again", extra={"replica": replica.name})
            else:
                log.warning(
                    "replica skipped: reads go to the primary or other replicas",
                    extra={"replica": replica.name, "reason": why_not},
                )
        replica.healthy, replica.why_not = healthy, why_not
        labels = {"replica": replica.name}
        healthy_gauge.set(int(healthy), labels)
        lag_bytes_gauge.set(replica.lag_bytes, labels)
        lag_seconds_gauge.set(replica.lag_s, labels)

    def lost(self, replica: Replica, exc: BaseException) -> None:
        """A call failed on `replica` with a connection error: skip it until a check passes."""
        self._mark(replica, False, f"call failed: {exc!r}"[:200])
        # None of the broken connections is handed out again.
        self._expiring = asyncio.ensure_future(replica.pool.expire_connections())
        self._wake.set()

    # --- routing ------------------------------------------------------------------------

    async def read_pool(self) -> asyncpg.Pool:
        """The pool the current read-only call reads from (the same for all its transactions):
        a healthy replica that has replayed the call's token, else the primary."""
        route = read_route.get()
        if route is None:
            return self.primary
        if route.pool is None:
            route.pool, route.replica, reason = await self._choose(route)
            node = "primary" if route.replica is None else route.replica.name
            reads_routed.add(1, {"node": node, "reason": reason})
            self.served[node] += 1
            if route.replica is None:
                log.info("read served by the primary", extra={"reason": reason})
        return route.pool

    async def _choose(self, route: ReadRoute) -> tuple[asyncpg.Pool, Replica | None, str]:
        if route.primary_only:  # a retry after the call failed on a replica
            return self.primary, None, "retry after replica failure"
        healthy = [r for r in self.replicas if r.healthy]
        if not healthy:
            return self.primary, None, "no healthy replica"
        self._turn = (self._turn + 1) % len(healthy)
        ordered = healthy[self._turn :] + healthy[: self._turn]
        # One that has replayed the token already, by the last check or read, if any.
        for replica in ordered:
            if replica.replay_lsn >= route.token:
                return replica.pool, replica, "replica"
        replica = ordered[0]
        try:
            if await self._wait_for(replica, route.token):
                return replica.pool, replica, "replica after waiting"
        except TimeoutError:  # every pooled connection busy: not a reason to skip the replica
            return self.primary, None, "replica busy"
        except Exception as exc:  # the replica went away: the primary serves
            self.lost(replica, exc)
            return self.primary, None, "replica failed"
        return self.primary, None, "replica behind the token"

    async def _wait_for(self, replica: Replica, token: int) -> bool:
        """Polls `replica` until it has replayed `token`, for at most `wait_s`."""
        deadline = time.monotonic() + self.bounds.wait_s
        conn = await acquire_within(replica.pool, CHECK_TIMEOUT_S)
        try:
            while True:
                if await conn.fetchval(REPLAYED, token):
                    replica.replay_lsn = max(replica.replay_lsn, token)
                    return True
                if time.monotonic() >= deadline:
                    return False
                await asyncio.sleep(self.bounds.poll_s)
        finally:
            await replica.pool.release(conn)

    async def primary_token(self) -> int:
        """The primary's WAL insert position now: past every commit made before this call. Not
        pg_current_wal_lsn() (written, not inserted), which trails an asynchronous commit."""
        async with self.primary.acquire() as conn:
            return int(await conn.fetchval(PRIMARY_LSN))

"""The asyncpg pool and the transaction helper every query path uses.

`transaction()` maps the caller's gRPC deadline to `statement_timeout` and applies planner
settings with `set_config(name, value, true)`, so both end with the transaction and never leak
into the next user of a pooled connection.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

import asyncpg
from pgvector.asyncpg import register_vector

from quire.server.failures import QuireError
from quire.v1 import errors_pb2

MIN_PGVECTOR = (0, 8, 0)

# Monotonic time by which the current RPC must finish; set by the RPC layer.
request_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "request_deadline", default=None
)

CHECK_VECTOR = "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
AVAILABLE_VECTOR = "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
SET_CONFIG = "SELECT set_config($1, $2, true)"
SET_CONFIGS = (
    "SELECT set_config(name, value, true) FROM unnest($1::text[], $2::text[]) AS s(name, value)"
)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


async def check_pgvector(conn: asyncpg.Connection) -> str:
    """Refuses to run without pgvector >= 0.8 (installed or installable)."""
    version = await conn.fetchval(CHECK_VECTOR) or await conn.fetchval(AVAILABLE_VECTOR)
    if version is None:
        raise RuntimeError(
            "PostgreSQL has no pgvector extension. Install pgvector >= 0.8 on the server, "
            "or unset QUIRE_DATABASE_URL to use the embedded PostgreSQL."
        )
    if _version(version) < MIN_PGVECTOR:
        raise RuntimeError(f"pgvector {version} is too old: Quire needs >= 0.8 (iterative scans).")
    return str(version)


async def _init_connection(conn: asyncpg.Connection) -> None:
    await register_vector(conn)


async def _keep_session(_conn: asyncpg.Connection) -> None:
    """No reset on release behind a transaction pooler: asyncpg's (`RESET ALL`, `UNLISTEN *`,
    ...) would run on whichever server connection the pooler picks, and could reset the
    TimeZone the pooler keeps for this client. Quire leaves no session state on pooled
    connections (settings are transaction-local), so there is nothing to reset."""


async def create_pool(
    dsn: str, *, min_size: int = 2, max_size: int = 20, behind_pooler: bool = False
) -> asyncpg.Pool:
    """`behind_pooler`: `dsn` is a transaction-mode pooler (docs/scaling.md, Connections)."""
    pool: asyncpg.Pool = await asyncpg.create_pool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        init=_init_connection,
        # Quire's queries are parameterised and reused; a bounded statement cache is enough.
        # Behind a transaction pooler none: a named prepared statement lives on one server
        # connection, and the next transaction may get another (PgBouncer < 1.21 cannot
        # track them).
        statement_cache_size=0 if behind_pooler else 256,
        # Metadata time filters read dates without a zone as midnight in the session's zone
        # (knowledge/filters.py): make that UTC whatever the server's default. A pooler keeps
        # it per client and sets it on each server connection it lends.
        server_settings={"TimeZone": "UTC"},
        command_timeout=60,
        timeout=5,
        **({"reset": _keep_session} if behind_pooler else {}),
    )
    return pool


async def connect(dsn: str, *, behind_pooler: bool = False) -> asyncpg.Connection:
    """One connection outside the pool (the health probe), usable through a pooler too."""
    conn: asyncpg.Connection = await asyncpg.connect(
        dsn, statement_cache_size=0 if behind_pooler else 100
    )
    return conn


async def acquire_within(pool: asyncpg.Pool, seconds: float) -> asyncpg.Connection:
    """A connection of `pool`, waiting at most `seconds` for one (else TimeoutError); the caller
    gives it back with `pool.release`. Not `pool.acquire(timeout=seconds)`: asyncpg keeps that
    timeout for the connection's release too, whose reset (RESET ALL, ...) then failed with
    TimeoutError whenever a loaded server took longer than the wait allowed (a search with a
    30 s deadline answered DEADLINE_EXCEEDED after 0.5 s, issue 30)."""
    async with asyncio.timeout(seconds):
        conn: asyncpg.Connection = await pool.acquire()
    return conn


def remaining_ms() -> int | None:
    deadline = request_deadline.get()
    if deadline is None:
        return None
    left = int((deadline - time.monotonic()) * 1000)
    if left <= 0:
        raise QuireError(errors_pb2.ERROR_CODE_DEADLINE_EXCEEDED, "Deadline exceeded")
    return left


async def apply_settings(conn: asyncpg.Connection, settings: Mapping[str, str]) -> None:
    """Transaction-local settings (the `true` in set_config), in one round trip."""
    if settings:
        await conn.execute(SET_CONFIGS, list(settings), list(settings.values()))


async def one_row(
    conn: asyncpg.Connection, missing: Exception, statement: str, *args: object
) -> asyncpg.Record:
    """The statement's first row; `missing` (a NOT_FOUND error) when it returns none."""
    row = await conn.fetchrow(statement, *args)
    if row is None:
        raise missing
    return row


@asynccontextmanager
async def transaction(
    pool: asyncpg.Pool,
    *,
    settings: Mapping[str, str] | None = None,
    readonly: bool = False,
    isolation: str = "read_committed",
) -> AsyncIterator[asyncpg.Connection]:
    async with pool.acquire() as conn, conn.transaction(isolation=isolation, readonly=readonly):
        local: dict[str, str] = {}
        left = remaining_ms()
        if left is not None:
            local["statement_timeout"] = str(left)
        if settings:
            local.update(settings)
        if local:
            await apply_settings(conn, local)
        yield conn

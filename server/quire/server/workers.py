"""Whether an indexer worker is running: each worker writes a heartbeat row at start and every
5 s (indexer/quire/indexer/worker/jobs.py, `beat`; table worker_heartbeats). Without one,
uploads stay PENDING, so `quire serve` warns at start and IndexStatus carries the newest
heartbeat (docs/operations.md, "Production layout")."""

from __future__ import annotations

import logging
from datetime import datetime

import asyncpg

log = logging.getLogger(__name__)

# A worker beats every 5 s (jobs.HEARTBEAT_SECONDS); six missed beats is no worker.
ABSENT_AFTER_S = 30.0
LAST_SEEN = "SELECT max(seen_at) FROM worker_heartbeats"
RECENTLY_SEEN = (
    "SELECT EXISTS (SELECT 1 FROM worker_heartbeats "
    "WHERE seen_at > now() - make_interval(secs => $1))"
)


async def last_seen(conn: asyncpg.Connection | asyncpg.Pool) -> datetime | None:
    """When any worker last showed it was alive; None when none ever has."""
    seen: datetime | None = await conn.fetchval(LAST_SEEN)
    return seen


async def warn_if_absent(pool: asyncpg.Pool) -> bool:
    """Logs one warning when no worker was seen within ABSENT_AFTER_S; True if it did."""
    if await pool.fetchval(RECENTLY_SEEN, ABSENT_AFTER_S):
        return False
    seen = await last_seen(pool)
    log.warning(
        "no indexer worker seen %s: uploaded documents stay PENDING until one runs "
        "(start `quire worker` against the same database; docs/operations.md, Production layout)",
        f"since {seen.isoformat(timespec='seconds')}" if seen else "yet",
        extra={"worker_last_seen": seen.isoformat() if seen else ""},
    )
    return True

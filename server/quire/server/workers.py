"""Whether indexer workers are running, per embedding model: each worker indexes the
collections of one model and writes a heartbeat row naming it at start and every 5 s
(indexer/quire/indexer/worker/jobs.py, `beat`; table worker_heartbeats). Without a worker for a
model, uploads to that model's collections stay PENDING, so `quire serve` warns at start for
each model it serves that has none, and IndexStatus carries the heartbeat of the collection's
model (docs/operations.md, "Production layout")."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

import asyncpg

from quire.server.models import DEFAULT_MODEL

log = logging.getLogger(__name__)

# A worker beats every 5 s (jobs.HEARTBEAT_SECONDS); six missed beats is no worker.
ABSENT_AFTER_S = 30.0
LAST_SEEN = "SELECT max(seen_at) FROM worker_heartbeats WHERE embedding_model = $1"
RECENTLY_SEEN = """
SELECT m.model FROM unnest($1::text[]) AS m(model)
WHERE EXISTS (SELECT 1 FROM worker_heartbeats h WHERE h.embedding_model = m.model
              AND h.seen_at > now() - make_interval(secs => $2))
"""


async def last_seen(conn: asyncpg.Connection | asyncpg.Pool, model: str) -> datetime | None:
    """When a worker indexing `model`'s collections last showed it was alive; None when none
    ever has."""
    seen: datetime | None = await conn.fetchval(LAST_SEEN, model)
    return seen


async def last_seen_all(
    conn: asyncpg.Connection | asyncpg.Pool, models: Iterable[str]
) -> datetime | None:
    """The oldest of the models' `last_seen`: None when one of them never had a worker."""
    seen = [await last_seen(conn, model) for model in dict.fromkeys(models)]
    return None if not seen or None in seen else min(s for s in seen if s is not None)


async def warn_if_absent(pool: asyncpg.Pool, models: list[str]) -> list[str]:
    """Logs one warning per model (of those this server embeds for) that no worker was seen
    for within ABSENT_AFTER_S; returns those models."""
    present = {r["model"] for r in await pool.fetch(RECENTLY_SEEN, models, ABSENT_AFTER_S)}
    absent = [m for m in dict.fromkeys(models) if m not in present]
    for model in absent:
        seen = await last_seen(pool, model)
        log.warning(
            "no indexer worker seen for %s %s: uploads to its collections stay PENDING until "
            "one runs (start `quire worker%s` against the same database; docs/operations.md, "
            "Production layout)",
            model,
            f"since {seen.isoformat(timespec='seconds')}" if seen else "yet",
            "" if model == DEFAULT_MODEL else f" --models {model}",
            extra={"embedding_model": model, "worker_last_seen": seen.isoformat() if seen else ""},
        )
    return absent

"""Versioned SQL migrations (`sql/NNNN_name.sql`), applied in order at start.

Pending files run in one transaction under a transaction-scoped advisory lock, so a failed
migration leaves nothing half-applied and concurrent starts are safe (the second waits, then
finds nothing to do).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from importlib import resources

import asyncpg

log = logging.getLogger(__name__)

# An arbitrary constant that names "Quire migrations" among advisory locks.
MIGRATION_LOCK_KEY = 0x51554952

CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""
APPLIED = "SELECT version FROM schema_migrations"
RECORD = "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)"
LOCK = "SELECT pg_advisory_xact_lock($1)"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available() -> list[Migration]:
    folder = resources.files("quire.server.storage") / "sql"
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            version = int(entry.name.split("_", 1)[0])
            found.append(Migration(version, entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found, key=lambda m: m.version)


async def migrate(conn: asyncpg.Connection) -> list[int]:
    """Applies pending migrations; returns the versions applied by this call."""
    applied_now: list[int] = []
    async with conn.transaction():
        await conn.execute(LOCK, MIGRATION_LOCK_KEY)
        await conn.execute(CREATE_TABLE)
        done = {r["version"] for r in await conn.fetch(APPLIED)}
        for migration in available():
            if migration.version in done:
                continue
            log.info("applying migration", extra={"migration": migration.name})
            await conn.execute(migration.sql)
            await conn.execute(RECORD, migration.version, migration.name)
            applied_now.append(migration.version)
    return applied_now

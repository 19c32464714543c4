"""The PostgreSQL PageStore the grep and command engines read through (one snapshot)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import asyncpg

from quire.server.pages.body_cache import PageEntry

ENTRIES = """
SELECT path, content_id, revision, filesystem_version, total_chars, title, url
FROM pages WHERE org_id = $1 AND namespace = $2 AND starts_with(path, $3) ORDER BY path
"""
BODIES = """
SELECT path, body FROM pages
WHERE org_id = $1 AND namespace = $2 AND path = ANY($3::text[])
"""


class PgPageStore:
    """Reads a namespace on one connection; callers hold a REPEATABLE READ transaction."""

    def __init__(self, conn: asyncpg.Connection, org_id: uuid.UUID, namespace: str) -> None:
        self.conn = conn
        self.org_id = org_id
        self.namespace = namespace
        # The entries of the last listing, so callers can cite each match's URL and revision.
        self.listed: dict[str, PageEntry] = {}

    async def list_entries(self, prefix: str) -> list[PageEntry]:
        rows = await self.conn.fetch(ENTRIES, self.org_id, self.namespace, prefix)
        entries = [
            PageEntry(
                path=r["path"],
                content_id=str(r["content_id"]),
                revision=r["revision"],
                filesystem_version=r["filesystem_version"],
                total_chars=r["total_chars"],
                title=r["title"],
                url=r["url"],
            )
            for r in rows
        ]
        self.listed = {e.path: e for e in entries}
        return entries

    async def read_bodies(self, entries: Sequence[PageEntry]) -> dict[str, str]:
        rows = await self.conn.fetch(BODIES, self.org_id, self.namespace, [e.path for e in entries])
        return {r["path"]: r["body"] for r in rows}

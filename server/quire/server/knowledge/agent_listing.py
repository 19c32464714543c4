"""ListAgents: one page of an organisation's agents, by agent_id, with a sealed cursor
(quire.server.cursors) holding the last id of the page."""

from __future__ import annotations

import uuid

import asyncpg

from quire.server.cursors import CursorCodec

# Keyset paging on the primary key (org_id, agent_id): each page is one index range scan.
FIRST = """
SELECT agent_id, attached_collection_ids, config_version FROM agents
WHERE org_id = $1 ORDER BY agent_id LIMIT $2
"""
AFTER = """
SELECT agent_id, attached_collection_ids, config_version FROM agents
WHERE org_id = $1 AND agent_id > $3 ORDER BY agent_id LIMIT $2
"""


# The cursor's payload: the last agent_id of the page; the listing it is sealed for (the RPC
# and the organisation) binds it to the organisation.
CURSOR_SHAPE: dict[str, type] = {"a": str}


async def list_page(
    conn: asyncpg.Connection, codec: CursorCodec, org_id: uuid.UUID, *, cursor: str, limit: int
) -> tuple[list[asyncpg.Record], str]:
    """At most `limit` agent rows after the cursor's, and the cursor of the next page ("" when
    this one is the last)."""
    listing = ("ListAgents", str(org_id))
    # Opened before any query: a cursor not issued for this listing never reaches SQL.
    after = codec.open(cursor, listing, CURSOR_SHAPE)["a"] if cursor else None
    if after is None:
        rows = await conn.fetch(FIRST, org_id, limit + 1)
    else:
        rows = await conn.fetch(AFTER, org_id, limit + 1, after)
    more = len(rows) > limit
    rows = rows[:limit]
    token = codec.seal(listing, {"a": rows[-1]["agent_id"]}) if more else ""
    return rows, token

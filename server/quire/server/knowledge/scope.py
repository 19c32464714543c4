"""Which collections a call may touch: the agent's current attachments (or the named
collections) intersected with the organisation's non-deleted collections."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import asyncpg

from quire.server.errors import QuireError, invalid
from quire.v1 import errors_pb2

AGENT_ATTACHMENTS = "SELECT attached_collection_ids FROM agents WHERE org_id = $1 AND agent_id = $2"
LIVE_COLLECTIONS = """
SELECT collection_id, revision, serving_generation FROM collections
WHERE org_id = $1 AND collection_id = ANY($2::uuid[]) AND deleted_at IS NULL
ORDER BY collection_id
"""

AGENT_NOT_FOUND = QuireError(errors_pb2.ERROR_CODE_AGENT_NOT_FOUND, "Agent not found")
MAX_COLLECTIONS = 100


@dataclass(frozen=True)
class ScopedCollection:
    collection_id: uuid.UUID
    revision: int
    serving_generation: int


def _uuids(values: list[str]) -> list[uuid.UUID]:
    out = []
    for value in values:
        try:
            out.append(uuid.UUID(value))
        except ValueError:
            continue  # an id that cannot exist is simply out of scope
    return out


async def resolve(
    conn: asyncpg.Connection, org_id: uuid.UUID, agent_id: str, collection_ids: list[str]
) -> list[ScopedCollection]:
    if bool(agent_id) == bool(collection_ids):
        raise invalid("agent_id", "give exactly one of agent_id or collection_ids")
    if len(collection_ids) > MAX_COLLECTIONS:
        raise invalid("collection_ids", f"at most {MAX_COLLECTIONS}")
    if agent_id:
        if len(agent_id) > 128 or "\x00" in agent_id:  # cannot exist; PostgreSQL rejects NUL
            raise AGENT_NOT_FOUND
        attached = await conn.fetchval(AGENT_ATTACHMENTS, org_id, agent_id)
        if attached is None:
            raise AGENT_NOT_FOUND
        wanted = list(attached)
    else:
        wanted = _uuids(collection_ids)
    if not wanted:
        return []
    rows = await conn.fetch(LIVE_COLLECTIONS, org_id, wanted)
    return [
        ScopedCollection(r["collection_id"], r["revision"], r["serving_generation"]) for r in rows
    ]

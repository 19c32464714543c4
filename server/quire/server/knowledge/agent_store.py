"""Agents on the serving side: upsert, get and delete (listing: agent_listing.py; which
collections an agent reaches: reachable.py)."""

from __future__ import annotations

import uuid

import asyncpg

from quire.server.contract import SCHEMA_VERSION
from quire.server.knowledge import collection_store
from quire.server.knowledge.document_store import COLLECTION_NOT_FOUND
from quire.server.knowledge.reachable import AGENT_NOT_FOUND
from quire.server.storage.database import one_row
from quire.v1 import knowledge_pb2

UPSERT = """
INSERT INTO agents (org_id, agent_id, attached_collection_ids) VALUES ($1, $2, $3::uuid[])
ON CONFLICT (org_id, agent_id) DO UPDATE SET
    attached_collection_ids = EXCLUDED.attached_collection_ids,
    config_version = agents.config_version + 1, updated_at = now()
RETURNING agent_id, attached_collection_ids, config_version
"""
GET = """
SELECT agent_id, attached_collection_ids, config_version FROM agents
WHERE org_id = $1 AND agent_id = $2
"""
DELETE = """
DELETE FROM agents WHERE org_id = $1 AND agent_id = $2
RETURNING agent_id, attached_collection_ids, config_version
"""


def agent_message(row: asyncpg.Record) -> knowledge_pb2.Agent:
    return knowledge_pb2.Agent(
        schema_version=SCHEMA_VERSION,
        agent_id=row["agent_id"],
        attached_collection_ids=[str(c) for c in row["attached_collection_ids"]],
        config_version=row["config_version"],
    )


async def upsert(
    conn: asyncpg.Connection, org_id: uuid.UUID, agent_id: str, collection_ids: list[uuid.UUID]
) -> knowledge_pb2.Agent:
    """Creates the agent or replaces its attachments (`collection_ids`, distinct, each a live
    collection: else COLLECTION_NOT_FOUND)."""
    if not await collection_store.all_live(conn, org_id, collection_ids):
        raise COLLECTION_NOT_FOUND
    return agent_message(await conn.fetchrow(UPSERT, org_id, agent_id, collection_ids))


async def get(conn: asyncpg.Connection, org_id: uuid.UUID, agent_id: str) -> knowledge_pb2.Agent:
    return agent_message(await one_row(conn, AGENT_NOT_FOUND, GET, org_id, agent_id))


async def delete(conn: asyncpg.Connection, org_id: uuid.UUID, agent_id: str) -> knowledge_pb2.Agent:
    """Removes the agent; returns it as it was."""
    return agent_message(await one_row(conn, AGENT_NOT_FOUND, DELETE, org_id, agent_id))

"""Agents on the serving side: upsert, get and delete, and the check of an agent_id a call
looks up (listing: agent_listing.py; which collections an agent reaches: reachable.py)."""

from __future__ import annotations

import uuid

import asyncpg

from quire.server.contract import SCHEMA_VERSION
from quire.server.contract.bounds import FieldBounds
from quire.server.failures import QuireError
from quire.server.knowledge import collection_store
from quire.server.knowledge.document_store import COLLECTION_NOT_FOUND
from quire.server.storage.database import one_row
from quire.server.validation import number
from quire.v1 import errors_pb2, knowledge_pb2

AGENT_NOT_FOUND = QuireError(errors_pb2.ERROR_CODE_AGENT_NOT_FOUND, "Agent not found")

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


def looked_up_id(agent_id: str, bounds: FieldBounds) -> str:
    """An agent_id a call looks up (GetAgent, DeleteAgent, SearchKnowledge, ReadDocument), within
    `bounds`, the request's own contract bound. A longer id, or one holding NUL, cannot exist
    (UpsertAgent refuses it; PostgreSQL rejects NUL in text): the agent is simply not found,
    before any query. UpsertAgent, which creates, checks its id with `validation.name_field`."""
    if len(agent_id) > number(bounds.max_chars) or "\x00" in agent_id:
        raise AGENT_NOT_FOUND
    return agent_id


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

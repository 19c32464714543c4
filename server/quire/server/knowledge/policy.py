"""The retrieval mode a call is served with: organisation setting, deployment default, and
the kill switch above both."""

from __future__ import annotations

import uuid

import asyncpg

from quire.server.state import AppState
from quire.v1 import admin_pb2, knowledge_pb2

POLICY = """
SELECT o.retrieval_mode, o.max_search_limit,
       coalesce((SELECT (value)::text::boolean FROM deployment_settings
                 WHERE name = 'kill_switch'), false) AS kill_switch
FROM organisations o WHERE o.org_id = $1
"""


def deployment_mode(state: AppState) -> int:
    name = f"RETRIEVAL_MODE_{state.settings.retrieval_mode.upper()}"
    return int(knowledge_pb2.RetrievalMode.Value(name))


async def load_policy(
    conn: asyncpg.Connection, org_id: uuid.UUID, state: AppState
) -> admin_pb2.RetrievalPolicy:
    row = await conn.fetchrow(POLICY, org_id)
    mode = row["retrieval_mode"] or 0
    effective = (
        knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS
        if row["kill_switch"]
        else (mode or deployment_mode(state))
    )
    return admin_pb2.RetrievalPolicy(
        schema_version=1,
        mode=knowledge_pb2.RetrievalMode.ValueType(mode),
        effective_mode=knowledge_pb2.RetrievalMode.ValueType(effective),
        max_search_limit=row["max_search_limit"],
        kill_switch_engaged=row["kill_switch"],
    )


async def effective_mode(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    state: AppState,
    requested: knowledge_pb2.RetrievalMode.ValueType = knowledge_pb2.RETRIEVAL_MODE_UNSPECIFIED,
) -> tuple[knowledge_pb2.RetrievalMode.ValueType, int]:
    """(mode to serve, the organisation's search-limit bound). A `requested` mode (one call's
    choice) replaces the policy's, except under the kill switch, which forces LEGACY_FTS."""
    policy = await load_policy(conn, org_id, state)
    if requested and not policy.kill_switch_engaged:
        return requested, policy.max_search_limit
    return policy.effective_mode, policy.max_search_limit

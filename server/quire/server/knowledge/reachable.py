"""Which collections a call can reach (SearchKnowledge, ReadDocument): the agent's current
attachments intersected with the organisation's non-deleted collections, or the named
collections, each of which must be one of those; with each, what the search cache needs to
know (whether its index has caught up with its revision, and the version of its serving
generation's term statistics) and whether its index backlog has rows (documents the serving
generation may lack: one index probe, so a collection whose index has caught up costs the
search nothing more)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import asyncpg

from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError, Violation, invalid
from quire.server.knowledge.agent_store import AGENT_NOT_FOUND, looked_up_id
from quire.server.validation import number, uuid_items
from quire.v1 import errors_pb2

AGENT_ATTACHMENTS = "SELECT attached_collection_ids FROM agents WHERE org_id = $1 AND agent_id = $2"
LIVE_COLLECTIONS = """
SELECT c.collection_id, c.revision, c.serving_generation,
       coalesce(g.embedding_model, c.embedding_model) AS embedding_model,
       coalesce(g.text_config, 'simple') AS text_config,
       c.settled_revision = c.revision AS settled, coalesce(s.version, 0) AS stats_version,
       EXISTS (SELECT 1 FROM index_backlog b
               WHERE b.org_id = c.org_id AND b.collection_id = c.collection_id) AS backlog
FROM collections c
LEFT JOIN generation_stats s ON s.org_id = c.org_id AND s.collection_id = c.collection_id
 AND s.generation = c.serving_generation
LEFT JOIN index_generations g ON g.org_id = c.org_id AND g.collection_id = c.collection_id
 AND g.generation = c.serving_generation
WHERE c.org_id = $1 AND c.collection_id = ANY($2::uuid[]) AND c.deleted_at IS NULL
ORDER BY c.collection_id
"""

# The same on SearchKnowledge, ReadDocument and UpsertAgent (tests/unit/test_contract_bounds.py).
MAX_COLLECTIONS = number(contract_bounds.SearchKnowledgeRequest.collection_ids.max_items)
# The same on SearchKnowledge and ReadDocument (tests/unit/test_contract_bounds.py).
AGENT_ID = contract_bounds.SearchKnowledgeRequest.agent_id


@dataclass(frozen=True)
class ReachableCollection:
    """A collection a call can reach, as the search and its cache need it."""

    collection_id: uuid.UUID
    revision: int
    serving_generation: int
    # The worker found no pending work for this revision and made the term statistics exact
    # (indexer/worker/settle.py): only then may a result be cached.
    settled: bool = False
    stats_version: int = 0
    # The index backlog has rows: documents the serving generation may not hold yet
    # (knowledge/pending.py checks them).
    backlog: bool = False
    # The model the serving generation's vectors come from, read in the same snapshot as
    # `serving_generation` (a rollback may serve another model's generation); before any
    # generation serves, the collection's.
    embedding_model: str = "all-minilm-l6-v2"
    # The serving generation's text analysis (migration 0020): part of the serving
    # fingerprint, since the lexical arm ranks by it. 'simple' before any generation serves.
    text_config: str = "simple"


def _not_found(fields: list[str]) -> QuireError:
    """Other organisations' ids, deleted ones and ids never created answer alike (no oracle)."""
    return QuireError(
        errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND,
        f"Collection not found: {', '.join(fields)}",
        violations=tuple(Violation(f, "no such collection") for f in fields),
    )


async def resolve(
    conn: asyncpg.Connection, org_id: uuid.UUID, agent_id: str, collection_ids: list[str]
) -> list[ReachableCollection]:
    """The live collections the call names (`collection_ids`) or its agent is attached to."""
    if bool(agent_id) == bool(collection_ids):
        raise invalid("agent_id", "give exactly one of agent_id or collection_ids")
    if len(collection_ids) > MAX_COLLECTIONS:
        raise invalid("collection_ids", f"at most {MAX_COLLECTIONS}")
    if agent_id:
        attached = await conn.fetchval(AGENT_ATTACHMENTS, org_id, looked_up_id(agent_id, AGENT_ID))
        if attached is None:
            raise AGENT_NOT_FOUND
        wanted = list(attached)
    else:
        wanted = uuid_items("collection_ids", collection_ids, "a collection id")
    if not wanted:
        return []
    rows = await conn.fetch(LIVE_COLLECTIONS, org_id, wanted)
    if not agent_id:
        # A named collection that is not live is a mistake to report; an agent's attachment
        # deleted since the upsert is simply out of reach (the agent cannot be told).
        live = {r["collection_id"] for r in rows}
        missing = [f"collection_ids[{i}]" for i, c in enumerate(wanted) if c not in live]
        if missing:
            raise _not_found(missing)
    return [
        ReachableCollection(
            r["collection_id"],
            r["revision"],
            r["serving_generation"],
            settled=r["settled"],
            stats_version=r["stats_version"],
            backlog=r["backlog"],
            embedding_model=r["embedding_model"],
            text_config=r["text_config"],
        )
        for r in rows
    ]

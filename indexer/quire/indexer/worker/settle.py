"""Settling a collection: exact term statistics once its index has caught up, and purging
deleted collections from the shared indexes.

A collection is *settled* at revision R when no job that can change its chunks (an
extraction of one of its documents, a generation build) is queued or running. Every change
that reaches the chunks advances the revision in the transaction that queues its job (or, for a
document removal, deletes its chunks), so at that moment the serving generation holds exactly
what revision R says. The worker then re-derives the term statistics of the collection's live
generations from their chunks (BM25's idf and mean length, exact rather than "within 10%") and
records `collections.settled_revision = R`; it also removes index backlog rows the serving
generation turned out to hold (backlog.py). Searches cache a result only for settled
collections, under a key that holds the statistics version (knowledge/cache.py), so a cached
answer is the fresh one.

The worker settles a collection after each batch it writes there, after a job of it fails for
good, after a generation flip, on a `settle_collection` job (queued by document removals), and
in a periodic sweep over unsettled collections. The statistics of a collection in the middle
of a bulk load still follow the chunk count (lexical_stats.refresh_if_drifted).

A soft-deleted collection's rows — chunks, statistics, backlog, generations, documents and
their originals, jobs — are deleted by a `purge_collection` job queued with the delete (which
also cancels its jobs, cancel.py), so they leave the shared GIN and HNSW indexes.
"""

from __future__ import annotations

import uuid

import asyncpg

from quire.indexer.worker import backlog, cancel, lexical_stats
from quire.v1 import knowledge_pb2

SETTLE = "settle_collection"
PURGE = "purge_collection"

LOCK = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
# KEY SHARE: a collection delete waits for a settle under way, which then writes no row after
# the purge (cancel.py).
STATE = """
SELECT revision, serving_generation, deleted_at FROM collections
WHERE org_id = $1 AND collection_id = $2 FOR KEY SHARE
"""
# Jobs that can still change the collection's chunks. Settle jobs change none (two running at
# once must not wait for each other).
PENDING = f"""
SELECT EXISTS (
    SELECT 1 FROM jobs j
    WHERE j.org_id = $1 AND j.state IN ('queued', 'running') AND j.kind <> '{SETTLE}'
      AND (j.payload->>'collection_id' = $2::uuid::text
           OR EXISTS (SELECT 1 FROM documents d
                      WHERE d.org_id = j.org_id AND d.collection_id = $2::uuid
                        AND d.document_id = (j.payload->>'document_id')::uuid))
)
"""
# The serving generation, and the newest retired one (the rollback target, which document
# changes keep current: generations.LIVE_GENERATIONS), whose statistics are not already exact
# for this revision.
TO_REFRESH = f"""
SELECT g.generation
FROM index_generations g
LEFT JOIN generation_stats s USING (org_id, collection_id, generation)
WHERE g.org_id = $1 AND g.collection_id = $2
  AND (g.state = {knowledge_pb2.GENERATION_STATE_READY}
       OR g.generation = (SELECT max(r.generation) FROM index_generations r
                          WHERE r.org_id = $1 AND r.collection_id = $2
                            AND r.state = {knowledge_pb2.GENERATION_STATE_RETIRED}))
  AND s.settled_revision IS DISTINCT FROM $3
ORDER BY g.generation
"""
MARK_SETTLED = """
UPDATE collections SET settled_revision = $3
WHERE org_id = $1 AND collection_id = $2 AND revision = $3 AND settled_revision <> $3
  AND deleted_at IS NULL
"""
UNSETTLED = """
SELECT org_id, collection_id FROM collections
WHERE settled_revision < revision AND deleted_at IS NULL
ORDER BY org_id, collection_id
LIMIT $1
"""
DELETED = """
SELECT 1 FROM collections WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NOT NULL
"""
PURGE_STATEMENTS = [
    "DELETE FROM knowledge_chunks WHERE org_id = $1 AND collection_id = $2",
    "DELETE FROM lexeme_stats WHERE org_id = $1 AND collection_id = $2",
    "DELETE FROM generation_stats WHERE org_id = $1 AND collection_id = $2",
    "DELETE FROM index_backlog WHERE org_id = $1 AND collection_id = $2",
    "DELETE FROM index_generations WHERE org_id = $1 AND collection_id = $2",
    # Their originals go with them (ON DELETE CASCADE).
    "DELETE FROM documents WHERE org_id = $1 AND collection_id = $2",
]


async def settle(conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID) -> bool:
    """Makes the statistics exact and marks the revision settled when nothing is pending;
    True if the collection is settled now."""
    async with conn.transaction():
        await conn.execute(LOCK, f"settle:{org_id}:{collection_id}")
        state = await conn.fetchrow(STATE, org_id, collection_id)
        if state is None or state["deleted_at"] is not None:
            return False
        revision = state["revision"]
        if await conn.fetchval(PENDING, org_id, collection_id):
            return False
        for row in await conn.fetch(TO_REFRESH, org_id, collection_id, revision):
            await lexical_stats.refresh(
                conn, org_id, collection_id, row["generation"], analyze=False, settled=revision
            )
        if state["serving_generation"]:
            # Nothing is in flight: rows left in the backlog (a write that went only to a
            # building generation, a document removed) are checked against the chunks now.
            await backlog.clean(conn, org_id, collection_id, state["serving_generation"])
        # No row when an upload advanced the revision meanwhile: its job settles it later.
        await conn.execute(MARK_SETTLED, org_id, collection_id, revision)
    return True


async def sweep(conn: asyncpg.Connection, limit: int = 16) -> int:
    """Settles unsettled collections that have nothing pending (what no event triggered:
    a worker stopped before settling, data from before migration 0005); returns how many
    were settled."""
    done = 0
    for row in await conn.fetch(UNSETTLED, limit):
        done += await settle(conn, row["org_id"], row["collection_id"])
    return done


async def purge(conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID) -> bool:
    """Deletes a soft-deleted collection's rows (the collection row stays, deleted); False
    (nothing done) if the collection is live."""
    async with conn.transaction():
        if await conn.fetchval(DELETED, org_id, collection_id) is None:
            return False
        await cancel.remove_jobs(conn, org_id, collection_id)  # before its documents go
        for statement in PURGE_STATEMENTS:
            await conn.execute(statement, org_id, collection_id)
    return True

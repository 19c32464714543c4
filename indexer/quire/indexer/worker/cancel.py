"""Cancelling a deleted collection's work.

`DeleteCollection` removes the collection's queued and running jobs (its documents'
extractions, its generation builds, its settles) in its own transaction and notifies CHANNEL
at commit. A worker that hears it drops what it holds of the collection: documents waiting for
or between embedding slices, chunked documents waiting to be written, and the collection's
build; at most the groups already handed to the embedder (a fraction of a second) finish and
are thrown away. The notification can be missed (a worker reconnecting), so each worker also
asks at every lease renewal (jobs.HEARTBEAT_SECONDS) which collections it holds work of are
deleted.

No row of the collection can appear after the delete commits: every write of chunks, texts,
term statistics and generation flips locks the collection row (KEY SHARE or stronger) and
checks it is live, and the delete's FOR UPDATE waits for writes under way. The purge job
queued with the delete (settle.purge) then removes every row of the collection.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import asyncpg

CHANNEL = "quire_cancel"
NOTIFY = "SELECT pg_notify($1, $2)"
# The collection's jobs: by collection id (builds, settles) or by one of its documents
# (extractions). The purge job is kept: it is queued after this, in the same transaction.
CANCEL_JOBS = """
DELETE FROM jobs j
WHERE j.org_id = $1 AND j.kind <> 'purge_collection' AND j.state = ANY($3::text[])
  AND (j.payload->>'collection_id' = $2::uuid::text
       OR j.payload->>'document_id' IN (SELECT d.document_id::text FROM documents d
                                        WHERE d.org_id = $1 AND d.collection_id = $2))
"""
DELETED_AMONG = """
SELECT c.org_id, c.collection_id FROM collections c
JOIN unnest($1::uuid[], $2::uuid[]) AS w(org_id, collection_id)
  ON c.org_id = w.org_id AND c.collection_id = w.collection_id
WHERE c.deleted_at IS NOT NULL
"""
UNFINISHED = ["queued", "running"]


async def cancel_jobs(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> None:
    """Removes the collection's queued and running jobs and tells the workers at commit; run
    it in the delete's transaction, after the collection row is locked."""
    await conn.execute(CANCEL_JOBS, org_id, collection_id, UNFINISHED)
    await conn.execute(NOTIFY, CHANNEL, payload(org_id, collection_id))


async def remove_jobs(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> None:
    """Every job of the collection but its purge, whatever its state (the purge)."""
    await conn.execute(CANCEL_JOBS, org_id, collection_id, ["queued", "running", "done", "failed"])


def payload(org_id: uuid.UUID, collection_id: uuid.UUID) -> str:
    return f"{org_id}:{collection_id}"


def parse(text: str) -> tuple[uuid.UUID, uuid.UUID] | None:
    try:
        org, collection = text.split(":")
        return uuid.UUID(org), uuid.UUID(collection)
    except ValueError:
        return None


async def deleted_among(
    conn: asyncpg.Connection, collections: Iterable[tuple[uuid.UUID, uuid.UUID]]
) -> list[tuple[uuid.UUID, uuid.UUID]]:
    """Those of `collections` (org, collection) that are deleted."""
    pairs = list(dict.fromkeys(collections))
    if not pairs:
        return []
    rows = await conn.fetch(DELETED_AMONG, [p[0] for p in pairs], [p[1] for p in pairs])
    return [(r["org_id"], r["collection_id"]) for r in rows]

"""What the server may use of the indexer's worker: job kinds and queueing, the notification
channels a document change uses, index generation builds and rollbacks, and the worker itself
(for `quire up`, `quire worker` and the gate). The server imports this module, never
`quire.indexer.worker.*` (tests/unit/test_indexer_boundary.py checks it), so the worker's
modules can change shape without the server following them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import asyncpg

from quire.indexer import fingerprint
from quire.indexer.fingerprint import collection_fingerprint
from quire.indexer.worker import backlog, cancel, document_queries, generations, jobs, settle
from quire.indexer.worker.builds import BUILD, build_payload
from quire.indexer.worker.chunk_and_embed import TITLE_MODE
from quire.indexer.worker.extraction_stage import EXTRACT
from quire.indexer.worker.other_models import INDEX_FOR_MODEL
from quire.indexer.worker.pipeline import Worker

# Job kinds (the stages a job runs in the worker).
EXTRACT_JOB = EXTRACT  # extract, chunk, embed and write one uploaded document
BUILD_JOB = BUILD  # index every document of a collection into a new generation, then flip
SETTLE_JOB = settle.SETTLE  # exact statistics once a collection has nothing pending
PURGE_JOB = settle.PURGE  # a deleted collection's chunks and statistics leave the indexes
# a document change into the live generations of another embedding model than the serving one
INDEX_FOR_MODEL_JOB = INDEX_FOR_MODEL

# NOTIFY channels: a new job (payload: its kind), a document change (`document_change_payload`).
JOBS_CHANNEL = jobs.CHANNEL
DOCUMENTS_CHANNEL = document_queries.CHANNEL
document_change_payload = document_queries.change_payload

# Retired generations: a rollback's target is the newest one (generations.LIVE_GENERATIONS).
_PREVIOUS_GENERATION = f"""
SELECT generation, embedding_model FROM index_generations
WHERE org_id = $1 AND collection_id = $2 AND generation <> $3
  AND state = {generations.RETIRED}
ORDER BY generation DESC LIMIT 1
"""
_ROLL_BACK = f"""
WITH retire AS (
    UPDATE index_generations SET state = {generations.RETIRED}
    WHERE org_id = $1 AND collection_id = $2 AND generation = $3
), revive AS (
    UPDATE index_generations SET state = {generations.READY}
    WHERE org_id = $1 AND collection_id = $2 AND generation = $4
)
UPDATE collections c SET serving_generation = g.generation, embedding_model = g.embedding_model
FROM index_generations g
WHERE c.org_id = $1 AND c.collection_id = $2
  AND g.org_id = $1 AND g.collection_id = $2 AND g.generation = $4
"""


async def enqueue_job(
    conn: asyncpg.Connection, org_id: uuid.UUID, kind: str, payload: dict[str, Any]
) -> int:
    """Queues a job and wakes the workers when the caller's transaction commits."""
    return await jobs.enqueue(conn, org_id, kind, payload)


async def queue_settle(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> None:
    await enqueue_job(conn, org_id, SETTLE_JOB, {"collection_id": str(collection_id)})


async def queue_purge(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> None:
    await enqueue_job(conn, org_id, PURGE_JOB, {"collection_id": str(collection_id)})


async def cancel_collection_work(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> None:
    """A collection delete's share of the indexer, in the delete's transaction (the collection
    row locked FOR UPDATE and marked deleted): its jobs are cancelled, workers drop what they
    hold of it, and a purge job removes its rows (worker/cancel.py)."""
    await cancel.cancel_jobs(conn, org_id, collection_id)
    await queue_purge(conn, org_id, collection_id)


async def notify_document_change(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, document_id: uuid.UUID
) -> None:
    """Tells watchers (WatchDocuments) at commit that the document changed."""
    await document_queries.notify_change(conn, org_id, collection_id, document_id)


@dataclass(frozen=True)
class Build:
    """The BUILDING generation of a collection after `start_rebuild`; `started` is False when
    it was under way already (nothing was created)."""

    generation: int
    embedding_model: str
    started: bool


async def start_rebuild(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    *,
    serving_generation: int | None,
    embedding_model: str,
    embedder_fingerprint: str,
    index_version: str,
) -> Build:
    """Creates a BUILDING generation embedded with `embedding_model` (whose embedder has
    `embedder_fingerprint`) and queues its build for that model's workers, unless one is under
    way already. `index_version` "" keeps the serving generation's (or "1"). The caller holds
    the collection row locked (FOR NO KEY UPDATE) in its transaction."""
    live = await generations.live_generations(conn, org_id, collection_id)
    building = [g for g in live if g.state == generations.BUILDING]
    if building:
        return Build(building[0].generation, building[0].embedding_model, started=False)
    serving = [g for g in live if g.generation == serving_generation]
    version = index_version or (serving[0].index_version if serving else "1")
    # A rebuild is built with new generations' text analysis (how a collection moves to it).
    text_config = fingerprint.KNOWLEDGE_TEXT_CONFIG
    generation = await generations.create_generation(
        conn,
        org_id,
        collection_id,
        collection_fingerprint(embedder_fingerprint, version, text_config),
        version,
        embedding_model,
        text_config,
    )
    await enqueue_job(
        conn, org_id, BUILD_JOB, build_payload(collection_id, generation, embedding_model)
    )
    return Build(generation, embedding_model, started=True)


async def rollback_target(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, current: int
) -> tuple[int, str] | None:
    """The generation a rollback from `current` would serve, with its embedding model; None
    when there is none to go back to."""
    row = await conn.fetchrow(_PREVIOUS_GENERATION, org_id, collection_id, current)
    return None if row is None else (row["generation"], row["embedding_model"])


async def roll_back(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    current: int,
    previous: int,
) -> None:
    """Serves `previous` (the `rollback_target`) again, with its embedding model, and retires
    `current` (rolling back twice swaps back). The caller holds the collection row locked
    (FOR NO KEY UPDATE) in its transaction."""
    await conn.execute(_ROLL_BACK, org_id, collection_id, current, previous)
    # What the revived generation lacks is found at document level (index_backlog).
    changed = await backlog.reconcile(conn, org_id, collection_id, previous)
    await document_queries.notify_changes(conn, changed)
    await generations.notify_index(conn, org_id, collection_id)


__all__ = [
    "BUILD_JOB",
    "DOCUMENTS_CHANNEL",
    "EXTRACT_JOB",
    "INDEX_FOR_MODEL_JOB",
    "JOBS_CHANNEL",
    "PURGE_JOB",
    "SETTLE_JOB",
    "TITLE_MODE",
    "Build",
    "Worker",
    "cancel_collection_work",
    "document_change_payload",
    "enqueue_job",
    "notify_document_change",
    "queue_purge",
    "queue_settle",
    "roll_back",
    "rollback_target",
    "start_rebuild",
]

"""Index generations of a collection: create, write chunks, flip, roll back.

A search reads `collections.serving_generation` and that generation's chunks in one snapshot,
so a flip (one transaction) is seen entirely or not at all. Document changes are written to
every live generation (serving, building, and the newest retired one kept for rollback) so
neither a flip nor a rollback loses an edit.

Each generation has its embedding model (`embedding_model`, migration 0018), and every chunk of
it is embedded with that model: a rebuild onto another model builds a generation of its own
beside the serving one, never a mix of vectors. The flip (and a rollback) sets the collection's
`embedding_model` to the model of the generation it serves, in the same transaction.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg
import numpy as np
import numpy.typing as npt

from quire.indexer.worker import backlog, document_queries
from quire.v1 import knowledge_pb2

CHANNEL = "quire_index"
BUILDING = knowledge_pb2.GENERATION_STATE_BUILDING
READY = knowledge_pb2.GENERATION_STATE_READY
RETIRED = knowledge_pb2.GENERATION_STATE_RETIRED
FAILED = knowledge_pb2.GENERATION_STATE_FAILED

LIVE_GENERATIONS = f"""
SELECT g.generation, g.state, g.fingerprint, g.index_version, g.embedding_model
FROM index_generations g
WHERE g.org_id = $1 AND g.collection_id = $2
  AND (g.state IN ({BUILDING}, {READY})
       OR g.generation = (SELECT max(r.generation) FROM index_generations r
                          WHERE r.org_id = $1 AND r.collection_id = $2 AND r.state = {RETIRED}))
ORDER BY g.generation
"""
# Two workers storing the first texts of a collection at once would both see no generation
# and both create generation 1: `_targets` takes this lock first.
LOCK_GENERATIONS = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
CREATE = f"""
INSERT INTO index_generations (org_id, collection_id, generation, state, fingerprint,
                               index_version, embedding_model, text_config)
SELECT $1, $2, coalesce(max(generation), 0) + 1, {BUILDING}, $3, $4, $5, $6
FROM index_generations WHERE org_id = $1 AND collection_id = $2
RETURNING generation
"""
# NO KEY UPDATE, not UPDATE: uploads hold KEY SHARE on the row (the documents foreign key)
# until they commit, and a FOR UPDATE waiter is starved by a stream of overlapping uploads.
# Flips and rollbacks change non-key columns only.
LOCK_COLLECTION = """
SELECT serving_generation, deleted_at FROM collections
WHERE org_id = $1 AND collection_id = $2 FOR NO KEY UPDATE
"""
# `text_as_of`: the version of the document's text the chunk was cut from (index_backlog).
INSERT_CHUNK = """
INSERT INTO knowledge_chunks (org_id, collection_id, generation, document_id, chunk_ordinal,
                              chunk_id, content, heading_path, tsv, embedding, text_as_of)
SELECT $1, $2, $3, $4::uuid, $5::int, $4::uuid::text || ':' || $5::int, $6::text, $7::text[],
       setweight(to_tsvector(g.config, $9::text || ' ' || array_to_string($7::text[], ' ')), 'A')
         || setweight(to_tsvector(g.config, $6::text), 'D'),
       $8, $10
-- The generation's text analysis (migration 0020). A generation that does not exist gives a
-- NULL config, hence a NULL tsv, which the NOT NULL column refuses: an error, never a chunk
-- analysed some other way.
FROM (SELECT (SELECT text_config FROM index_generations
              WHERE org_id = $1 AND collection_id = $2 AND generation = $3)::regconfig AS config) g
"""
# KEY SHARE on the collection rows: a collection delete (FOR UPDATE) waits for chunk writes in
# progress, and a write that starts after it sees the collection deleted and skips the
# document; so the purge queued with the delete finds every chunk (settle.PURGE).
LOCK_DOCUMENTS = """
SELECT d.org_id, d.document_id, d.updated_at
FROM documents d JOIN unnest($1::uuid[], $2::uuid[]) AS w(org_id, document_id)
  ON d.org_id = w.org_id AND d.document_id = w.document_id
JOIN collections c ON c.org_id = d.org_id AND c.collection_id = d.collection_id
WHERE d.deleted_at IS NULL AND c.deleted_at IS NULL
ORDER BY d.org_id, d.document_id
FOR UPDATE OF d FOR KEY SHARE OF c
"""
DELETE_CHUNKS_MANY = """
DELETE FROM knowledge_chunks k
USING unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::uuid[])
  AS t(org_id, collection_id, generation, document_id)
WHERE k.org_id = t.org_id AND k.collection_id = t.collection_id
  AND k.generation = t.generation AND k.document_id = t.document_id
"""
READY_DOCUMENTS = f"""
SELECT document_id FROM documents
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL
  AND status = {knowledge_pb2.DOCUMENT_STATUS_READY}
ORDER BY document_id
"""
FLIP_READY = f"""
UPDATE index_generations SET state = {READY}, ready_at = now()
WHERE org_id = $1 AND collection_id = $2 AND generation = $3 AND state = {BUILDING}
RETURNING generation
"""
RETIRE = f"""
UPDATE index_generations SET state = {RETIRED}
WHERE org_id = $1 AND collection_id = $2 AND generation = $3 AND state = {READY}
"""
# The collection's model is the serving generation's (what Collection and the claims read).
SERVE = """
UPDATE collections c SET serving_generation = g.generation, embedding_model = g.embedding_model
FROM index_generations g
WHERE c.org_id = $1 AND c.collection_id = $2
  AND g.org_id = $1 AND g.collection_id = $2 AND g.generation = $3
"""
FAIL = f"""
UPDATE index_generations SET state = {FAILED}, error = $4
WHERE org_id = $1 AND collection_id = $2 AND generation = $3 AND state = {BUILDING}
"""
NOTIFY = "SELECT pg_notify($1, $2)"


@dataclass(frozen=True)
class Generation:
    generation: int
    state: int
    fingerprint: str
    index_version: str
    embedding_model: str


@dataclass(frozen=True)
class ChunkRows:
    contents: Sequence[str]
    heading_paths: Sequence[tuple[str, ...]]
    vectors: npt.NDArray[np.float32]
    # The document title, in every chunk's tsvector with the headings (weight A): lexical
    # matches on the title reach every chunk (docs/retrieval-quality.md, row 15).
    title: str = ""


async def notify_index(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> None:
    await conn.execute(
        NOTIFY, CHANNEL, json.dumps({"org": str(org_id), "collection": str(collection_id)})
    )


async def live_generations(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, *, lock: bool = False
) -> list[Generation]:
    """`lock`: hold the collection's generation lock to the end of the transaction (before
    creating the first generation)."""
    if lock:
        await conn.execute(LOCK_GENERATIONS, f"generations:{org_id}:{collection_id}")
    rows = await conn.fetch(LIVE_GENERATIONS, org_id, collection_id)
    return [Generation(**dict(r)) for r in rows]


async def create_generation(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    fingerprint: str,
    index_version: str,
    embedding_model: str,
    text_config: str,
) -> int:
    """A new BUILDING generation whose chunks are embedded with `embedding_model` alone and
    analysed with `text_config` (`fingerprint` computed with both)."""
    generation: int = await conn.fetchval(
        CREATE, org_id, collection_id, fingerprint, index_version, embedding_model, text_config
    )
    await notify_index(conn, org_id, collection_id)
    return generation


@dataclass(frozen=True)
class DocumentChunks:
    """One document's chunks as of `text_as_of`, to be written to `generations`."""

    org_id: uuid.UUID
    collection_id: uuid.UUID
    document_id: uuid.UUID
    text_as_of: datetime
    generations: Sequence[int]
    rows: ChunkRows


async def write_many_chunks(
    conn: asyncpg.Connection, documents: Sequence[DocumentChunks]
) -> list[bool]:
    """Replaces many documents' chunks in their generations in five statements; call it inside a
    transaction. Returns, per document, whether it was written (False: changed or deleted
    after its `text_as_of`, or its collection deleted). Documents are locked in key order, so
    two workers cannot deadlock on them."""
    if not documents:
        return []
    locked = await conn.fetch(
        LOCK_DOCUMENTS, [d.org_id for d in documents], [d.document_id for d in documents]
    )
    current = {(r["org_id"], r["document_id"]): r["updated_at"] for r in locked}
    written = [current.get((d.org_id, d.document_id)) == d.text_as_of for d in documents]
    todo = [d for d, ok in zip(documents, written, strict=True) if ok]
    targets = [(d, g) for d in todo for g in d.generations]
    if targets:
        await conn.execute(
            DELETE_CHUNKS_MANY,
            [d.org_id for d, _ in targets],
            [d.collection_id for d, _ in targets],
            [g for _, g in targets],
            [d.document_id for d, _ in targets],
        )
    rows = [
        (
            d.org_id,
            d.collection_id,
            generation,
            d.document_id,
            ordinal,
            content,
            list(d.rows.heading_paths[ordinal]),
            d.rows.vectors[ordinal],
            d.rows.title,
            d.text_as_of,
        )
        for d, generation in targets
        for ordinal, content in enumerate(d.rows.contents)
    ]
    if rows:
        await conn.executemany(INSERT_CHUNK, rows)
    indexed = await backlog.clear_written(
        conn, [(d.org_id, d.collection_id, g, d.document_id, d.text_as_of) for d, g in targets]
    )
    # Their index state turned INDEXED: watchers hear it at commit (WatchDocuments).
    await document_queries.notify_changes(conn, indexed)
    return written


async def notify_indexes(
    conn: asyncpg.Connection, collections: Sequence[tuple[uuid.UUID, uuid.UUID]]
) -> None:
    """`notify_index` once per distinct (org, collection)."""
    for org_id, collection_id in dict.fromkeys(collections):
        await notify_index(conn, org_id, collection_id)


async def ready_documents(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> list[uuid.UUID]:
    return [r["document_id"] for r in await conn.fetch(READY_DOCUMENTS, org_id, collection_id)]


async def flip(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, generation: int
) -> bool:
    """Makes a fully built generation the serving one; the previous one is kept, RETIRED."""
    async with conn.transaction():
        row = await conn.fetchrow(LOCK_COLLECTION, org_id, collection_id)
        if row is None or row["deleted_at"] is not None:
            return False  # a deleted collection's generations are purged, not served
        if await conn.fetchval(FLIP_READY, org_id, collection_id, generation) is None:
            return False
        previous = row["serving_generation"]
        if previous and previous != generation:
            await conn.execute(RETIRE, org_id, collection_id, previous)
        await conn.execute(SERVE, org_id, collection_id, generation)
        # Before commit: a search sees the new generation with its backlog, or neither.
        changed = await backlog.reconcile(
            conn, org_id, collection_id, generation, first=not previous
        )
        await document_queries.notify_changes(conn, changed)
        await notify_index(conn, org_id, collection_id)
    return True


async def fail(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    generation: int,
    error: str,
) -> None:
    await conn.execute(FAIL, org_id, collection_id, generation, error[:2000])
    await notify_index(conn, org_id, collection_id)

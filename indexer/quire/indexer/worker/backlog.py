"""The index backlog: documents whose current text a collection's serving generation may not
hold yet (migration 0009), so that HYBRID finds them at document level meanwhile
(docs/knowledge.md, "Documents not yet indexed").

A superset, kept by three kinds of write:

- storing a text (`record`, in the extraction's transaction) adds the document with the
  text's version (`documents.updated_at`);
- a chunk write removes it (`clear_written`, in the write's transaction) when it wrote that
  version into the serving generation (or the collection has none yet: the first flip
  re-derives the backlog anyway);
- a flip or rollback re-derives it for the new serving generation (`reconcile`, in the flip's
  transaction), and settling removes rows that turned out indexed (`clean`).

The first two change documents' index state (Document.index_state, which the server derives
from this table): they return the documents concerned, for their callers to notify
(WatchDocuments). Settling's clean-up changes none: a row whose version the serving
generation holds already reads as indexed.

A search checks every row it reads against the chunks of the generation it serves from, so a
row too many costs a lookup, never a wrong answer; the writes above only keep the set small.
Deletions skip rows another transaction holds (that one is writing the same document), so
these statements never wait on each other; insertions go in key order.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import asyncpg

from quire.v1 import knowledge_pb2

_READY = knowledge_pb2.DOCUMENT_STATUS_READY

RECORD = """
INSERT INTO index_backlog (org_id, collection_id, document_id, text_as_of)
SELECT t.org_id, t.collection_id, t.document_id, t.text_as_of
FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[])
  AS t(org_id, collection_id, document_id, text_as_of)
ORDER BY t.org_id, t.document_id
ON CONFLICT (org_id, collection_id, document_id) DO UPDATE SET text_as_of = EXCLUDED.text_as_of
"""
# One row per (document, generation) written; the version leaves the backlog when one of
# them is the serving generation.
CLEAR_WRITTEN = """
DELETE FROM index_backlog b
USING unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::uuid[], $5::timestamptz[])
    AS t(org_id, collection_id, generation, document_id, text_as_of),
  collections c
WHERE c.org_id = t.org_id AND c.collection_id = t.collection_id
  AND c.serving_generation IN (0, t.generation)
  AND b.org_id = t.org_id AND b.collection_id = t.collection_id
  AND b.document_id = t.document_id AND b.text_as_of = t.text_as_of
RETURNING b.org_id, b.collection_id, b.document_id, c.serving_generation
"""
# Rows that need no document-level stand-in in generation $3: the document is gone, the
# generation holds the row's version, or the document has no text and no stale chunk there.
CLEAN = f"""
DELETE FROM index_backlog b
WHERE (b.org_id, b.collection_id, b.document_id) IN (
    SELECT x.org_id, x.collection_id, x.document_id
    FROM index_backlog x
    LEFT JOIN documents d ON d.org_id = x.org_id AND d.document_id = x.document_id
    WHERE x.org_id = $1 AND x.collection_id = $2
      AND (d.document_id IS NULL OR d.deleted_at IS NOT NULL
           OR EXISTS (SELECT 1 FROM knowledge_chunks k
                      WHERE k.org_id = $1 AND k.collection_id = $2 AND k.generation = $3
                        AND k.document_id = x.document_id AND k.chunk_ordinal = 0
                        AND k.text_as_of = x.text_as_of)
           OR (d.status = {_READY} AND d.extract_error <> ''
               AND NOT EXISTS (SELECT 1 FROM knowledge_chunks k
                               WHERE k.org_id = $1 AND k.collection_id = $2
                                 AND k.generation = $3 AND k.document_id = x.document_id)))
    ORDER BY x.document_id
    FOR UPDATE OF x SKIP LOCKED
)
"""
# READY documents with text whose version generation $3 does not hold. Chunks written before
# migration 0009 ('-infinity') count as current, as they did before it.
ADD_MISSING = f"""
INSERT INTO index_backlog (org_id, collection_id, document_id, text_as_of)
SELECT d.org_id, d.collection_id, d.document_id, d.updated_at
FROM documents d
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.deleted_at IS NULL
  AND d.status = {_READY} AND d.extract_error = ''
  AND NOT EXISTS (SELECT 1 FROM knowledge_chunks k
                  WHERE k.org_id = $1 AND k.collection_id = $2 AND k.generation = $3
                    AND k.document_id = d.document_id AND k.chunk_ordinal = 0
                    AND k.text_as_of IN (d.updated_at, '-infinity'))
ORDER BY d.document_id
ON CONFLICT (org_id, collection_id, document_id) DO NOTHING
"""
BACKLOG_DOCUMENTS = """
SELECT document_id FROM index_backlog WHERE org_id = $1 AND collection_id = $2
"""
READY_WITH_TEXT = f"""
SELECT document_id FROM documents
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL AND status = {_READY}
  AND extract_error = ''
"""

Changed = tuple[uuid.UUID, uuid.UUID, uuid.UUID]  # (org, collection, document)


async def record(
    conn: asyncpg.Connection,
    stored: Sequence[tuple[uuid.UUID, uuid.UUID, uuid.UUID, datetime]],
) -> None:
    """Adds (org, collection, document, text version) for texts just stored; run it in the
    transaction that stores them."""
    if stored:
        await conn.execute(RECORD, *(list(column) for column in zip(*stored, strict=True)))


async def clear_written(
    conn: asyncpg.Connection,
    written: Sequence[tuple[uuid.UUID, uuid.UUID, int, uuid.UUID, datetime]],
) -> list[Changed]:
    """Removes the versions just written, as (org, collection, generation, document, text
    version), where one of the generations serves; run it in the writing transaction.
    Returns the documents now indexed (those of collections with no serving generation yet
    become indexed only at the first flip)."""
    if not written:
        return []
    rows = await conn.fetch(CLEAR_WRITTEN, *(list(column) for column in zip(*written, strict=True)))
    return [
        (r["org_id"], r["collection_id"], r["document_id"]) for r in rows if r["serving_generation"]
    ]


async def clean(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, generation: int
) -> None:
    """Removes the rows `generation` (the serving one) does not need."""
    await conn.execute(CLEAN, org_id, collection_id, generation)


async def reconcile(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    generation: int,
    *,
    first: bool = False,
) -> list[Changed]:
    """Re-derives the backlog for `generation`, which is about to serve (or just started to,
    in this transaction). Returns the documents whose index state this may change: those in
    the backlog before or after, and, when no generation served before (`first`), every
    READY document with text (all of them were pending)."""
    before = await conn.fetch(
        READY_WITH_TEXT if first else BACKLOG_DOCUMENTS, org_id, collection_id
    )
    await clean(conn, org_id, collection_id, generation)
    await conn.execute(ADD_MISSING, org_id, collection_id, generation)
    after = await conn.fetch(BACKLOG_DOCUMENTS, org_id, collection_id)
    documents = dict.fromkeys(r["document_id"] for r in [*before, *after])
    return [(org_id, collection_id, d) for d in documents]

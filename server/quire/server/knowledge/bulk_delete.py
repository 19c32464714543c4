"""DeleteDocuments: many documents of one collection, named by external keys, by ids or by a
metadata filter, removed in the caller's transaction with one revision advance."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import asyncpg

from quire.indexer import api as indexer
from quire.server.knowledge import document_store
from quire.server.knowledge.document_store import COLLECTION_NOT_FOUND
from quire.server.knowledge.filters import compile_filter
from quire.v1 import knowledge_pb2

# The collection row is locked first (STAMP_REVISION_MANY would lock it at the end anyway), so
# deletes and uploads into the collection queue here rather than after choosing documents.
LOCK_COLLECTION = """
SELECT revision FROM collections
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL FOR NO KEY UPDATE
"""
BY_KEYS = """
SELECT document_id, external_key FROM documents
WHERE org_id = $1 AND collection_id = $2 AND external_key = ANY($3::text[]) AND deleted_at IS NULL
"""
BY_IDS = """
SELECT document_id FROM documents
WHERE org_id = $1 AND collection_id = $2 AND document_id = ANY($3::uuid[]) AND deleted_at IS NULL
"""
# {where}: the filter's SQL over d.metadata, parameters from $3.
BY_FILTER = """
SELECT d.document_id FROM documents d
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.deleted_at IS NULL AND ({where})
"""
# What document_store.delete does for one document, for all of them in one statement: soft
# delete stamped with the collection's next revision (its row is locked already), chunks and
# originals dropped, watchers told at commit.
REMOVE = """
WITH bumped AS (
    UPDATE collections SET revision = revision + 1
    WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL RETURNING revision
),
gone AS (
    UPDATE documents d SET deleted_at = now(), revision = bumped.revision, updated_at = now()
    FROM bumped
    WHERE d.org_id = $1 AND d.collection_id = $2 AND d.document_id = ANY($3::uuid[])
      AND d.deleted_at IS NULL
    RETURNING d.document_id
),
chunks AS (
    DELETE FROM knowledge_chunks k USING gone
    WHERE k.org_id = $1 AND k.document_id = gone.document_id
),
originals AS (
    DELETE FROM document_originals o USING gone
    WHERE o.org_id = $1 AND o.document_id = gone.document_id
)
SELECT (SELECT revision FROM bumped) AS revision, (SELECT count(*) FROM gone) AS deleted,
       (SELECT count(*) FROM (SELECT pg_notify($4, p) FROM unnest($5::text[]) AS p) n) AS told
"""


@dataclass
class Removed:
    deleted_count: int
    revision: int
    missing_keys: list[str] = field(default_factory=list)
    missing_document_ids: list[str] = field(default_factory=list)


async def delete_documents(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    *,
    keys: Sequence[str] = (),
    document_ids: Sequence[str] = (),
    where: knowledge_pb2.MetadataFilter | None = None,
) -> Removed:
    """Deletes the documents named by exactly one of keys, ids or filter (the caller checked
    which); names that match no live document are reported, not refused."""
    document_store.require_transaction(conn)
    revision = await conn.fetchval(LOCK_COLLECTION, org_id, collection_id)
    if revision is None:
        raise COLLECTION_NOT_FOUND
    removed = Removed(0, revision)
    if keys:
        rows = await conn.fetch(BY_KEYS, org_id, collection_id, list(set(keys)))
        found = {r["external_key"] for r in rows}
        removed.missing_keys = [k for k in dict.fromkeys(keys) if k not in found]
    elif document_ids:
        parsed = {d: _uuid(d) for d in dict.fromkeys(document_ids)}
        wanted = [u for u in parsed.values() if u is not None]
        rows = await conn.fetch(BY_IDS, org_id, collection_id, wanted)
        live = {r["document_id"] for r in rows}
        removed.missing_document_ids = [d for d, u in parsed.items() if u not in live]
    else:
        f = compile_filter(where, first_param=3)
        rows = await conn.fetch(BY_FILTER.format(where=f.sql), org_id, collection_id, *f.args)
    ids = [r["document_id"] for r in rows]
    if not ids:
        return removed
    done = await conn.fetchrow(
        REMOVE,
        org_id,
        collection_id,
        ids,
        indexer.DOCUMENTS_CHANNEL,
        [indexer.document_change_payload(org_id, collection_id, d) for d in ids],
    )
    # As for one delete: the worker re-derives the term statistics, then marks it settled.
    await indexer.queue_settle(conn, org_id, collection_id)
    removed.deleted_count = done["deleted"]
    removed.revision = done["revision"]
    return removed


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None

"""Writing documents: uploads (new, by external key, by id; one or a batch) with their outcome,
and metadata updates. Every write runs in the caller's transaction and ends with the
collection's revision stamp (document_store.STAMP_REVISION*), unless nothing changed.

An upload names its target by `replaces` (a document id) or `external_key`; the target's row is
locked, then compared: same bytes (sha256), file name, media type and metadata is UNCHANGED
(nothing written), same bytes with another name, type, key or metadata is METADATA_UPDATED (no
re-extraction), other bytes REPLACED. A key no live document holds makes a new document;
two uploads racing to create one key meet on the partial unique index (ON CONFLICT DO
NOTHING), and the loser replaces the winner's document.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from quire.indexer import api as indexer
from quire.server.failures import QuireError, invalid
from quire.server.knowledge import document_store
from quire.server.knowledge.document_store import (
    COLLECTION_NOT_FOUND,
    COLUMNS,
    DOCUMENT_NOT_FOUND,
    UNSTAMPED,
    document_message,
    require_transaction,
)
from quire.server.knowledge.metadata import Metadata, parse_stored
from quire.v1 import errors_pb2, knowledge_pb2

CREATED = knowledge_pb2.UPLOAD_OUTCOME_CREATED
REPLACED = knowledge_pb2.UPLOAD_OUTCOME_REPLACED
UNCHANGED = knowledge_pb2.UPLOAD_OUTCOME_UNCHANGED
METADATA_UPDATED = knowledge_pb2.UPLOAD_OUTCOME_METADATA_UPDATED
# A lost race for a new key is retried as a replace; losing again (the winner deleted in
# between, and another upload taking the key again) is possible only under a storm of writes.
_KEY_ATTEMPTS = 3

# The upload's writes before the revision stamp in one statement (one round trip, not six):
# the document row (new, or replaced if it is live in this collection), its original, the
# extract job with its wake-up (the row and notification indexer.enqueue_job would write), and
# the change notification for watchers; notifications are sent at commit. `live` and `stored`
# tell a missing collection from a missing document (or, for a new one, a key taken meanwhile).
_STORE_TAIL = """
original AS (
    INSERT INTO document_originals (org_id, document_id, content)
    SELECT $1, doc.document_id, $9 FROM doc
    ON CONFLICT (org_id, document_id) DO UPDATE SET content = EXCLUDED.content
),
job AS (
    INSERT INTO jobs (org_id, kind, payload) SELECT $1, $10, $11::jsonb FROM doc
),
notified AS (
    SELECT pg_notify($12, $10), pg_notify($13, $14) FROM doc
)
SELECT EXISTS (SELECT 1 FROM live) AS live, (SELECT count(*) FROM notified) > 0 AS stored
"""
_LIVE = """
WITH live AS (
    SELECT collection_id FROM collections
    WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL
),"""
STORE_NEW = f"""{_LIVE}
doc AS (
    INSERT INTO documents (org_id, document_id, collection_id, file_name, mime_type,
                           size_bytes, sha256, status, revision, external_key, metadata)
    SELECT $1, $3, live.collection_id, $4, $5, $6, $7,
           {knowledge_pb2.DOCUMENT_STATUS_PENDING}, $8, $15, coalesce($16::jsonb, '{{}}')
    FROM live
    ON CONFLICT (org_id, collection_id, external_key)
        WHERE deleted_at IS NULL AND external_key IS NOT NULL DO NOTHING
    RETURNING document_id
),{_STORE_TAIL}"""
STORE_REPLACE = f"""{_LIVE}
doc AS (
    UPDATE documents SET file_name = $4, mime_type = $5, size_bytes = $6, sha256 = $7,
           status = {knowledge_pb2.DOCUMENT_STATUS_PENDING}, attempts = 0, revision = $8,
           updated_at = now(), external_key = coalesce($15, external_key),
           metadata = coalesce($16::jsonb, metadata)
    WHERE org_id = $1 AND document_id = $3 AND collection_id = $2 AND deleted_at IS NULL
      AND EXISTS (SELECT 1 FROM live)
    RETURNING document_id
),{_STORE_TAIL}"""
# Same bytes, other name, type, key or metadata: no extraction job; a settle job so the
# collection settles at its new revision (searches cache only settled collections).
UPDATE_DESCRIPTION = """
WITH doc AS (
    UPDATE documents SET file_name = $3, mime_type = $4, external_key = coalesce($5, external_key),
           metadata = coalesce($6::jsonb, metadata), revision = $7, updated_at = now()
    WHERE org_id = $1 AND document_id = $2 AND deleted_at IS NULL
    RETURNING collection_id
),
job AS (
    INSERT INTO jobs (org_id, kind, payload) SELECT $1, $8, $9::jsonb FROM doc
)
SELECT pg_notify($10, $8), pg_notify($11, $12) FROM doc
"""
# The target of an upload or metadata change, locked until commit.
LOCK_BY_ID = f"""
SELECT {COLUMNS} FROM documents d JOIN collections c USING (org_id, collection_id)
WHERE d.org_id = $1 AND d.document_id = $2 AND d.deleted_at IS NULL AND c.deleted_at IS NULL
FOR UPDATE OF d
"""
LOCK_BY_KEY = f"""
SELECT {COLUMNS} FROM documents d JOIN collections c USING (org_id, collection_id)
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.external_key = $3 AND d.deleted_at IS NULL
  AND c.deleted_at IS NULL
FOR UPDATE OF d
"""


@dataclass(frozen=True)
class Upload:
    collection_id: uuid.UUID
    file_name: str
    mime_type: str
    content: bytes
    sha256: str
    replaces: uuid.UUID | None
    # None: no key given (a new document has none, a replaced one keeps its own).
    external_key: str | None = None
    # None: not given (a new document gets {}, a replaced one keeps its own).
    metadata: Metadata | None = None


@dataclass(frozen=True)
class Stored:
    document: knowledge_pb2.Document
    outcome: int


@dataclass(frozen=True)
class _Written:
    """An upload's writes before the stamp; `unchanged` holds the document when none."""

    document_id: uuid.UUID
    outcome: int
    unchanged: knowledge_pb2.Document | None = None


async def store_upload(conn: asyncpg.Connection, org_id: uuid.UUID, upload: Upload) -> Stored:
    """Stores one upload: original kept, row PENDING, revision advanced, extraction queued
    (or less, by the outcome). Runs in the caller's transaction (a savepoint of its own would
    cost two more round trips and undo nothing the caller's rollback does not)."""
    require_transaction(conn)
    written = await _write(conn, org_id, upload)
    if written.unchanged is not None:
        return Stored(written.unchanged, UNCHANGED)
    row = await conn.fetchrow(
        document_store.STAMP_REVISION, org_id, upload.collection_id, written.document_id
    )
    if row is None:  # deleted meanwhile: the caller's rollback undoes the writes above
        raise COLLECTION_NOT_FOUND
    return Stored(document_message(row), written.outcome)


async def store_batch(
    conn: asyncpg.Connection, org_id: uuid.UUID, uploads: Sequence[Upload]
) -> list[Stored | QuireError]:
    """Stores every upload it can, in the caller's transaction, with one revision advance per
    collection; a refused upload (unknown collection or document, key held by another document)
    gets its error and wrote nothing. Results are in `uploads` order. The writes run in (collection,
    key) order, so two batches with common keys lock them in the same order (no deadlock)."""
    require_transaction(conn)
    results: list[Stored | QuireError | None] = [None] * len(uploads)
    written: dict[uuid.UUID, list[tuple[int, _Written]]] = defaultdict(list)
    order = sorted(
        range(len(uploads)),
        key=lambda i: (uploads[i].collection_id, uploads[i].external_key or "", i),
    )
    for i in order:
        try:
            done = await _write(conn, org_id, uploads[i])
        except QuireError as exc:
            results[i] = exc
            continue
        if done.unchanged is not None:
            results[i] = Stored(done.unchanged, UNCHANGED)
        else:
            written[uploads[i].collection_id].append((i, done))
    for collection_id in sorted(written):
        entries = written[collection_id]
        rows = await conn.fetch(
            document_store.STAMP_REVISION_MANY,
            org_id,
            collection_id,
            list({w.document_id for _, w in entries}),
        )
        stamped = {r["document_id"]: document_message(r) for r in rows}
        for i, w in entries:
            document = stamped.get(w.document_id)
            # No row: the collection was deleted meanwhile; its writes stay invisible.
            results[i] = Stored(document, w.outcome) if document else COLLECTION_NOT_FOUND
    return [r if r is not None else COLLECTION_NOT_FOUND for r in results]


async def update_metadata(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    target: asyncpg.Record,
    new: Metadata,
) -> knowledge_pb2.Document:
    """Sets a locked document's metadata (see `lock`); no write when it is the same."""
    if parse_stored(target["metadata"]) == new.value:
        return document_message(target)
    await _describe(conn, org_id, target, target["file_name"], target["mime_type"], None, new.json)
    row = await conn.fetchrow(
        document_store.STAMP_REVISION, org_id, target["collection_id"], target["document_id"]
    )
    if row is None:
        raise COLLECTION_NOT_FOUND
    return document_message(row)


async def lock(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    *,
    document_id: uuid.UUID | None = None,
    collection_id: uuid.UUID | None = None,
    external_key: str | None = None,
) -> asyncpg.Record | None:
    """A live document's row by id or by (collection, key), locked until commit."""
    require_transaction(conn)
    if document_id is not None:
        row: asyncpg.Record | None = await conn.fetchrow(LOCK_BY_ID, org_id, document_id)
    else:
        row = await conn.fetchrow(LOCK_BY_KEY, org_id, collection_id, external_key)
    return row


async def _write(conn: asyncpg.Connection, org_id: uuid.UUID, upload: Upload) -> _Written:
    for _ in range(_KEY_ATTEMPTS):
        target = await _target(conn, org_id, upload)
        if target is not None:
            return await _update(conn, org_id, upload, target)
        document_id = uuid.uuid4()
        if await _store(conn, STORE_NEW, org_id, upload, document_id):
            return _Written(document_id, CREATED)
        # The key was taken by an upload that committed since _target looked: replace it.
    raise QuireError(
        errors_pb2.ERROR_CODE_UNAVAILABLE,
        "The external key changed hands repeatedly during this upload; retry",
        retry_after_s=1,
    )


async def _target(
    conn: asyncpg.Connection, org_id: uuid.UUID, upload: Upload
) -> asyncpg.Record | None:
    """The live document the upload changes (locked), or None for a new one."""
    key = upload.external_key
    if upload.replaces is not None:
        row = await lock(conn, org_id, document_id=upload.replaces)
        if row is None or row["collection_id"] != upload.collection_id:
            if (
                await conn.fetchval(document_store.COLLECTION_LIVE, org_id, upload.collection_id)
                is None
            ):
                raise COLLECTION_NOT_FOUND
            raise DOCUMENT_NOT_FOUND
        if key is not None and row["external_key"] != key:
            holder = await lock(conn, org_id, collection_id=upload.collection_id, external_key=key)
            if holder is not None:
                raise invalid(
                    "metadata.external_key",
                    f"the key is held by another document ({holder['document_id']})",
                    "unique among the collection's live documents",
                )
        return row
    if key is not None:
        return await lock(conn, org_id, collection_id=upload.collection_id, external_key=key)
    return None


async def _update(
    conn: asyncpg.Connection, org_id: uuid.UUID, upload: Upload, target: asyncpg.Record
) -> _Written:
    document_id: uuid.UUID = target["document_id"]
    if target["sha256"] != upload.sha256:
        if not await _store(conn, STORE_REPLACE, org_id, upload, document_id):
            raise DOCUMENT_NOT_FOUND  # cannot happen: the row is locked and live
        return _Written(document_id, REPLACED)
    same = (
        target["file_name"] == upload.file_name
        and target["mime_type"] == upload.mime_type
        and (upload.external_key is None or target["external_key"] == upload.external_key)
        and (upload.metadata is None or parse_stored(target["metadata"]) == upload.metadata.value)
    )
    if same:
        return _Written(document_id, UNCHANGED, document_message(target))
    await _describe(
        conn,
        org_id,
        target,
        upload.file_name,
        upload.mime_type,
        upload.external_key,
        upload.metadata.json if upload.metadata else None,
    )
    return _Written(document_id, METADATA_UPDATED)


async def _describe(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    target: asyncpg.Record,
    file_name: str,
    mime_type: str,
    external_key: str | None,
    metadata_json: str | None,
) -> None:
    """Writes what describes a document (not its bytes), before the stamp."""
    collection_id: uuid.UUID = target["collection_id"]
    document_id: uuid.UUID = target["document_id"]
    await conn.execute(
        UPDATE_DESCRIPTION,
        org_id,
        document_id,
        file_name,
        mime_type,
        external_key,
        metadata_json,
        UNSTAMPED,
        indexer.SETTLE_JOB,
        json.dumps({"collection_id": str(collection_id)}),
        indexer.JOBS_CHANNEL,
        indexer.DOCUMENTS_CHANNEL,
        indexer.document_change_payload(org_id, collection_id, document_id),
    )


async def _store(
    conn: asyncpg.Connection, query: str, org_id: uuid.UUID, upload: Upload, document_id: uuid.UUID
) -> bool:
    """STORE_NEW or STORE_REPLACE; False when no row was written (a key taken meanwhile, or
    the document gone)."""
    stored = await conn.fetchrow(
        query,
        org_id,
        upload.collection_id,
        document_id,
        upload.file_name,
        upload.mime_type,
        len(upload.content),
        upload.sha256,
        UNSTAMPED,
        upload.content,
        indexer.EXTRACT_JOB,
        json.dumps({"document_id": str(document_id)}),
        indexer.JOBS_CHANNEL,
        indexer.DOCUMENTS_CHANNEL,
        indexer.document_change_payload(org_id, upload.collection_id, document_id),
        upload.external_key,
        upload.metadata.json if upload.metadata else None,
    )
    if not stored["live"]:
        raise COLLECTION_NOT_FOUND
    return bool(stored["stored"])

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

# New documents of one collection (one upload, or a batch's) in one statement: the rows, their
# originals, extract jobs with one wake-up, and the change notifications for watchers (sent at
# commit). Rows whose key a live document holds are skipped (ON CONFLICT: the partial unique
# index; a concurrent upload of the key is waited for); `stored` lists the ones written, and
# `live` tells a missing collection from skipped rows.
STORE_NEW = f"""
WITH live AS (
    SELECT collection_id FROM collections
    WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL
),
input AS (
    SELECT * FROM unnest($3::uuid[], $4::text[], $5::text[], $6::bigint[], $7::text[],
                         $8::text[], $9::text[], $10::bytea[], $11::text[])
        AS i(document_id, file_name, mime_type, size_bytes, sha256, external_key, metadata,
             content, change)
),
doc AS (
    INSERT INTO documents (org_id, document_id, collection_id, file_name, mime_type,
                           size_bytes, sha256, status, revision, external_key, metadata)
    SELECT $1, i.document_id, live.collection_id, i.file_name, i.mime_type, i.size_bytes,
           i.sha256, {knowledge_pb2.DOCUMENT_STATUS_PENDING}, {UNSTAMPED}, i.external_key,
           coalesce(i.metadata::jsonb, '{{}}')
    FROM input i CROSS JOIN live
    ON CONFLICT (org_id, collection_id, external_key)
        WHERE deleted_at IS NULL AND external_key IS NOT NULL DO NOTHING
    RETURNING document_id
),
original AS (
    INSERT INTO document_originals (org_id, document_id, content)
    SELECT $1, doc.document_id, i.content FROM doc JOIN input i USING (document_id)
),
job AS (
    INSERT INTO jobs (org_id, kind, payload)
    SELECT $1, $12, jsonb_build_object('document_id', doc.document_id::text) FROM doc
),
notified AS (
    SELECT pg_notify($14, i.change) FROM doc JOIN input i USING (document_id)
    UNION ALL SELECT pg_notify($13, $12) WHERE EXISTS (SELECT 1 FROM doc)
)
SELECT EXISTS (SELECT 1 FROM live) AS live,
       (SELECT array_agg(document_id) FROM doc) AS stored,
       (SELECT count(*) FROM notified) AS notified
"""
# A new version of a live document of this collection, in one statement as STORE_NEW.
STORE_REPLACE = f"""
WITH doc AS (
    UPDATE documents d SET file_name = $4, mime_type = $5, size_bytes = $6, sha256 = $7,
           status = {knowledge_pb2.DOCUMENT_STATUS_PENDING}, attempts = 0,
           revision = {UNSTAMPED}, updated_at = now(),
           external_key = coalesce($8, d.external_key), metadata = coalesce($9::jsonb, d.metadata)
    FROM collections c
    WHERE d.org_id = $1 AND d.document_id = $3 AND d.collection_id = $2 AND d.deleted_at IS NULL
      AND c.org_id = $1 AND c.collection_id = $2 AND c.deleted_at IS NULL
    RETURNING d.document_id
),
original AS (
    INSERT INTO document_originals (org_id, document_id, content)
    SELECT $1, doc.document_id, $10 FROM doc
    ON CONFLICT (org_id, document_id) DO UPDATE SET content = EXCLUDED.content
),
job AS (
    INSERT INTO jobs (org_id, kind, payload) SELECT $1, $11, $12::jsonb FROM doc
)
SELECT count(*) FROM (SELECT pg_notify($13, $11), pg_notify($14, $15) FROM doc) notified
"""
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
# Which of these keys live documents of the collection hold.
HELD_KEYS = """
SELECT array_agg(d.external_key) FROM documents d
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.external_key = ANY($3::text[])
  AND d.deleted_at IS NULL
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
    gets its error and wrote nothing. Results are in `uploads` order.

    New documents of a collection (no id, and a key no live document holds) are written by one
    statement; the others one by one. Writes run in (collection, key) order, so two batches
    with common keys take their locks in the same order (no deadlock)."""
    require_transaction(conn)
    results: list[Stored | QuireError | None] = [None] * len(uploads)
    by_collection: dict[uuid.UUID, list[int]] = defaultdict(list)
    for i in sorted(range(len(uploads)), key=lambda i: uploads[i].external_key or ""):
        by_collection[uploads[i].collection_id].append(i)
    changed: dict[uuid.UUID, list[tuple[int, _Written]]] = defaultdict(list)
    for collection_id in sorted(by_collection):
        indexes = by_collection[collection_id]
        try:
            written = await _store_collection(conn, org_id, collection_id, uploads, indexes)
        except QuireError as exc:  # the collection is unknown: nothing of it was written
            for i in indexes:
                results[i] = exc
            continue
        for i, done in written.items():
            if isinstance(done, QuireError):
                results[i] = done
            elif done.unchanged is not None:
                results[i] = Stored(done.unchanged, UNCHANGED)
            else:
                changed[collection_id].append((i, done))
    # The stamps last, as for one upload: each collection's row stays locked only from its
    # stamp to the commit.
    for collection_id in sorted(changed):
        entries = changed[collection_id]
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


async def _store_collection(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    uploads: Sequence[Upload],
    indexes: list[int],
) -> dict[int, _Written | QuireError]:
    """One collection's part of a batch, before the stamp."""
    keys = [k for i in indexes if uploads[i].replaces is None and (k := uploads[i].external_key)]
    held = set(await conn.fetchval(HELD_KEYS, org_id, collection_id, keys) or ()) if keys else set()
    fresh = [
        i for i in indexes if uploads[i].replaces is None and uploads[i].external_key not in held
    ]
    written: dict[int, _Written | QuireError] = {}
    if fresh:
        ids = await _store_new(conn, org_id, collection_id, [uploads[i] for i in fresh])
        for i, document_id in zip(fresh, ids, strict=True):
            if document_id is not None:
                written[i] = _Written(document_id, CREATED)
    for i in indexes:
        if i not in written:  # an edit, a held key, or a key taken since HELD_KEYS
            try:
                written[i] = await _write_alone(conn, org_id, uploads[i])
            except QuireError as exc:
                written[i] = exc
    return written


async def _write_alone(conn: asyncpg.Connection, org_id: uuid.UUID, upload: Upload) -> _Written:
    """`_write` for one document of a batch. An edit by id that gives the document a new key
    can meet a unique violation, which aborts the transaction: it runs in a savepoint of its
    own (two more round trips, for that rare kind only) so the rest of the batch carries on."""
    if upload.replaces is None or upload.external_key is None:
        return await _write(conn, org_id, upload)
    async with conn.transaction():
        return await _write(conn, org_id, upload)


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
        stored = await _store_new(conn, org_id, upload.collection_id, [upload])
        if stored[0] is not None:
            return _Written(stored[0], CREATED)
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
                raise _key_held(holder["document_id"])
        return row
    if key is not None:
        return await lock(conn, org_id, collection_id=upload.collection_id, external_key=key)
    return None


def _key_held(holder: object) -> QuireError:
    return invalid(
        "metadata.external_key",
        f"the key is held by another document ({holder})",
        "unique among the collection's live documents",
    )


async def _update(
    conn: asyncpg.Connection, org_id: uuid.UUID, upload: Upload, target: asyncpg.Record
) -> _Written:
    """`_change`, with a key another upload gave a document since `_target` looked (an edit
    by id taking a new key) refused as when it was held before."""
    try:
        return await _change(conn, org_id, upload, target)
    except asyncpg.UniqueViolationError:
        raise _key_held("another upload took it meanwhile") from None


async def _change(
    conn: asyncpg.Connection, org_id: uuid.UUID, upload: Upload, target: asyncpg.Record
) -> _Written:
    document_id: uuid.UUID = target["document_id"]
    if target["sha256"] != upload.sha256:
        await _store_replace(conn, org_id, upload, document_id)
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


async def _store_new(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    uploads: Sequence[Upload],
) -> list[uuid.UUID | None]:
    """STORE_NEW: each upload's new document id, or None where its key was taken."""
    ids = [uuid.uuid4() for _ in uploads]
    stored = await conn.fetchrow(
        STORE_NEW,
        org_id,
        collection_id,
        ids,
        [u.file_name for u in uploads],
        [u.mime_type for u in uploads],
        [len(u.content) for u in uploads],
        [u.sha256 for u in uploads],
        [u.external_key for u in uploads],
        [u.metadata.json if u.metadata else None for u in uploads],
        [u.content for u in uploads],
        [indexer.document_change_payload(org_id, collection_id, d) for d in ids],
        indexer.EXTRACT_JOB,
        indexer.JOBS_CHANNEL,
        indexer.DOCUMENTS_CHANNEL,
    )
    if not stored["live"]:
        raise COLLECTION_NOT_FOUND
    written = set(stored["stored"] or ())
    return [d if d in written else None for d in ids]


async def _store_replace(
    conn: asyncpg.Connection, org_id: uuid.UUID, upload: Upload, document_id: uuid.UUID
) -> None:
    """STORE_REPLACE of a live document the caller holds locked."""
    notified = await conn.fetchval(
        STORE_REPLACE,
        org_id,
        upload.collection_id,
        document_id,
        upload.file_name,
        upload.mime_type,
        len(upload.content),
        upload.sha256,
        upload.external_key,
        upload.metadata.json if upload.metadata else None,
        upload.content,
        indexer.EXTRACT_JOB,
        json.dumps({"document_id": str(document_id)}),
        indexer.JOBS_CHANNEL,
        indexer.DOCUMENTS_CHANNEL,
        indexer.document_change_payload(org_id, upload.collection_id, document_id),
    )
    if not notified:  # the collection was deleted since the row was locked
        raise COLLECTION_NOT_FOUND

"""Documents on the serving side: upload, replace, delete, get, list, read a slice."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

import asyncpg

from quire.indexer import api as indexer
from quire.indexer.extraction import NO_TEXT_MARKER
from quire.server.contract import SCHEMA_VERSION
from quire.server.cursors import CursorCodec, refusal
from quire.server.failures import QuireError
from quire.server.knowledge import metadata
from quire.server.knowledge.filters import compile_filter
from quire.server.knowledge.index_state import INDEX_STATE
from quire.server.storage.database import one_row
from quire.server.storage.timestamps import timestamp
from quire.v1 import errors_pb2, knowledge_pb2

DOCUMENT_NOT_FOUND = QuireError(errors_pb2.ERROR_CODE_DOCUMENT_NOT_FOUND, "Document not found")
COLLECTION_NOT_FOUND = QuireError(
    errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND, "Collection not found"
)

COLUMNS = f"""
{INDEX_STATE} AS index_state,
d.document_id, d.collection_id, d.file_name, d.mime_type, d.size_bytes, d.sha256, d.status,
d.extract_error, d.attempts, d.revision, d.created_at, d.updated_at, d.detected_encoding,
CASE WHEN d.extract_error = '{NO_TEXT_MARKER}' THEN 0 ELSE char_length(d.extracted_text) END
  AS text_length, d.deleted_at IS NOT NULL AS deleted, d.external_key, d.metadata
"""
# The last statement of every document change: advances the collection's revision and stamps
# the document with it. The collection row stays locked from here to commit, so concurrent
# uploads to one collection serialise only on this statement and the commit, not on the
# original's bytes and the other writes before it. No row when the collection is deleted.
STAMP_REVISION = f"""
WITH bumped AS (
    UPDATE collections SET revision = revision + 1
    WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL RETURNING revision
)
UPDATE documents d SET revision = bumped.revision FROM bumped
WHERE d.org_id = $1 AND d.document_id = $3
RETURNING {COLUMNS}
"""
# STAMP_REVISION for several documents of one collection (a batch): one revision advance.
STAMP_REVISION_MANY = f"""
WITH bumped AS (
    UPDATE collections SET revision = revision + 1
    WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL RETURNING revision
)
UPDATE documents d SET revision = bumped.revision FROM bumped
WHERE d.org_id = $1 AND d.document_id = ANY($3::uuid[])
RETURNING {COLUMNS}
"""
# Stamped by STAMP_REVISION in the same transaction.
UNSTAMPED = 0
LOCATE = """
SELECT d.collection_id FROM documents d JOIN collections c USING (org_id, collection_id)
WHERE d.org_id = $1 AND d.document_id = $2 AND d.deleted_at IS NULL AND c.deleted_at IS NULL
"""
SOFT_DELETE = """
UPDATE documents SET deleted_at = now(), revision = $3, updated_at = now()
WHERE org_id = $1 AND document_id = $2
"""
DELETE_CHUNKS = "DELETE FROM knowledge_chunks WHERE org_id = $1 AND document_id = $2"
DELETE_ORIGINAL = "DELETE FROM document_originals WHERE org_id = $1 AND document_id = $2"
GET = f"""
SELECT {COLUMNS} FROM documents d JOIN collections c USING (org_id, collection_id)
WHERE d.org_id = $1 AND d.document_id = $2 AND d.deleted_at IS NULL AND c.deleted_at IS NULL
"""
LOCATE_BY_KEY = """
SELECT d.document_id FROM documents d JOIN collections c USING (org_id, collection_id)
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.external_key = $3 AND d.deleted_at IS NULL
  AND c.deleted_at IS NULL
"""
GET_ANY = f"SELECT {COLUMNS} FROM documents d WHERE d.org_id = $1 AND d.document_id = $2"
# {where}: the ListDocuments filter (filters.compile_filter), parameters from $4 / $6.
LIST_FIRST = f"""
SELECT {COLUMNS} FROM documents d
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.deleted_at IS NULL AND ({{where}})
ORDER BY d.created_at DESC, d.document_id DESC LIMIT $3
"""
LIST_AFTER = f"""
SELECT {COLUMNS} FROM documents d
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.deleted_at IS NULL
  AND (d.created_at, d.document_id) < ($4, $5) AND ({{where}})
ORDER BY d.created_at DESC, d.document_id DESC LIMIT $3
"""
LIST_IN_COLLECTION = f"""
SELECT {COLUMNS} FROM documents d
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.deleted_at IS NULL
ORDER BY d.created_at DESC, d.document_id DESC
"""
COLLECTION_LIVE = """
SELECT 1 FROM collections WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL
"""
SLICE = """
SELECT d.file_name, substr(d.extracted_text, $4::int + 1, $5::int) AS text,
       char_length(d.extracted_text) AS total
FROM documents d
WHERE d.org_id = $1 AND d.document_id = $2 AND d.collection_id = ANY($3::uuid[])
  AND d.deleted_at IS NULL
"""


def document_message(row: asyncpg.Record) -> knowledge_pb2.Document:
    return knowledge_pb2.Document(
        schema_version=SCHEMA_VERSION,
        document_id=str(row["document_id"]),
        collection_id=str(row["collection_id"]),
        file_name=row["file_name"],
        mime_type=row["mime_type"],
        size_bytes=row["size_bytes"],
        sha256=row["sha256"],
        status=row["status"],
        index_state=row["index_state"],
        extract_error=row["extract_error"],
        attempts=row["attempts"],
        text_length=row["text_length"],
        revision=row["revision"],
        created_at=timestamp(row["created_at"]),
        updated_at=timestamp(row["updated_at"]),
        detected_encoding=row["detected_encoding"],
        external_key=row["external_key"] or "",
        metadata=metadata.to_struct(metadata.parse_stored(row["metadata"])),
    )


async def delete(
    conn: asyncpg.Connection, org_id: uuid.UUID, document_id: uuid.UUID
) -> knowledge_pb2.Document:
    """Soft-deletes the document, drops its chunks and original, queues the statistics
    refresh, advances the revision. Runs in the caller's transaction."""
    require_transaction(conn)
    collection_id = await conn.fetchval(LOCATE, org_id, document_id)
    if collection_id is None:
        raise DOCUMENT_NOT_FOUND
    await conn.execute(SOFT_DELETE, org_id, document_id, UNSTAMPED)
    await conn.execute(DELETE_CHUNKS, org_id, document_id)
    await conn.execute(DELETE_ORIGINAL, org_id, document_id)
    # The chunks are gone from every generation; the worker re-derives the term statistics
    # once the collection has no other pending work (and marks the revision settled).
    await indexer.queue_settle(conn, org_id, collection_id)
    await indexer.notify_document_change(conn, org_id, collection_id, document_id)
    row = await conn.fetchrow(STAMP_REVISION, org_id, collection_id, document_id)
    if row is None:
        raise DOCUMENT_NOT_FOUND
    return document_message(row)


def require_transaction(conn: asyncpg.Connection) -> None:
    # Outside a transaction each statement would commit alone, and a failure between them
    # would leave a change without its revision.
    if not conn.is_in_transaction():
        raise RuntimeError("document changes must run inside the caller's transaction")


async def get(
    conn: asyncpg.Connection, org_id: uuid.UUID, document_id: uuid.UUID
) -> knowledge_pb2.Document:
    return document_message(await one_row(conn, DOCUMENT_NOT_FOUND, GET, org_id, document_id))


async def id_by_key(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, external_key: str
) -> uuid.UUID:
    """The id of the collection's live document with this key."""
    document_id: uuid.UUID | None = await conn.fetchval(
        LOCATE_BY_KEY, org_id, collection_id, external_key
    )
    if document_id is None:
        raise DOCUMENT_NOT_FOUND
    return document_id


@dataclass(frozen=True)
class ListCursor:
    """Where a ListDocuments page ended, sealed by the shared cursor codec (quire.server.cursors)
    and bound to the organisation and collection it lists."""

    created_at: datetime
    document_id: uuid.UUID

    SHAPE: ClassVar[dict[str, type]] = {"t": str, "d": str}

    @staticmethod
    def listing(org_id: uuid.UUID, collection_id: uuid.UUID) -> tuple[str, ...]:
        return ("ListDocuments", str(org_id), str(collection_id))

    def encode(self, codec: CursorCodec, listing: tuple[str, ...]) -> str:
        return codec.seal(listing, {"t": self.created_at.isoformat(), "d": str(self.document_id)})

    @classmethod
    def decode(cls, codec: CursorCodec, token: str, listing: tuple[str, ...]) -> ListCursor:
        body = codec.open(token, listing, cls.SHAPE)
        try:
            created_at = datetime.fromisoformat(body["t"])
            document_id = uuid.UUID(body["d"])
        except ValueError:
            raise refusal(listing) from None
        if created_at.tzinfo is None:  # the column is timestamptz; we only issue aware times
            raise refusal(listing)
        return cls(created_at, document_id)


async def list_page(
    conn: asyncpg.Connection,
    codec: CursorCodec,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    *,
    cursor: str,
    limit: int,
    where: knowledge_pb2.MetadataFilter | None = None,
) -> tuple[list[knowledge_pb2.Document], str]:
    listing = ListCursor.listing(org_id, collection_id)
    # Opened before any query: a cursor not issued for this listing never reaches SQL.
    after = ListCursor.decode(codec, cursor, listing) if cursor else None
    if await conn.fetchval(COLLECTION_LIVE, org_id, collection_id) is None:
        raise COLLECTION_NOT_FOUND
    if after is not None:
        f = compile_filter(where, first_param=6)
        rows = await conn.fetch(
            LIST_AFTER.format(where=f.sql),
            org_id,
            collection_id,
            limit + 1,
            after.created_at,
            after.document_id,
            *f.args,
        )
    else:
        f = compile_filter(where, first_param=4)
        rows = await conn.fetch(
            LIST_FIRST.format(where=f.sql), org_id, collection_id, limit + 1, *f.args
        )
    more = len(rows) > limit
    rows = rows[:limit]
    last = rows[-1] if more else None
    token = (
        ListCursor(last["created_at"], last["document_id"]).encode(codec, listing) if last else ""
    )
    return [document_message(r) for r in rows], token


async def all_in_collection(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> list[knowledge_pb2.Document]:
    return [
        document_message(r) for r in await conn.fetch(LIST_IN_COLLECTION, org_id, collection_id)
    ]


async def read_slice(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    document_id: uuid.UUID,
    collection_ids: list[uuid.UUID],
    *,
    offset: int,
    max_chars: int,
) -> knowledge_pb2.DocumentSlice:
    # `$4::int + 1` in SQL: clamp so the largest accepted offset (2**31 - 1) cannot overflow.
    sql_offset = min(offset, 2**31 - 2)
    row = await conn.fetchrow(SLICE, org_id, document_id, collection_ids, sql_offset, max_chars)
    if row is None:
        raise DOCUMENT_NOT_FOUND
    total = row["total"]
    start = min(offset, total)
    text = row["text"]
    return knowledge_pb2.DocumentSlice(
        schema_version=SCHEMA_VERSION,
        document_id=str(document_id),
        file_name=row["file_name"],
        text=text,
        offset=start,
        next_offset=start + len(text),
        total_length=total,
        truncated=start + len(text) < total,
    )

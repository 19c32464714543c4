"""SQL the worker runs on documents: claim for extraction, store text, record failures."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from quire.v1 import knowledge_pb2

CHANNEL = "quire_documents"
# tsvector has a 1 MiB limit; the legacy full-text column indexes the first part of huge texts.
TSV_CHARS = 300_000

LOAD = """
SELECT d.document_id, d.collection_id, d.file_name, d.mime_type, d.updated_at, d.deleted_at,
       o.content
FROM documents d JOIN document_originals o USING (org_id, document_id)
WHERE d.org_id = $1 AND d.document_id = $2
"""
MARK = """
UPDATE documents SET status = $3::smallint,
       attempts = attempts + CASE WHEN $3::smallint = 2 THEN 1 ELSE 0 END,
       updated_at = now()
WHERE org_id = $1 AND document_id = $2 AND deleted_at IS NULL
RETURNING collection_id
"""
STORE_TEXT = f"""
UPDATE documents SET status = {knowledge_pb2.DOCUMENT_STATUS_READY}, extracted_text = $3,
       extract_error = $4,
       text_tsv = to_tsvector('simple', left($3, {TSV_CHARS})), updated_at = now()
WHERE org_id = $1 AND document_id = $2 AND deleted_at IS NULL
RETURNING collection_id, updated_at
"""
STORE_FAILURE = """
UPDATE documents SET status = $3, extract_error = $4, updated_at = now()
WHERE org_id = $1 AND document_id = $2 AND deleted_at IS NULL
RETURNING collection_id
"""
NOTIFY = "SELECT pg_notify($1, $2)"


@dataclass(frozen=True)
class Original:
    document_id: uuid.UUID
    collection_id: uuid.UUID
    file_name: str
    mime_type: str
    updated_at: datetime
    content: bytes


async def notify_change(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, document_id: uuid.UUID
) -> None:
    payload = json.dumps(
        {"org": str(org_id), "collection": str(collection_id), "document": str(document_id)}
    )
    await conn.execute(NOTIFY, CHANNEL, payload)


async def load_original(
    conn: asyncpg.Connection, org_id: uuid.UUID, document_id: uuid.UUID
) -> Original | None:
    row = await conn.fetchrow(LOAD, org_id, document_id)
    if row is None or row["deleted_at"] is not None:
        return None
    return Original(
        document_id=row["document_id"],
        collection_id=row["collection_id"],
        file_name=row["file_name"],
        mime_type=row["mime_type"],
        updated_at=row["updated_at"],
        content=bytes(row["content"]),
    )


async def mark(
    conn: asyncpg.Connection, org_id: uuid.UUID, document_id: uuid.UUID, status: int
) -> None:
    cid = await conn.fetchval(MARK, org_id, document_id, status)
    if cid is not None:
        await notify_change(conn, org_id, cid, document_id)


async def store_text(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    document_id: uuid.UUID,
    text: str,
    extract_error: str,
) -> datetime | None:
    """READY with the text; returns the row's new updated_at (None if the document is gone)."""
    row = await conn.fetchrow(STORE_TEXT, org_id, document_id, text, extract_error)
    if row is None:
        return None
    await notify_change(conn, org_id, row["collection_id"], document_id)
    updated: datetime = row["updated_at"]
    return updated


async def store_failure(
    conn: asyncpg.Connection, org_id: uuid.UUID, document_id: uuid.UUID, status: int, error: str
) -> None:
    """FAILED (or back to PENDING for a retry); earlier extracted text is kept searchable."""
    cid = await conn.fetchval(STORE_FAILURE, org_id, document_id, status, error[:2000])
    if cid is not None:
        await notify_change(conn, org_id, cid, document_id)

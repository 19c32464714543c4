"""SQL the worker runs on documents: claim for extraction, store text, record failures.

The worker uses the batch forms (`start_extraction`, `store_texts`), one statement for many
documents; `store_text` is the single-document form tests use. Every change still sends one
notification per document (WatchDocuments).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from quire.indexer.worker import backlog
from quire.v1 import knowledge_pb2

CHANNEL = "quire_documents"
# tsvector has a 1 MiB limit; the legacy full-text column indexes the first part of huge texts.
TSV_CHARS = 300_000

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
NOTIFY_MANY = "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload"
START_EXTRACTION = f"""
UPDATE documents d SET status = {knowledge_pb2.DOCUMENT_STATUS_PROCESSING},
       attempts = d.attempts + 1, updated_at = now()
FROM unnest($1::uuid[], $2::uuid[]) AS w(org_id, document_id), document_originals o
WHERE d.org_id = w.org_id AND d.document_id = w.document_id AND d.deleted_at IS NULL
  AND o.org_id = d.org_id AND o.document_id = d.document_id
  AND EXISTS (SELECT 1 FROM collections c WHERE c.org_id = d.org_id
              AND c.collection_id = d.collection_id AND c.deleted_at IS NULL)
RETURNING d.org_id, d.document_id, d.collection_id, d.file_name, d.mime_type, d.updated_at,
          o.content
"""
STORE_TEXTS = f"""
UPDATE documents d SET status = {knowledge_pb2.DOCUMENT_STATUS_READY},
       extracted_text = t.text, extract_error = t.error, detected_encoding = t.encoding,
       text_tsv = to_tsvector('simple', left(t.text, {TSV_CHARS})), updated_at = now()
FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[])
     AS t(org_id, document_id, text, error, encoding)
WHERE d.org_id = t.org_id AND d.document_id = t.document_id AND d.deleted_at IS NULL
  -- A deleted collection's texts are not stored (no generation or build is made for it); KEY
  -- SHARE makes its delete wait for a store under way (worker/cancel.py).
  AND EXISTS (SELECT 1 FROM collections c
              WHERE c.org_id = d.org_id AND c.collection_id = d.collection_id
                AND c.deleted_at IS NULL FOR KEY SHARE)
RETURNING d.org_id, d.document_id, d.collection_id, d.updated_at
"""


@dataclass(frozen=True)
class Original:
    org_id: uuid.UUID
    document_id: uuid.UUID
    collection_id: uuid.UUID
    file_name: str
    mime_type: str
    updated_at: datetime
    content: bytes


async def notify_change(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, document_id: uuid.UUID
) -> None:
    await conn.execute(NOTIFY, CHANNEL, change_payload(org_id, collection_id, document_id))


async def notify_changes(
    conn: asyncpg.Connection, changed: Sequence[tuple[uuid.UUID, uuid.UUID, uuid.UUID]]
) -> None:
    """One notification per (org, collection, document), in one statement."""
    if changed:
        await conn.execute(NOTIFY_MANY, CHANNEL, [change_payload(*c) for c in changed])


def change_payload(org_id: uuid.UUID, collection_id: uuid.UUID, document_id: uuid.UUID) -> str:
    """The notification sent on CHANNEL when a document changes (WatchDocuments listens)."""
    return json.dumps(
        {"org": str(org_id), "collection": str(collection_id), "document": str(document_id)}
    )


def _original(org_id: uuid.UUID, row: asyncpg.Record) -> Original:
    return Original(
        org_id=org_id,
        document_id=row["document_id"],
        collection_id=row["collection_id"],
        file_name=row["file_name"],
        mime_type=row["mime_type"],
        updated_at=row["updated_at"],
        content=bytes(row["content"]),
    )


async def start_extraction(
    conn: asyncpg.Connection, wanted: Sequence[tuple[uuid.UUID, uuid.UUID]]
) -> list[Original]:
    """Marks the (org, document) pairs PROCESSING (one attempt more) and returns their
    originals; deleted documents, documents of deleted collections and documents without an
    original are left out."""
    if not wanted:
        return []
    rows = await conn.fetch(START_EXTRACTION, [w[0] for w in wanted], [w[1] for w in wanted])
    await notify_changes(conn, [(r["org_id"], r["collection_id"], r["document_id"]) for r in rows])
    return [_original(r["org_id"], r) for r in rows]


@dataclass(frozen=True)
class Stored:
    """A document whose text `store_texts` stored: READY as of `updated_at`."""

    org_id: uuid.UUID
    document_id: uuid.UUID
    collection_id: uuid.UUID
    updated_at: datetime


async def store_texts(
    conn: asyncpg.Connection, texts: Sequence[tuple[uuid.UUID, uuid.UUID, str, str, str]]
) -> list[Stored]:
    """`store_text` for many (org, document, text, extract_error, detected_encoding) at once;
    documents deleted meanwhile are left out of the answer. Run it in a transaction with what
    depends on it."""
    if not texts:
        return []
    rows = await conn.fetch(
        STORE_TEXTS,
        [t[0] for t in texts],
        [t[1] for t in texts],
        [t[2] for t in texts],
        [t[3] for t in texts],
        [t[4] for t in texts],
    )
    stored = [
        Stored(r["org_id"], r["document_id"], r["collection_id"], r["updated_at"]) for r in rows
    ]
    await backlog.record(
        conn, [(s.org_id, s.collection_id, s.document_id, s.updated_at) for s in stored]
    )
    await notify_changes(conn, [(s.org_id, s.collection_id, s.document_id) for s in stored])
    return stored


async def store_text(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    document_id: uuid.UUID,
    text: str,
    extract_error: str,
) -> datetime | None:
    """READY with the text; returns the row's new updated_at (None if the document is gone).
    Run it in a transaction with what depends on it."""
    row = await conn.fetchrow(STORE_TEXT, org_id, document_id, text, extract_error)
    if row is None:
        return None
    await backlog.record(conn, [(org_id, row["collection_id"], document_id, row["updated_at"])])
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

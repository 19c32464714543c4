"""What WatchDocuments reads and when it sends: the collection's documents (or the watched
ones), one document after a change notification, and whether a state is new to the stream."""

from __future__ import annotations

import uuid
from collections.abc import Collection

import asyncpg

from quire.server.contract import SCHEMA_VERSION
from quire.server.knowledge import document_store
from quire.v1 import knowledge_pb2

SOME_IN_COLLECTION = f"""
SELECT {document_store.COLUMNS} FROM documents d
WHERE d.org_id = $1 AND d.collection_id = $2 AND d.document_id = ANY($3::uuid[])
  AND d.deleted_at IS NULL
ORDER BY d.created_at DESC, d.document_id DESC
"""


def deleted(collection_id: uuid.UUID, document_id: str) -> knowledge_pb2.Document:
    """How a document that is gone (or never was in the collection) is reported."""
    return knowledge_pb2.Document(
        schema_version=SCHEMA_VERSION,
        document_id=document_id,
        collection_id=str(collection_id),
        status=knowledge_pb2.DOCUMENT_STATUS_DELETED,
    )


async def one(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, document_id: str
) -> knowledge_pb2.Document:
    """A document as the watch reports it: DELETED once deleted, gone, or not (any more) of
    this collection."""
    row = await conn.fetchrow(document_store.GET_ANY, org_id, uuid.UUID(document_id))
    if row is None or row["deleted"] or row["collection_id"] != collection_id:
        return deleted(collection_id, document_id)
    return document_store.document_message(row)


async def snapshot(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    only: Collection[uuid.UUID] | None,
) -> list[knowledge_pb2.Document]:
    """The live documents of the collection, or those of `only`; a watched id that is not a
    live document of the collection is reported DELETED, so a caller waiting for it learns
    at once."""
    if only is None:
        return await document_store.all_in_collection(conn, org_id, collection_id)
    rows = await conn.fetch(SOME_IN_COLLECTION, org_id, collection_id, list(only))
    docs = [document_store.document_message(r) for r in rows]
    live = {d.document_id for d in docs}
    docs += [deleted(collection_id, str(i)) for i in only if str(i) not in live]
    return docs


class Sent:
    """The last state sent per document: a message goes out only when the status, the
    extraction error or the index state differs (notifications are hints, and several may
    describe one change)."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[int, str, int]] = {}

    def is_new(self, doc: knowledge_pb2.Document) -> bool:
        state = (doc.status, doc.extract_error, doc.index_state)
        if self._last.get(doc.document_id) == state:
            return False
        self._last[doc.document_id] = state
        return True

    def known(self) -> list[str]:
        return list(self._last)

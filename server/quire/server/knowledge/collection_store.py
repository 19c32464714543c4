"""Collections on the serving side: create, get, list and delete, and whether ids name live
collections."""

from __future__ import annotations

import uuid

import asyncpg

from quire.indexer import api as indexer
from quire.server.contract import SCHEMA_VERSION
from quire.server.failures import QuireError
from quire.server.knowledge.document_store import COLLECTION_NOT_FOUND
from quire.server.storage.database import one_row
from quire.server.storage.timestamps import timestamp
from quire.v1 import errors_pb2, knowledge_pb2

COLUMNS = """
c.collection_id, c.name, c.revision, c.serving_generation, c.created_at, c.embedding_model,
(SELECT count(*) FROM documents d WHERE d.org_id = c.org_id AND d.collection_id = c.collection_id
   AND d.deleted_at IS NULL) AS document_count
"""
INSERT = """
INSERT INTO collections (org_id, collection_id, name, embedding_model) VALUES ($1, $2, $3, $4)
"""
GET = f"""
SELECT {COLUMNS} FROM collections c
WHERE c.org_id = $1 AND c.collection_id = $2 AND c.deleted_at IS NULL
"""
LIST = f"""
SELECT {COLUMNS} FROM collections c
WHERE c.org_id = $1 AND c.deleted_at IS NULL ORDER BY c.name
"""
# FOR UPDATE (not NO KEY UPDATE): it waits for the worker's chunk writes into the collection,
# which hold KEY SHARE on its row (generations.LOCK_DOCUMENTS), and writes that start later
# see it deleted; so the purge job queued with the delete finds every chunk there will be.
LOCK_FOR_DELETE = """
SELECT 1 FROM collections
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL FOR UPDATE
"""
DELETE = """
UPDATE collections SET deleted_at = now(), revision = revision + 1
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL
"""
COUNT_LIVE = """
SELECT count(*) FROM collections
WHERE org_id = $1 AND collection_id = ANY($2::uuid[]) AND deleted_at IS NULL
"""
# Columns a Collection message carries as they are (the others need converting).
AS_IS = ("name", "revision", "document_count", "serving_generation", "embedding_model")


def collection_message(row: asyncpg.Record) -> knowledge_pb2.Collection:
    return knowledge_pb2.Collection(
        schema_version=SCHEMA_VERSION,
        collection_id=str(row["collection_id"]),
        created_at=timestamp(row["created_at"]),
        **{name: row[name] for name in AS_IS},
    )


async def get(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> knowledge_pb2.Collection:
    """A live collection of the organisation; any other id is COLLECTION_NOT_FOUND."""
    return collection_message(await one_row(conn, COLLECTION_NOT_FOUND, GET, org_id, collection_id))


async def create(
    conn: asyncpg.Connection, org_id: uuid.UUID, name: str, embedding_model: str
) -> knowledge_pb2.Collection:
    """A new collection; a name the organisation already uses is ALREADY_EXISTS."""
    collection_id = uuid.uuid4()
    try:
        await conn.execute(INSERT, org_id, collection_id, name, embedding_model)
    except asyncpg.UniqueViolationError:
        raise QuireError(
            errors_pb2.ERROR_CODE_ALREADY_EXISTS, f"A collection named {name!r} exists"
        ) from None
    return await get(conn, org_id, collection_id)


async def list_all(conn: asyncpg.Connection, org_id: uuid.UUID) -> list[knowledge_pb2.Collection]:
    """The organisation's live collections, by name."""
    return [collection_message(r) for r in await conn.fetch(LIST, org_id)]


async def delete(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> knowledge_pb2.Collection:
    """Marks the collection deleted and cancels its index work, in the caller's transaction;
    returns it as it was."""
    collection = await get(conn, org_id, collection_id)
    if await conn.fetchval(LOCK_FOR_DELETE, org_id, collection_id) is None:
        raise COLLECTION_NOT_FOUND  # deleted while we waited for the lock
    await conn.execute(DELETE, org_id, collection_id)
    # Its jobs are cancelled now (workers drop their work within seconds); its rows leave the
    # shared indexes in a purge job (a large collection's delete is not this call's to wait
    # for); reads skip it from now on.
    await indexer.cancel_collection_work(conn, org_id, collection_id)
    return collection


async def all_live(conn: asyncpg.Connection, org_id: uuid.UUID, ids: list[uuid.UUID]) -> bool:
    """Whether every one of `ids` (distinct) names a live collection of the organisation."""
    return bool(await conn.fetchval(COUNT_LIVE, org_id, ids) == len(ids))

"""KnowledgeService: collections (documents, agents, search and reads land with issue #5)."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
from google.protobuf import timestamp_pb2
from grpc import aio

from quire.server.auth import Scope
from quire.server.errors import QuireError
from quire.server.rpc import principal, register_scopes
from quire.server.services.base import SCHEMA_VERSION, fill_unimplemented
from quire.server.state import AppState
from quire.server.storage.database import transaction
from quire.server.validation import clean_text, parse_uuid
from quire.v1 import errors_pb2, knowledge_pb2, knowledge_service_pb2, knowledge_service_pb2_grpc

COLLECTION_COLUMNS = """
c.collection_id, c.name, c.revision, c.serving_generation, c.created_at,
(SELECT count(*) FROM documents d WHERE d.org_id = c.org_id AND d.collection_id = c.collection_id
   AND d.deleted_at IS NULL) AS document_count
"""
INSERT_COLLECTION = """
INSERT INTO collections (org_id, collection_id, name) VALUES ($1, $2, $3)
"""
GET_COLLECTION = f"""
SELECT {COLLECTION_COLUMNS} FROM collections c
WHERE c.org_id = $1 AND c.collection_id = $2 AND c.deleted_at IS NULL
"""
LIST_COLLECTIONS = f"""
SELECT {COLLECTION_COLUMNS} FROM collections c
WHERE c.org_id = $1 AND c.deleted_at IS NULL ORDER BY c.name
"""
DELETE_COLLECTION = """
UPDATE collections SET deleted_at = now(), revision = revision + 1
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL
"""

COLLECTION_NOT_FOUND = QuireError(
    errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND, "Collection not found"
)


def timestamp(value: Any) -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    if value is not None:
        ts.FromDatetime(value)
    return ts


def collection_message(row: asyncpg.Record) -> knowledge_pb2.Collection:
    return knowledge_pb2.Collection(
        schema_version=SCHEMA_VERSION,
        collection_id=str(row["collection_id"]),
        name=row["name"],
        revision=row["revision"],
        document_count=row["document_count"],
        serving_generation=row["serving_generation"],
        created_at=timestamp(row["created_at"]),
    )


class KnowledgeService(knowledge_service_pb2_grpc.KnowledgeServiceServicer):
    def __init__(self, state: AppState) -> None:
        self.state = state

    async def _collection(self, conn: Any, collection_id: str) -> knowledge_pb2.Collection:
        cid = parse_uuid(collection_id, COLLECTION_NOT_FOUND)
        row = await conn.fetchrow(GET_COLLECTION, principal().org_id, cid)
        if row is None:
            raise COLLECTION_NOT_FOUND
        return collection_message(row)

    async def CreateCollection(
        self,
        request: knowledge_service_pb2.CreateCollectionRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.CreateCollectionResponse:
        name = clean_text("name", request.name, max_chars=200)
        cid = uuid.uuid4()
        async with transaction(self.state.pool) as conn:
            try:
                await conn.execute(INSERT_COLLECTION, principal().org_id, cid, name)
            except asyncpg.UniqueViolationError:
                raise QuireError(
                    errors_pb2.ERROR_CODE_ALREADY_EXISTS, f"A collection named {name!r} exists"
                ) from None
            collection = await self._collection(conn, str(cid))
        return knowledge_service_pb2.CreateCollectionResponse(collection=collection)

    async def GetCollection(
        self,
        request: knowledge_service_pb2.GetCollectionRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.GetCollectionResponse:
        async with transaction(self.state.pool, readonly=True) as conn:
            collection = await self._collection(conn, request.collection_id)
        return knowledge_service_pb2.GetCollectionResponse(collection=collection)

    async def ListCollections(
        self,
        request: knowledge_service_pb2.ListCollectionsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.ListCollectionsResponse:
        async with transaction(self.state.pool, readonly=True) as conn:
            rows = await conn.fetch(LIST_COLLECTIONS, principal().org_id)
        return knowledge_service_pb2.ListCollectionsResponse(
            schema_version=SCHEMA_VERSION, collections=[collection_message(r) for r in rows]
        )

    async def DeleteCollection(
        self,
        request: knowledge_service_pb2.DeleteCollectionRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.DeleteCollectionResponse:
        async with transaction(self.state.pool) as conn:
            collection = await self._collection(conn, request.collection_id)
            await conn.execute(
                DELETE_COLLECTION, principal().org_id, uuid.UUID(collection.collection_id)
            )
        return knowledge_service_pb2.DeleteCollectionResponse(collection=collection)


SERVICE = knowledge_service_pb2.DESCRIPTOR.services_by_name["KnowledgeService"]
UNIMPLEMENTED = fill_unimplemented(KnowledgeService, SERVICE)
_WRITES = {
    "CreateCollection",
    "DeleteCollection",
    "UploadDocument",
    "DeleteDocument",
    "UpsertAgent",
}
register_scopes(
    SERVICE.full_name,
    {m.name: Scope.WRITE if m.name in _WRITES else Scope.READ for m in SERVICE.methods},
)

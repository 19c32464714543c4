"""KnowledgeService: collections, documents, agents, search in the organisation's mode, reads
and index status."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import AsyncIterator, Awaitable
from typing import Any

import asyncpg
import numpy as np
import numpy.typing as npt
from grpc import aio

from quire.indexer import api as indexer
from quire.indexer.extraction import UnsupportedMediaType, resolve_type
from quire.server.contract import SCHEMA_VERSION
from quire.server.contract import bounds as contract_bounds
from quire.server.embeddings import discard
from quire.server.failures import QuireError, invalid
from quire.server.knowledge import cache, document_store, filters, scope, search
from quire.server.knowledge.index_status import index_status
from quire.server.knowledge.policy import effective_mode
from quire.server.knowledge.shadow import ShadowRunner
from quire.server.rpc import principal
from quire.server.state import AppState
from quire.server.storage.database import apply_settings, transaction
from quire.server.storage.timestamps import timestamp
from quire.server.validation import (
    bounded,
    clean_text,
    name_field,
    number,
    parse_uuid,
    whole_match,
    within,
)
from quire.v1 import (
    errors_pb2,
    knowledge_pb2,
    knowledge_service_pb2,
    knowledge_service_pb2_grpc,
)

COLLECTION_COLUMNS = """
c.collection_id, c.name, c.revision, c.serving_generation, c.created_at,
(SELECT count(*) FROM documents d WHERE d.org_id = c.org_id AND d.collection_id = c.collection_id
   AND d.deleted_at IS NULL) AS document_count
"""
INSERT_COLLECTION = "INSERT INTO collections (org_id, collection_id, name) VALUES ($1, $2, $3)"
GET_COLLECTION = f"""
SELECT {COLLECTION_COLUMNS} FROM collections c
WHERE c.org_id = $1 AND c.collection_id = $2 AND c.deleted_at IS NULL
"""
LIST_COLLECTIONS = f"""
SELECT {COLLECTION_COLUMNS} FROM collections c
WHERE c.org_id = $1 AND c.deleted_at IS NULL ORDER BY c.name
"""
# FOR UPDATE (not NO KEY UPDATE): it waits for the worker's chunk writes into the collection,
# which hold KEY SHARE on its row (generations.LOCK_DOCUMENTS), and writes that start later
# see it deleted; so the purge job queued with the delete finds every chunk there will be.
LOCK_FOR_DELETE = """
SELECT 1 FROM collections
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL FOR UPDATE
"""
DELETE_COLLECTION = """
UPDATE collections SET deleted_at = now(), revision = revision + 1
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL
"""
UPSERT_AGENT = """
INSERT INTO agents (org_id, agent_id, attached_collection_ids) VALUES ($1, $2, $3::uuid[])
ON CONFLICT (org_id, agent_id) DO UPDATE SET
    attached_collection_ids = EXCLUDED.attached_collection_ids,
    config_version = agents.config_version + 1, updated_at = now()
RETURNING agent_id, attached_collection_ids, config_version
"""
GET_AGENT = """
SELECT agent_id, attached_collection_ids, config_version FROM agents
WHERE org_id = $1 AND agent_id = $2
"""
COUNT_LIVE = """
SELECT count(*) FROM collections
WHERE org_id = $1 AND collection_id = ANY($2::uuid[]) AND deleted_at IS NULL
"""

COLLECTION_NOT_FOUND = document_store.COLLECTION_NOT_FOUND
AGENT_ID = whole_match(contract_bounds.UpsertAgentRequest.agent_id)


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


def agent_message(row: asyncpg.Record) -> knowledge_pb2.Agent:
    return knowledge_pb2.Agent(
        schema_version=SCHEMA_VERSION,
        agent_id=row["agent_id"],
        attached_collection_ids=[str(c) for c in row["attached_collection_ids"]],
        config_version=row["config_version"],
    )


def _file_name(value: str) -> str:
    longest = number(contract_bounds.UploadMetadata.file_name.max_chars)
    clean_text("metadata.file_name", value, max_chars=longest)
    if "/" in value or "\\" in value or value in (".", ".."):
        raise invalid("metadata.file_name", "a file name, not a path")
    return value


class KnowledgeService(knowledge_service_pb2_grpc.KnowledgeServiceServicer):
    def __init__(self, state: AppState) -> None:
        self.state = state
        self.shadow = ShadowRunner(state.pool)
        # Benchmarks measure another tuning through the service (knowledge_search.py).
        self.tuning = search.DEFAULT_TUNING

    # --- collections ------------------------------------------------------------------------

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
        longest = number(contract_bounds.CreateCollectionRequest.name.max_chars)
        name = clean_text("name", request.name, max_chars=longest)
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
        org_id = principal().org_id
        async with transaction(self.state.pool) as conn:
            collection = await self._collection(conn, request.collection_id)
            cid = uuid.UUID(collection.collection_id)
            if await conn.fetchval(LOCK_FOR_DELETE, org_id, cid) is None:
                raise COLLECTION_NOT_FOUND  # deleted while we waited for the lock
            await conn.execute(DELETE_COLLECTION, org_id, cid)
            # Its chunks and term statistics leave the shared indexes in the worker (a large
            # collection's delete is not this call's to wait for); reads skip it from now on.
            await indexer.queue_purge(conn, org_id, cid)
        return knowledge_service_pb2.DeleteCollectionResponse(collection=collection)

    # --- not built yet (issue 20 lands them; UNIMPLEMENTED is what a client newer than its
    # server sees) -----------------------------------------------------------------------------

    async def UploadDocuments(self, request_iterator: Any, context: Any) -> Any:
        raise QuireError(errors_pb2.ERROR_CODE_UNIMPLEMENTED, "UploadDocuments is not built yet")

    async def DeleteDocuments(self, request: Any, context: Any) -> Any:
        raise QuireError(errors_pb2.ERROR_CODE_UNIMPLEMENTED, "DeleteDocuments is not built yet")

    async def UpdateDocumentMetadata(self, request: Any, context: Any) -> Any:
        raise QuireError(
            errors_pb2.ERROR_CODE_UNIMPLEMENTED, "UpdateDocumentMetadata is not built yet"
        )

    async def ListAgents(self, request: Any, context: Any) -> Any:
        raise QuireError(errors_pb2.ERROR_CODE_UNIMPLEMENTED, "ListAgents is not built yet")

    # --- documents --------------------------------------------------------------------------

    async def UploadDocument(
        self,
        request_iterator: AsyncIterator[knowledge_service_pb2.UploadDocumentRequest],
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.UploadDocumentResponse:
        first = await anext(request_iterator, None)
        if first is None or not first.HasField("metadata"):
            raise invalid("metadata", "the first message must be the upload's metadata")
        meta = first.metadata
        file_name = _file_name(meta.file_name)
        longest = number(contract_bounds.UploadMetadata.mime_type.max_chars)
        if len(meta.mime_type) > longest:
            raise invalid("metadata.mime_type", f"at most {longest} characters")
        collection_id = parse_uuid(meta.collection_id, COLLECTION_NOT_FOUND)
        replaces = (
            parse_uuid(meta.document_id, document_store.DOCUMENT_NOT_FOUND)
            if meta.document_id
            else None
        )
        try:
            file_type = resolve_type(file_name, meta.mime_type or None)
        except UnsupportedMediaType as exc:
            raise QuireError(errors_pb2.ERROR_CODE_UNSUPPORTED_MEDIA_TYPE, str(exc)) from None
        limit = self.state.settings.max_upload_bytes
        pieces: list[bytes] = []
        size = 0
        async for message in request_iterator:
            if message.HasField("metadata"):
                raise invalid("metadata", "only the first message may carry metadata")
            size += len(message.data)
            if size > limit:
                raise QuireError(
                    errors_pb2.ERROR_CODE_PAYLOAD_TOO_LARGE,
                    f"Uploads are limited to {limit} bytes",
                )
            pieces.append(message.data)
        content = b"".join(pieces)
        upload = document_store.Upload(
            collection_id=collection_id,
            file_name=file_name,
            mime_type=meta.mime_type or file_type.mime_type,
            content=content,
            sha256=hashlib.sha256(content).hexdigest(),
            replaces=replaces,
        )
        async with transaction(self.state.pool) as conn:
            document = await document_store.store_upload(conn, principal().org_id, upload)
        return knowledge_service_pb2.UploadDocumentResponse(document=document)

    async def GetDocument(
        self,
        request: knowledge_service_pb2.GetDocumentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.GetDocumentResponse:
        document_id = parse_uuid(request.document_id, document_store.DOCUMENT_NOT_FOUND)
        async with transaction(self.state.pool, readonly=True) as conn:
            document = await document_store.get(conn, principal().org_id, document_id)
        return knowledge_service_pb2.GetDocumentResponse(document=document)

    async def ListDocuments(
        self,
        request: knowledge_service_pb2.ListDocumentsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.ListDocumentsResponse:
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        limits = contract_bounds.ListDocumentsRequest
        limit = within("limit", request.limit, limits.limit)
        if len(request.cursor) > number(limits.cursor.max_chars):
            raise invalid("cursor", "not a cursor returned by ListDocuments")
        async with transaction(self.state.pool, readonly=True) as conn:
            docs, cursor = await document_store.list_page(
                conn,
                self.state.cursors,
                principal().org_id,
                collection_id,
                cursor=request.cursor,
                limit=limit,
            )
        return knowledge_service_pb2.ListDocumentsResponse(
            schema_version=SCHEMA_VERSION, documents=docs, next_cursor=cursor
        )

    async def DeleteDocument(
        self,
        request: knowledge_service_pb2.DeleteDocumentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.DeleteDocumentResponse:
        document_id = parse_uuid(request.document_id, document_store.DOCUMENT_NOT_FOUND)
        async with transaction(self.state.pool) as conn:
            document = await document_store.delete(conn, principal().org_id, document_id)
        return knowledge_service_pb2.DeleteDocumentResponse(document=document)

    async def WatchDocuments(
        self,
        request: knowledge_service_pb2.WatchDocumentsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[knowledge_service_pb2.WatchDocumentsResponse]:
        """Sends every document's current state, then each addition, status change and
        deletion as it happens; re-reads the collection when notifications may have been lost
        (listener reconnect)."""
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        org_id = principal().org_id
        notifications = self.state.require_notifications()
        last: dict[str, tuple[int, str]] = {}

        def changed(doc: knowledge_pb2.Document) -> bool:
            state = (doc.status, doc.extract_error)
            if last.get(doc.document_id) == state:
                return False
            last[doc.document_id] = state
            return True

        async def current() -> list[knowledge_pb2.Document]:
            async with self.state.pool.acquire() as conn:
                if (
                    await conn.fetchval(document_store.COLLECTION_LIVE, org_id, collection_id)
                    is None
                ):
                    raise COLLECTION_NOT_FOUND
                docs = await document_store.all_in_collection(conn, org_id, collection_id)
                live = {d.document_id for d in docs}
                for gone in [d for d in last if d not in live]:
                    docs.append(await self._watched(conn, org_id, collection_id, gone))
            return docs

        async with notifications.subscribe("quire_documents") as queue:
            for doc in await current():
                if changed(doc):
                    yield knowledge_service_pb2.WatchDocumentsResponse(document=doc)
            while True:
                event = await queue.get()
                if event.get("resync"):
                    for doc in await current():
                        if changed(doc):
                            yield knowledge_service_pb2.WatchDocumentsResponse(document=doc)
                    continue
                if event.get("org") != str(org_id) or event.get("collection") != str(collection_id):
                    continue
                async with self.state.pool.acquire() as conn:
                    doc = await self._watched(conn, org_id, collection_id, event["document"])
                if changed(doc):
                    yield knowledge_service_pb2.WatchDocumentsResponse(document=doc)

    @staticmethod
    async def _watched(
        conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID, document_id: str
    ) -> knowledge_pb2.Document:
        """A document as WatchDocuments reports it: DELETED once deleted or gone."""
        row = await conn.fetchrow(document_store.GET_ANY, org_id, uuid.UUID(document_id))
        if row is None:
            return knowledge_pb2.Document(
                schema_version=SCHEMA_VERSION,
                document_id=document_id,
                collection_id=str(collection_id),
                status=knowledge_pb2.DOCUMENT_STATUS_DELETED,
            )
        doc = document_store.document_message(row)
        if row["deleted"]:
            doc.status = knowledge_pb2.DOCUMENT_STATUS_DELETED
        return doc

    # --- agents -----------------------------------------------------------------------------

    async def UpsertAgent(
        self,
        request: knowledge_service_pb2.UpsertAgentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.UpsertAgentResponse:
        limits = contract_bounds.UpsertAgentRequest
        name_field("agent_id", request.agent_id, limits.agent_id)
        most = number(limits.attached_collection_ids.max_items)
        if len(request.attached_collection_ids) > most:
            raise invalid("attached_collection_ids", f"at most {most}")
        ids = list(
            dict.fromkeys(
                parse_uuid(c, COLLECTION_NOT_FOUND) for c in request.attached_collection_ids
            )
        )
        org_id = principal().org_id
        async with transaction(self.state.pool) as conn:
            if await conn.fetchval(COUNT_LIVE, org_id, ids) != len(ids):
                raise COLLECTION_NOT_FOUND
            row = await conn.fetchrow(UPSERT_AGENT, org_id, request.agent_id, ids)
        return knowledge_service_pb2.UpsertAgentResponse(agent=agent_message(row))

    async def GetAgent(
        self,
        request: knowledge_service_pb2.GetAgentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.GetAgentResponse:
        longest = number(contract_bounds.GetAgentRequest.agent_id.max_chars)
        if len(request.agent_id) > longest or "\x00" in request.agent_id:
            raise scope.AGENT_NOT_FOUND  # cannot exist; PostgreSQL rejects NUL in text
        async with transaction(self.state.pool, readonly=True) as conn:
            row = await conn.fetchrow(GET_AGENT, principal().org_id, request.agent_id)
        if row is None:
            raise scope.AGENT_NOT_FOUND
        return knowledge_service_pb2.GetAgentResponse(agent=agent_message(row))

    # --- search and read --------------------------------------------------------------------

    def _index_fingerprint(self) -> str:
        embedder = self.state.embeddings.fingerprint if self.state.embeddings else "none"
        return search.serving_fingerprint(embedder, self.tuning)

    async def _vector(self, query: str) -> Any:
        return (await self.state.require_embeddings().embed_queries([query]))[0]

    async def SearchKnowledge(
        self,
        request: knowledge_service_pb2.SearchKnowledgeRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.SearchKnowledgeResponse:
        limits = contract_bounds.SearchKnowledgeRequest
        longest = number(limits.query.max_chars)
        query = clean_text("query", request.query, max_chars=longest, allow_empty=True)
        if request.mode not in knowledge_pb2.RetrievalMode.values():
            raise invalid("mode", "unknown retrieval mode")
        where = request.filter if request.HasField("filter") else None
        filters.compile_filter(where, first_param=1)  # refuses a bad filter before any read
        with_metadata = request.include_metadata
        org_id = principal().org_id
        # Phase 1: policy, scope and cache in a short transaction; LEGACY_FTS (also what
        # HYBRID_SHADOW serves) needs no embedding, so it is answered in the same one.
        hits: list[knowledge_pb2.KnowledgeHit] | None = None
        async with transaction(self.state.pool, readonly=True) as conn:
            mode, bound = await effective_mode(conn, org_id, self.state, request.mode)
            default = min(number(limits.limit.default), bound)
            limit = bounded("limit", request.limit, number(limits.limit.min), bound, default)
            collections = await scope.resolve(
                conn, org_id, request.agent_id, list(request.collection_ids)
            )
            response = knowledge_service_pb2.SearchKnowledgeResponse(
                schema_version=SCHEMA_VERSION, mode=mode
            )
            if not query.strip() or not collections:
                return response
            index_fp = self._index_fingerprint()
            cache_key = cache.key(
                org_id,
                mode,
                collections,
                query,
                limit,
                index_fp,
                shape=[filters.canonical(where), with_metadata],
            )
            mode_name = knowledge_pb2.RetrievalMode.Name(mode)
            hit = await cache.lookup(conn, org_id, cache_key, mode_name)
            if hit is not None:
                hit.cached = True
                return hit
            started = time.perf_counter()
            # Until every collection's index has caught up with its revision, the same key
            # can get another answer a moment later: nothing is cached.
            settled = cache.settled(collections)
            if mode != knowledge_pb2.RETRIEVAL_MODE_HYBRID:
                hits = await search.legacy(
                    conn,
                    org_id,
                    [c.collection_id for c in collections],
                    query,
                    limit,
                    where=where,
                    with_metadata=with_metadata,
                )
                may_cache = settled
        if hits is None:
            # The arms that need only the text run while the query is embedded, unless
            # embeddings are queued (start_queries). The search reads the generations resolved
            # above: a flip in between still leaves them readable (retired generations keep
            # their chunks).
            vectors = await self.state.require_embeddings().start_queries([query])
            vector = asyncio.ensure_future(_first(vectors))
            try:
                hits, passed = await self._hybrid(
                    org_id,
                    collections,
                    query,
                    vector,
                    limit,
                    gate_for=index_fp,
                    where=where,
                    with_metadata=with_metadata,
                )
                may_cache = passed and settled
            finally:
                discard(vector)  # not awaited when no collection in scope has a generation
                discard(vectors)
        elapsed_ms = (time.perf_counter() - started) * 1000
        response.hits.extend(hits)
        if mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID_SHADOW:
            self._shadow(org_id, collections, query, limit, hits, elapsed_ms, where)
        if may_cache:
            async with self.state.pool.acquire() as conn:
                await cache.write(conn, org_id, cache_key, response)
        return response

    async def _hybrid(
        self,
        org_id: uuid.UUID,
        collections: list[scope.ScopedCollection],
        query: str,
        vector: npt.NDArray[np.float32] | Awaitable[npt.NDArray[np.float32]],
        limit: int,
        *,
        gate_for: str | None = None,
        where: search.Where = None,
        with_metadata: bool = False,
    ) -> tuple[list[knowledge_pb2.KnowledgeHit], bool]:
        """The hybrid search in its own read-only snapshot; also whether the gate passed for
        `gate_for` (read in the same snapshot), when given."""
        async with transaction(self.state.pool, readonly=True, isolation="repeatable_read") as conn:
            await apply_settings(conn, self.tuning.settings())
            hits = await search.hybrid(
                conn,
                org_id,
                collections,
                query,
                vector,
                limit,
                self.tuning,
                where=where,
                with_metadata=with_metadata,
            )
            passed = gate_for is not None and await cache.gate_passed(conn, gate_for)
        return hits, passed

    def _shadow(
        self,
        org_id: uuid.UUID,
        collections: list[scope.ScopedCollection],
        query: str,
        limit: int,
        legacy_hits: list[knowledge_pb2.KnowledgeHit],
        legacy_ms: float,
        where: search.Where,
    ) -> None:
        async def run_hybrid() -> tuple[list[str], float]:
            started = time.perf_counter()
            vector = await self._vector(query)
            hits, _ = await self._hybrid(org_id, collections, query, vector, limit, where=where)
            return [h.document_id for h in hits], (time.perf_counter() - started) * 1000

        self.shadow.submit(
            org_id, [h.document_id for h in legacy_hits], legacy_ms, limit, run_hybrid
        )

    async def ReadDocument(
        self,
        request: knowledge_service_pb2.ReadDocumentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.ReadDocumentResponse:
        document_id = parse_uuid(request.document_id, document_store.DOCUMENT_NOT_FOUND)
        limits = contract_bounds.ReadDocumentRequest
        max_chars = within("max_chars", request.max_chars, limits.max_chars)
        if request.offset > number(limits.offset.max):
            raise invalid("offset", f"at most {limits.offset.max}", f"0–{limits.offset.max}")
        org_id = principal().org_id
        async with transaction(self.state.pool, readonly=True) as conn:
            try:
                collections = await scope.resolve(
                    conn, org_id, request.agent_id, list(request.collection_ids)
                )
            except QuireError as exc:
                if exc.code == errors_pb2.ERROR_CODE_AGENT_NOT_FOUND:
                    raise document_store.DOCUMENT_NOT_FOUND from None
                raise
            slice_ = await document_store.read_slice(
                conn,
                org_id,
                document_id,
                [c.collection_id for c in collections],
                offset=request.offset,
                max_chars=max_chars,
            )
        return knowledge_service_pb2.ReadDocumentResponse(slice=slice_)

    # --- index status -----------------------------------------------------------------------

    async def GetIndexStatus(
        self,
        request: knowledge_service_pb2.GetIndexStatusRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.GetIndexStatusResponse:
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        async with transaction(self.state.pool, readonly=True) as conn:
            status = await index_status(conn, principal().org_id, collection_id)
        return knowledge_service_pb2.GetIndexStatusResponse(status=status)

    async def WatchIndexStatus(
        self,
        request: knowledge_service_pb2.WatchIndexStatusRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[knowledge_service_pb2.WatchIndexStatusResponse]:
        """Sends the current status, then a new one whenever the index makes progress."""
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        org_id = principal().org_id
        notifications = self.state.require_notifications()
        async with notifications.subscribe("quire_index") as queue:
            last = None
            while True:
                async with self.state.pool.acquire() as conn:
                    status = await index_status(conn, org_id, collection_id)
                if status != last:
                    last = status
                    yield knowledge_service_pb2.WatchIndexStatusResponse(status=status)
                while True:
                    event = await queue.get()
                    if event.get("resync") or (
                        event.get("org") == str(org_id)
                        and event.get("collection") == str(collection_id)
                    ):
                        break
                await asyncio.sleep(0.05)  # coalesce bursts of progress
                while not queue.empty():
                    queue.get_nowait()


SERVICE = knowledge_service_pb2.DESCRIPTOR.services_by_name["KnowledgeService"]


async def _first(vectors: Awaitable[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
    first: npt.NDArray[np.float32] = (await vectors)[0]
    return first

"""KnowledgeService: collections, documents, agents, search in the organisation's mode, reads
and index status."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from grpc import aio

from quire.server import models
from quire.server.contract import SCHEMA_VERSION
from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError, error_detail, invalid
from quire.server.knowledge import (
    agent_listing,
    agent_store,
    bulk_delete,
    collection_store,
    document_store,
    document_watch,
    document_writes,
    filters,
    metadata,
    reachable,
)
from quire.server.knowledge.index_status import index_status
from quire.server.knowledge.search_entry import KnowledgeSearch, SearchCall
from quire.server.read_routing import state_token
from quire.server.rpc import principal
from quire.server.services import document_requests
from quire.server.state import AppState
from quire.server.storage.database import transaction
from quire.server.validation import (
    clean_text,
    name_field,
    number,
    page_limit,
    parse_uuid,
    uuid_items,
    whole_match,
    within,
)
from quire.v1 import (
    errors_pb2,
    knowledge_pb2,
    knowledge_service_pb2,
    knowledge_service_pb2_grpc,
)

COLLECTION_NOT_FOUND = document_store.COLLECTION_NOT_FOUND
# Larger uploads are hashed in a thread (sha256 runs at about 0.5 GB/s: 2 ms of event loop).
HASH_ON_LOOP_BYTES = 1024 * 1024
AGENT_ID = whole_match(contract_bounds.UpsertAgentRequest.agent_id)


def _watched_ids(values: Sequence[str]) -> frozenset[uuid.UUID] | None:
    """WatchDocumentsRequest.document_ids: None (every document) when empty."""
    most = number(contract_bounds.WatchDocumentsRequest.document_ids.max_items)
    if len(values) > most:
        raise invalid("document_ids", f"at most {most} ids (got {len(values)})", f"at most {most}")
    return frozenset(uuid_items("document_ids", values, "a document id")) or None


def _event_document(event: dict[str, Any]) -> uuid.UUID | None:
    try:
        return uuid.UUID(event["document"])
    except (KeyError, TypeError, ValueError):
        return None


class KnowledgeService(knowledge_service_pb2_grpc.KnowledgeServiceServicer):
    def __init__(self, state: AppState) -> None:
        self.state = state
        self.knowledge_search = KnowledgeSearch(state)

    # --- collections ------------------------------------------------------------------------

    async def CreateCollection(
        self,
        request: knowledge_service_pb2.CreateCollectionRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.CreateCollectionResponse:
        longest = number(contract_bounds.CreateCollectionRequest.name.max_chars)
        name = clean_text("name", request.name, max_chars=longest)
        model = models.choose(
            clean_text(
                "embedding_model",
                request.embedding_model,
                max_chars=number(contract_bounds.CreateCollectionRequest.embedding_model.max_chars),
                allow_empty=True,
            ),
            self.state.models,
        )
        async with transaction(self.state.pool) as conn:
            collection = await collection_store.create(conn, principal().org_id, name, model)
        return knowledge_service_pb2.CreateCollectionResponse(collection=collection)

    async def ListModels(
        self,
        request: knowledge_service_pb2.ListModelsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.ListModelsResponse:
        listed = await asyncio.to_thread(models.listing, self.state.models)
        return knowledge_service_pb2.ListModelsResponse(
            schema_version=SCHEMA_VERSION, models=listed
        )

    async def GetCollection(
        self,
        request: knowledge_service_pb2.GetCollectionRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.GetCollectionResponse:
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            collection = await collection_store.get(conn, principal().org_id, collection_id)
        return knowledge_service_pb2.GetCollectionResponse(collection=collection)

    async def ListCollections(
        self,
        request: knowledge_service_pb2.ListCollectionsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.ListCollectionsResponse:
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            collections = await collection_store.list_all(conn, principal().org_id)
        return knowledge_service_pb2.ListCollectionsResponse(
            schema_version=SCHEMA_VERSION, collections=collections
        )

    async def DeleteCollection(
        self,
        request: knowledge_service_pb2.DeleteCollectionRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.DeleteCollectionResponse:
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        async with transaction(self.state.pool) as conn:
            collection = await collection_store.delete(conn, principal().org_id, collection_id)
        return knowledge_service_pb2.DeleteCollectionResponse(collection=collection)

    # --- documents --------------------------------------------------------------------------

    async def UploadDocument(
        self,
        request_iterator: AsyncIterator[knowledge_service_pb2.UploadDocumentRequest],
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.UploadDocumentResponse:
        first = await anext(request_iterator, None)
        if first is None or not first.HasField("metadata"):
            raise invalid("metadata", "the first message must be the upload's metadata")
        target = document_requests.upload_target(first.metadata)
        limit = self.state.settings.max_upload_bytes
        pieces: list[bytes] = []
        size = 0
        async for message in request_iterator:
            if message.HasField("metadata"):
                raise invalid("metadata", "only the first message may carry metadata")
            size += len(message.data)
            if size > limit:
                raise _too_large(limit)
            pieces.append(message.data)
        content = b"".join(pieces)
        if len(content) > HASH_ON_LOOP_BYTES:
            upload = await asyncio.to_thread(document_requests.with_content, target, content)
        else:
            upload = document_requests.with_content(target, content)
        async with transaction(self.state.pool) as conn:
            stored = await document_writes.store_upload(conn, principal().org_id, upload)
        return knowledge_service_pb2.UploadDocumentResponse(
            document=stored.document,
            outcome=stored.outcome,  # type: ignore[arg-type]
        )

    async def UploadDocuments(
        self,
        request_iterator: AsyncIterator[knowledge_service_pb2.UploadDocumentsRequest],
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.UploadDocumentsResponse:
        """Reads the whole stream (bounded in documents and bytes), then stores every document
        that passed its checks in one transaction."""
        limit = self.state.settings.max_upload_bytes
        most = document_requests.MAX_BATCH_DOCUMENTS
        entries: list[_BatchEntry] = []
        size = 0
        async for message in request_iterator:
            if message.HasField("metadata"):
                if len(entries) == most:
                    raise invalid(
                        "metadata", f"at most {most} documents per call", f"{most} documents"
                    )
                entries.append(_BatchEntry.parse(message.metadata))
                continue
            if not entries:
                raise invalid("metadata", "the first message must be a document's metadata")
            size += len(message.data)
            if size > limit:
                raise _too_large(limit)
            entries[-1].pieces.append(message.data)
        _refuse_repeated_keys(entries)
        # Hashing up to QUIRE_MAX_UPLOAD_BYTES is CPU work: off the event loop.
        uploads = await asyncio.to_thread(
            lambda: [
                (i, document_requests.with_content(e.target, b"".join(e.pieces)))
                for i, e in enumerate(entries)
                if e.target is not None
            ]
        )
        stored: list[document_writes.Stored | QuireError] = []
        if uploads:
            async with transaction(self.state.pool) as conn:
                stored = await document_writes.store_batch(
                    conn, principal().org_id, [u for _, u in uploads]
                )
        outcomes: dict[int, document_writes.Stored | QuireError] = {
            i: result for (i, _), result in zip(uploads, stored, strict=True)
        }
        response = knowledge_service_pb2.UploadDocumentsResponse(schema_version=SCHEMA_VERSION)
        for i, entry in enumerate(entries):
            result = outcomes.get(i) or entry.error
            item = response.results.add(index=i)
            if isinstance(result, document_writes.Stored):
                item.outcome = result.outcome  # type: ignore[assignment]
                item.document.CopyFrom(result.document)
            elif result is not None:
                item.error.CopyFrom(error_detail(result))
        return response

    async def GetDocument(
        self,
        request: knowledge_service_pb2.GetDocumentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.GetDocumentResponse:
        ref = document_requests.document_ref(request)
        org_id = principal().org_id
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            document_id = await _document_id(conn, org_id, ref)
            document = await document_store.get(conn, org_id, document_id)
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
        where = request.filter if request.HasField("filter") else None
        filters.compile_filter(where, first_param=1)  # refuses a bad filter before any read
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            docs, cursor = await document_store.list_page(
                conn,
                self.state.cursors,
                principal().org_id,
                collection_id,
                cursor=request.cursor,
                limit=limit,
                where=where,
            )
        return knowledge_service_pb2.ListDocumentsResponse(
            schema_version=SCHEMA_VERSION, documents=docs, next_cursor=cursor
        )

    async def DeleteDocument(
        self,
        request: knowledge_service_pb2.DeleteDocumentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.DeleteDocumentResponse:
        ref = document_requests.document_ref(request)
        org_id = principal().org_id
        async with transaction(self.state.pool) as conn:
            document_id = await _document_id(conn, org_id, ref)
            document = await document_store.delete(conn, org_id, document_id)
        return knowledge_service_pb2.DeleteDocumentResponse(document=document)

    async def DeleteDocuments(
        self,
        request: knowledge_service_pb2.DeleteDocumentsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.DeleteDocumentsResponse:
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        keys, ids = list(request.external_keys), list(request.document_ids)
        where = request.filter if request.HasField("filter") else None
        if [bool(keys), bool(ids), where is not None].count(True) != 1:
            bound = "exactly one of external_keys, document_ids, filter"
            raise invalid("external_keys", f"give {bound}", bound)
        limits = contract_bounds.DeleteDocumentsRequest
        for name, values, bounds in (
            ("external_keys", keys, limits.external_keys),
            ("document_ids", ids, limits.document_ids),
        ):
            most = number(bounds.max_items)
            if len(values) > most:
                raise invalid(name, f"at most {most} items (got {len(values)})", f"1–{most} items")
        for i, key in enumerate(keys):
            document_requests.external_key(key, f"external_keys[{i}]")
        filters.compile_filter(where, first_param=1)  # refuses a bad filter before any write
        async with transaction(self.state.pool) as conn:
            removed = await bulk_delete.delete_documents(
                conn, principal().org_id, collection_id, keys=keys, document_ids=ids, where=where
            )
        return knowledge_service_pb2.DeleteDocumentsResponse(
            deleted_count=removed.deleted_count,
            revision=removed.revision,
            missing_keys=removed.missing_keys,
            missing_document_ids=removed.missing_document_ids,
        )

    async def UpdateDocumentMetadata(
        self,
        request: knowledge_service_pb2.UpdateDocumentMetadataRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.UpdateDocumentMetadataResponse:
        ref = document_requests.document_ref(request)
        # The patch itself is checked as metadata (bounds, names, finite numbers); its nulls
        # are removals unless it replaces.
        patch = metadata.from_struct(request.patch, "patch").value
        org_id = principal().org_id
        async with transaction(self.state.pool) as conn:
            target = await document_writes.lock(
                conn,
                org_id,
                document_id=ref.document_id,
                collection_id=ref.collection_id,
                external_key=ref.external_key,
            )
            if target is None:
                raise document_store.DOCUMENT_NOT_FOUND
            current = metadata.parse_stored(target["metadata"])
            merged = patch if request.replace else metadata.merge_patch(current, patch)
            document = await document_writes.update_metadata(
                conn, org_id, target, metadata.checked(merged)
            )
        return knowledge_service_pb2.UpdateDocumentMetadataResponse(document=document)

    async def WatchDocuments(
        self,
        request: knowledge_service_pb2.WatchDocumentsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[knowledge_service_pb2.WatchDocumentsResponse]:
        """Sends every watched document's current state, then each addition, status or index
        state change and deletion as it happens; re-reads the watched documents when
        notifications may have been lost (listener reconnect, a watcher too far behind)."""
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        only = _watched_ids(request.document_ids)
        org_id = principal().org_id
        notifications = self.state.require_notifications()
        sent = document_watch.Sent()

        async def current() -> tuple[list[knowledge_pb2.Document], str]:
            async with self.state.pool.acquire() as conn:
                if (
                    await conn.fetchval(document_store.COLLECTION_LIVE, org_id, collection_id)
                    is None
                ):
                    raise COLLECTION_NOT_FOUND
                docs = await document_watch.snapshot(conn, org_id, collection_id, only)
                live = {d.document_id for d in docs}
                for gone in [d for d in sent.known() if d not in live]:
                    docs.append(await document_watch.one(conn, org_id, collection_id, gone))
                return docs, await state_token(self.state.replicas, conn)

        def message(
            doc: knowledge_pb2.Document, token: str
        ) -> knowledge_service_pb2.WatchDocumentsResponse:
            return knowledge_service_pb2.WatchDocumentsResponse(
                document=doc, consistency_token=token
            )

        async with notifications.subscribe("quire_documents") as queue:
            docs, token = await current()
            for doc in docs:
                if sent.is_new(doc):
                    yield message(doc, token)
            while True:
                event = await queue.get()
                if event.get("resync"):
                    docs, token = await current()
                    for doc in docs:
                        if sent.is_new(doc):
                            yield message(doc, token)
                    continue
                if event.get("org") != str(org_id) or event.get("collection") != str(collection_id):
                    continue
                if only is not None and _event_document(event) not in only:
                    continue
                async with self.state.pool.acquire() as conn:
                    doc = await document_watch.one(conn, org_id, collection_id, event["document"])
                    token = await state_token(self.state.replicas, conn)
                if sent.is_new(doc):
                    yield message(doc, token)

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
        async with transaction(self.state.pool) as conn:
            agent = await agent_store.upsert(conn, principal().org_id, request.agent_id, ids)
        return knowledge_service_pb2.UpsertAgentResponse(agent=agent)

    async def GetAgent(
        self,
        request: knowledge_service_pb2.GetAgentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.GetAgentResponse:
        agent_id = agent_store.looked_up_id(
            request.agent_id, contract_bounds.GetAgentRequest.agent_id
        )
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            agent = await agent_store.get(conn, principal().org_id, agent_id)
        return knowledge_service_pb2.GetAgentResponse(agent=agent)

    async def DeleteAgent(
        self,
        request: knowledge_service_pb2.DeleteAgentRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.DeleteAgentResponse:
        agent_id = agent_store.looked_up_id(
            request.agent_id, contract_bounds.DeleteAgentRequest.agent_id
        )
        async with transaction(self.state.pool) as conn:
            agent = await agent_store.delete(conn, principal().org_id, agent_id)
        return knowledge_service_pb2.DeleteAgentResponse(agent=agent)

    async def ListAgents(
        self,
        request: knowledge_service_pb2.ListAgentsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.ListAgentsResponse:
        limits = contract_bounds.ListAgentsRequest
        limit = page_limit("ListAgents", request.limit, request.cursor, limits)
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            rows, cursor = await agent_listing.list_page(
                conn, self.state.cursors, principal().org_id, cursor=request.cursor, limit=limit
            )
        return knowledge_service_pb2.ListAgentsResponse(
            schema_version=SCHEMA_VERSION,
            agents=[agent_store.agent_message(r) for r in rows],
            next_cursor=cursor,
        )

    # --- search and read --------------------------------------------------------------------

    async def SearchKnowledge(
        self,
        request: knowledge_service_pb2.SearchKnowledgeRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> knowledge_service_pb2.SearchKnowledgeResponse:
        longest = number(contract_bounds.SearchKnowledgeRequest.query.max_chars)
        query = clean_text("query", request.query, max_chars=longest, allow_empty=True)
        if request.mode not in knowledge_pb2.RetrievalMode.values():
            raise invalid("mode", "unknown retrieval mode")
        where = request.filter if request.HasField("filter") else None
        filters.compile_filter(where, first_param=1)  # refuses a bad filter before any read
        call = SearchCall(
            org_id=principal().org_id,
            query=query,
            mode=request.mode,
            limit=request.limit,
            agent_id=request.agent_id,
            collection_ids=list(request.collection_ids),
            where=where,
            with_metadata=request.include_metadata,
        )
        return await self.knowledge_search.answer(call)

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
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            try:
                collections = await reachable.resolve(
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
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
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
                # A newer worker heartbeat alone is no change worth a message.
                progress = knowledge_pb2.IndexStatus()
                progress.CopyFrom(status)
                progress.ClearField("worker_last_seen")
                if progress != last:
                    last = progress
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


async def _document_id(
    conn: asyncpg.Connection, org_id: uuid.UUID, ref: document_requests.DocumentRef
) -> uuid.UUID:
    """The id a reference names; a key no live document holds is DOCUMENT_NOT_FOUND."""
    if ref.document_id is not None:
        return ref.document_id
    assert ref.collection_id is not None and ref.external_key is not None
    return await document_store.id_by_key(conn, org_id, ref.collection_id, ref.external_key)


def _too_large(limit: int) -> QuireError:
    return QuireError(
        errors_pb2.ERROR_CODE_PAYLOAD_TOO_LARGE, f"Uploads are limited to {limit} bytes"
    )


@dataclass
class _BatchEntry:
    """One document of an UploadDocuments stream: its checked target, or why it is refused."""

    target: document_writes.Upload | None
    error: QuireError | None
    pieces: list[bytes] = field(default_factory=list)

    @classmethod
    def parse(cls, meta: knowledge_service_pb2.UploadMetadata) -> _BatchEntry:
        try:
            return cls(document_requests.upload_target(meta), None)
        except QuireError as exc:
            return cls(None, exc)


def _refuse_repeated_keys(entries: list[_BatchEntry]) -> None:
    """A key may name one document per batch: later uses of it are refused."""
    first: dict[tuple[uuid.UUID, str], int] = {}
    for i, entry in enumerate(entries):
        target = entry.target
        if target is None or target.external_key is None:
            continue
        seen = first.setdefault((target.collection_id, target.external_key), i)
        if seen != i:
            entry.target = None
            entry.error = invalid(
                "metadata.external_key",
                f"the key is already used by document {seen} of this batch",
                "unique within a batch",
            )

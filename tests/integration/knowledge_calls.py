"""Raw KnowledgeService calls for the key, metadata and batch tests (real gRPC over loopback):
uploads with a key and metadata, the ErrorDetail of a refusal, a collection's revision."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from grpc import aio

from quire.client.rich_status import error_detail
from quire.v1 import errors_pb2, knowledge_service_pb2, knowledge_service_pb2_grpc
from tests.conftest import Harness, bearer


@dataclass(frozen=True)
class Doc:
    """One document of an upload: name, bytes, and optionally key, metadata, target id."""

    file_name: str
    data: bytes
    key: str | None = None
    metadata: dict[str, Any] | None = None
    document_id: str = ""
    collection_id: str = ""

    def message(self, collection_id: str) -> knowledge_service_pb2.UploadMetadata:
        meta = knowledge_service_pb2.UploadMetadata(
            collection_id=self.collection_id or collection_id,
            file_name=self.file_name,
            document_id=self.document_id,
        )
        if self.key is not None:
            meta.external_key = self.key
        if self.metadata is not None:
            meta.metadata.SetInParent()
            meta.metadata.update(self.metadata)
        return meta


class Calls:
    def __init__(self, harness: Harness, token: str) -> None:
        self.harness = harness
        self.stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
        self.md = bearer(token)

    async def collection(self, name: str) -> str:
        response = await self.stub.CreateCollection(
            knowledge_service_pb2.CreateCollectionRequest(name=name), metadata=self.md
        )
        return response.collection.collection_id

    async def revision(self, collection_id: str) -> int:
        async with self.harness.pool.acquire() as conn:
            revision: int = await conn.fetchval(
                "SELECT revision FROM collections WHERE collection_id = $1",
                uuid.UUID(collection_id),
            )
        return revision

    async def upload(
        self, collection_id: str, doc: Doc
    ) -> knowledge_service_pb2.UploadDocumentResponse:
        async def messages() -> AsyncIterator[knowledge_service_pb2.UploadDocumentRequest]:
            yield knowledge_service_pb2.UploadDocumentRequest(metadata=doc.message(collection_id))
            yield knowledge_service_pb2.UploadDocumentRequest(data=doc.data)

        response: knowledge_service_pb2.UploadDocumentResponse = await self.stub.UploadDocument(
            messages(), metadata=self.md
        )
        return response

    async def upload_many(
        self, collection_id: str, docs: Sequence[Doc]
    ) -> list[knowledge_service_pb2.UploadResult]:
        async def messages() -> AsyncIterator[knowledge_service_pb2.UploadDocumentsRequest]:
            for doc in docs:
                yield knowledge_service_pb2.UploadDocumentsRequest(
                    metadata=doc.message(collection_id)
                )
                yield knowledge_service_pb2.UploadDocumentsRequest(data=doc.data)

        response = await self.stub.UploadDocuments(messages(), metadata=self.md)
        return list(response.results)

    async def refused(self, call: Any) -> errors_pb2.ErrorDetail:
        """The ErrorDetail of a call that must fail."""
        with pytest.raises(aio.AioRpcError) as caught:
            await call
        detail = error_detail(caught.value.trailing_metadata())
        assert detail is not None, caught.value.details()
        return detail


def violation(detail: errors_pb2.ErrorDetail) -> tuple[str, str]:
    """(field, bound) of an INVALID_REQUEST with one field violation."""
    assert detail.code == errors_pb2.ERROR_CODE_INVALID_REQUEST, detail
    (v,) = detail.field_violations
    return v.field, v.bound

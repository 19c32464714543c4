"""Named collection scopes are checked, not silently narrowed: in SearchKnowledge a malformed
entry of `collection_ids` is INVALID_REQUEST naming it, and a well-formed one the caller cannot
see (another organisation's, deleted, never created) is COLLECTION_NOT_FOUND naming it, the
same for all three. ReadDocument checks its `collection_ids` the same way (its document, if
visible through the other entries, is not read from a scope that was mistyped). An agent's
attachments deleted after the upsert are still skipped silently.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
import pytest_asyncio
from grpc import aio

from quire.v1 import errors_pb2, knowledge_service_pb2_grpc
from quire.v1 import knowledge_service_pb2 as kn
from tests.conftest import Harness, Keys, bearer
from tests.reliability._support import typed_detail

pytestmark = pytest.mark.asyncio(loop_scope="session")

MALFORMED = ["not-a-uuid", "", "1234", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz", "\x00"]


@dataclass(frozen=True)
class World:
    mine: Keys
    live: str  # a collection of mine holding one document
    document_id: str
    deleted: str  # a collection of mine, deleted
    foreign: str  # another organisation's live collection
    agent_id: str  # attached to `live` and to a collection deleted after the upsert


async def _collection_with_text(
    harness: Harness, knowledge: knowledge_service_pb2_grpc.KnowledgeServiceStub, keys: Keys
) -> tuple[str, str]:
    from quire.indexer.worker import document_queries as worker_documents

    key = bearer(keys.all)
    made = await knowledge.CreateCollection(
        kn.CreateCollectionRequest(name=f"c-{uuid.uuid4().hex[:8]}"), metadata=key
    )
    cid = made.collection.collection_id

    async def upload() -> AsyncIterator[kn.UploadDocumentRequest]:
        yield kn.UploadDocumentRequest(
            metadata=kn.UploadMetadata(collection_id=cid, file_name="pangolin.txt")
        )
        yield kn.UploadDocumentRequest(data=b"the pangolin rolls into a ball\n")

    doc = (await knowledge.UploadDocument(upload(), metadata=key)).document
    async with harness.pool.acquire() as conn:  # stands in for the worker's extraction
        await worker_documents.store_text(
            conn, keys.org_id, uuid.UUID(doc.document_id), "the pangolin rolls into a ball", ""
        )
    return cid, doc.document_id


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def world(harness: Harness) -> World:
    knowledge = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    mine = await harness.keys("scope-mine")
    theirs = await harness.keys("scope-theirs")
    live, document_id = await _collection_with_text(harness, knowledge, mine)
    deleted, _ = await _collection_with_text(harness, knowledge, mine)
    later, _ = await _collection_with_text(harness, knowledge, mine)
    foreign, _ = await _collection_with_text(harness, knowledge, theirs)
    key = bearer(mine.all)
    await knowledge.UpsertAgent(
        kn.UpsertAgentRequest(agent_id="scoped", attached_collection_ids=[live, later]),
        metadata=key,
    )
    for cid in (deleted, later):
        await knowledge.DeleteCollection(
            kn.DeleteCollectionRequest(collection_id=cid), metadata=key
        )
    return World(mine, live, document_id, deleted, foreign, "scoped")


def _stub(harness: Harness) -> knowledge_service_pb2_grpc.KnowledgeServiceStub:
    return knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)


async def _search_error(
    harness: Harness, world: World, ids: list[str]
) -> tuple[grpc.StatusCode, errors_pb2.ErrorDetail]:
    request = kn.SearchKnowledgeRequest(query="pangolin", collection_ids=ids)
    with pytest.raises(aio.AioRpcError) as refused:
        await _stub(harness).SearchKnowledge(request, metadata=bearer(world.mine.read), timeout=10)
    return refused.value.code(), typed_detail(refused.value)


async def test_the_visible_collection_is_searched(harness: Harness, world: World) -> None:
    found = await _stub(harness).SearchKnowledge(
        kn.SearchKnowledgeRequest(query="pangolin", collection_ids=[world.live]),
        metadata=bearer(world.mine.read),
    )
    assert [h.document_id for h in found.hits] == [world.document_id]


@pytest.mark.parametrize("malformed", MALFORMED)
async def test_a_malformed_id_is_invalid_request_naming_its_entry(
    harness: Harness, world: World, malformed: str
) -> None:
    code, detail = await _search_error(harness, world, [world.live, malformed])
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert detail.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
    assert [v.field for v in detail.field_violations] == ["collection_ids[1]"]


@pytest.mark.parametrize("kind", ["foreign", "deleted", "never"])
async def test_an_invisible_id_is_collection_not_found_naming_its_entry(
    harness: Harness, world: World, kind: str
) -> None:
    invisible = {"foreign": world.foreign, "deleted": world.deleted, "never": str(uuid.uuid4())}
    code, detail = await _search_error(harness, world, [world.live, invisible[kind]])
    assert code == grpc.StatusCode.NOT_FOUND
    assert detail.code == errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND
    assert "collection_ids[1]" in detail.message
    assert [v.field for v in detail.field_violations] == ["collection_ids[1]"]


async def test_invisible_ids_of_every_kind_answer_alike(harness: Harness, world: World) -> None:
    answers = set()
    for invisible in (world.foreign, world.deleted, str(uuid.uuid4())):
        code, detail = await _search_error(harness, world, [invisible])
        answers.add((code, detail.SerializeToString(deterministic=True)))
    assert len(answers) == 1
    # Several at once: each is named, in request order.
    code, detail = await _search_error(
        harness, world, [world.deleted, world.live, world.foreign, str(uuid.uuid4())]
    )
    assert code == grpc.StatusCode.NOT_FOUND
    assert [v.field for v in detail.field_violations] == [
        "collection_ids[0]",
        "collection_ids[2]",
        "collection_ids[3]",
    ]


async def test_an_agent_with_a_deleted_attachment_still_searches(
    harness: Harness, world: World
) -> None:
    found = await _stub(harness).SearchKnowledge(
        kn.SearchKnowledgeRequest(query="pangolin", agent_id=world.agent_id),
        metadata=bearer(world.mine.read),
    )
    assert [h.document_id for h in found.hits] == [world.document_id]


async def test_read_document_checks_the_same_ids(harness: Harness, world: World) -> None:
    read = _stub(harness).ReadDocument
    key = bearer(world.mine.read)
    ok = await read(
        kn.ReadDocumentRequest(collection_ids=[world.live], document_id=world.document_id),
        metadata=key,
    )
    assert "pangolin" in ok.slice.text
    with pytest.raises(aio.AioRpcError) as malformed:
        await read(
            kn.ReadDocumentRequest(
                collection_ids=[world.live, "nope"], document_id=world.document_id
            ),
            metadata=key,
        )
    detail = typed_detail(malformed.value)
    assert detail.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
    assert [v.field for v in detail.field_violations] == ["collection_ids[1]"]
    for invisible in (world.foreign, world.deleted, str(uuid.uuid4())):
        with pytest.raises(aio.AioRpcError) as hidden:
            await read(
                kn.ReadDocumentRequest(
                    collection_ids=[world.live, invisible], document_id=world.document_id
                ),
                metadata=key,
            )
        detail = typed_detail(hidden.value)
        assert detail.code == errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND
        assert [v.field for v in detail.field_violations] == ["collection_ids[1]"]

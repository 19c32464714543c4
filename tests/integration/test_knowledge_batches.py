"""UploadDocuments and DeleteDocuments against the real server: per-document results with a
refused document among good ones, one revision advance per batch, the batch bounds, and each
form of DeleteDocuments."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from quire.server.contract import bounds as B
from quire.v1 import errors_pb2, knowledge_pb2, knowledge_service_pb2
from tests.conftest import Harness
from tests.integration.knowledge_calls import Calls, Doc, violation

pytestmark = pytest.mark.asyncio(loop_scope="session")

CREATED = knowledge_pb2.UPLOAD_OUTCOME_CREATED
REPLACED = knowledge_pb2.UPLOAD_OUTCOME_REPLACED
UNCHANGED = knowledge_pb2.UPLOAD_OUTCOME_UNCHANGED
MISSING = "00000000-0000-0000-0000-000000000000"

MOST_IDS = B.DeleteDocumentsRequest.document_ids.max_items or 0


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def calls(harness: Harness) -> AsyncIterator[Calls]:
    keys = await harness.keys("batches-org")
    yield Calls(harness, keys.all)


async def test_batch_results_with_refused_documents_among_good_ones(calls: Calls) -> None:
    cid = await calls.collection("batch")
    revision = await calls.revision(cid)
    docs = [
        Doc("a.txt", b"alpha", key="a", metadata={"n": 1}),
        Doc("b.unknownext", b"?"),  # unsupported type
        Doc("c.txt", b"gamma", key="a"),  # key used twice in the batch
        Doc("d.txt", b"delta", metadata={"_x": 1}),  # reserved metadata name
        Doc("e.txt", b"eps", collection_id=MISSING),  # unknown collection
        Doc("f.txt", b"", key="f"),
        Doc("g.txt", b"x", document_id=str(uuid.uuid4())),  # unknown document
    ]
    results = await calls.upload_many(cid, docs)
    assert [r.index for r in results] == list(range(len(docs)))
    stored = {i for i, r in enumerate(results) if r.HasField("document")}
    assert stored == {0, 5}
    assert all(results[i].outcome == CREATED for i in stored)
    assert results[0].document.external_key == "a"
    assert results[0].document.revision == results[5].document.revision == revision + 1
    assert await calls.revision(cid) == revision + 1, "one revision advance for the batch"
    errors = {i: r.error for i, r in enumerate(results) if r.HasField("error")}
    assert errors[1].code == errors_pb2.ERROR_CODE_UNSUPPORTED_MEDIA_TYPE
    assert violation(errors[2])[0] == "metadata.external_key"
    assert violation(errors[3])[0] == "metadata._x"
    assert errors[4].code == errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND
    assert errors[6].code == errors_pb2.ERROR_CODE_DOCUMENT_NOT_FOUND
    assert all(results[i].outcome == knowledge_pb2.UPLOAD_OUTCOME_UNSPECIFIED for i in errors)

    # Run again: the keyed documents are unchanged or replaced, nothing new.
    again = await calls.upload_many(
        cid, [Doc("a.txt", b"alpha", key="a", metadata={"n": 1}), Doc("f.txt", b"new", key="f")]
    )
    assert [r.outcome for r in again] == [UNCHANGED, REPLACED]
    assert again[0].document.document_id == results[0].document.document_id
    assert again[1].document.document_id == results[5].document.document_id
    assert await calls.revision(cid) == revision + 2


async def test_concurrent_batches_with_common_new_keys_make_one_document_per_key(
    calls: Calls,
) -> None:
    cid = await calls.collection("batch-race")
    keys = [f"k{i}" for i in range(20)]
    batches = await asyncio.gather(
        *(
            calls.upload_many(cid, [Doc(f"{k}.txt", f"{k}-{n}".encode(), key=k) for k in keys])
            for n in range(4)
        )
    )
    for i, key in enumerate(keys):
        results = [batch[i] for batch in batches]
        assert len({r.document.document_id for r in results}) == 1, key
        assert sorted(r.outcome for r in results) == [CREATED, REPLACED, REPLACED, REPLACED]
    listed = await calls.stub.ListDocuments(
        knowledge_service_pb2.ListDocumentsRequest(collection_id=cid), metadata=calls.md
    )
    assert sorted(d.external_key for d in listed.documents) == sorted(keys)


async def test_batch_stream_must_start_with_metadata(calls: Calls) -> None:
    async def messages() -> AsyncIterator[knowledge_service_pb2.UploadDocumentsRequest]:
        yield knowledge_service_pb2.UploadDocumentsRequest(data=b"orphan")

    detail = await calls.refused(calls.stub.UploadDocuments(messages(), metadata=calls.md))
    assert violation(detail)[0] == "metadata"


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_batch_document_bound(calls: Calls) -> None:
    cid = await calls.collection("bound")
    results = await calls.upload_many(cid, [Doc(f"{i}.txt", b"x") for i in range(1000)])
    assert len(results) == 1000 and all(r.outcome == CREATED for r in results)
    revision = await calls.revision(cid)
    detail = await calls.refused(
        calls.upload_many(cid, [Doc(f"{i}.txt", b"x") for i in range(1001)])
    )
    assert violation(detail) == ("metadata", "1000 documents")
    assert await calls.revision(cid) == revision, "nothing written"


async def test_batch_byte_bound(calls: Calls) -> None:
    cid = await calls.collection("bytes")
    settings = calls.harness.running.state.settings  # type: ignore[attr-defined]
    saved = settings.max_upload_bytes
    settings.max_upload_bytes = 1000
    try:
        exact = await calls.upload_many(cid, [Doc("a.txt", b"a" * 600), Doc("b.txt", b"b" * 400)])
        assert [r.outcome for r in exact] == [CREATED, CREATED]
        revision = await calls.revision(cid)
        detail = await calls.refused(
            calls.upload_many(cid, [Doc("a.txt", b"a" * 600), Doc("c.txt", b"c" * 401)])
        )
        assert detail.code == errors_pb2.ERROR_CODE_PAYLOAD_TOO_LARGE
        assert await calls.revision(cid) == revision, "nothing written"
    finally:
        settings.max_upload_bytes = saved


async def test_delete_documents_by_keys_ids_and_filter(calls: Calls) -> None:
    cid = await calls.collection("deletes")
    docs = [
        Doc(f"{i}.txt", b"x", key=f"k{i}", metadata={"group": "g1" if i < 3 else "g2"})
        for i in range(6)
    ]
    results = await calls.upload_many(cid, docs)
    ids = [r.document.document_id for r in results]

    async def delete(
        request: knowledge_service_pb2.DeleteDocumentsRequest,
    ) -> knowledge_service_pb2.DeleteDocumentsResponse:
        request.collection_id = cid
        response: knowledge_service_pb2.DeleteDocumentsResponse = await calls.stub.DeleteDocuments(
            request, metadata=calls.md
        )
        return response

    revision = await calls.revision(cid)
    by_keys = await delete(
        knowledge_service_pb2.DeleteDocumentsRequest(external_keys=["k0", "nope", "k0"])
    )
    assert by_keys.deleted_count == 1 and list(by_keys.missing_keys) == ["nope"]
    assert by_keys.revision == revision + 1 == await calls.revision(cid)

    by_ids = await delete(
        knowledge_service_pb2.DeleteDocumentsRequest(document_ids=[ids[1], ids[0], "junk"])
    )
    assert by_ids.deleted_count == 1
    assert list(by_ids.missing_document_ids) == [ids[0], "junk"]

    by_filter = knowledge_service_pb2.DeleteDocumentsRequest()
    by_filter.filter.field.field = "group"
    by_filter.filter.field.equals.string_value = "g2"
    filtered = await delete(by_filter)
    assert filtered.deleted_count == 3 and filtered.revision == revision + 3

    listed = await calls.stub.ListDocuments(
        knowledge_service_pb2.ListDocumentsRequest(collection_id=cid), metadata=calls.md
    )
    assert [d.external_key for d in listed.documents] == ["k2"]
    nothing = await delete(knowledge_service_pb2.DeleteDocumentsRequest(external_keys=["k0"]))
    assert nothing.deleted_count == 0 and nothing.revision == revision + 3, "nothing to delete"


async def test_delete_documents_refusals(calls: Calls) -> None:
    cid = await calls.collection("delete-refusals")
    bound = "exactly one of external_keys, document_ids, filter"
    for request in (
        knowledge_service_pb2.DeleteDocumentsRequest(collection_id=cid),
        knowledge_service_pb2.DeleteDocumentsRequest(
            collection_id=cid, external_keys=["a"], document_ids=[MISSING]
        ),
    ):
        detail = await calls.refused(calls.stub.DeleteDocuments(request, metadata=calls.md))
        assert violation(detail) == ("external_keys", bound)
    at_bound = knowledge_service_pb2.DeleteDocumentsRequest(
        collection_id=cid, external_keys=[f"k{i}" for i in range(MOST_IDS)]
    )
    response = await calls.stub.DeleteDocuments(at_bound, metadata=calls.md)
    assert len(response.missing_keys) == MOST_IDS
    over = knowledge_service_pb2.DeleteDocumentsRequest(
        collection_id=cid, document_ids=[str(uuid.uuid4()) for _ in range(MOST_IDS + 1)]
    )
    detail = await calls.refused(calls.stub.DeleteDocuments(over, metadata=calls.md))
    assert violation(detail) == ("document_ids", f"1–{MOST_IDS} items")
    empty_key = knowledge_service_pb2.DeleteDocumentsRequest(
        collection_id=cid, external_keys=["ok", ""]
    )
    detail = await calls.refused(calls.stub.DeleteDocuments(empty_key, metadata=calls.md))
    assert violation(detail)[0] == "external_keys[1]"
    unknown = knowledge_service_pb2.DeleteDocumentsRequest(
        collection_id=MISSING, external_keys=["a"]
    )
    detail = await calls.refused(calls.stub.DeleteDocuments(unknown, metadata=calls.md))
    assert detail.code == errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND

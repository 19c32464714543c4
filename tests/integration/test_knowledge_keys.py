"""External keys and metadata against the real server: upload outcomes, concurrent uploads of
one new key, get/delete by key, UpdateDocumentMetadata, every bound at its edge with nothing
written on refusal, and the ListDocuments filter."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from quire.v1 import errors_pb2, knowledge_pb2, knowledge_service_pb2
from tests.conftest import Harness
from tests.integration.knowledge_calls import Calls, Doc, violation
from tests.support.waits import lock_waiters, until

pytestmark = pytest.mark.asyncio(loop_scope="session")

CREATED = knowledge_pb2.UPLOAD_OUTCOME_CREATED
REPLACED = knowledge_pb2.UPLOAD_OUTCOME_REPLACED
UNCHANGED = knowledge_pb2.UPLOAD_OUTCOME_UNCHANGED
METADATA_UPDATED = knowledge_pb2.UPLOAD_OUTCOME_METADATA_UPDATED


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def calls(harness: Harness) -> AsyncIterator[Calls]:
    keys = await harness.keys("keys-org")
    yield Calls(harness, keys.all)


def as_dict(struct: Any) -> dict[str, Any]:
    from google.protobuf import json_format

    value: dict[str, Any] = json_format.MessageToDict(struct)
    return value


async def test_upload_outcomes_by_key(calls: Calls) -> None:
    cid = await calls.collection("outcomes")
    first = await calls.upload(cid, Doc("a.txt", b"alpha", key="docs/a.txt", metadata={"v": 1}))
    assert first.outcome == CREATED
    doc = first.document
    assert doc.external_key == "docs/a.txt" and as_dict(doc.metadata) == {"v": 1}

    revision = await calls.revision(cid)
    again = await calls.upload(cid, Doc("a.txt", b"alpha", key="docs/a.txt", metadata={"v": 1}))
    assert again.outcome == UNCHANGED
    assert again.document.document_id == doc.document_id
    assert again.document.revision == doc.revision
    assert await calls.revision(cid) == revision, "nothing written"
    # Metadata unset: the document keeps its own, so the same bytes are still unchanged.
    unset = await calls.upload(cid, Doc("a.txt", b"alpha", key="docs/a.txt"))
    assert unset.outcome == UNCHANGED and as_dict(unset.document.metadata) == {"v": 1}

    renamed = await calls.upload(cid, Doc("b.txt", b"alpha", key="docs/a.txt"))
    assert renamed.outcome == METADATA_UPDATED
    assert renamed.document.document_id == doc.document_id
    assert renamed.document.file_name == "b.txt"
    assert renamed.document.revision > doc.revision
    assert as_dict(renamed.document.metadata) == {"v": 1}

    tagged = await calls.upload(cid, Doc("b.txt", b"alpha", key="docs/a.txt", metadata={"v": 2}))
    assert tagged.outcome == METADATA_UPDATED and as_dict(tagged.document.metadata) == {"v": 2}
    # No re-extraction: the status is what it was, not PENDING again by this upload.
    async with calls.harness.pool.acquire() as conn:
        jobs = await conn.fetchval(
            "SELECT count(*) FROM jobs WHERE kind = 'extract' AND payload->>'document_id' = $1",
            doc.document_id,
        )
    assert jobs == 1, "only the first upload queued an extraction"

    replaced = await calls.upload(cid, Doc("b.txt", b"beta", key="docs/a.txt"))
    assert replaced.outcome == REPLACED
    assert replaced.document.document_id == doc.document_id
    assert replaced.document.size_bytes == 4
    assert replaced.document.status == knowledge_pb2.DOCUMENT_STATUS_PENDING
    assert as_dict(replaced.document.metadata) == {"v": 2}, "unset metadata is kept"

    listed = await calls.stub.ListDocuments(
        knowledge_service_pb2.ListDocumentsRequest(collection_id=cid), metadata=calls.md
    )
    assert [d.document_id for d in listed.documents] == [doc.document_id]
    # Without key or id: always a new document.
    plain = [await calls.upload(cid, Doc("p.txt", b"same")) for _ in range(2)]
    assert [p.outcome for p in plain] == [CREATED, CREATED]
    assert plain[0].document.document_id != plain[1].document.document_id
    assert plain[0].document.external_key == "" and as_dict(plain[0].document.metadata) == {}


async def test_edit_by_id_with_and_without_key(calls: Calls) -> None:
    cid = await calls.collection("edits")
    keyed = (await calls.upload(cid, Doc("k.txt", b"k", key="k1"))).document
    other = (await calls.upload(cid, Doc("o.txt", b"o"))).document
    # An edit by id without a key keeps the document's key.
    edit = await calls.upload(cid, Doc("k.txt", b"k2", document_id=keyed.document_id))
    assert edit.outcome == REPLACED and edit.document.external_key == "k1"
    # By id with the key it already holds: fine; with a key another document holds: refused.
    same = await calls.upload(cid, Doc("k.txt", b"k2", key="k1", document_id=keyed.document_id))
    assert same.outcome == UNCHANGED
    revision = await calls.revision(cid)
    detail = await calls.refused(
        calls.upload(cid, Doc("o.txt", b"o", key="k1", document_id=other.document_id))
    )
    assert violation(detail)[0] == "metadata.external_key"
    assert await calls.revision(cid) == revision
    # A free key given with the id becomes the document's key.
    named = await calls.upload(cid, Doc("o.txt", b"o", key="k2", document_id=other.document_id))
    assert named.outcome == METADATA_UPDATED and named.document.external_key == "k2"


async def test_concurrent_uploads_of_one_new_key_make_one_document(calls: Calls) -> None:
    cid = await calls.collection("race")
    for round_ in range(3):
        key = f"race-{round_}"
        results = await asyncio.gather(
            *(calls.upload(cid, Doc("r.txt", f"v{i}".encode(), key=key)) for i in range(6))
        )
        ids = {r.document.document_id for r in results}
        assert len(ids) == 1, results
        outcomes = sorted(r.outcome for r in results)
        assert outcomes.count(CREATED) == 1, outcomes
        assert set(outcomes) <= {CREATED, REPLACED}


async def test_get_and_delete_by_key(calls: Calls) -> None:
    cid = await calls.collection("by-key")
    doc = (await calls.upload(cid, Doc("g.txt", b"g", key="a/b c"))).document
    got = await calls.stub.GetDocument(
        knowledge_service_pb2.GetDocumentRequest(collection_id=cid, external_key="a/b c"),
        metadata=calls.md,
    )
    assert got.document.document_id == doc.document_id
    for request in (
        knowledge_service_pb2.GetDocumentRequest(collection_id=cid, external_key="nope"),
        knowledge_service_pb2.GetDocumentRequest(
            collection_id="00000000-0000-0000-0000-000000000000", external_key="a/b c"
        ),
    ):
        detail = await calls.refused(calls.stub.GetDocument(request, metadata=calls.md))
        assert detail.code == errors_pb2.ERROR_CODE_DOCUMENT_NOT_FOUND
    for request in (
        knowledge_service_pb2.GetDocumentRequest(),
        knowledge_service_pb2.GetDocumentRequest(collection_id=cid),
        knowledge_service_pb2.GetDocumentRequest(
            document_id=doc.document_id, collection_id=cid, external_key="a/b c"
        ),
        knowledge_service_pb2.GetDocumentRequest(document_id=doc.document_id, external_key="x"),
    ):
        detail = await calls.refused(calls.stub.GetDocument(request, metadata=calls.md))
        assert violation(detail)[0] == "document_id"
    detail = await calls.refused(
        calls.stub.GetDocument(
            knowledge_service_pb2.GetDocumentRequest(external_key="a/b c"), metadata=calls.md
        )
    )
    assert violation(detail)[0] == "collection_id"
    detail = await calls.refused(
        calls.stub.GetDocument(
            knowledge_service_pb2.GetDocumentRequest(collection_id=cid, external_key=""),
            metadata=calls.md,
        )
    )
    assert violation(detail)[0] == "external_key"

    deleted = await calls.stub.DeleteDocument(
        knowledge_service_pb2.DeleteDocumentRequest(collection_id=cid, external_key="a/b c"),
        metadata=calls.md,
    )
    assert deleted.document.document_id == doc.document_id
    detail = await calls.refused(
        calls.stub.DeleteDocument(
            knowledge_service_pb2.DeleteDocumentRequest(collection_id=cid, external_key="a/b c"),
            metadata=calls.md,
        )
    )
    assert detail.code == errors_pb2.ERROR_CODE_DOCUMENT_NOT_FOUND
    # The key is free again: a new document.
    again = await calls.upload(cid, Doc("g.txt", b"g", key="a/b c"))
    assert again.outcome == CREATED and again.document.document_id != doc.document_id


async def test_update_metadata_patch_and_replace(calls: Calls) -> None:
    cid = await calls.collection("patches")
    meta = {"customer": {"tier": "gold", "id": 7}, "tags": ["a"], "keep": True}
    doc = (await calls.upload(cid, Doc("m.txt", b"m", key="m", metadata=meta))).document

    async def update(patch: dict[str, Any], replace: bool = False) -> knowledge_pb2.Document:
        request = knowledge_service_pb2.UpdateDocumentMetadataRequest(
            collection_id=cid, external_key="m", replace=replace
        )
        request.patch.update(patch)
        response = await calls.stub.UpdateDocumentMetadata(request, metadata=calls.md)
        return response.document

    patched = await update({"customer": {"tier": "silver", "id": None}, "tags": ["b", "c"]})
    assert as_dict(patched.metadata) == {
        "customer": {"tier": "silver"},
        "tags": ["b", "c"],
        "keep": True,
    }
    assert patched.revision > doc.revision
    revision = await calls.revision(cid)
    same = await update({"keep": True})
    assert same.revision == patched.revision and await calls.revision(cid) == revision
    replaced = await update({"only": None}, replace=True)
    assert as_dict(replaced.metadata) == {"only": None}, "replace keeps nulls as values"
    by_id = knowledge_service_pb2.UpdateDocumentMetadataRequest(document_id=doc.document_id)
    by_id.patch.update({"only": 1})
    response = await calls.stub.UpdateDocumentMetadata(by_id, metadata=calls.md)
    assert as_dict(response.document.metadata) == {"only": 1}
    assert response.document.status == doc.status, "no re-extraction"

    # A patch whose result breaks a bound is refused, and nothing is written.
    revision = await calls.revision(cid)
    wide = knowledge_service_pb2.UpdateDocumentMetadataRequest(document_id=doc.document_id)
    wide.patch.update({f"k{i}": i for i in range(128)})
    detail = await calls.refused(calls.stub.UpdateDocumentMetadata(wide, metadata=calls.md))
    assert violation(detail) == ("metadata", "128 keys")
    bad = knowledge_service_pb2.UpdateDocumentMetadataRequest(document_id=doc.document_id)
    bad.patch.update({"_x": 1})
    detail = await calls.refused(calls.stub.UpdateDocumentMetadata(bad, metadata=calls.md))
    assert violation(detail)[0] == "patch._x"
    assert await calls.revision(cid) == revision
    missing = knowledge_service_pb2.UpdateDocumentMetadataRequest(
        collection_id=cid, external_key="absent"
    )
    detail = await calls.refused(calls.stub.UpdateDocumentMetadata(missing, metadata=calls.md))
    assert detail.code == errors_pb2.ERROR_CODE_DOCUMENT_NOT_FOUND


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def _sized(total: int) -> dict[str, Any]:
    """Metadata whose compact JSON is exactly `total` bytes."""
    value = {f"k{i}": "x" * 4000 for i in range(4)}
    fill = total - len('{"k0":"","k1":"","k2":"","k3":"","k4":""}') - 4 * 4000
    value["k4"] = "x" * fill
    return value


@pytest.mark.parametrize(
    ("accepted", "refused", "field", "bound"),
    [
        ({"key": "k" * 256}, {"key": "k" * 257}, "metadata.external_key", "1–256"),
        ({"key": "ok"}, {"key": ""}, "metadata.external_key", "1–256"),
        ({"key": "tab ok"}, {"key": "tab\there"}, "metadata.external_key", "control"),
        ({"key": "del ok"}, {"key": "del\x7f"}, "metadata.external_key", "control"),
        ({"metadata": _sized(16384)}, {"metadata": _sized(16385)}, "metadata", "16384 bytes"),
        ({"metadata": _nested(4)}, {"metadata": _nested(5)}, "metadata.a.a.a.a", "4 levels"),
        (
            {"metadata": {f"k{i}": 1 for i in range(128)}},
            {"metadata": {f"k{i}": 1 for i in range(129)}},
            "metadata",
            "128 keys",
        ),
        ({"metadata": {"x" * 64: 1}}, {"metadata": {"x" * 65: 1}}, "metadata." + "x" * 65, "1–64"),
        ({"metadata": {"x_": 1}}, {"metadata": {"_x": 1}}, "metadata._x", "not starting with _"),
        ({"metadata": {"x-y": 1}}, {"metadata": {"x.y": 1}}, "metadata.x.y", "[A-Za-z0-9_-]"),
        ({"metadata": {"n": 1e308}}, {"metadata": {"n": float("nan")}}, "metadata.n", "finite"),
        ({"metadata": {"s": "x" * 4096}}, {"metadata": {"s": "x" * 4097}}, "metadata.s", "4096"),
        (
            {"metadata": {"tags": list(range(256))}},
            {"metadata": {"tags": ["a", "b", "c", "x" * 4097]}},
            "metadata.tags[3]",
            "4096",
        ),
    ],
)
async def test_bounds_at_their_edges(
    calls: Calls, accepted: dict[str, Any], refused: dict[str, Any], field: str, bound: str
) -> None:
    cid = await calls.collection(f"bounds-{uuid.uuid4()}")
    ok = await calls.upload(cid, Doc("ok.txt", b"ok", **accepted))
    assert ok.outcome == CREATED
    revision = await calls.revision(cid)
    detail = await calls.refused(calls.upload(cid, Doc("bad.txt", b"bad", **refused)))
    got_field, got_bound = violation(detail)
    assert got_field == field and bound in got_bound + detail.field_violations[0].description
    assert await calls.revision(cid) == revision, "nothing written"
    listed = await calls.stub.ListDocuments(
        knowledge_service_pb2.ListDocumentsRequest(collection_id=cid), metadata=calls.md
    )
    assert [d.file_name for d in listed.documents] == ["ok.txt"]


async def test_list_documents_filter(calls: Calls) -> None:
    cid = await calls.collection("listed")
    for i in range(5):
        await calls.upload(cid, Doc(f"{i}.txt", b"x", metadata={"n": i, "even": i % 2 == 0}))
    request = knowledge_service_pb2.ListDocumentsRequest(collection_id=cid, limit=1)
    request.filter.field.field = "even"
    request.filter.field.equals.bool_value = True
    names: list[str] = []
    while True:
        page = await calls.stub.ListDocuments(request, metadata=calls.md)
        names += [d.file_name for d in page.documents]
        if not page.next_cursor:
            break
        request.cursor = page.next_cursor
    assert names == ["4.txt", "2.txt", "0.txt"]
    bad = knowledge_service_pb2.ListDocumentsRequest(collection_id=cid)
    bad.filter.field.field = "_n"
    bad.filter.field.exists = True
    detail = await calls.refused(calls.stub.ListDocuments(bad, metadata=calls.md))
    assert violation(detail)[0].startswith("filter")


async def test_an_edit_taking_a_key_another_upload_takes_first_is_refused(calls: Calls) -> None:
    """The edit's check sees the key free (the other upload has not committed), then meets it
    on the unique index: a typed refusal, not INTERNAL, and in a batch the rest is stored."""
    from quire.server.knowledge import document_writes

    cid = await calls.collection("key-race")
    edited = (await calls.upload(cid, Doc("e.txt", b"e"))).document
    org_id = (await calls.harness.keys("keys-org")).org_id
    for batch in (False, True):
        key = f"contested-{batch}"
        async with calls.harness.pool.acquire() as conn:
            writer = conn.transaction()
            await writer.start()
            upload = document_writes.Upload(
                collection_id=uuid.UUID(cid),
                file_name="w.txt",
                mime_type="text/plain",
                content=b"w",
                sha256="0" * 64,
                replaces=None,
                external_key=key,
            )
            await document_writes.store_upload(conn, org_id, upload)
            edit = Doc("e.txt", b"e2", key=key, document_id=edited.document_id)
            if batch:
                call = asyncio.ensure_future(
                    calls.upload_many(cid, [edit, Doc("n.txt", b"n", key=f"{key}-other")])
                )
            else:
                call = asyncio.ensure_future(calls.upload(cid, edit))
            async with calls.harness.pool.acquire() as watcher:

                async def edit_waits() -> bool:
                    return await lock_waiters(watcher) > 0

                await until(edit_waits, within_s=30, what="the edit never met the unique index")
            assert not call.done()
            await writer.commit()
        if batch:
            results = await call
            assert violation(results[0].error)[0] == "metadata.external_key"
            assert results[1].outcome == CREATED
        else:
            detail = await calls.refused(call)
            assert violation(detail)[0] == "metadata.external_key"
    got = await calls.stub.GetDocument(
        knowledge_service_pb2.GetDocumentRequest(document_id=edited.document_id),
        metadata=calls.md,
    )
    assert got.document.external_key == "" and got.document.size_bytes == 1

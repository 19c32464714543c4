"""The Python client's issue-20 helpers against a real server, worker and model: folder upload
(twice = all UNCHANGED), batches split into several calls, keys, metadata, filters, bulk
deletes, wait_until_searchable (complete, and a timeout that passes first) and iterators."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

import quire.client as qc
from quire.client import AsyncQuireClient, QuireClient, Searchable, UploadItem
from quire.client import filters as f
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True
CREATED, UNCHANGED, REPLACED = "CREATED", "UNCHANGED", "REPLACED"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("helpers-org")


@pytest_asyncio.fixture(loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def new_collection(client: AsyncQuireClient, name: str) -> str:
    """A fresh collection."""
    return (await client.create_collection(name=name)).collection_id


async def all_extracted(client: AsyncQuireClient, cid: str, within: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + within
    ready = knowledge_pb2.DOCUMENT_STATUS_READY
    while {d.status async for d in client.iter_documents(collection_id=cid)} != {ready}:
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.1)


def make_folder(root: Path) -> None:
    (root / "guides").mkdir(parents=True)
    (root / "a.txt").write_text("The otter ledger lists river expenses.\n")
    (root / "guides" / "b.md").write_text("# Herons\n\nWading birds of the estuary.\n")
    (root / "guides" / "c.txt").write_text("Kingfisher notes.\n")
    (root / "big.txt").write_text("salmon run " * 120_000)  # > 1 MiB: a stream of its own
    (root / "tool.exe").write_bytes(b"MZ\x00binary")  # refused: unsupported type


async def test_upload_folder_twice_is_unchanged(
    client: AsyncQuireClient, harness: Harness, keys: Keys, tmp_path: Path
) -> None:
    cid = await new_collection(client, "folder")
    make_folder(tmp_path)

    def team(path: Path) -> dict[str, object] | None:
        return {"team": "guides"} if path.parent.name == "guides" else None

    first = await client.upload_folder(
        collection_id=cid, path=tmp_path, concurrency=2, metadata=team
    )
    assert [r.key for r in first] == ["a.txt", "big.txt", "guides/b.md", "guides/c.txt", "tool.exe"]
    by_key = {r.key: r for r in first}
    assert [by_key[k].outcome_name for k in ("a.txt", "big.txt", "guides/b.md")] == [CREATED] * 3
    refused = by_key["tool.exe"]
    assert not refused.ok and isinstance(refused.error, qc.UnsupportedMediaType)
    assert by_key["guides/b.md"].document is not None
    assert qc.to_dict(by_key["guides/b.md"].document.metadata) == {"team": "guides"}

    second = await client.upload_folder(collection_id=cid, path=tmp_path, metadata=team)
    assert {r.key: r.outcome_name for r in second if r.ok} == {
        "a.txt": UNCHANGED,
        "big.txt": UNCHANGED,
        "guides/b.md": UNCHANGED,
        "guides/c.txt": UNCHANGED,
    }
    same_ids = {r.key: r.document.document_id for r in second if r.document is not None}
    assert same_ids == {r.key: r.document.document_id for r in first if r.document is not None}

    (tmp_path / "a.txt").write_text("The otter ledger, revised.\n")
    only_a = await client.upload_folder(collection_id=cid, path=tmp_path, include=["a.*"])
    assert [(r.key, r.outcome_name) for r in only_a] == [("a.txt", REPLACED)]

    def blocking_run() -> list[qc.FileResult]:
        with QuireClient(harness.address, api_key=keys.all) as c:
            return c.upload_folder(collection_id=cid, path=tmp_path, concurrency=3)

    again = await asyncio.to_thread(blocking_run)
    # The blocking twin: metadata left unset keeps each document's own, so nothing changes.
    assert {r.outcome_name for r in again if r.ok} == {UNCHANGED}
    assert len(again) == 5


async def test_batches_keys_metadata_and_filters(client: AsyncQuireClient) -> None:
    cid = await new_collection(client, "batches")
    items = [
        UploadItem(f"n{i}.txt", f"Refund note {i} about parcels.\n".encode(), f"n{i}", {"n": i})
        for i in range(5)
    ]
    # 40 bytes per call forces one call per document or two: results still in input order.
    reply = await client.upload_documents(collection_id=cid, items=items, max_bytes=40)
    assert [r.index for r in reply.results] == [0, 1, 2, 3, 4]
    assert {r.outcome for r in reply.results} == {knowledge_pb2.UPLOAD_OUTCOME_CREATED}

    got = await client.get_document(collection_id=cid, external_key="n3")
    assert qc.to_dict(got.metadata) == {"n": 3}
    patched = await client.update_document_metadata(
        collection_id=cid, external_key="n3", patch={"n": None, "tier": "gold"}
    )
    assert qc.to_dict(patched.metadata) == {"tier": "gold"}
    replaced = await client.update_document_metadata(
        document_id=got.document_id, patch={"n": 3}, replace=True
    )
    assert qc.to_dict(replaced.metadata) == {"n": 3}

    wanted = f.range_("n", gte=1, lte=3) & ~f.eq("n", 2)
    listed = [d.external_key async for d in client.iter_documents(collection_id=cid, filter=wanted)]
    assert sorted(listed) == ["n1", "n3"]

    await all_extracted(client, cid)  # LEGACY_FTS finds READY documents
    found = await client.search_knowledge(
        collection_ids=[cid],
        query="refund parcels",
        mode=knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS,
        filter=f.any_of("n", [0, 4]),
        include_metadata=True,
    )
    assert sorted((h.external_key, qc.to_dict(h.metadata)["n"]) for h in found.hits) == [
        ("n0", 0),
        ("n4", 4),
    ]

    gone = await client.delete_documents(collection_id=cid, external_keys=["n0", "zz"])
    assert gone.deleted_count == 1 and list(gone.missing_keys) == ["zz"]
    by_filter = await client.delete_documents(collection_id=cid, filter=f.range_("n", gte=3))
    assert by_filter.deleted_count == 2
    deleted = await client.delete_document(collection_id=cid, external_key="n1")
    assert deleted.external_key == "n1"
    with pytest.raises(qc.DocumentNotFound):
        await client.get_document(collection_id=cid, external_key="n1")
    left = [d.external_key async for d in client.iter_documents(collection_id=cid, page_size=1)]
    assert left == ["n2"]


@pytest.mark.slow  # 3 s under load (`make test-fast` leaves it out)
async def test_wait_until_searchable(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    cid = (await client.create_collection(name="wait")).collection_id
    text = await client.upload_document(
        collection_id=cid, file_name="t.txt", data=b"Lapwing counts by the marsh.\n"
    )
    assert text.index_state == knowledge_pb2.DOCUMENT_INDEX_STATE_PENDING
    empty = await client.upload_document(collection_id=cid, file_name="e.txt", data=b"")
    missing = "00000000-0000-4000-8000-000000000000"

    passed = await client.wait_until_searchable(document_ids=[text.document_id], timeout=0.001)
    assert not passed.complete
    assert [o.outcome for o in passed.outcomes] == [Searchable.TIMED_OUT]

    done = await client.wait_until_searchable(
        document_ids=[text, empty.document_id, missing], timeout=120
    )
    assert done.complete
    assert [(o.document_id, o.outcome) for o in done.outcomes] == [
        (text.document_id, Searchable.INDEXED),
        (empty.document_id, Searchable.NO_TEXT),
        (missing, Searchable.DELETED),
    ]

    def blocking_wait() -> qc.WaitResult:
        with QuireClient(harness.address, api_key=keys.all) as c:
            return c.wait_until_searchable(collection_id=cid, timeout=30)

    whole = await asyncio.to_thread(blocking_wait)
    assert whole.complete
    assert [o.document_id for o in whole.outcomes] == sorted([text.document_id, empty.document_id])
    with pytest.raises(qc.CollectionNotFound):
        await client.wait_until_searchable(collection_id=missing, timeout=5)
    with pytest.raises(ValueError):
        await client.wait_until_searchable(timeout=5)


async def test_iterators(client: AsyncQuireClient) -> None:
    cid = (await client.create_collection(name="iterate")).collection_id
    for i in range(3):
        await client.upsert_agent(agent_id=f"iter-{i}", attached_collection_ids=[cid])
    agents = [a.agent_id async for a in client.iter_agents(page_size=2)]
    assert agents == sorted(agents) and {"iter-0", "iter-1", "iter-2"} <= set(agents)
    assert cid in [c.collection_id async for c in client.iter_collections()]
    assert [n async for n in client.iter_namespaces()] == []

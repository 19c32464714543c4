"""Knowledge collections end to end: uploads of every file family through the real worker
(extraction, chunking, ONNX embedding, generations), agents and scope, the three retrieval
modes and the kill switch, reads, the cache and cross-organisation isolation."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Sequence

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.server.contract import bounds as B
from quire.v1 import knowledge_pb2, pages_pb2
from tests.conftest import Harness, Keys
from tests.support.index_waits import wait_indexed, wait_settled
from tests.support.sample_files import CORRUPT, SAMPLES
from tests.support.waits import one_more_watcher, watchers

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True
TERMINAL = (knowledge_pb2.DOCUMENT_STATUS_READY, knowledge_pb2.DOCUMENT_STATUS_FAILED)

READ_CHARS = B.ReadDocumentRequest.max_chars.max or 0
MOST_HITS = B.SetRetrievalPolicyRequest.max_search_limit.max or 0
QUERY_CHARS = B.SearchKnowledgeRequest.query.max_chars or 0


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("knowledge-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def wait_terminal(
    client: AsyncQuireClient, document_id: str, within: float = 120
) -> knowledge_pb2.Document:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        doc = await client.get_document(document_id=document_id)
        if doc.status in TERMINAL:
            return doc
        assert asyncio.get_running_loop().time() < deadline, f"{doc.file_name} stuck"
        await asyncio.sleep(0.2)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def samples(client: AsyncQuireClient) -> tuple[str, dict[str, knowledge_pb2.Document]]:
    collection = await client.create_collection(name="samples")
    uploaded = {}
    for name, sample in SAMPLES.items():
        uploaded[name] = await client.upload_document(
            collection_id=collection.collection_id, file_name=name, data=sample.make()
        )
    done = {name: await wait_terminal(client, d.document_id) for name, d in uploaded.items()}
    await wait_indexed(client, collection.collection_id)
    return collection.collection_id, done


async def test_every_family_is_extracted_or_stored_by_name(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, docs = samples
    for name, sample in SAMPLES.items():
        doc = docs[name]
        assert doc.status == knowledge_pb2.DOCUMENT_STATUS_READY, (name, doc.extract_error)
        read = await client.read_document(
            collection_ids=[collection_id], document_id=doc.document_id
        )
        if sample.words:
            assert doc.extract_error == "", name
            for word in sample.words:
                if "\t" not in word:  # table cells: checked by the extraction unit tests
                    assert word in read.text or read.truncated, (name, word)
        else:
            assert doc.extract_error == "no text extracted", name
            assert read.text == "no text extracted"


async def test_name_only_files_are_found_by_file_name(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, docs = samples
    result = await client.search_knowledge(collection_ids=[collection_id], query="photo.png")
    assert result.hits and result.hits[0].document_id == docs["photo.png"].document_id


async def test_legacy_search_finds_words_with_headline_snippets(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, _ = samples
    result = await client.search_knowledge(
        collection_ids=[collection_id], query="where does the walrus food budget come from"
    )
    assert result.mode == knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS
    assert len(result.hits) <= 8
    top = {h.file_name for h in result.hits[:3]}
    assert top & {"budget.xlsx", "budget.xlsm"}, [h.file_name for h in result.hits]
    assert all(h.score > 0 and h.snippet for h in result.hits)
    assert not result.hits[0].chunk_id  # document level


async def test_corrupt_files_fail_at_once_and_report_why(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, _ = samples
    names = ["truncated.docx", "random.pdf", "png.docx"]
    uploaded = [
        await client.upload_document(collection_id=collection_id, file_name=n, data=CORRUPT[n]())
        for n in names
    ]
    for doc in uploaded:
        final = await wait_terminal(client, doc.document_id, within=60)
        assert final.status == knowledge_pb2.DOCUMENT_STATUS_FAILED, final.file_name
        # the same bytes would fail the same way: no retries
        assert final.extract_error and final.attempts == 1


async def test_failed_reextraction_keeps_the_earlier_text(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection = await client.create_collection(name="edits")
    doc = await client.upload_document(
        collection_id=collection.collection_id,
        file_name="memo.txt",
        data=b"The meerkat memo says hello.",
    )
    await wait_terminal(client, doc.document_id)
    before = await client.get_collection(collection_id=collection.collection_id)
    await client.upload_document(
        collection_id=collection.collection_id,
        file_name="memo.pdf",
        data=CORRUPT["random.pdf"](),
        document_id=doc.document_id,
    )
    failed = await wait_terminal(client, doc.document_id, within=60)
    assert failed.status == knowledge_pb2.DOCUMENT_STATUS_FAILED
    after = await client.get_collection(collection_id=collection.collection_id)
    assert after.revision > before.revision
    read = await client.read_document(
        collection_ids=[collection.collection_id], document_id=doc.document_id
    )
    assert read.text == "The meerkat memo says hello."
    found = await client.search_knowledge(
        collection_ids=[collection.collection_id], query="meerkat"
    )
    assert [h.document_id for h in found.hits] == [doc.document_id]


async def test_upload_errors_are_typed(client: AsyncQuireClient, harness: Harness) -> None:
    collection = await client.create_collection(name="upload-errors")
    cid = collection.collection_id
    with pytest.raises(qe.UnsupportedMediaType):
        await client.upload_document(collection_id=cid, file_name="thing.xyz", data=b"x")
    with pytest.raises(qe.UnsupportedMediaType):
        await client.upload_document(collection_id=cid, file_name="noext", data=b"x")
    ok = await client.upload_document(
        collection_id=cid, file_name="noext", data=b"plain words", mime_type="text/plain"
    )
    assert ok.status == knowledge_pb2.DOCUMENT_STATUS_PENDING
    with pytest.raises(qe.InvalidRequest):
        await client.upload_document(collection_id=cid, file_name="a/b.txt", data=b"x")
    with pytest.raises(qe.CollectionNotFound):
        await client.upload_document(
            collection_id="00000000-0000-0000-0000-000000000000", file_name="a.txt", data=b"x"
        )
    settings = harness.running.state.settings  # type: ignore[attr-defined]
    saved = settings.max_upload_bytes
    settings.max_upload_bytes = 2 * 1024 * 1024
    try:
        exact = await client.upload_document(
            collection_id=cid, file_name="exact.txt", data=b"a" * (2 * 1024 * 1024)
        )
        assert exact.size_bytes == 2 * 1024 * 1024
        with pytest.raises(qe.PayloadTooLarge):
            await client.upload_document(
                collection_id=cid, file_name="big.txt", data=b"a" * (2 * 1024 * 1024 + 1)
            )
    finally:
        settings.max_upload_bytes = saved


async def test_revision_advances_on_upload_edit_and_removal(client: AsyncQuireClient) -> None:
    collection = await client.create_collection(name="revisions")
    cid = collection.collection_id
    revisions = [collection.revision]
    doc = await client.upload_document(collection_id=cid, file_name="a.txt", data=b"one")
    revisions.append((await client.get_collection(collection_id=cid)).revision)
    await client.upload_document(
        collection_id=cid, file_name="a.txt", data=b"two", document_id=doc.document_id
    )
    revisions.append((await client.get_collection(collection_id=cid)).revision)
    await client.delete_document(document_id=doc.document_id)
    revisions.append((await client.get_collection(collection_id=cid)).revision)
    assert revisions == sorted(set(revisions)) and len(revisions) == 4
    with pytest.raises(qe.DocumentNotFound):
        await client.get_document(document_id=doc.document_id)


async def test_an_edit_needs_a_live_document_in_a_live_collection(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    first = (await client.create_collection(name="edits-a")).collection_id
    second = (await client.create_collection(name="edits-b")).collection_id
    doc = await client.upload_document(collection_id=first, file_name="a.txt", data=b"one")
    gone = await client.upload_document(collection_id=first, file_name="g.txt", data=b"gone")
    await client.delete_document(document_id=gone.document_id)
    spare = (await client.create_collection(name="edits-deleted")).collection_id
    await client.delete_collection(collection_id=spare)

    async def state() -> tuple[object, ...]:
        async with harness.pool.acquire() as conn:
            return (
                await conn.fetchval(
                    "SELECT content FROM document_originals WHERE org_id = $1 AND document_id = $2",
                    keys.org_id,
                    uuid.UUID(doc.document_id),
                ),
                await conn.fetchval(
                    "SELECT count(*) FROM jobs WHERE org_id = $1 AND payload->>'document_id' "
                    "= ANY($2::text[])",
                    keys.org_id,
                    [doc.document_id, gone.document_id],
                ),
                (await client.get_collection(collection_id=first)).revision,
            )

    before = await state()
    with pytest.raises(qe.DocumentNotFound):  # the document lives in another collection
        await client.upload_document(
            collection_id=second, file_name="a.txt", data=b"two", document_id=doc.document_id
        )
    with pytest.raises(qe.DocumentNotFound):  # deleted documents cannot be edited back
        await client.upload_document(
            collection_id=first, file_name="g.txt", data=b"two", document_id=gone.document_id
        )
    with pytest.raises(qe.CollectionNotFound):
        await client.upload_document(
            collection_id=spare, file_name="a.txt", data=b"two", document_id=doc.document_id
        )
    assert await state() == before, "a refused edit leaves no original, job or revision"
    edited = await client.upload_document(
        collection_id=first, file_name="a2.txt", data=b"two", document_id=doc.document_id
    )
    content, jobs_now, revision = await state()
    assert (edited.document_id, edited.file_name, edited.size_bytes) == (
        doc.document_id,
        "a2.txt",
        3,
    )
    assert edited.status == knowledge_pb2.DOCUMENT_STATUS_PENDING
    assert content == b"two" and jobs_now == before[1] + 1 and revision == edited.revision


async def test_document_changes_refuse_to_run_outside_a_transaction(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    from quire.server.knowledge import document_store, document_writes

    cid = (await client.create_collection(name="needs-transaction")).collection_id
    doc = await client.upload_document(collection_id=cid, file_name="t.txt", data=b"kept")
    upload = document_writes.Upload(
        collection_id=uuid.UUID(cid),
        file_name="u.txt",
        mime_type="text/plain",
        content=b"x",
        sha256="0" * 64,
        replaces=None,
    )
    async with harness.pool.acquire() as conn:
        with pytest.raises(RuntimeError, match="transaction"):
            await document_writes.store_upload(conn, keys.org_id, upload)
        with pytest.raises(RuntimeError, match="transaction"):
            await document_store.delete(conn, keys.org_id, uuid.UUID(doc.document_id))
    listed = await client.list_documents(collection_id=cid)
    assert [d.file_name for d in listed.documents] == ["t.txt"], "nothing was written"


async def test_concurrent_changes_each_get_their_own_revision(client: AsyncQuireClient) -> None:
    collection = await client.create_collection(name="revisions-concurrent")
    cid = collection.collection_id
    start = collection.revision
    uploads = await asyncio.gather(
        *(
            client.upload_document(collection_id=cid, file_name=f"c{i}.txt", data=b"words %d" % i)
            for i in range(12)
        )
    )
    # Each change is stamped with the revision it advanced the collection to: no two alike,
    # none skipped, and the stored row says the same as the reply.
    assert sorted(d.revision for d in uploads) == list(range(start + 1, start + 13))
    for doc in uploads:
        assert (await client.get_document(document_id=doc.document_id)).revision == doc.revision
    removed = await client.delete_document(document_id=uploads[0].document_id)
    assert removed.revision == start + 13
    assert (await client.get_collection(collection_id=cid)).revision == start + 13
    await client.delete_collection(collection_id=cid)
    with pytest.raises(qe.CollectionNotFound):
        await client.upload_document(collection_id=cid, file_name="late.txt", data=b"x")


async def test_agents_resolve_current_attachments(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, _ = samples
    other = await client.create_collection(name="agent-other")
    note = await client.upload_document(
        collection_id=other.collection_id, file_name="n.txt", data=b"the wildebeest migrates"
    )
    await wait_terminal(client, note.document_id)
    first = await client.upsert_agent(agent_id="helper", attached_collection_ids=[collection_id])
    second = await client.upsert_agent(
        agent_id="helper", attached_collection_ids=[collection_id, other.collection_id]
    )
    assert second.config_version == first.config_version + 1
    found = await client.search_knowledge(agent_id="helper", query="wildebeest")
    assert [h.document_id for h in found.hits] == [note.document_id]
    await client.upsert_agent(agent_id="helper", attached_collection_ids=[collection_id])
    gone = await client.search_knowledge(agent_id="helper", query="wildebeest")
    assert not gone.hits
    with pytest.raises(qe.DocumentNotFound):
        await client.read_document(agent_id="helper", document_id=note.document_id)
    await client.upsert_agent(
        agent_id="helper", attached_collection_ids=[collection_id, other.collection_id]
    )
    await client.delete_collection(collection_id=other.collection_id)
    after_delete = await client.search_knowledge(agent_id="helper", query="wildebeest")
    assert not after_delete.hits
    with pytest.raises(qe.CollectionNotFound):
        await client.upsert_agent(agent_id="helper", attached_collection_ids=[other.collection_id])
    with pytest.raises(qe.AgentNotFound):
        await client.search_knowledge(agent_id="nobody", query="x")
    with pytest.raises(qe.InvalidRequest):
        await client.upsert_agent(agent_id="bad id!", attached_collection_ids=[])
    removed = await client.delete_agent(agent_id="helper")
    assert removed.agent_id == "helper" and collection_id in removed.attached_collection_ids
    with pytest.raises(qe.AgentNotFound):
        await client.get_agent(agent_id="helper")
    with pytest.raises(qe.AgentNotFound):
        await client.delete_agent(agent_id="helper")
    assert (await client.get_collection(collection_id=collection_id)).collection_id


async def test_blank_query_or_no_collections_is_empty(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, _ = samples
    assert not (await client.search_knowledge(collection_ids=[collection_id], query="  ")).hits
    await client.upsert_agent(agent_id="empty", attached_collection_ids=[])
    assert not (await client.search_knowledge(agent_id="empty", query="walrus")).hits
    with pytest.raises(qe.InvalidRequest):
        await client.search_knowledge(query="walrus")


async def test_read_document_bounds_and_scope(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, docs = samples
    doc = docs["handbook.docx"]
    whole = await client.read_document(collection_ids=[collection_id], document_id=doc.document_id)
    assert whole.total_length == len(whole.text) and whole.file_name == "handbook.docx"
    part = await client.read_document(
        collection_ids=[collection_id], document_id=doc.document_id, offset=2, max_chars=3
    )
    assert part.text == whole.text[2:5] and part.next_offset == 5
    assert (
        await client.read_document(
            collection_ids=[collection_id], document_id=doc.document_id, max_chars=READ_CHARS
        )
    ).text == whole.text
    with pytest.raises(qe.InvalidRequest):
        await client.read_document(
            collection_ids=[collection_id], document_id=doc.document_id, max_chars=READ_CHARS + 1
        )
    unrelated = await client.create_collection(name="unrelated")
    with pytest.raises(qe.DocumentNotFound) as info:
        await client.read_document(
            collection_ids=[unrelated.collection_id], document_id=doc.document_id
        )
    assert info.value.message == "Document not found"


async def test_other_organisations_see_nothing(
    harness: Harness, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, docs = samples
    other = await harness.keys("knowledge-other")
    async with AsyncQuireClient(harness.address, api_key=other.all) as c:
        with pytest.raises(qe.CollectionNotFound):
            await c.search_knowledge(collection_ids=[collection_id], query="walrus")
        with pytest.raises(qe.DocumentNotFound):
            await c.get_document(document_id=docs["notes.txt"].document_id)
        with pytest.raises(qe.CollectionNotFound):
            await c.read_document(
                collection_ids=[collection_id], document_id=docs["notes.txt"].document_id
            )
        with pytest.raises(qe.CollectionNotFound):
            await c.list_documents(collection_id=collection_id)


async def test_hybrid_mode_answers_at_chunk_level_and_kill_switch_reverts(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, docs = samples
    await client.set_retrieval_policy(mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID)
    try:
        result = await client.search_knowledge(
            collection_ids=[collection_id], query="a large flightless bird"
        )
        assert result.mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID
        assert result.hits[0].document_id == docs["bird.rst"].document_id
        top = result.hits[0]
        assert top.chunk_id and top.index_generation >= 1 and "cassowary" in top.snippet.lower()
        assert not result.cached  # no passed gate: hybrid results are not cached
        again = await client.search_knowledge(
            collection_ids=[collection_id], query="a large flightless bird"
        )
        assert not again.cached
        await client.set_kill_switch(engaged=True)
        legacy = await client.search_knowledge(
            collection_ids=[collection_id], query="a large flightless bird"
        )
        assert legacy.mode == knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS
    finally:
        await client.set_kill_switch(engaged=False)
        await client.set_retrieval_policy(mode=knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS)


async def test_legacy_results_are_cached_until_the_collection_changes(
    client: AsyncQuireClient, harness: Harness
) -> None:
    collection = await client.create_collection(name="cache")
    cid = collection.collection_id
    doc = await client.upload_document(collection_id=cid, file_name="c.txt", data=b"okapi stripes")
    await wait_terminal(client, doc.document_id)
    await wait_settled(harness.pool, cid)
    first = await client.search_knowledge(collection_ids=[cid], query="okapi")
    second = await client.search_knowledge(collection_ids=[cid], query="  OKAPI ")
    assert not first.cached and second.cached and second.hits == first.hits
    more = await client.upload_document(collection_id=cid, file_name="d.txt", data=b"okapi again")
    # A new revision: the old entry is unreachable. Until the worker has caught up with it
    # nothing is written (the answer may still change at this revision).
    pending = await client.search_knowledge(collection_ids=[cid], query="okapi")
    assert not pending.cached
    await wait_terminal(client, more.document_id)
    await wait_settled(harness.pool, cid)
    third = await client.search_knowledge(collection_ids=[cid], query="okapi")
    assert len(third.hits) == 2
    fourth = await client.search_knowledge(collection_ids=[cid], query="okapi")
    assert fourth.cached and fourth.hits == third.hits


def stated_search_bound(tools: Sequence[pages_pb2.ToolDefinition]) -> int:
    """The `limit` maximum DescribeTools states for search_knowledge."""
    tool = next(t for t in tools if t.name == "search_knowledge")
    return int(json.loads(tool.input_schema_json)["properties"]["limit"]["maximum"])


async def test_search_limit_follows_the_organisation_policy(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    collection_id, _ = samples
    with pytest.raises(qe.InvalidRequest) as refused:
        await client.search_knowledge(collection_ids=[collection_id], query="the", limit=9)
    # The message says whose bound it is and how it is raised.
    assert "must be 1–8, the organisation's bound" in refused.value.message
    assert "quire policy set --max-search-limit" in refused.value.message
    assert stated_search_bound(await client.describe_tools()) == 8  # now cached a few seconds
    await client.set_retrieval_policy(max_search_limit=MOST_HITS)
    try:
        # The process that changed the policy forgets its cached bound at once.
        assert stated_search_bound(await client.describe_tools()) == MOST_HITS
        await client.search_knowledge(collection_ids=[collection_id], query="the", limit=MOST_HITS)
        with pytest.raises(qe.InvalidRequest):
            await client.search_knowledge(
                collection_ids=[collection_id], query="the", limit=MOST_HITS + 1
            )
    finally:
        await client.set_retrieval_policy(max_search_limit=8)


async def test_policy_reset_returns_to_the_deployment_default(client: AsyncQuireClient) -> None:
    before = await client.get_retrieval_policy()
    try:
        inherited = await client.set_retrieval_policy(reset=True)
        assert inherited.mode == knowledge_pb2.RETRIEVAL_MODE_UNSPECIFIED
        changed = await client.set_retrieval_policy(mode="HYBRID_SHADOW", max_search_limit=20)
        assert changed.mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID_SHADOW
        kept = await client.set_retrieval_policy(max_search_limit=30)  # mode unchanged
        assert kept.mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID_SHADOW
        reset = await client.set_retrieval_policy(reset=True)
        assert reset.mode == knowledge_pb2.RETRIEVAL_MODE_UNSPECIFIED
        assert reset.max_search_limit == 8
        assert reset.effective_mode == inherited.effective_mode
        both = await client.set_retrieval_policy(reset=True, max_search_limit=12)
        assert both.mode == knowledge_pb2.RETRIEVAL_MODE_UNSPECIFIED and both.max_search_limit == 12
    finally:
        await client.set_retrieval_policy(
            reset=True, mode=before.mode or None, max_search_limit=before.max_search_limit
        )


async def test_watch_documents_streams_status_changes_and_deletions(
    client: AsyncQuireClient, harness: Harness
) -> None:
    collection = await client.create_collection(name="watched")
    seen: list[tuple[str, int]] = []
    ready = asyncio.Event()

    async def watch() -> None:
        async for doc in client.watch_documents(collection_id=collection.collection_id):
            seen.append((doc.document_id, doc.status))
            if doc.status == knowledge_pb2.DOCUMENT_STATUS_READY:
                ready.set()
            if doc.status == knowledge_pb2.DOCUMENT_STATUS_DELETED:
                return

    count = watchers(harness)
    before = count()
    watcher = asyncio.create_task(watch())
    await one_more_watcher(count, before)  # subscribed before the upload
    doc = await client.upload_document(
        collection_id=collection.collection_id, file_name="w.txt", data=b"watch me"
    )
    await asyncio.wait_for(ready.wait(), 60)
    await client.delete_document(document_id=doc.document_id)
    await asyncio.wait_for(watcher, 30)
    statuses = [status for document_id, status in seen if document_id == doc.document_id]
    # Each message is the state read after a change: a short-lived state may be skipped (the
    # worker can claim the upload before the watch reads it), never reordered.
    lifecycle = [
        knowledge_pb2.DOCUMENT_STATUS_PENDING,
        knowledge_pb2.DOCUMENT_STATUS_PROCESSING,
        knowledge_pb2.DOCUMENT_STATUS_READY,
        knowledge_pb2.DOCUMENT_STATUS_DELETED,
    ]
    positions = [lifecycle.index(status) for status in statuses]
    assert positions == sorted(set(positions)), statuses
    assert statuses[-2:] == [
        knowledge_pb2.DOCUMENT_STATUS_READY,
        knowledge_pb2.DOCUMENT_STATUS_DELETED,
    ]


async def test_watch_re_reads_the_collection_after_the_listener_reconnects(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    """Changes made while notifications were lost (here: written without NOTIFY) are
    reported once the listener comes back."""
    collection = await client.create_collection(name="resync")
    doc = await client.upload_document(
        collection_id=collection.collection_id, file_name="r.txt", data=b"resync me"
    )
    first = asyncio.Event()
    seen: list[int] = []

    async def watch() -> None:
        async for item in client.watch_documents(collection_id=collection.collection_id):
            seen.append(item.status)
            first.set()
            if item.status == knowledge_pb2.DOCUMENT_STATUS_DELETED:
                return

    watcher = asyncio.create_task(watch())
    await asyncio.wait_for(first.wait(), 10)
    async with harness.pool.acquire() as conn:
        await conn.execute(
            "UPDATE documents SET deleted_at = now() WHERE org_id = $1 AND document_id = $2",
            keys.org_id,
            uuid.UUID(doc.document_id),
        )
        # Drop the listener's connection: it reconnects and tells every watcher to re-read.
        killed = await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE query LIKE 'LISTEN%quire_index%' AND datname = current_database()"
        )
    assert killed >= 1
    await asyncio.wait_for(watcher, 30)
    assert seen[-1] == knowledge_pb2.DOCUMENT_STATUS_DELETED


@pytest.mark.slow  # 3 s under load (`make test-fast` leaves it out)
async def test_rebuild_flips_generations_and_rollback_swaps_back(
    client: AsyncQuireClient, harness: Harness
) -> None:
    collection = await client.create_collection(name="generations")
    cid = collection.collection_id
    doc = await client.upload_document(collection_id=cid, file_name="g.txt", data=b"the gnu grazes")
    await wait_terminal(client, doc.document_id)
    await wait_indexed(client, cid)
    first = await client.get_index_status(collection_id=cid)
    assert first.serving_generation == 1
    await client.rebuild_index(collection_id=cid, index_version="2")
    for _ in range(300):
        status = await client.get_index_status(collection_id=cid)
        if status.serving_generation == 2:
            break
        # Searches during the build are answered from generation 1, entirely.
        await client.set_retrieval_policy(mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID)
        hits = (await client.search_knowledge(collection_ids=[cid], query="gnu")).hits
        assert {h.index_generation for h in hits} <= {1, 2} and len(
            {h.index_generation for h in hits}
        ) <= 1
        await asyncio.sleep(0.1)
    states = {g.generation: g.state for g in status.generations}
    assert status.serving_generation == 2
    assert states == {
        1: knowledge_pb2.GENERATION_STATE_RETIRED,
        2: knowledge_pb2.GENERATION_STATE_READY,
    }
    hybrid = await client.search_knowledge(collection_ids=[cid], query="gnu")
    assert hybrid.hits[0].index_generation == 2
    # An edit after the flip reaches the rollback target too.
    await client.upload_document(
        collection_id=cid, file_name="g.txt", data=b"the gnu runs", document_id=doc.document_id
    )
    await wait_terminal(client, doc.document_id)
    # The edit is written to both generations in one transaction; documents_indexed counts
    # documents, not revisions, so wait for the new text itself in the serving generation (a
    # PENDING hit, found from the index backlog before the write, does not count).
    for _ in range(300):
        edited = await client.search_knowledge(collection_ids=[cid], query="runs")
        if (
            edited.hits
            and "runs" in edited.hits[0].snippet
            and edited.hits[0].index_generation == 2
        ):
            break
        await asyncio.sleep(0.1)
    rolled = await client.rollback_index(collection_id=cid)
    assert rolled.serving_generation == 1
    back = await client.search_knowledge(collection_ids=[cid], query="runs")
    assert back.hits and back.hits[0].index_generation == 1 and "runs" in back.hits[0].snippet
    again = await client.rollback_index(collection_id=cid)
    assert again.serving_generation == 2
    await client.set_retrieval_policy(mode=knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS)
    other = await client.create_collection(name="never-indexed")
    with pytest.raises(qe.NotFound):
        await client.rollback_index(collection_id=other.collection_id)


async def test_flip_and_rollback_do_not_wait_for_an_open_upload(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    """An upload in progress holds a key-share lock on its collection's row (the documents
    foreign key) until it commits. A flip or a rollback changes a non-key column of that row,
    so it must not wait for uploads: with FOR UPDATE it did, and a burst of uploads kept a new
    collection's first generation from serving for as long as the burst lasted."""
    from quire.indexer.worker import generations

    collection = await client.create_collection(name="open-upload")
    cid = collection.collection_id
    doc = await client.upload_document(collection_id=cid, file_name="o.txt", data=b"an okapi")
    await wait_terminal(client, doc.document_id)
    await wait_indexed(client, cid)
    org, col = keys.org_id, uuid.UUID(cid)
    async with (
        harness.pool.acquire() as uploading,
        harness.pool.acquire() as flipping,
        uploading.transaction(),
    ):
        # What the foreign-key check of an uncommitted document insert holds.
        await uploading.execute(
            "SELECT 1 FROM collections WHERE org_id = $1 AND collection_id = $2 FOR KEY SHARE",
            org,
            col,
        )
        fingerprint = await flipping.fetchval(
            "SELECT fingerprint FROM index_generations WHERE org_id = $1 "
            "AND collection_id = $2 AND generation = 1",
            org,
            col,
        )
        second = await generations.create_generation(
            flipping, org, col, fingerprint, "open", "all-minilm-l6-v2", "english"
        )
        assert await asyncio.wait_for(generations.flip(flipping, org, col, second), 5)
        rolled = await asyncio.wait_for(client.rollback_index(collection_id=cid), 5)
        assert rolled.serving_generation == 1
    status = await client.get_index_status(collection_id=cid)
    assert status.serving_generation == 1


async def test_bm25_arm_uses_generation_statistics(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    """The lexical arm ranks by BM25 once the generation has term statistics; common words
    barely count and a rare word decides."""
    import numpy as np

    from quire.server.knowledge import bm25, search
    from quire.server.knowledge.reachable import ReachableCollection

    collection = await client.create_collection(name="bm25")
    cid = collection.collection_id
    texts = {
        "common-1.txt": b"the report of the team in the year",
        "common-2.txt": b"the plan of the team for the year",
        "rare.txt": b"the axolotl regenerates limbs",
    }
    ids = {}
    for name, data in texts.items():
        ids[name] = (
            await client.upload_document(collection_id=cid, file_name=name, data=data)
        ).document_id
    for document_id in ids.values():
        await wait_terminal(client, document_id)
    await wait_indexed(client, cid)
    status = await client.get_index_status(collection_id=cid)
    collections = [ReachableCollection(uuid.UUID(cid), 0, status.serving_generation)]
    async with harness.pool.acquire() as conn:
        for _ in range(100):  # statistics follow the serving generation's chunks
            fresh = await conn.fetchval(
                "SELECT s.chunks = (SELECT count(*) FROM knowledge_chunks c WHERE c.org_id = $1"
                " AND c.collection_id = $2 AND c.generation = $3) FROM generation_stats s"
                " WHERE s.org_id = $1 AND s.collection_id = $2 AND s.generation = $3",
                keys.org_id,
                uuid.UUID(cid),
                status.serving_generation,
            )
            if fresh:
                break
            await asyncio.sleep(0.1)
        arms = await search.gather_arms(
            conn, keys.org_id, collections, "the team axolotl", np.zeros(384, dtype=np.float32)
        )
        rows = await bm25.rank_chunks(
            conn,
            keys.org_id,
            [uuid.UUID(cid)],
            [status.serving_generation],
            "the team axolotl",
            10,
            k1=1.2,
            b=0.75,
            max_df_ratio=0.25,
        )
    ranked = list(dict.fromkeys(str(d) for (d, _), _ in arms.fts))
    assert ranked[0] == ids["rare.txt"], (ranked, [dict(r) for r in rows], ids)


async def test_file_name_arm_skips_only_names_that_cannot_match(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    """The file-name arm computes trigram similarity only for names long enough to reach the
    threshold; its results equal the unbounded statement's for short, long and odd queries."""
    from quire.server.knowledge import search

    unbounded = """
    SELECT d.document_id FROM documents d
    WHERE d.org_id = $1 AND d.collection_id = ANY($2::uuid[]) AND d.deleted_at IS NULL
      AND (lower(d.file_name) % lower($3) OR strpos(lower(d.file_name), lower($3)) > 0)
    ORDER BY strpos(lower(d.file_name), lower($3)) > 0 DESC,
             similarity(lower(d.file_name), lower($3)) DESC, d.document_id
    LIMIT $4
    """
    collection = await client.create_collection(name="file-names")
    cid = uuid.UUID(collection.collection_id)
    names = [
        "annual-budget-report-2024-final.xlsx",
        "Annual Budget Report 2023.XLSX",
        "a.txt",
        "ab.md",
        "x" * 200 + ".txt",
        "Überweisung_März.pdf",
        "notes 100% done_v2.txt",
        "4951831.txt",
    ]
    for name in names:
        await client.upload_document(collection_id=str(cid), file_name=name, data=b"text")
    queries = [
        "annual budget report 2024 final draft",
        "budget",
        "a",
        "ab",
        "x" * 120,
        "überweisung märz",
        "100%",
        "_v2",
        "4951831",
        "10% of sudden infant death syndrome (SIDS) deaths happen in newborns aged < 6 months.",
        "%%",
    ]
    async with harness.pool.acquire() as conn:
        for query in queries:
            got = await conn.fetch(search.FILE_NAME, keys.org_id, [cid], query, 100)
            want = await conn.fetch(unbounded, keys.org_id, [cid], query, 100)
            assert [r[0] for r in got] == [r[0] for r in want], query
        long_query = await conn.fetch(search.FILE_NAME, keys.org_id, [cid], queries[0], 100)
    assert long_query, "a near-copy of a long name is found by similarity"


async def test_any_query_text_gives_a_ranking_or_nothing(
    client: AsyncQuireClient, samples: tuple[str, dict[str, knowledge_pb2.Document]]
) -> None:
    """Queries in other scripts, emoji, one character, 500 characters, only stop words, or
    tsquery syntax: every mode answers with a ranking or an empty list; only past the
    documented bound (500 characters) is the query refused."""
    collection_id, _ = samples
    queries = [
        "日本語の検索クエリ",
        "поиск по документам",
        "بحث في المستندات",
        "🦘🦤🔥",
        "a",
        "é",
        "🙂",
        "the of and to in is it",
        "x" * 500,
        ("budget " * 72)[:500],
        "!!! & | ( ) : * ' \\",
        "'",
        "\u200b\u00a0",
    ]
    modes = [knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS, knowledge_pb2.RETRIEVAL_MODE_HYBRID]
    try:
        for mode in modes:
            await client.set_retrieval_policy(mode=mode)
            for query in queries:
                result = await client.search_knowledge(collection_ids=[collection_id], query=query)
                assert result.mode == mode
                assert len(result.hits) <= 8
                assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
                scores = [h.score for h in result.hits]
                assert scores == sorted(scores, reverse=True), (query, scores)
            with pytest.raises(qe.InvalidRequest):
                await client.search_knowledge(
                    collection_ids=[collection_id], query="x" * (QUERY_CHARS + 1)
                )
    finally:
        await client.set_retrieval_policy(mode=knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS)

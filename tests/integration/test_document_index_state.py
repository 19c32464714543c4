"""Document.index_state and the watch that reports it, through the real worker (extraction,
ONNX embedding, generations): PENDING → INDEXED at the first flip and at a chunk write, FAILED
and NO_TEXT, WatchDocuments restricted to document ids, the states across a rebuild, a flip to
a generation that lacks the documents and the rollback; and ListAgents paging."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable, Sequence

import grpc
import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.client.exceptions import QuireError, from_rpc_error
from quire.server.contract import bounds as B
from quire.v1 import knowledge_pb2, knowledge_service_pb2, knowledge_service_pb2_grpc
from tests.conftest import Harness, Keys, bearer
from tests.support.index_waits import wait_indexed, wait_settled
from tests.support.sample_files import CORRUPT
from tests.support.waits import one_more_watcher, until, watchers

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True

PENDING = knowledge_pb2.DOCUMENT_INDEX_STATE_PENDING
INDEXED = knowledge_pb2.DOCUMENT_INDEX_STATE_INDEXED
FAILED = knowledge_pb2.DOCUMENT_INDEX_STATE_FAILED
NO_TEXT = knowledge_pb2.DOCUMENT_INDEX_STATE_NO_TEXT
UNSPECIFIED = knowledge_pb2.DOCUMENT_INDEX_STATE_UNSPECIFIED
DELETED = knowledge_pb2.DOCUMENT_STATUS_DELETED

AGENTS = B.ListAgentsRequest


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("index-state-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


def _stub(harness: Harness) -> knowledge_service_pb2_grpc.KnowledgeServiceStub:
    return knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)


class Watch:
    """A WatchDocuments stream read in the background; `until` waits for what it has seen."""

    def __init__(
        self, harness: Harness, token: str, collection_id: str, ids: Sequence[str] = ()
    ) -> None:
        request = knowledge_service_pb2.WatchDocumentsRequest(
            collection_id=collection_id, document_ids=list(ids)
        )
        self.seen: list[knowledge_pb2.Document] = []
        self._news = asyncio.Event()
        self._call = _stub(harness).WatchDocuments(request, metadata=bearer(token))
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for reply in self._call:
            self.seen.append(reply.document)
            self._news.set()

    def states(self, document_id: str) -> list[int]:
        return [d.index_state for d in self.seen if d.document_id == document_id]

    def last(self, document_id: str) -> knowledge_pb2.Document | None:
        mine = [d for d in self.seen if d.document_id == document_id]
        return mine[-1] if mine else None

    async def until(
        self, done: Callable[[], bool], within: float = 90, what: str = "watch"
    ) -> None:
        deadline = asyncio.get_running_loop().time() + within
        while not done():
            self._news.clear()
            if self._task.done():
                self._task.result()
                raise AssertionError(f"{what}: stream ended; saw {self.seen}")
            left = deadline - asyncio.get_running_loop().time()
            assert left > 0, f"{what}: not reached; saw {self.seen}"
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._news.wait(), min(left, 1.0))

    async def reached(self, document_id: str, state: int, within: float = 90) -> None:
        await self.until(
            lambda: (doc := self.last(document_id)) is not None and doc.index_state == state,
            within,
            f"{document_id} to {knowledge_pb2.DocumentIndexState.Name(state)}",
        )

    def close(self) -> None:
        self._call.cancel()
        self._task.cancel()


async def _watch_error(
    harness: Harness, token: str, collection_id: str, ids: list[str]
) -> QuireError:
    request = knowledge_service_pb2.WatchDocumentsRequest(
        collection_id=collection_id, document_ids=ids
    )
    call = _stub(harness).WatchDocuments(request, metadata=bearer(token))
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        async for _ in call:
            pass
    return from_rpc_error(failed.value)


async def _eventually_indexed(client: AsyncQuireClient, document_id: str) -> None:
    async def indexed() -> bool:
        return (await client.get_document(document_id=document_id)).index_state == INDEXED

    await until(indexed, within_s=60, what=f"{document_id} never indexed")


async def test_uploads_go_from_pending_to_indexed_on_the_watch(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    collection = await client.create_collection(name="pending-to-indexed")
    cid = collection.collection_id
    count = watchers(harness)
    before = count()
    watch = Watch(harness, keys.read, cid)
    try:
        await one_more_watcher(count, before)  # subscribed before the upload
        # The collection's first document: indexed when its first generation starts serving.
        first = await client.upload_document(
            collection_id=cid, file_name="first.txt", data=b"the first wombat burrows"
        )
        assert first.index_state == PENDING
        await watch.reached(first.document_id, INDEXED)
        # A later one: indexed by the chunk write into the serving generation.
        later = await client.upload_document(
            collection_id=cid, file_name="later.txt", data=b"a later quokka smiles"
        )
        await watch.reached(later.document_id, INDEXED)
    finally:
        watch.close()
    for doc_id in (first.document_id, later.document_id):
        states = watch.states(doc_id)
        assert states[0] == PENDING and states[-1] == INDEXED, states
        assert states.index(INDEXED) == len(states) - 1, states  # never back to PENDING
        # INDEXED only ever with READY: the text is extracted before it can be indexed.
        assert all(
            d.status == knowledge_pb2.DOCUMENT_STATUS_READY
            for d in watch.seen
            if d.document_id == doc_id and d.index_state == INDEXED
        )
    # The other reads agree, and INDEXED means a chunk-level hit in HYBRID.
    assert (await client.get_document(document_id=later.document_id)).index_state == INDEXED
    listed = await client.list_documents(collection_id=cid)
    assert {d.index_state for d in listed.documents} == {INDEXED}
    hits = await client.search_knowledge(
        collection_ids=[cid], query="quokka", mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID
    )
    assert hits.hits[0].document_id == later.document_id
    assert hits.hits[0].index_state == knowledge_pb2.HIT_INDEX_STATE_INDEXED
    assert hits.hits[0].chunk_id


async def test_failed_and_no_text_documents_reach_their_states_on_a_watch_of_their_ids(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    collection = await client.create_collection(name="failed-and-empty")
    cid = collection.collection_id
    broken = await client.upload_document(
        collection_id=cid, file_name="random.pdf", data=CORRUPT["random.pdf"]()
    )
    blank = await client.upload_document(collection_id=cid, file_name="blank.txt", data=b" \n\t\n")
    never = str(uuid.uuid4())  # not a document of the collection: DELETED at once
    watch = Watch(harness, keys.read, cid, [broken.document_id, blank.document_id, never])
    try:
        await watch.reached(broken.document_id, FAILED)
        await watch.reached(blank.document_id, NO_TEXT)
        # Another document of the collection changes meanwhile: this watch does not see it.
        other = await client.upload_document(
            collection_id=cid, file_name="other.txt", data=b"an unwatched numbat"
        )
        await _eventually_indexed(client, other.document_id)
        await client.delete_document(document_id=blank.document_id)
        await watch.until(
            lambda: (d := watch.last(blank.document_id)) is not None and d.status == DELETED
        )
    finally:
        watch.close()
    assert {d.document_id for d in watch.seen} == {broken.document_id, blank.document_id, never}
    gone = watch.last(never)
    assert gone is not None and gone.status == DELETED and gone.index_state == UNSPECIFIED
    failed = await client.get_document(document_id=broken.document_id)
    assert failed.status == knowledge_pb2.DOCUMENT_STATUS_FAILED and failed.extract_error
    assert failed.index_state == FAILED
    deleted = watch.last(blank.document_id)
    assert deleted is not None and deleted.index_state == UNSPECIFIED
    assert NO_TEXT in watch.states(blank.document_id)


async def test_watched_ids_are_bounded_and_must_be_ids(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    collection = await client.create_collection(name="bounded-watch")
    cid = collection.collection_id
    at_bound = [str(uuid.uuid4()) for _ in range(1000)]
    watch = Watch(harness, keys.read, cid, at_bound)
    try:
        # Accepted: none of them is a document of the collection, so each is DELETED at once.
        await watch.until(lambda: len(watch.seen) == 1000, 30, "1000 DELETED")
    finally:
        watch.close()
    assert {d.document_id for d in watch.seen} == set(at_bound)
    assert {d.status for d in watch.seen} == {DELETED}

    too_many = await _watch_error(harness, keys.read, cid, [*at_bound, str(uuid.uuid4())])
    assert isinstance(too_many, qe.InvalidRequest)
    violation = too_many.detail.field_violations[0]
    assert violation.field == "document_ids" and violation.bound == "at most 1000"

    malformed = await _watch_error(harness, keys.read, cid, [str(uuid.uuid4()), "x", "y"])
    assert isinstance(malformed, qe.InvalidRequest)
    assert [v.field for v in malformed.detail.field_violations] == ["document_ids[1]"]


async def test_index_state_follows_the_serving_generation_through_flips_and_rollback(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    from quire.indexer.worker import generations

    collection = await client.create_collection(name="flips")
    cid = collection.collection_id
    docs = [
        await client.upload_document(collection_id=cid, file_name=f"{n}.txt", data=text)
        for n, text in (("a", b"an aardvark digs"), ("b", b"a bandicoot hops"))
    ]
    await wait_indexed(client, cid)
    ids = [d.document_id for d in docs]
    for doc_id in ids:
        await _eventually_indexed(client, doc_id)

    # A rebuild indexes every document into generation 2 before it serves: nothing changes.
    await client.rebuild_index(collection_id=cid, index_version="2")

    async def second_serves() -> bool:
        return (await client.get_index_status(collection_id=cid)).serving_generation == 2

    await until(second_serves, within_s=60, what="generation 2 never served")
    listed = await client.list_documents(collection_id=cid)
    assert {d.index_state for d in listed.documents} == {INDEXED}

    watch = Watch(harness, keys.read, cid)
    try:
        await watch.until(lambda: all(watch.last(i) for i in ids), 30, "snapshot")
        # A generation that holds none of them starts serving: both wait for indexing again,
        # and the watch is told (the flip notifies the documents it changes).
        org, col = keys.org_id, uuid.UUID(cid)
        status = await client.get_index_status(collection_id=cid)
        fingerprint = next(g.fingerprint for g in status.generations if g.generation == 2)
        async with harness.pool.acquire() as conn:
            empty = await generations.create_generation(
                conn, org, col, fingerprint, "empty", "all-minilm-l6-v2", "english"
            )
            assert await generations.flip(conn, org, col, empty)
        for doc_id in ids:
            await watch.reached(doc_id, PENDING, 30)
        assert (await client.get_document(document_id=ids[0])).index_state == PENDING
        # Rolling back serves generation 2 again: both are indexed, and the watch says so.
        rolled = await client.rollback_index(collection_id=cid)
        assert rolled.serving_generation == 2
        for doc_id in ids:
            await watch.reached(doc_id, INDEXED, 30)
    finally:
        watch.close()
    for doc_id in ids:
        assert watch.states(doc_id) == [INDEXED, PENDING, INDEXED]
        assert (await client.get_document(document_id=doc_id)).index_state == INDEXED


async def test_a_backlog_row_counts_only_when_the_serving_generation_lacks_its_version(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    """The index backlog is a superset: a row left behind for a text the serving generation
    already holds (settling removes such rows later, and tells no one) is not PENDING."""
    collection = await client.create_collection(name="stale-backlog")
    doc = await client.upload_document(
        collection_id=collection.collection_id, file_name="s.txt", data=b"a stale numbat"
    )
    await _eventually_indexed(client, doc.document_id)
    org, col, did = keys.org_id, uuid.UUID(collection.collection_id), uuid.UUID(doc.document_id)

    # Once settled, nothing cleans the backlog again until the next change: the rows written
    # below stay put (before, the settle could remove them between two steps).
    await wait_settled(harness.pool, collection.collection_id, within=60)
    async with harness.pool.acquire() as conn:
        await conn.execute(
            "INSERT INTO index_backlog (org_id, collection_id, document_id, text_as_of) "
            "SELECT org_id, collection_id, document_id, updated_at FROM documents "
            "WHERE org_id = $1 AND document_id = $2",
            org,
            did,
        )
    assert (await client.get_document(document_id=doc.document_id)).index_state == INDEXED
    async with harness.pool.acquire() as conn:
        await conn.execute(
            "UPDATE index_backlog SET text_as_of = text_as_of + interval '1 second' "
            "WHERE org_id = $1 AND collection_id = $2 AND document_id = $3",
            org,
            col,
            did,
        )
    assert (await client.get_document(document_id=doc.document_id)).index_state == PENDING


# --- ListAgents ------------------------------------------------------------------------------


async def _list_agents(
    harness: Harness, token: str, cursor: str = "", limit: int = 0
) -> knowledge_service_pb2.ListAgentsResponse:
    request = knowledge_service_pb2.ListAgentsRequest(cursor=cursor, limit=limit)
    try:
        reply: knowledge_service_pb2.ListAgentsResponse = await _stub(harness).ListAgents(
            request, metadata=bearer(token)
        )
    except grpc.aio.AioRpcError as exc:
        raise from_rpc_error(exc) from None
    return reply


async def test_list_agents_pages_by_id_within_the_organisation(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    mine = [f"agent-{n}" for n in (5, 2, 7, 1, 4, 6, 3)]
    for agent_id in mine:
        await client.upsert_agent(agent_id=agent_id)
    others = await harness.keys("index-state-other-org")
    async with AsyncQuireClient(harness.address, api_key=others.all) as other:
        await other.upsert_agent(agent_id="agent-0")
        await other.upsert_agent(agent_id="zz-theirs")

    pages: list[list[str]] = []
    cursor = ""
    while True:
        page = await _list_agents(harness, keys.read, cursor, limit=3)
        pages.append([a.agent_id for a in page.agents])
        cursor = page.next_cursor
        if not cursor:
            break
    assert pages == [
        ["agent-1", "agent-2", "agent-3"],
        ["agent-4", "agent-5", "agent-6"],
        ["agent-7"],
    ]
    everything = await _list_agents(harness, keys.read)  # 0: the default, 100
    assert [a.agent_id for a in everything.agents] == sorted(mine)
    assert everything.next_cursor == ""
    assert everything.schema_version == 1
    theirs = await _list_agents(harness, others.read, limit=500)
    assert [a.agent_id for a in theirs.agents] == ["agent-0", "zz-theirs"]

    # A page exactly as long as what is left says so with an empty cursor on the next page.
    first = await _list_agents(harness, keys.read, limit=6)
    assert len(first.agents) == 6 and first.next_cursor
    rest = await _list_agents(harness, keys.read, first.next_cursor, limit=1)
    assert [a.agent_id for a in rest.agents] == ["agent-7"] and rest.next_cursor == ""

    with pytest.raises(qe.InvalidRequest) as over:
        await _list_agents(harness, keys.read, limit=AGENTS.limit.max + 1)
    assert over.value.detail.field_violations[0].field == "limit"
    assert over.value.detail.field_violations[0].bound == f"1–{AGENTS.limit.max}"
    # A cursor is bound to the organisation and the listing it came from.
    mine_cursor = (await _list_agents(harness, keys.read, limit=3)).next_cursor
    for bad in ("not-a-cursor", mine_cursor[:-2], "A" * (AGENTS.cursor.max_chars + 1)):
        with pytest.raises(qe.InvalidRequest) as refused:
            await _list_agents(harness, keys.read, bad)
        assert refused.value.field_violations[0][0] == "cursor"
    with pytest.raises(qe.InvalidRequest):
        await _list_agents(harness, others.read, mine_cursor)
    documents_cursor = await _documents_cursor(client)
    with pytest.raises(qe.InvalidRequest):
        await _list_agents(harness, keys.read, documents_cursor)


async def _documents_cursor(client: AsyncQuireClient) -> str:
    collection = await client.create_collection(name="cursor-source")
    for n in range(2):
        await client.upload_document(
            collection_id=collection.collection_id, file_name=f"{n}.txt", data=b"x"
        )
    page = await client.list_documents(collection_id=collection.collection_id, limit=1)
    assert page.next_cursor
    return page.next_cursor

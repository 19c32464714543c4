"""`quire up` loses its embedded PostgreSQL (SIGKILL of the postmaster) and heals by itself.

A real `quire up` process runs over its own embedded PostgreSQL in a throw-away QUIRE_HOME
(never the session's server). With a page sync in flight and uploads just acknowledged, the
postmaster is killed; the test measures, without touching anything else:

- health turns NOT_SERVING within 2 s;
- the sync in flight ends with UNAVAILABLE within 5 s, and every page reads whole, either as
  the previous revision or as the new one;
- PostgreSQL is restarted, health is SERVING again and a search answers within 10 s;
- every upload acknowledged before the kill is indexed afterwards;
- the process still stops cleanly, and its restarted PostgreSQL with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import pytest_asyncio
from grpc import aio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.v1 import knowledge_pb2, pages_pb2, pages_service_pb2, pages_service_pb2_grpc
from tests.conftest import REPO, bearer
from tests.reliability._support import health_status, stop_postmaster
from tests.support.site_server import Reply, SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")

HEALTH_FLIP_S = 2.0
SYNC_END_S = 5.0
RECOVERY_S = 10.0
# Indexing after recovery: failed jobs come back after their retry backoff; allow for a busy
# machine.
INDEXED_S = 90.0
START_S = 180.0
# Five attempts, 7.5 s of backoff between them, then a graceful stop.
GIVE_UP_S = 60.0

PAGES = [f"p{i:02d}" for i in range(24)]
QUICK = 4  # pages served at once: published before the kill; the rest are slow
UPLOADS = 8
JOBS = "SELECT kind, state, attempts, locked_by, locked_at, run_after, last_error FROM jobs"


def _page(name: str, version: str) -> str:
    return (
        f"# {name}\n\nPage {name}, revision tok{version}{name}.\n\n"
        + f"Pumps and valves, edition {version}. " * 30
    )


@dataclass
class QuireUp:
    """A `quire up` process with its own QUIRE_HOME; stdout and stderr in files there."""

    home: Path
    process: subprocess.Popen[bytes]
    address: str = ""
    key: str = ""

    @property
    def out(self) -> Path:
        return self.home / "stdout.log"

    @property
    def err(self) -> Path:
        return self.home / "stderr.log"

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"

    def postmaster_pid(self) -> int:
        return int((self.pgdata / "postmaster.pid").read_text().split()[0])

    def database_url(self) -> str:
        return f"postgresql://postgres@/quire?host={self.pgdata}"

    def log_records(self) -> list[dict[str, Any]]:
        records = []
        for line in self.err.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                records.append(json.loads(line))
        return records


def _launch(home: Path, origin: str) -> QuireUp:
    env = {k: v for k, v in os.environ.items() if k != "QUIRE_DATABASE_URL"}
    env["QUIRE_HOME"] = str(home)
    command = [sys.executable, "-m", "quire.server.cli", "up", "--address", "127.0.0.1:0"]
    with (home / "stdout.log").open("wb") as out, (home / "stderr.log").open("wb") as err:
        process = subprocess.Popen(
            [*command, "--allow-source", origin], env=env, stdout=out, stderr=err
        )
    return QuireUp(home, process)


async def _wait_serving(up: QuireUp) -> None:
    deadline = time.monotonic() + START_S
    while True:
        found = re.search(r"Quire is serving on (\S+):(\d+)", up.out.read_text(errors="replace"))
        if found:
            up.address = f"127.0.0.1:{found.group(2)}"
            up.key = (up.home / "dev-key").read_text().strip()
            return
        assert up.process.poll() is None, f"quire up exited: {up.err.read_text()[-3000:]}"
        assert time.monotonic() < deadline, "quire up did not start"
        await asyncio.sleep(0.2)


@pytest.fixture(scope="module")
def site() -> Iterator[SiteServer]:
    server = SiteServer()
    links = "\n".join(f"- [{n}](/{n}.md)" for n in PAGES)
    server.route("/llms.txt", Reply.text(f"# Site\n\n{links}\n", content_type="text/plain"))
    for name in PAGES:
        server.route(f"/{name}.md", Reply.text(_page(name, "v1"), content_type="text/markdown"))
    with server:
        yield server


@contextlib.asynccontextmanager
async def _quire_up(origin: str) -> AsyncIterator[QuireUp]:
    """A serving `quire up` in a fresh QUIRE_HOME; stopped, with its PostgreSQL, at the end."""
    from quire.indexer.home import models_dir

    home = REPO / ".quire-test" / f"supervise-{uuid.uuid4().hex[:6]}"
    home.mkdir(parents=True)
    # The prepared model (the `embeddings` fixture made sure of it), shared, not rebuilt.
    (home / "models").symlink_to(models_dir())
    up = _launch(home, origin)
    try:
        await _wait_serving(up)
        yield up
    finally:
        if up.process.poll() is None:
            up.process.send_signal(signal.SIGTERM)
            try:
                up.process.wait(60)
            except subprocess.TimeoutExpired:
                up.process.kill()
                up.process.wait(10)
        stop_postmaster(up.pgdata)
        shutil.rmtree(home, ignore_errors=True)


@pytest_asyncio.fixture(loop_scope="session")
async def quire_up(site: SiteServer, embeddings: Any) -> AsyncIterator[QuireUp]:
    async with _quire_up(site.origin) as up:
        yield up


async def _search_ok(channel: aio.Channel, key: str) -> bool:
    stub = pages_service_pb2_grpc.PagesServiceStub(channel)
    try:
        await stub.SearchPages(
            pages_service_pb2.SearchPagesRequest(
                namespace="docs", query=f"pumps valves {uuid.uuid4().hex[:6]}"
            ),
            metadata=bearer(key),
            timeout=2.0,
        )
    except aio.AioRpcError:
        return False
    return True


@dataclass
class Watch:
    """What a client saw after the kill, in seconds since it."""

    not_serving: float | None = None
    also_not_serving: list[str] = field(default_factory=list)
    serving_again: float | None = None
    search_ok: float | None = None
    statuses: list[tuple[float, str]] = field(default_factory=list)


async def _watch_recovery(channel: aio.Channel, key: str, killed_at: float, window: float) -> Watch:
    """Polls health every 50 ms (and a search once health is back) until a search answers or
    `window` seconds have passed."""
    seen = Watch()
    while time.monotonic() - killed_at < window:
        status = await health_status(channel)
        now = time.monotonic() - killed_at
        if not seen.statuses or seen.statuses[-1][1] != status:
            seen.statuses.append((round(now, 2), status))
        if status == "NOT_SERVING" and seen.not_serving is None:
            seen.not_serving = now
            for service in ("quire.v1.PagesService", "quire.v1.KnowledgeService"):
                if await health_status(channel, service) == "NOT_SERVING":
                    seen.also_not_serving.append(service)
        if status == "SERVING" and seen.not_serving is not None:
            if seen.serving_again is None:
                seen.serving_again = now
            if await _search_ok(channel, key):
                seen.search_ok = time.monotonic() - killed_at
                return seen
        await asyncio.sleep(0.05)
    return seen


async def test_killed_postgres_is_restarted_and_serving_resumes(
    quire_up: QuireUp, site: SiteServer
) -> None:
    up = quire_up
    async with AsyncQuireClient(up.address, api_key=up.key) as client:
        # The previous revision: a complete sync.
        report = None
        async for message in client.sync_pages(
            namespace="docs", url=f"{site.url}/llms.txt", timeout=300
        ):
            if isinstance(message, pages_pb2.SyncReport):
                report = message
        assert report is not None and report.status == pages_pb2.SYNC_STATUS_COMPLETED, report

        collection = await client.create_collection(name="manuals")
        cid = collection.collection_id

        # The new revision: a few pages at once, the rest slow, so the sync is mid-flight.
        for i, name in enumerate(PAGES):
            body = _page(name, "v2").encode()
            delay = 0.0 if i < QUICK else 2.5
            site.route(f"/{name}.md", Reply(200, body, {"Content-Type": "text/markdown"}, delay))
        seen: list[Any] = []
        ended: list[tuple[float, Any]] = []

        async def sync() -> None:
            try:
                async for message in client.sync_pages(
                    namespace="docs", url=f"{site.url}/llms.txt", timeout=300
                ):
                    seen.append(message)
                    if isinstance(message, pages_pb2.SyncReport):
                        ended.append((time.monotonic(), message))
            except qe.QuireError as exc:
                ended.append((time.monotonic(), exc))

        syncing = asyncio.create_task(sync())
        deadline = time.monotonic() + 120
        while not any(isinstance(m, pages_pb2.PageSyncProgress) and m.updated >= 2 for m in seen):
            assert time.monotonic() < deadline and not syncing.done(), (seen[-3:], ended)
            await asyncio.sleep(0.05)

        # Uploads acknowledged just before the kill: the worker has not indexed them yet.
        uploaded = [
            (
                await client.upload_document(
                    collection_id=cid,
                    file_name=f"manual-{i}.md",
                    data=f"# Manual {i}\n\nPump {i} needs valve {i} checked weekly.\n".encode(),
                )
            ).document_id
            for i in range(UPLOADS)
        ]

        old_pid = up.postmaster_pid()
        os.kill(old_pid, signal.SIGKILL)
        killed_at = time.monotonic()
        watch = await _watch_recovery(client.channel, up.key, killed_at, window=30.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.shield(syncing), max(0.1, killed_at + 30 - time.monotonic())
            )
        sync_end = (ended[0][0] - killed_at) if ended else None
        outcome = ended[0][1] if ended else None
        measured = (
            f"health NOT_SERVING after {watch.not_serving} s, SERVING again after "
            f"{watch.serving_again} s, search answered after {watch.search_ok} s, sync ended "
            f"after {sync_end} s with {outcome!r}; health seen {watch.statuses}"
        )
        print("MEASURED", measured)
        assert watch.not_serving is not None and watch.not_serving <= HEALTH_FLIP_S, measured
        assert sorted(watch.also_not_serving) == [
            "quire.v1.KnowledgeService",
            "quire.v1.PagesService",
        ], measured
        assert sync_end is not None and sync_end <= SYNC_END_S, measured
        assert isinstance(outcome, qe.Unavailable), measured
        assert watch.search_ok is not None and watch.search_ok <= RECOVERY_S, measured
        assert up.postmaster_pid() != old_pid
        assert up.process.poll() is None

        records = up.log_records()
        for record in records:
            if record.get("level") in ("warning", "error"):
                print("LOG", {k: v for k, v in record.items() if k not in ("server_log", "exc")})
        warnings = [r for r in records if r.get("level") == "warning" and "attempt" in r]
        assert any("restart" in r["msg"] for r in warnings), up.err.read_text()[-3000:]

        # Nothing half-published: every page whole, each the previous or the new revision,
        # none deleted, and the pages the stopped sync never reached still the previous one.
        listed = await client.list_pages(namespace="docs", limit=100)
        assert {p.path for p in listed.pages} == {f"/{n}.md" for n in PAGES}
        versions = {}
        for name in PAGES:
            content = (await client.read_page(namespace="docs", path=f"/{name}.md")).content
            whole = [v for v in ("v1", "v2") if f"tok{v}{name}" in content]
            assert len(whole) == 1, (name, content[:200])
            version = whole[0]
            assert content.count(f"edition {version}.") == 30, (name, content)
            versions[name] = version
        assert "v1" in versions.values(), versions
        conn = await asyncpg.connect(up.database_url())
        try:
            broken = await conn.fetch(
                "SELECT p.path FROM pages p WHERE p.namespace = 'docs' AND "
                "p.expected_chunk_count <> (SELECT count(*) FROM page_chunks c WHERE "
                "c.org_id = p.org_id AND c.namespace = p.namespace AND c.path = p.path)"
            )
        finally:
            await conn.close()
        assert not broken, [r["path"] for r in broken]

        # Every acknowledged upload is indexed after the recovery.
        deadline = time.monotonic() + INDEXED_S
        while True:
            statuses = [(await client.get_document(document_id=d)).status for d in uploaded]
            if all(s == knowledge_pb2.DOCUMENT_STATUS_READY for s in statuses):
                break
            if time.monotonic() > deadline:
                conn = await asyncpg.connect(up.database_url())
                try:
                    jobs = await conn.fetch(JOBS)
                finally:
                    await conn.close()
                pytest.fail(f"not indexed after recovery: {statuses}, jobs {list(map(dict, jobs))}")
            await asyncio.sleep(1.0)
        hits = await client.search_knowledge(query="valve weekly", collection_ids=[cid])
        assert len(hits.hits) >= 1

    # The process still stops cleanly, and the PostgreSQL it restarted stops with it.
    up.process.send_signal(signal.SIGTERM)
    assert up.process.wait(60) == 0, up.err.read_text()[-3000:]
    assert not (up.pgdata / "postmaster.pid").exists(), "the restarted PostgreSQL outlived quire up"


async def test_a_postgres_that_cannot_restart_stops_quire_up_with_an_error(
    quire_up: QuireUp,
) -> None:
    """Five failed restarts: the attempts are logged, health stays NOT_SERVING, and the process
    exits with status 1 saying why, instead of serving errors for ever."""
    up = quire_up
    # A setting PostgreSQL refuses: every restart fails the way a broken data directory would.
    with (up.pgdata / "postgresql.conf").open("a") as conf:
        conf.write("\nshared_buffers = 'not a size'\n")
    killed_at = time.monotonic()
    os.kill(up.postmaster_pid(), signal.SIGKILL)
    seen: list[str] = []
    async with AsyncQuireClient(up.address, api_key=up.key) as client:
        while up.process.poll() is None:
            status = await health_status(client.channel)
            if not seen or seen[-1] != status:
                seen.append(status)
            assert time.monotonic() - killed_at < GIVE_UP_S, "quire up kept running"
            await asyncio.sleep(0.2)
    took = time.monotonic() - killed_at
    print(f"quire up exited {took:.1f} s after the kill, status {up.process.returncode}: {seen}")
    assert up.process.returncode == 1
    assert "NOT_SERVING" in seen and "SERVING" not in seen[seen.index("NOT_SERVING") :], seen
    assert "the embedded PostgreSQL did not restart" in up.err.read_text()
    records = up.log_records()
    attempts = [
        r.get("attempt")
        for r in records
        if r.get("logger") == "quire.server.storage.supervisor" and "failed" in r["msg"]
    ]
    assert attempts == [1, 2, 3, 4, 5], attempts
    assert any(r["level"] == "error" and "could not be restarted" in r["msg"] for r in records)

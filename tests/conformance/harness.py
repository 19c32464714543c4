"""Starts ONE real Quire server for the conformance suite and runs a runner against it.

    python -m tests.conformance.harness -- <runner command...>
    python -m tests.conformance.harness --serve            # prints the environment, serves

PostgreSQL: $QUIRE_DATABASE_URL (or --database-url) when set, else the embedded server under
`.quire-test/` (the same code as tests/conftest.py). A fresh database is created for the run and
dropped afterwards (unless --keep-database). Two organisations get keys; a loopback fixture site
is served. The runner receives:

    QUIRE_CONFORMANCE_ADDRESS   host:port of the gRPC server (plaintext)
    QUIRE_CONFORMANCE_KEYS      JSON {"read", "write", "admin", "tune", "all",
                                "other_org_read", ..., "other_org_all", "invalid": token}
    QUIRE_CONFORMANCE_FIXTURES  JSON {"site_url", "site_v2_url", "big_site_url", ...}

The harness prints the runner's output (inherited stdout/stderr) and exits with its code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import signal
import sys
from pathlib import Path
from typing import Any

import asyncpg

from tests.conformance.site import Site

REPO = Path(__file__).resolve().parents[2]
TEST_HOME = REPO / ".quire-test"
LABELS = ("read", "write", "admin", "tune", "all")
INVALID_KEY = "qk_0000000000000000_invalidinvalidinvalidinvalidinvalid00"


def _with_database(url: str, name: str) -> str:
    if "/?" in url or re.search(r"/[^/?]*\?", url):
        return re.sub(r"/[^/?]*\?", f"/{name}?", url, count=1)
    return url.rsplit("/", 1)[0] + "/" + name


async def make_keys(pool: asyncpg.Pool, suffix: str) -> dict[str, str]:
    from quire.server import auth

    scopes = {
        "read": {auth.Scope.READ},
        "write": {auth.Scope.READ, auth.Scope.WRITE},
        "admin": {auth.Scope.ADMIN},
        "tune": {auth.Scope.READ, auth.Scope.TUNE},
        "all": set(auth.ALL_SCOPES),
    }
    keys: dict[str, str] = {}
    async with pool.acquire() as conn:
        for prefix, org in (("", "conformance-a"), ("other_org_", "conformance-b")):
            org_id = await auth.ensure_organisation(conn, f"{org}-{suffix}")
            for label in LABELS:
                made = await auth.create_key(conn, org_id, frozenset(scopes[label]))
                keys[prefix + label] = made.secret
    keys["invalid"] = INVALID_KEY
    return keys


def _embeddings() -> Any:
    """The real model (prepared once and cached under $QUIRE_HOME), as the service loads it."""
    from quire.indexer.model_prepare import prepare_model
    from quire.server.embeddings import load_default

    prepare_model()
    return load_default()


async def run(args: argparse.Namespace) -> int:
    from quire.server.app import prepare_database, run_worker, start
    from quire.server.config import Settings

    embedded = None
    admin_url = args.database_url or os.environ.get("QUIRE_DATABASE_URL", "")
    if not admin_url:
        from quire.server.storage.embedded import EmbeddedPostgres

        TEST_HOME.mkdir(exist_ok=True)
        embedded = EmbeddedPostgres(TEST_HOME)
        admin_url = await asyncio.to_thread(embedded.start)
    suffix = secrets.token_hex(3)
    db_name = f"conformance_{suffix}"
    site = Site().start()
    running: Any = None
    worker: asyncio.Task[None] | None = None
    worker_stop = asyncio.Event()
    try:
        conn = await asyncpg.connect(admin_url)
        try:
            await conn.execute(f'CREATE DATABASE "{db_name}"')
        finally:
            await conn.close()
        db_url = _with_database(admin_url, db_name)
        settings = Settings(
            address=args.address,
            # The Connect listener too, so a runner can speak either protocol.
            http_address="127.0.0.1:0",
            database_url=db_url,
            grace_seconds=1.0,
            # Loopback sources for sync scenarios: the site origin and its host.
            allow_sources=[site.origin],
        )
        pool = await prepare_database(db_url, settings)
        embeddings = await asyncio.to_thread(_embeddings)
        running = await start(settings, pool, embeddings)
        worker = asyncio.create_task(run_worker(settings, embeddings, worker_stop))
        keys = await make_keys(pool, suffix)
        env = {
            "QUIRE_CONFORMANCE_ADDRESS": f"127.0.0.1:{running.port}",
            "QUIRE_CONFORMANCE_HTTP_ADDRESS": f"127.0.0.1:{running.http.port}",
            "QUIRE_CONFORMANCE_KEYS": json.dumps(keys),
            "QUIRE_CONFORMANCE_FIXTURES": json.dumps(site.fixtures()),
        }
        if args.serve:
            for name, value in env.items():
                print(f"export {name}='{value}'", flush=True)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
            return 0
        if not args.command:
            print("nothing to run: give `-- <runner command...>` or --serve", file=sys.stderr)
            return 2
        proc = await asyncio.create_subprocess_exec(*args.command, env={**os.environ, **env})
        try:
            return await proc.wait()
        except asyncio.CancelledError:
            proc.terminate()
            raise
    finally:
        worker_stop.set()
        if worker is not None:
            await worker
        if running is not None:
            await running.stop(grace=1.0)
        site.stop()
        if not args.keep_database:
            try:
                conn = await asyncpg.connect(admin_url)
                try:
                    await conn.execute(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')
                finally:
                    await conn.close()
            except (OSError, asyncpg.PostgresError) as exc:
                print(f"harness: could not drop {db_name}: {exc}", file=sys.stderr)
        if embedded is not None:
            embedded.stop()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command: list[str] = []
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1 :]
    parser = argparse.ArgumentParser(description="Quire conformance harness")
    parser.add_argument("--serve", action="store_true", help="serve until SIGINT/SIGTERM")
    parser.add_argument("--database-url", default="", help="admin DSN (default: env or embedded)")
    parser.add_argument("--address", default="127.0.0.1:0", help="gRPC listen address")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args(argv)
    args.command = command
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())

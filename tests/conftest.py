"""Shared fixtures: one PostgreSQL per session, a fresh database and server per test module.

PostgreSQL is the embedded server under `.quire-test/` (or QUIRE_DATABASE_URL when set);
the gRPC server runs in the test's event loop on a free loopback port.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import grpc
import pytest
import pytest_asyncio
from grpc import aio

from tests.support.shared_data import ABSENT, ENV, REPO, SHARED

pytest_plugins = ["tests.support.skip_guard"]
TEST_HOME = REPO / ".quire-test"
FIXTURES = REPO / "tests" / "fixtures"


def shared_or_skip(*parts: str) -> Path:
    """A path under the shared root, or a skip: the only way a test skips for shared data.
    Only `large_data` tests may call it (tests/support/skip_guard.py fails the others)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{ABSENT}: {path} (../shared beside the repository, or {ENV})")
    return path


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """Admin DSN of the session's PostgreSQL."""
    url = os.environ.get("QUIRE_DATABASE_URL")
    if url:
        yield url
        return
    from quire.server.storage.embedded import EmbeddedPostgres

    TEST_HOME.mkdir(exist_ok=True)
    embedded = EmbeddedPostgres(TEST_HOME)
    try:
        yield embedded.start()
    finally:
        embedded.stop()


def _with_database(url: str, name: str) -> str:
    if "/?" in url or re.search(r"/[^/?]*\?", url):
        return re.sub(r"/[^/?]*\?", f"/{name}?", url, count=1)
    return url.rsplit("/", 1)[0] + "/" + name


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def database_url(postgres_url: str, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A fresh, empty database for one test module (dropped afterwards)."""
    module = re.sub(r"\W", "_", request.module.__name__.rsplit(".", 1)[-1])[:40]
    name = f"t_{module}_{secrets.token_hex(3)}"
    admin = await asyncpg.connect(postgres_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    yield _with_database(postgres_url, name)
    admin = await asyncpg.connect(postgres_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@dataclass
class Keys:
    """Bearer tokens for a test organisation."""

    org_id: uuid.UUID
    read: str
    write: str
    admin: str
    tune: str
    all: str


@dataclass
class Harness:
    running: object  # quire.server.app.Running
    address: str
    channel: aio.Channel
    pool: asyncpg.Pool

    async def keys(self, org: str) -> Keys:
        from quire.server import auth

        async with self.pool.acquire() as conn:
            org_id = await auth.ensure_organisation(conn, org)
            made = {}
            for label, scopes in (
                ("read", {auth.Scope.READ}),
                ("write", {auth.Scope.READ, auth.Scope.WRITE}),
                ("admin", {auth.Scope.ADMIN}),
                ("tune", {auth.Scope.READ, auth.Scope.TUNE}),
                ("all", set(auth.ALL_SCOPES)),
            ):
                made[label] = (await auth.create_key(conn, org_id, frozenset(scopes))).secret
        return Keys(org_id=org_id, **made)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@pytest.fixture(scope="session")
def embeddings() -> object:
    """The real ONNX embedder (prepared once, cached under $QUIRE_HOME), shared by the session."""
    from quire.indexer.model_prepare import prepare_model
    from quire.server.embeddings import load_default

    prepare_model()
    return load_default()


@pytest.fixture(scope="session")
def bge_embeddings() -> object:
    """bge-small-en-v1.5, loaded once (prepared by `make model`; skips, saying so, without)."""
    from quire.server.models import load_extra
    from tests.support.models import prepared_or_skip

    prepared_or_skip("bge-small-en-v1.5")
    return load_extra(["bge-small-en-v1.5"])["bge-small-en-v1.5"]


@pytest.fixture(scope="session")
def gate_datasets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory RunGate reads data sets from, by name: the repository's judged set
    `mini` (tests/fixtures/gate) and, when the shared data is there, its data sets (e.g.
    `scifact`). Copies, not links: RunGate refuses links out of its directory."""
    root = tmp_path_factory.mktemp("gate-datasets")
    for source in (FIXTURES / "gate", SHARED / "data"):
        for dataset in sorted(source.glob("*/corpus.jsonl")) if source.is_dir() else []:
            shutil.copytree(dataset.parent, root / dataset.parent.name)
    return root


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def harness(database_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Harness]:
    """A real Quire gRPC server on loopback over the module's database.

    Modules that need vectors mark themselves `pytest.mark.usefixtures("embeddings")`-style by
    requesting the `embeddings` fixture; the server then has the real model loaded. A module
    with `HTTP_LISTENER = True` also gets the Connect listener on a free port
    (`harness.running.http.port`); one with `METRICS = True` also serves `/metrics` on it.
    """
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings

    model = (
        request.getfixturevalue("embeddings")
        if "embeddings" in request.fixturenames or getattr(request.module, "NEEDS_MODEL", False)
        else None
    )
    settings = Settings(
        address="127.0.0.1:0",
        http_address="127.0.0.1:0" if getattr(request.module, "HTTP_LISTENER", False) else "",
        database_url=database_url,
        grace_seconds=1.0,
        gate_datasets=str(request.getfixturevalue("gate_datasets")),
        metrics=getattr(request.module, "METRICS", False),
    )
    # A module with `EXTRA_MODELS = True` also gets bge-small-en-v1.5 loaded (and its worker).
    extra = (
        {"bge-small-en-v1.5": request.getfixturevalue("bge_embeddings")}
        if getattr(request.module, "EXTRA_MODELS", False)
        else {}
    )
    pool = await prepare_database(database_url, settings)
    running = await start(settings, pool, model, extra_models=extra)  # type: ignore[arg-type]
    address = f"127.0.0.1:{running.port}"
    channel = aio.insecure_channel(address)
    stop = asyncio.Event()
    worker = None
    if model is not None and getattr(request.module, "NEEDS_WORKER", False):
        from quire.server.app import run_worker

        worker = asyncio.ensure_future(
            asyncio.gather(
                run_worker(settings, model, stop),  # type: ignore[arg-type]
                *(run_worker(settings, e, stop, model=n) for n, e in extra.items()),  # type: ignore[arg-type]
            )
        )
    try:
        yield Harness(running=running, address=address, channel=channel, pool=pool)
    finally:
        stop.set()
        if worker is not None:
            await worker
        await channel.close(None)
        await running.stop(grace=1.0)


__all__ = ["FIXTURES", "SHARED", "Harness", "Keys", "bearer", "grpc", "shared_or_skip"]

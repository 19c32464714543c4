"""A deployment without an indexer worker says so: `quire serve` (a subprocess over the test's
database) logs one warning at start, and IndexStatus.worker_last_seen stays unset; once a real
worker runs, the field is its heartbeat and `quire serve` starts without the warning.

Workers index one embedding model each, so the same holds per model: with only the default
model's worker running, `quire serve --models bge-small-en-v1.5` warns for bge alone and a bge
collection's worker_last_seen stays unset until a bge worker runs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quire.v1 import knowledge_service_pb2 as kn
from quire.v1 import knowledge_service_pb2_grpc
from tests.conftest import Harness, bearer

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
# The server also loads bge-small-en-v1.5 (a bge collection can be created); no worker runs.
EXTRA_MODELS = True
WARNING = "no indexer worker seen"
BGE = "bge-small-en-v1.5"


async def serve_start_lines(database_url: str, *args: str) -> list[str]:
    """The log lines of `quire serve` up to its "serving" line; then it is stopped."""
    quire = Path(sys.executable).with_name("quire")
    env = {**os.environ, "QUIRE_DATABASE_URL": database_url, "QUIRE_CONSOLE": "off"}
    process = await asyncio.create_subprocess_exec(
        str(quire),
        "serve",
        "--address",
        "127.0.0.1:0",
        "--http-address",
        "",
        *args,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(120):
            while line := (await process.stderr.readline()).decode():
                lines.append(line)
                if '"msg": "serving"' in line:
                    return lines
        pytest.fail(f"quire serve ended before serving: {''.join(lines)}")
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.communicate(), 30)
    return lines


async def worker_last_seen(harness: Harness, token: str, cid: str) -> datetime | None:
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    got = await stub.GetIndexStatus(
        kn.GetIndexStatusRequest(collection_id=cid), metadata=bearer(token)
    )
    if not got.status.HasField("worker_last_seen"):
        return None
    return got.status.worker_last_seen.ToDatetime(tzinfo=UTC)


@pytest.mark.slow  # over 10 s under load (`make test-fast` leaves it out)
async def test_without_a_worker_then_with_one(
    harness: Harness, database_url: str, embeddings: object
) -> None:
    from quire.indexer.api import Worker
    from quire.indexer.extraction import ExtractionPool

    keys = await harness.keys("presence-org")
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    made = await stub.CreateCollection(
        kn.CreateCollectionRequest(name="presence"), metadata=bearer(keys.all)
    )
    cid = made.collection.collection_id

    assert await worker_last_seen(harness, keys.read, cid) is None
    warned = [json.loads(line) for line in await serve_start_lines(database_url) if WARNING in line]
    assert len(warned) == 1 and warned[0]["level"] == "warning", warned
    assert "quire worker" in warned[0]["msg"]

    stop = asyncio.Event()
    async with ExtractionPool() as extraction:
        worker = asyncio.create_task(Worker(harness.pool, embeddings, extraction).run(stop))  # type: ignore[arg-type]
        try:
            deadline = time.monotonic() + 30
            while (seen := await worker_last_seen(harness, keys.read, cid)) is None:
                assert time.monotonic() < deadline, "the worker's heartbeat never showed"
                await asyncio.sleep(0.05)
            assert datetime.now(UTC) - seen < timedelta(seconds=30)
            lines = await serve_start_lines(database_url)
            assert not [line for line in lines if WARNING in line], lines
        finally:
            stop.set()
            await worker


@pytest.mark.slow  # loads bge-small-en-v1.5 in a subprocess (`make test-fast` leaves it out)
async def test_a_worker_for_the_default_model_does_not_hide_a_missing_bge_worker(
    harness: Harness, database_url: str, embeddings: object, bge_embeddings: object
) -> None:
    from quire.indexer.api import Worker
    from quire.indexer.extraction import ExtractionPool

    keys = await harness.keys("presence-models-org")
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    made = await stub.CreateCollection(
        kn.CreateCollectionRequest(name="presence-bge", embedding_model=BGE),
        metadata=bearer(keys.all),
    )
    cid = made.collection.collection_id

    stop = asyncio.Event()
    async with ExtractionPool() as extraction:
        default_worker = Worker(harness.pool, embeddings, extraction)  # type: ignore[arg-type]
        running = [asyncio.create_task(default_worker.run(stop))]
        try:
            async with harness.pool.acquire() as conn:
                deadline = time.monotonic() + 30
                while not await conn.fetchval(
                    "SELECT count(*) FROM worker_heartbeats WHERE seen_at > now() - interval '5 s'"
                ):
                    assert time.monotonic() < deadline, "the default worker never beat"
                    await asyncio.sleep(0.05)
            assert await worker_last_seen(harness, keys.read, cid) is None, "a MiniLM worker's beat"
            lines = await serve_start_lines(database_url, "--models", BGE)
            warned = [json.loads(line) for line in lines if WARNING in line]
            assert len(warned) == 1, warned
            assert warned[0]["embedding_model"] == BGE, warned
            assert f"quire worker --models {BGE}" in warned[0]["msg"], warned

            bge_worker = Worker(
                harness.pool,
                bge_embeddings,  # type: ignore[arg-type]
                extraction,
                embedding_model=BGE,
            )
            running.append(asyncio.create_task(bge_worker.run(stop)))
            deadline = time.monotonic() + 30
            while (seen := await worker_last_seen(harness, keys.read, cid)) is None:
                assert time.monotonic() < deadline, "the bge worker's heartbeat never showed"
                await asyncio.sleep(0.05)
            assert datetime.now(UTC) - seen < timedelta(seconds=30)
            lines = await serve_start_lines(database_url, "--models", BGE)
            assert not [line for line in lines if WARNING in line], lines
        finally:
            stop.set()
            await asyncio.gather(*running)

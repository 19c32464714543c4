"""A deployment without an indexer worker says so: `quire serve` (a subprocess over the test's
database) logs one warning at start, and IndexStatus.worker_last_seen stays unset; once a real
worker runs, the field is its heartbeat and `quire serve` starts without the warning."""

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
WARNING = "no indexer worker seen"


async def serve_start_lines(database_url: str) -> list[str]:
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

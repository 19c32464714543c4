"""Several `quire worker` processes on one database share the queue: each job runs on one
worker at a time, none is lost when a worker is killed mid-load, and the work spreads over the
workers (docs/scaling.md §2).

The proof is the database's own record: a trigger on `jobs` (installed by this test in its
database only) logs every change of a job's state or holder in commit order, so a job held
by two live workers at once, or left behind, shows in the log.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True  # prepares the model the worker processes load

WORKERS = 3
DOCUMENTS = 30
AUDIT = """
CREATE TABLE job_audit (seq bigserial PRIMARY KEY, job_id bigint NOT NULL, state text NOT NULL,
                        locked_by text);
CREATE FUNCTION audit_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_audit (job_id, state, locked_by) VALUES (NEW.job_id, NEW.state, NEW.locked_by);
    RETURN NEW;
END $$;
CREATE TRIGGER jobs_audit AFTER INSERT OR UPDATE OF state, locked_by ON jobs
    FOR EACH ROW EXECUTE FUNCTION audit_job();
"""
HOLDERS_NOW = "SELECT DISTINCT locked_by FROM jobs WHERE state = 'running'"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("many-workers-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


def start_worker(database_url: str) -> subprocess.Popen[bytes]:
    quire = Path(sys.executable).parent / "quire"
    env = {**os.environ, "QUIRE_DATABASE_URL": database_url}
    return subprocess.Popen(
        [str(quire), "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def text(i: int) -> bytes:
    # Long enough (≈ 8 chunks) that embedding a document takes a while on every worker.
    body = " ".join(
        f"Valve {i}-{n} opens at {n} bar; inspect the seal of line {i} every {n} days."
        for n in range(100)
    )
    return f"Maintenance note {i}\n\n{body}".encode()


async def test_workers_share_the_queue_and_none_runs_a_job_twice_or_loses_one(
    harness: Harness, client: AsyncQuireClient, database_url: str
) -> None:
    async with harness.pool.acquire() as conn:
        await conn.execute(AUDIT)
    workers = [start_worker(database_url) for _ in range(WORKERS)]
    pids = {str(w.pid): w for w in workers}
    killed: str | None = None
    try:
        await asyncio.sleep(3)  # let them load the model and start listening
        cid = (await client.create_collection(name="many-workers")).collection_id
        documents = [
            (
                await client.upload_document(
                    collection_id=cid, file_name=f"note-{i}.txt", data=text(i)
                )
            ).document_id
            for i in range(DOCUMENTS)
        ]
        # Kill the first worker seen holding a job, mid-load.
        deadline = time.monotonic() + 60
        while killed is None and time.monotonic() < deadline:
            holders = [r["locked_by"] for r in await harness.pool.fetch(HOLDERS_NOW)]
            for holder in holders:
                pid = holder.split(":")[1]
                if pid in pids:
                    pids[pid].send_signal(signal.SIGKILL)
                    killed = holder
                    break
            await asyncio.sleep(0.05)
        assert killed is not None, "no worker ever held a job"
        pids[killed.split(":")[1]].wait(10)
        # Everything gets done by the others (the dead worker's lease expires within 25 s).
        deadline = time.monotonic() + 150
        while True:
            states = [
                d.status for d in [await client.get_document(document_id=x) for x in documents]
            ]
            queued = await harness.pool.fetchval(
                "SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')"
            )
            if all(s == knowledge_pb2.DOCUMENT_STATUS_READY for s in states) and queued == 0:
                break
            assert time.monotonic() < deadline, f"stuck: {states.count(3)} ready, {queued} jobs"
            await asyncio.sleep(0.5)
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)
        for w in workers:
            try:
                w.wait(45)
            except subprocess.TimeoutExpired:
                w.kill()

    audit = await harness.pool.fetch("SELECT job_id, state, locked_by FROM job_audit ORDER BY seq")
    history: dict[int, list[tuple[str, str | None]]] = defaultdict(list)
    for row in audit:
        history[row["job_id"]].append((row["state"], row["locked_by"]))
    final = {r["job_id"]: r["state"] for r in await harness.pool.fetch("SELECT * FROM jobs")}
    assert set(final.values()) == {"done"}, "every job is done: none lost, none failed"
    # Each job's holds: (holder, the state its hold ended in).
    holds: dict[int, list[tuple[str, str]]] = {}
    for job_id, changes in history.items():
        holding: str | None = None
        holds[job_id] = []
        for state, holder in changes:
            if state == "running":
                # A claim only ever takes a job nobody holds (a dead holder's job is re-queued
                # first), so two live workers never run it at once.
                assert holding is None, f"job {job_id} claimed by {holder} while {holding} held it"
                holding = holder
            elif holding is not None:
                holds[job_id].append((holding, state))
                holding = None
    workers_used = {h.split(":")[1] for hs in holds.values() for h, _ in hs}
    assert len(workers_used) >= 2, "the work spread over the workers"
    recovered = [j for j, hs in holds.items() if (killed, "queued") in hs]
    assert recovered, "the killed worker held jobs when it died"
    for job_id in recovered:
        holder, outcome = holds[job_id][-1]
        assert holder != killed and outcome == "done", "another worker finished them"
    # A job the killed worker did not hold when it died ran exactly once.
    assert all(len(hs) == 1 for j, hs in holds.items() if j not in recovered)
    attempts = await harness.pool.fetch(
        "SELECT attempts FROM documents WHERE document_id = ANY($1::uuid[])",
        [uuid.UUID(d) for d in documents],
    )
    assert all(1 <= r["attempts"] <= 2 for r in attempts)

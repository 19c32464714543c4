"""The worker's stages one at a time, on real PostgreSQL with the real model: the claim stage
(worker/claims.py), the worker's own connection (worker/leases.py), extraction
(worker/extraction_stage.py), chunk-and-embed followed by the write stage
(worker/chunk_and_embed.py, worker/writes.py) and a generation build (worker/builds.py), each
wired by hand to recorders instead of the next stage."""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer.extraction import ExtractionPool
from quire.indexer.ingest.embed_stage import EmbedStage
from quire.indexer.worker import jobs, writes
from quire.indexer.worker.builds import BUILD, Builds
from quire.indexer.worker.chunk_and_embed import ChunkAndEmbed
from quire.indexer.worker.claims import Claims
from quire.indexer.worker.extraction_stage import EXTRACT, ExtractionStage
from quire.indexer.worker.in_flight import Document, InFlight
from quire.indexer.worker.leases import Leases, release_jobs
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys
from tests.support.sample_files import CORRUPT, SAMPLES
from tests.support.waits import until

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True  # no worker runs: each test drives its stage by hand

JOB = "SELECT state, attempts, locked_by, last_error FROM jobs WHERE org_id = $1 AND job_id = $2"
PUT_BACK = """
UPDATE jobs SET state = 'queued', locked_by = NULL, attempts = attempts - 1
WHERE org_id = $1 AND job_id = $2
"""
JOBS_OF = """
SELECT job_id, kind, payload, state FROM jobs
WHERE org_id = $1 AND (payload->>'collection_id' = $2 OR payload->>'document_id' = ANY($3))
ORDER BY job_id
"""


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("worker-stages-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def upload(
    client: AsyncQuireClient, name: str, files: dict[str, bytes]
) -> tuple[str, list[str]]:
    """A new collection with `files`; its id and the documents' ids."""
    cid = (await client.create_collection(name=name)).collection_id
    ids = [
        (await client.upload_document(collection_id=cid, file_name=n, data=d)).document_id
        for n, d in files.items()
    ]
    return cid, ids


async def claim_of(
    harness: Harness, keys: Keys, worker_id: str, kind: str, cid: str, ids: list[str]
) -> list[jobs.Job]:
    """The jobs of `kind` of collection `cid` (or of its documents `ids`), claimed for
    `worker_id`; any other job claimed on the way is put back."""

    def wanted(job: jobs.Job) -> bool:
        mine = job.payload.get("collection_id") == cid or job.payload.get("document_id") in ids
        return job.org_id == keys.org_id and job.kind == kind and mine

    async with harness.pool.acquire() as conn:
        claimed = await jobs.claim_batch(conn, worker_id, 100)
        for job in claimed:
            if not wanted(job):
                await conn.execute(PUT_BACK, job.org_id, job.job_id)
    return [job for job in claimed if wanted(job)]


async def test_the_claim_stage_hands_over_every_runnable_job_and_returns_when_idle(
    harness: Harness, keys: Keys, embeddings: object
) -> None:
    async with harness.pool.acquire() as conn:
        queued = {await jobs.enqueue(conn, keys.org_id, "test_noop", {"i": i}) for i in range(7)}
    handled: list[list[int]] = []
    held_by: set[str] = set()

    async def handle(batch: list[jobs.Job]) -> None:
        batch = [job for job in batch if job.job_id in queued]  # other tests' jobs stay
        handled.append([job.job_id for job in batch])
        async with harness.pool.acquire() as conn:
            for job in batch:
                held_by.add((await conn.fetchrow(JOB, job.org_id, job.job_id))["locked_by"])
            await jobs.finish_many(conn, batch)

    claims = Claims(
        harness.pool,
        InFlight(harness.pool),
        EmbedStage(embeddings),  # type: ignore[arg-type]
        owner="stage-test",
        worker_id="stages:claims",
        model=jobs.DEFAULT_MODEL,
        handle=handle,
        extracting=lambda: 0,
        busy=lambda: False,
    )
    await asyncio.wait_for(claims.run(asyncio.Event(), until_idle=True), 30)
    assert queued <= set(handled[0]), "all seven in one claim"
    assert held_by == {"stages:claims"}, "claimed for this worker while handled"
    async with harness.pool.acquire() as conn:
        states = {(await conn.fetchrow(JOB, keys.org_id, j))["state"] for j in queued}
    assert states == {"done"}


async def test_the_worker_connection_hears_jobs_and_deletes_and_keeps_leases(
    harness: Harness, keys: Keys, client: AsyncQuireClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "HEARTBEAT_SECONDS", 0.05)
    deleted_before, _ = await upload(client, "deleted-unheard", {})
    await client.delete_collection(collection_id=deleted_before)
    heard_job = asyncio.Event()
    heard: list[tuple[uuid.UUID, uuid.UUID]] = []  # by notification
    found: list[tuple[uuid.UUID, uuid.UUID]] = []  # at a lease renewal
    held = [(keys.org_id, uuid.UUID(deleted_before))]
    leases = Leases(
        harness.pool,
        "stages:leases",
        "bge-small-en-v1.5",
        on_job=heard_job.set,
        on_cancel=lambda org, collection: heard.append((org, collection)),
        on_deleted=lambda org, collection: found.append((org, collection)),
        held=lambda: held,
    )
    await leases.open()
    try:
        await leases.beat()
        async with harness.pool.acquire() as conn:
            seen = await conn.fetchrow(
                "SELECT seen_at, embedding_model FROM worker_heartbeats "
                "WHERE worker_id = 'stages:leases'"
            )
            assert seen is not None, "the worker is seen at once"
            assert seen["embedding_model"] == "bge-small-en-v1.5", "the beat names its model"
            job_id = await jobs.enqueue(conn, keys.org_id, "test_noop", {"lease": 1})
        await asyncio.wait_for(heard_job.wait(), 10)

        deleted_now, _ = await upload(client, "deleted-heard", {})
        await client.delete_collection(collection_id=deleted_now)
        await until(
            lambda: (keys.org_id, uuid.UUID(deleted_now)) in heard,
            within_s=10,
            what="the delete's notification was not heard",
        )
        assert heard == [(keys.org_id, uuid.UUID(deleted_now))], "the earlier delete unheard"
        assert found == [], "no renewal yet"

        async with harness.pool.acquire() as conn:
            [claimed] = [
                j for j in await jobs.claim_batch(conn, "stages:leases", 100) if j.job_id == job_id
            ]
            await conn.execute(
                "UPDATE jobs SET locked_at = now() - interval '1 hour' "
                "WHERE org_id = $1 AND job_id = $2",
                keys.org_id,
                job_id,
            )
        beating = asyncio.create_task(leases.heartbeat())
        try:

            async def renewed() -> bool:
                async with harness.pool.acquire() as conn:
                    return bool(
                        await conn.fetchval(
                            "SELECT locked_at > now() - interval '1 minute' FROM jobs "
                            "WHERE org_id = $1 AND job_id = $2",
                            keys.org_id,
                            job_id,
                        )
                    )

            await until(renewed, within_s=10, what="the lease was not renewed")
            await until(
                lambda: (keys.org_id, uuid.UUID(deleted_before)) in found,
                within_s=10,
                what="a renewal did not ask which held collections are deleted",
            )
        finally:
            beating.cancel()
            await asyncio.wait({beating})
        await release_jobs(harness.pool, "stages:leases", 10)
        async with harness.pool.acquire() as conn:
            row = await conn.fetchrow(JOB, keys.org_id, claimed.job_id)
        assert (row["state"], row["attempts"], row["locked_by"]) == ("queued", 0, None)
        async with harness.pool.acquire() as conn:
            await conn.execute(
                "DELETE FROM jobs WHERE org_id = $1 AND job_id = $2", keys.org_id, job_id
            )
    finally:
        await leases.close()
    assert leases.connection is None


async def extract(
    harness: Harness,
    keys: Keys,
    extraction: ExtractionPool,
    submit: Callable[[Document], Awaitable[None]],
    documents: tuple[str, list[str]],
) -> ExtractionStage:
    """Claims the extract jobs of `documents` (collection, ids) and runs them through an
    extraction stage."""
    stage = ExtractionStage(
        harness.pool,
        extraction,
        InFlight(harness.pool),
        submit=submit,
        fingerprint="stages-test",
        index_version="1",
        embedding_model="all-minilm-l6-v2",
        text_config="english",
    )
    cid, ids = documents
    await stage.extract(await claim_of(harness, keys, "stages:extract", EXTRACT, cid, ids))
    if stage.running:
        await asyncio.wait(set(stage.running), timeout=60)
    return stage


async def test_the_extraction_stage_stores_texts_and_passes_them_on(
    harness: Harness, keys: Keys, client: AsyncQuireClient
) -> None:
    files = {
        "notes.txt": b"Valves and pumps keep the plant running.",
        "handbook.docx": SAMPLES["handbook.docx"].make(),
        "broken.docx": CORRUPT["truncated.docx"](),
    }
    cid, ids = await upload(client, "extract-stage", files)
    notes, handbook, broken = ids
    submitted: list[Document] = []

    async def submit(document: Document) -> None:
        submitted.append(document)

    async with ExtractionPool() as extraction:
        stage = await extract(harness, keys, extraction, submit, (cid, ids))
    assert not stage.running
    by_id = {str(d.document_id): d for d in submitted}
    assert set(by_id) == {notes, handbook}
    assert by_id[notes].text == files["notes.txt"].decode()
    assert "alpaca" in by_id[handbook].text, "extracted in an extraction process"
    assert {tuple(d.generations) for d in submitted} == {(1,)}, "the first generation, made"
    for document_id in (notes, handbook):
        assert (await client.get_document(document_id=document_id)).status == (
            knowledge_pb2.DOCUMENT_STATUS_READY
        )
    failed = await client.get_document(document_id=broken)
    assert failed.status == knowledge_pb2.DOCUMENT_STATUS_FAILED and failed.extract_error
    async with harness.pool.acquire() as conn:
        rows = await conn.fetch(JOBS_OF, keys.org_id, cid, [notes, handbook, broken])
    assert [r["kind"] for r in rows].count(BUILD) == 1, "the first generation's build queued"
    # The stored ones stay running: the write stage finishes them with their chunks.
    extracts = sorted(r["state"] for r in rows if r["kind"] == EXTRACT)
    assert extracts == ["failed", "running", "running"]


async def test_chunk_embed_and_write_stages_index_what_extraction_stored(
    harness: Harness, keys: Keys, client: AsyncQuireClient, embeddings: object
) -> None:
    files = {
        f"pump{i}.txt": f"Pump {i} runs at {i} bar.\n\nIts valve opens weekly.".encode()
        for i in range(3)
    }
    cid, ids = await upload(client, "write-stage", files)
    in_flight = InFlight(harness.pool)
    embedding = EmbedStage(embeddings)  # type: ignore[arg-type]
    written = writes.ChunkWrites(
        harness.pool,
        in_flight,
        write=functools.partial(writes.write_batch, harness.pool),
        embedder_idle=lambda: not embedding.busy,
    )
    chunking = ChunkAndEmbed(embedding, in_flight, owner="stage-test", on_embedded=written.put)
    documents: list[Document] = []

    async def submit(document: Document) -> None:
        documents.append(document)
        await chunking.submit(document)

    writing = asyncio.create_task(written.run())
    try:
        async with ExtractionPool() as extraction:
            await extract(harness, keys, extraction, submit, (cid, ids))
        await asyncio.wait_for(in_flight.drained.wait(), 60)
    finally:
        writing.cancel()
    assert [await d.outcome for d in documents] == [True] * len(ids)
    assert written.embedded_chunks == sum(len(d.texts) for d in documents) >= len(ids)
    async with harness.pool.acquire() as conn:
        chunks = await conn.fetch(
            "SELECT document_id, generation, count(*) AS n FROM knowledge_chunks "
            "WHERE org_id = $1 AND collection_id = $2 GROUP BY 1, 2",
            keys.org_id,
            uuid.UUID(cid),
        )
        rows = await conn.fetch(JOBS_OF, keys.org_id, cid, ids)
    assert {(str(r["document_id"]), r["generation"]) for r in chunks} == {(i, 1) for i in ids}
    assert {r["state"] for r in rows if r["kind"] == EXTRACT} == {"done"}, "finished by the write"


async def test_a_build_waits_for_documents_in_flight_and_indexes_the_others(
    harness: Harness, keys: Keys, client: AsyncQuireClient
) -> None:
    files = {"a.txt": b"Alpha pumps.", "b.txt": b"Beta valves."}
    cid, ids = await upload(client, "build-stage", files)
    first, second = ids
    extracted: list[Document] = []

    async def keep(document: Document) -> None:
        extracted.append(document)

    async with ExtractionPool() as extraction:
        await extract(harness, keys, extraction, keep, (cid, ids))
    in_flight = InFlight(harness.pool)
    [waiting] = [d for d in extracted if str(d.document_id) == first]
    in_flight.enter(waiting)  # as if this worker were still indexing it
    submitted: list[Document] = []

    async def index(document: Document) -> None:
        submitted.append(document)
        in_flight.enter(document)
        await in_flight.complete(document, True)

    builds = Builds(harness.pool, in_flight, submit=index)
    [build] = await claim_of(harness, keys, "stages:build", BUILD, cid, ids)
    builds.start(build)
    await until(lambda: bool(submitted), within_s=10, what="the build submitted nothing")
    assert [str(d.document_id) for d in submitted] == [second], "the one in flight is awaited"
    assert submitted[0].text == "Beta valves." and submitted[0].generations == [1]
    assert builds.running and builds.of[next(iter(builds.running))] == (
        keys.org_id,
        uuid.UUID(cid),
    )
    await in_flight.complete(waiting, True)
    await asyncio.wait_for(asyncio.gather(*builds.running), 30)
    async with harness.pool.acquire() as conn:
        serving = await conn.fetchval(
            "SELECT serving_generation FROM collections WHERE org_id = $1 AND collection_id = $2",
            keys.org_id,
            uuid.UUID(cid),
        )
        row = await conn.fetchrow(JOB, keys.org_id, build.job_id)
    assert serving == 1 and row["state"] == "done"
    assert not builds.running and not builds.of


async def test_a_stopped_idle_worker_ends_at_once(
    harness: Harness, database_url: str, embeddings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An idle claim loop waits for work up to IDLE_POLL_S; stop wakes it instead of waiting
    that out (made long here, so a stop that waited for the poll would take the drain time)."""
    from quire.indexer.worker import claims
    from quire.server.app import run_worker
    from quire.server.config import Settings

    monkeypatch.setattr(claims, "IDLE_POLL_S", 120.0)
    async with harness.pool.acquire() as conn:
        before = await conn.fetchval("SELECT count(*) FROM worker_heartbeats")
    stop = asyncio.Event()
    worker = asyncio.create_task(run_worker(Settings(database_url=database_url), embeddings, stop))  # type: ignore[arg-type]

    async def started() -> bool:
        async with harness.pool.acquire() as conn:
            return bool(await conn.fetchval("SELECT count(*) FROM worker_heartbeats") > before)

    await until(started, within_s=60, what="the worker's first heartbeat")
    await asyncio.sleep(0.3)  # into its idle wait (any moment would do: stop is seen either way)
    stopped_at = asyncio.get_running_loop().time()
    stop.set()
    await asyncio.wait_for(worker, 30)
    took = asyncio.get_running_loop().time() - stopped_at
    assert took < 5, f"the idle worker took {took:.1f} s to stop"

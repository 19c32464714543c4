"""A collection changes its embedding model by a rebuild, and back by a rollback, through the
real server, one worker per model, PostgreSQL and both real models.

A MiniLM collection rebuilt with bge-small-en-v1.5 gets a generation of bge vectors while the
MiniLM one serves; once it serves, the collection shows bge and a search scores exactly as a
fresh bge collection of the same documents does; a rollback serves MiniLM again, scoring as a
fresh MiniLM collection. Documents uploaded during the build and after the rollback reach both
generations, each embedded with its own model (equal to the fresh collections' vectors).
Unknown and unloaded models are refused with nothing created; a rebuild naming no model keeps
the serving generation's.

bge-small-en-v1.5 is prepared by `make model`; without it the module skips, saying so."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.indexer.fingerprint import collection_fingerprint
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys
from tests.support.index_waits import filled, wait_indexed, wait_settled
from tests.support.models import BGE, MINILM
from tests.support.waits import until

# Slow: both models loaded, two collections indexed per model to compare vectors with.
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
NEEDS_WORKER = True
EXTRA_MODELS = True
HYBRID = knowledge_pb2.RETRIEVAL_MODE_HYBRID
QUERY = "how does a centrifugal pump move water?"

FILES = {
    "pumps.md": b"# Pumps\n\nA centrifugal pump moves water with a spinning impeller.\n",
    "bread.md": b"# Bread\n\nKnead the dough, let it rise overnight, bake at 230 degrees.\n",
    "stars.md": b"# Stars\n\nA neutron star is the collapsed core of a massive star.\n",
}
DURING_BUILD = ("seals.md", b"# Seals\n\nReplace a pump's mechanical seals when they leak.\n")
AFTER_ROLLBACK = ("valves.md", b"# Valves\n\nA check valve keeps water from flowing back.\n")

# Each chunk's vector as text, by (file name, chunk ordinal), in one generation.
VECTORS = """
SELECT d.file_name, k.chunk_ordinal, k.embedding::text AS embedding
FROM knowledge_chunks k
JOIN documents d ON d.org_id = k.org_id AND d.document_id = k.document_id
WHERE k.collection_id = $1 AND k.generation = $2
"""


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("rebuild-models-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def _upload(
    client: AsyncQuireClient, collection_id: str, file_name: str, data: bytes
) -> None:
    await client.upload_document(collection_id=collection_id, file_name=file_name, data=data)


async def _vectors(
    pool: asyncpg.Pool, collection_id: str, generation: int
) -> dict[tuple[str, int], str]:
    rows = await pool.fetch(VECTORS, uuid.UUID(collection_id), generation)
    return {(r["file_name"], r["chunk_ordinal"]): r["embedding"] for r in rows}


async def _serving(pool: asyncpg.Pool, collection_id: str) -> dict[tuple[str, int], str]:
    generation = await pool.fetchval(
        "SELECT serving_generation FROM collections WHERE collection_id = $1",
        uuid.UUID(collection_id),
    )
    return await _vectors(pool, collection_id, generation)


async def _scores(client: AsyncQuireClient, collection_id: str) -> dict[tuple[str, int], float]:
    found = await client.search_knowledge(
        collection_ids=[collection_id], query=QUERY, mode=HYBRID, limit=8
    )
    return {(h.file_name, h.chunk_ordinal): round(h.score, 5) for h in found.hits}


async def _until_serving(
    client: AsyncQuireClient, collection_id: str, generation: int, within: float = 300
) -> knowledge_pb2.IndexStatus:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        status = await client.get_index_status(collection_id=collection_id)
        if status.serving_generation == generation:
            return status
        failed = [g.error for g in status.generations if g.error]
        assert not failed and asyncio.get_running_loop().time() < deadline, status
        await asyncio.sleep(0.2)


async def _settled(client: AsyncQuireClient, harness: Harness, *collection_ids: str) -> None:
    for collection_id in collection_ids:
        await wait_indexed(client, collection_id, within=300)
        await wait_settled(harness.pool, collection_id, within=300)


async def test_a_rebuild_changes_the_model_and_a_rollback_brings_it_back(
    client: AsyncQuireClient, harness: Harness
) -> None:
    cid = (await filled(client, "switching", FILES)).collection_id
    before = await client.get_index_status(collection_id=cid)
    assert (before.serving_generation, before.embedding_model) == (1, MINILM)

    started = await client.rebuild_index(collection_id=cid, embedding_model=BGE)
    # The new generation builds with bge while MiniLM goes on serving.
    assert (started.serving_generation, started.building_generation) == (1, 2)
    assert started.embedding_model == MINILM
    models = {g.generation: g.embedding_model for g in started.generations}
    assert models == {1: MINILM, 2: BGE}
    await _upload(client, cid, *DURING_BUILD)

    status = await _until_serving(client, cid, 2)
    assert status.embedding_model == BGE
    assert (await client.get_collection(collection_id=cid)).embedding_model == BGE
    bge = harness.running.state.extra_models[BGE]  # type: ignore[attr-defined]
    built = next(g for g in status.generations if g.generation == 2)
    assert built.fingerprint == collection_fingerprint(bge.fingerprint, built.index_version)

    # Fresh collections of the same documents, one per model: what each generation must hold.
    same = dict([*FILES.items(), DURING_BUILD])
    fresh_bge = (await filled(client, "fresh-bge", same, BGE)).collection_id
    fresh_minilm = (await filled(client, "fresh-minilm", same)).collection_id
    await _settled(client, harness, cid, fresh_bge, fresh_minilm)
    minilm_vectors = await _vectors(harness.pool, cid, 1)
    bge_vectors = await _vectors(harness.pool, cid, 2)
    # The document uploaded during the build reached both generations, each with its model.
    assert ("seals.md", 0) in minilm_vectors and ("seals.md", 0) in bge_vectors
    assert bge_vectors == await _serving(harness.pool, fresh_bge)
    assert minilm_vectors == await _serving(harness.pool, fresh_minilm)
    assert not set(bge_vectors.values()) & set(minilm_vectors.values())
    # Queries are embedded with the serving generation's model: bge's scores exactly.
    served = await _scores(client, cid)
    assert served == await _scores(client, fresh_bge)
    assert served != await _scores(client, fresh_minilm)

    rolled = await client.rollback_index(collection_id=cid)
    assert (rolled.serving_generation, rolled.embedding_model) == (1, MINILM)
    assert (await client.get_collection(collection_id=cid)).embedding_model == MINILM
    assert await _scores(client, cid) == await _scores(client, fresh_minilm)
    found = await client.search_knowledge(collection_ids=[cid], query=QUERY, mode=HYBRID)
    assert found.hits and {h.index_generation for h in found.hits} == {1}

    # After the rollback a new document still reaches both: MiniLM serving, bge retired.
    for collection_id in (cid, fresh_bge, fresh_minilm):
        await _upload(client, collection_id, *AFTER_ROLLBACK)
    await _settled(client, harness, cid, fresh_bge, fresh_minilm)
    minilm_vectors = await _vectors(harness.pool, cid, 1)
    bge_vectors = await _vectors(harness.pool, cid, 2)
    assert ("valves.md", 0) in minilm_vectors and ("valves.md", 0) in bge_vectors
    # The retired bge generation got it by a job for bge's worker (its build was long done).
    for_bge = await harness.pool.fetchval(
        "SELECT count(*) FROM jobs WHERE kind = 'index_for_model' AND state = 'done' "
        "AND payload->>'collection_id' = $1 AND payload->>'model' = $2",
        cid,
        BGE,
    )
    assert for_bge >= 1
    assert minilm_vectors == await _serving(harness.pool, fresh_minilm)
    assert bge_vectors == await _serving(harness.pool, fresh_bge)
    # Rolling back again serves bge once more, with the new document.
    again = await client.rollback_index(collection_id=cid)
    assert (again.serving_generation, again.embedding_model) == (2, BGE)
    assert await _scores(client, cid) == await _scores(client, fresh_bge)


async def test_a_rebuild_naming_no_model_keeps_the_serving_model(
    client: AsyncQuireClient, harness: Harness
) -> None:
    cid = (
        await filled(client, "plain-rebuild", {"pumps.md": FILES["pumps.md"]}, BGE)
    ).collection_id
    started = await client.rebuild_index(collection_id=cid, index_version="2")
    assert {g.generation: g.embedding_model for g in started.generations} == {1: BGE, 2: BGE}
    status = await _until_serving(client, cid, 2)
    assert status.embedding_model == BGE
    bge = harness.running.state.extra_models[BGE]  # type: ignore[attr-defined]
    built = next(g for g in status.generations if g.generation == 2)
    assert built.fingerprint == collection_fingerprint(bge.fingerprint, "2")


@pytest.mark.parametrize(
    ("model", "words"),
    [("no-such-model", "unknown embedding model"), ("x" * 65, "at most 64")],
)
async def test_an_unknown_model_is_refused_and_nothing_is_created(
    client: AsyncQuireClient, model: str, words: str
) -> None:
    cid = (
        await filled(client, f"unknown-{len(model)}", {"pumps.md": FILES["pumps.md"]})
    ).collection_id
    before = await client.get_index_status(collection_id=cid)
    with pytest.raises(qe.InvalidRequest) as refused:
        await client.rebuild_index(collection_id=cid, embedding_model=model)
    assert words in refused.value.message
    assert [f for f, _ in refused.value.field_violations] == ["embedding_model"]
    after = await client.get_index_status(collection_id=cid)
    assert list(after.generations) == list(before.generations)
    assert after.building_generation == 0


async def test_a_model_the_server_has_not_loaded_is_refused_naming_the_command(
    client: AsyncQuireClient, harness: Harness
) -> None:
    cid = (await filled(client, "unloaded", {"pumps.md": FILES["pumps.md"]})).collection_id
    state = harness.running.state  # type: ignore[attr-defined]
    loaded = state.extra_models.pop(BGE)
    try:
        with pytest.raises(qe.InvalidRequest) as refused:
            await client.rebuild_index(collection_id=cid, embedding_model=BGE)
    finally:
        state.extra_models[BGE] = loaded
    assert f"quire model prepare --model {BGE}" in refused.value.message
    assert f"--models {BGE}" in refused.value.message
    status = await client.get_index_status(collection_id=cid)
    assert [g.generation for g in status.generations] == [1]
    assert status.embedding_model == MINILM


async def test_a_rebuild_onto_another_model_than_the_running_build_is_refused(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    """A build under way (a BUILDING generation of bge, made here without its job so it stays
    BUILDING): a rebuild naming another model is ALREADY_EXISTS, one naming no model or the
    same one returns the status; neither creates a generation."""
    from quire.indexer.worker import generations

    cid = (await filled(client, "build-under-way", {"pumps.md": FILES["pumps.md"]})).collection_id
    org, col = keys.org_id, uuid.UUID(cid)
    async with harness.pool.acquire() as conn:
        building = await generations.create_generation(conn, org, col, "held", "1", BGE, "english")
    try:
        with pytest.raises(qe.AlreadyExists) as refused:
            await client.rebuild_index(collection_id=cid, embedding_model=MINILM)
        assert f"already being built with the embedding model {BGE}" in refused.value.message
        for model in (BGE, None):
            status = await client.rebuild_index(collection_id=cid, embedding_model=model)
            assert status.building_generation == building
            assert [g.generation for g in status.generations] == [building, 1]
    finally:
        async with harness.pool.acquire() as conn:
            await generations.fail(conn, org, col, building, "held by the test")


async def test_the_cli_rebuilds_with_another_model(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    from tests.integration.test_cli import quire

    cid = (await filled(client, "cli-rebuild", {"pumps.md": FILES["pumps.md"]})).collection_id
    ran = await quire(
        harness.address, keys.all, "index", "rebuild", "--collection", "cli-rebuild",
        "--model", BGE, "--json",
    )  # fmt: skip
    assert ran.code == 0, ran.stderr
    started = ran.result()
    assert started["embedding_model"] == MINILM
    assert {g["generation"]: g["embedding_model"] for g in started["generations"]} == {
        "2": BGE,
        "1": MINILM,
    }
    await _until_serving(client, cid, 2)
    refused = await quire(
        harness.address, keys.all, "index", "rebuild", "--collection", "cli-rebuild",
        "--model", "no-such-model", "--json",
    )  # fmt: skip
    assert refused.code != 0
    assert "unknown embedding model" in refused.json()["error"]["message"]


async def test_a_rollback_onto_a_model_the_server_has_not_loaded_is_refused(
    client: AsyncQuireClient, harness: Harness
) -> None:
    cid = (await filled(client, "rollback-unloaded", {"pumps.md": FILES["pumps.md"]})).collection_id
    await client.rebuild_index(collection_id=cid, embedding_model=BGE)
    await _until_serving(client, cid, 2)
    await client.rollback_index(collection_id=cid)  # MiniLM serves, bge is kept for rollback
    state = harness.running.state  # type: ignore[attr-defined]
    loaded = state.extra_models.pop(BGE)
    try:
        with pytest.raises(qe.SearchUnavailable) as refused:
            await client.rollback_index(collection_id=cid)
    finally:
        state.extra_models[BGE] = loaded
    assert f"quire model prepare --model {BGE}" in refused.value.message
    status = await client.get_index_status(collection_id=cid)
    assert (status.serving_generation, status.embedding_model) == (1, MINILM)


async def test_a_failed_build_leaves_the_serving_generation_and_a_rebuild_starts_afresh(
    client: AsyncQuireClient, harness: Harness, keys: Keys
) -> None:
    """A build that failed for good (FAILED) is no live generation: the serving one keeps
    serving, and RebuildIndex starts a new build instead of returning the failed one."""
    from quire.indexer.worker import generations

    cid = (await filled(client, "failed-build", {"pumps.md": FILES["pumps.md"]})).collection_id
    org, col = keys.org_id, uuid.UUID(cid)
    async with harness.pool.acquire() as conn:
        failed = await generations.create_generation(conn, org, col, "held", "1", MINILM, "english")
        await generations.fail(conn, org, col, failed, "3 document(s) failed to index")
    status = await client.rebuild_index(collection_id=cid)
    assert status.serving_generation == 1
    assert status.building_generation == failed + 1

    async def serving_the_new_build() -> bool:
        status = await client.get_index_status(collection_id=cid)
        return status.serving_generation == failed + 1

    await until(serving_the_new_build, within_s=300, what="the new build to serve")
    status = await client.get_index_status(collection_id=cid)
    # The failed build stays listed with its reason; it never served.
    (shown,) = [g for g in status.generations if g.generation == failed]
    assert shown.state == knowledge_pb2.GENERATION_STATE_FAILED
    assert shown.error == "3 document(s) failed to index"

"""The lexical arm's text analysis per index generation (migration 0020), through the real
server, worker, PostgreSQL and model: a new generation is stemmed, so the BM25 arm matches
another form of a word ("pumping" finds "pumps"); a generation built the old way (`simple`)
keeps serving with its exact words and its old serving fingerprint; a rebuild moves the
collection to stems and a rollback brings the `simple` generation back."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer import fingerprint
from quire.indexer.worker import lexical_stats
from quire.server.knowledge import bm25, search
from quire.server.knowledge.reachable import resolve
from quire.server.knowledge.search_entry import KnowledgeSearch
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys
from tests.support.index_waits import filled, wait_settled
from tests.support.waits import until

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True

FILES = {
    "pumps.md": b"# Pumps\n\nCentrifugal pumps move water with spinning impellers.\n",
    "bread.md": b"# Bread\n\nKnead the dough, let it rise overnight, bake it hot.\n",
}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("text-analysis-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def lexical_files(
    harness: Harness, keys: Keys, collection: knowledge_pb2.Collection, query: str
) -> set[str]:
    """The files whose chunks the BM25 arm alone returns for `query` (serving generation)."""
    cid = uuid.UUID(collection.collection_id)
    async with harness.pool.acquire() as conn:
        [reached] = await resolve(conn, keys.org_id, "", [collection.collection_id])
        rows = await bm25.rank_chunks(
            conn,
            keys.org_id,
            [cid],
            [reached.serving_generation],
            query,
            50,
            k1=search.DEFAULT_TUNING.k1,
            b=search.DEFAULT_TUNING.b,
            max_df_ratio=1.0,
        )
        names = await conn.fetch(
            "SELECT document_id, file_name FROM documents WHERE org_id = $1 AND collection_id = $2",
            keys.org_id,
            cid,
        )
    by_id = {r["document_id"]: r["file_name"] for r in names}
    return {by_id[r["document_id"]] for r in rows}


async def serving(client: AsyncQuireClient, cid: str) -> knowledge_pb2.IndexGeneration:
    status = await client.get_index_status(collection_id=cid)
    [generation] = [g for g in status.generations if g.generation == status.serving_generation]
    return generation


async def search_fingerprint(harness: Harness, keys: Keys, cid: str) -> str:
    async with harness.pool.acquire() as conn:
        reached = await resolve(conn, keys.org_id, "", [cid])
    entry = KnowledgeSearch(harness.running.state)
    return entry.index_fingerprint(reached)


async def test_a_new_generation_is_stemmed(
    harness: Harness, keys: Keys, client: AsyncQuireClient
) -> None:
    collection = await filled(client, "stemmed", FILES)
    await wait_settled(harness.pool, collection.collection_id)
    generation = await serving(client, collection.collection_id)
    assert generation.text_analysis == "english"
    assert await lexical_files(harness, keys, collection, "pumping") == {"pumps.md"}
    assert await lexical_files(harness, keys, collection, "kneading doughs") == {"bread.md"}
    # An English stop word alone matches nothing lexically (it is not indexed).
    assert await lexical_files(harness, keys, collection, "the it") == set()


async def built_before_stems(
    harness: Harness, keys: Keys, collection: knowledge_pb2.Collection
) -> None:
    """Turns the collection's serving generation into what migration 0020 left of one built
    before it: `simple` lexemes (headings and text; every chunk here holds its title's words),
    its text_config and fingerprint, and their term statistics."""
    cid = uuid.UUID(collection.collection_id)
    async with harness.pool.acquire() as conn, conn.transaction():
        generation = await conn.fetchval(
            "SELECT serving_generation FROM collections WHERE org_id = $1 AND collection_id = $2",
            keys.org_id,
            cid,
        )
        await conn.execute(
            "UPDATE knowledge_chunks SET tsv = to_tsvector('simple', "
            "array_to_string(heading_path, ' ') || ' ' || content) "
            "WHERE org_id = $1 AND collection_id = $2 AND generation = $3",
            keys.org_id,
            cid,
            generation,
        )
        embedder = harness.running.state.require_embeddings().fingerprint
        await conn.execute(
            "UPDATE index_generations SET text_config = 'simple', fingerprint = $4 "
            "WHERE org_id = $1 AND collection_id = $2 AND generation = $3",
            keys.org_id,
            cid,
            generation,
            fingerprint.collection_fingerprint(embedder, "1", "simple"),
        )
        await lexical_stats.refresh(conn, keys.org_id, cid, generation)


async def test_a_simple_generation_keeps_serving_until_a_rebuild_moves_it_to_stems(
    harness: Harness, keys: Keys, client: AsyncQuireClient
) -> None:
    collection = await filled(client, "built-before-stems", FILES)
    await wait_settled(harness.pool, collection.collection_id)
    await built_before_stems(harness, keys, collection)
    cid = collection.collection_id
    old = await serving(client, cid)
    assert old.text_analysis == "simple"
    assert await lexical_files(harness, keys, collection, "pumping") == set()
    assert await lexical_files(harness, keys, collection, "pumps") == {"pumps.md"}
    assert await search_fingerprint(harness, keys, cid) == search.serving_fingerprint(
        harness.running.state.require_embeddings().fingerprint,
        search.DEFAULT_TUNING,
        ["simple"],
    ), "a simple generation's search fingerprint is the one recorded before stems"

    await client.rebuild_index(collection_id=cid)

    async def rebuilt() -> bool:
        return (await client.get_index_status(collection_id=cid)).serving_generation > (
            old.generation
        )

    await until(rebuilt, within_s=120, what="the rebuild never served")
    await wait_settled(harness.pool, cid)
    new = await serving(client, cid)
    assert new.text_analysis == "english"
    assert new.fingerprint != old.fingerprint
    assert await lexical_files(harness, keys, collection, "pumping") == {"pumps.md"}
    stemmed_fingerprint = await search_fingerprint(harness, keys, cid)
    assert stemmed_fingerprint == search.serving_fingerprint(
        harness.running.state.require_embeddings().fingerprint
    )

    await client.rollback_index(collection_id=cid)
    back = await serving(client, cid)
    assert (back.generation, back.text_analysis) == (old.generation, "simple")
    assert await lexical_files(harness, keys, collection, "pumping") == set()

    # `quire index status` shows each generation's analysis beside its model.
    from tests.integration.test_cli import quire

    shown = await quire(
        harness.address,
        keys.all,
        "index",
        "status",
        "--collection",
        "built-before-stems",
        env={"COLUMNS": "200"},  # one line per generation
    )
    assert shown.code == 0, shown.stderr
    rows = {line.split()[1]: line for line in shown.stdout.splitlines() if "│" in line}
    assert "simple" in rows[str(old.generation)] and "english" in rows[str(new.generation)]

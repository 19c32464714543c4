"""Models per collection, through the real server, workers (one per model), PostgreSQL and both
real models: a collection created with bge-small-en-v1.5 is indexed by that model's worker and
searched with its query instruction; a search over collections of both models embeds the query
once per model; unknown and unloaded models are refused with an ErrorDetail and nothing is
created; ListModels says what is known, prepared, loaded and default.

bge-small-en-v1.5 is prepared by `make model`; without it the module skips, saying so."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.indexer.fingerprint import collection_fingerprint
from quire.v1 import knowledge_pb2
from tests.conftest import Harness, Keys
from tests.support.index_waits import filled
from tests.support.models import BGE, MINILM

# The module takes 8 s (loading bge-small-en-v1.5) under load (`make test-fast` leaves it out).
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
NEEDS_WORKER = True
EXTRA_MODELS = True
HYBRID = knowledge_pb2.RETRIEVAL_MODE_HYBRID

PUMPS = {
    "pumps.md": b"# Pumps\n\nA centrifugal pump moves water with a spinning impeller.\n",
    "bread.md": b"# Bread\n\nKnead the dough, let it rise overnight, bake at 230 degrees.\n",
    "stars.md": b"# Stars\n\nA neutron star is the collapsed core of a massive star.\n",
}
NOTES = {
    "seals.md": b"# Seals\n\nReplace the pump's mechanical seals when they start to leak.\n",
    "tea.md": b"# Tea\n\nSteep green tea for two minutes at eighty degrees.\n",
}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("models-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def bge_collection(client: AsyncQuireClient) -> knowledge_pb2.Collection:
    return await filled(client, "bge-pumps", PUMPS, BGE)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def minilm_collection(client: AsyncQuireClient) -> knowledge_pb2.Collection:
    return await filled(client, "minilm-notes", NOTES)


async def test_list_models_says_what_is_known_prepared_loaded_and_default(
    client: AsyncQuireClient,
) -> None:
    listed = {m.name: m for m in await client.list_models()}
    assert set(listed) == {MINILM, BGE}
    assert listed[MINILM].is_default and not listed[BGE].is_default
    for model in listed.values():
        assert (model.dimensions, model.prepared, model.loaded) == (384, True, True)
    assert (listed[MINILM].max_tokens, listed[BGE].max_tokens) == (256, 512)


async def test_a_bge_collection_is_built_and_searched_with_bge(
    client: AsyncQuireClient, harness: Harness, bge_collection: knowledge_pb2.Collection
) -> None:
    assert bge_collection.embedding_model == BGE
    fetched = await client.get_collection(collection_id=bge_collection.collection_id)
    assert fetched.embedding_model == BGE
    status = await client.get_index_status(collection_id=bge_collection.collection_id)
    assert status.embedding_model == BGE
    # The generation was built by bge's worker: its fingerprint is bge's.
    bge = harness.running.state.extra_models[BGE]  # type: ignore[attr-defined]
    serving = next(g for g in status.generations if g.generation == status.serving_generation)
    assert serving.fingerprint == collection_fingerprint(bge.fingerprint, serving.index_version)
    found = await client.search_knowledge(
        collection_ids=[bge_collection.collection_id],
        query="how does a centrifugal pump move water?",
        mode=HYBRID,
        limit=3,
    )
    assert next(h.file_name for h in found.hits) == "pumps.md"


async def test_a_search_over_both_models_embeds_the_query_once_per_model(
    client: AsyncQuireClient,
    harness: Harness,
    bge_collection: knowledge_pb2.Collection,
    minilm_collection: knowledge_pb2.Collection,
) -> None:
    assert minilm_collection.embedding_model == MINILM
    state = harness.running.state  # type: ignore[attr-defined]
    calls: dict[str, int] = {}
    services = {MINILM: state.embeddings, BGE: state.extra_models[BGE]}
    originals = {name: service.embed_queries for name, service in services.items()}

    def counting(name: str):  # type: ignore[no-untyped-def]
        async def embed_queries(texts: list[str]):  # type: ignore[no-untyped-def]
            calls[name] = calls.get(name, 0) + 1
            return await originals[name](texts)

        return embed_queries

    for name, service in services.items():
        service.embed_queries = counting(name)
    try:
        found = await client.search_knowledge(
            collection_ids=[bge_collection.collection_id, minilm_collection.collection_id],
            query="leaking pump seals",
            mode=HYBRID,
            limit=5,
        )
    finally:
        for name, service in services.items():
            service.embed_queries = originals[name]
    assert calls == {MINILM: 1, BGE: 1}
    names = [h.file_name for h in found.hits]
    assert names[0] == "seals.md"
    assert "pumps.md" in names  # the bge collection's vector arm took part
    assert {h.collection_id for h in found.hits} == {
        bge_collection.collection_id,
        minilm_collection.collection_id,
    }


@pytest.mark.parametrize(
    ("model", "words"),
    [("no-such-model", "unknown embedding model"), ("x" * 65, "at most 64")],
)
async def test_an_unknown_model_is_refused_and_nothing_is_created(
    client: AsyncQuireClient, model: str, words: str
) -> None:
    before = {c.name for c in await client.list_collections()}
    with pytest.raises(qe.InvalidRequest) as refused:
        await client.create_collection(name=f"refused-{len(model)}", embedding_model=model)
    assert words in refused.value.message
    assert [f for f, _ in refused.value.field_violations] == ["embedding_model"]
    assert {c.name for c in await client.list_collections()} == before


async def test_a_model_the_server_has_not_loaded_names_the_command(
    client: AsyncQuireClient, harness: Harness
) -> None:
    state = harness.running.state  # type: ignore[attr-defined]
    loaded = state.extra_models.pop(BGE)
    try:
        with pytest.raises(qe.InvalidRequest) as refused:
            await client.create_collection(name="unloaded", embedding_model=BGE)
        assert f"quire model prepare --model {BGE}" in refused.value.message
        assert f"--models {BGE}" in refused.value.message
        assert "unloaded" not in {c.name for c in await client.list_collections()}
        listed = {m.name: m for m in await client.list_models()}
        assert listed[BGE].prepared and not listed[BGE].loaded
    finally:
        state.extra_models[BGE] = loaded

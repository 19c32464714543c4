"""Models per namespace, through the real server, PostgreSQL and both real models: a namespace
synced with bge-small-en-v1.5 says so in its SyncReport and Namespace, its pages carry bge's
fingerprint and its searches embed the query with bge; a sync naming another model is refused
with an ErrorDetail naming the reindex command and leaves the namespace as it was; unknown and
unloaded models are refused with nothing created; a reindex moves a namespace to another model,
and a search that remembered the old one embeds its query again with the new one.

bge-small-en-v1.5 is prepared by `make model`; without it the module skips, saying so."""

from __future__ import annotations

import re
import shlex
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.indexer import fingerprint
from quire.indexer.pages.sync import PAGE_CEILING
from quire.v1 import pages_pb2
from tests.conftest import Harness, Keys
from tests.integration.test_cli import quire
from tests.support.site_server import SiteServer

# The module takes 5 s (loading bge-small-en-v1.5) under load (`make test-fast` leaves it out).
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
EXTRA_MODELS = True
BGE = "bge-small-en-v1.5"
MINILM = "all-minilm-l6-v2"
QUERY = "how does a centrifugal pump move water?"

PAGES = {
    "pumps.md": "# Pumps\n\nA centrifugal pump moves water with a spinning impeller.\n",
    "bread.md": "# Bread\n\nKnead the dough, let it rise overnight, bake at 230 degrees.\n",
    "stars.md": "# Stars\n\nA neutron star is the collapsed core of a massive star.\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, harness: Harness) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("models-site")
    links = "\n".join(f"- [{name[:-3].title()}](/{name})" for name in PAGES)
    (root / "llms.txt").write_text(f"# Notes\n\n## Docs\n\n{links}\n", encoding="utf-8")
    for name, text in PAGES.items():
        (root / name).write_text(text, encoding="utf-8")
    server = SiteServer(root=root)
    with server:
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("pages-models-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def _sync(client: AsyncQuireClient, namespace: str, url: str, **kwargs: Any) -> Any:
    report = None
    async for item in client.sync_pages(namespace=namespace, url=url, **kwargs):
        if isinstance(item, pages_pb2.SyncReport):
            report = item
    assert report is not None
    return report


async def _namespaces(client: AsyncQuireClient) -> dict[str, pages_pb2.Namespace]:
    return {n.name: n for n in await client.list_namespaces()}


class QueryCounts:
    """Counts the query embeddings of each model's EmbeddingService while in use."""

    def __init__(self, harness: Harness) -> None:
        state = harness.running.state  # type: ignore[attr-defined]
        self.services = {MINILM: state.embeddings, BGE: state.extra_models[BGE]}
        self.calls: dict[str, int] = {}

    def __enter__(self) -> dict[str, int]:
        for name, service in self.services.items():
            original = service.embed_queries

            async def counted(texts: list[str], name: str = name, original: Any = original) -> Any:
                self.calls[name] = self.calls.get(name, 0) + 1
                return await original(texts)

            service.embed_queries = counted
        return self.calls

    def __exit__(self, *exc: object) -> None:
        for service in self.services.values():
            del service.embed_queries  # the class's method again


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def bge_report(client: AsyncQuireClient, site: SiteServer) -> pages_pb2.SyncReport:
    report: pages_pb2.SyncReport = await _sync(
        client, "bge-notes", f"{site.url}/llms.txt", embedding_model=BGE
    )
    return report


async def test_a_namespace_synced_with_bge_is_embedded_and_searched_with_bge(
    client: AsyncQuireClient, harness: Harness, bge_report: pages_pb2.SyncReport
) -> None:
    assert bge_report.status == pages_pb2.SYNC_STATUS_COMPLETED
    assert (bge_report.embedding_model, bge_report.updated) == (BGE, len(PAGES))
    assert (await client.get_sync_report(namespace="bge-notes")).embedding_model == BGE
    assert (await _namespaces(client))["bge-notes"].embedding_model == BGE
    # The pages' fingerprint holds bge's: the vector store keys their vectors by it.
    bge = harness.running.state.extra_models[BGE]  # type: ignore[attr-defined]
    expected = fingerprint.index_fingerprint(
        embedder=bge.fingerprint,
        transform="markdown",
        index_version="1",
        ceiling=PAGE_CEILING,
        language="en",
    )
    listed = await client.list_pages(namespace="bge-notes")
    assert {p.index_fingerprint for p in listed.pages} == {expected}
    with QueryCounts(harness) as calls:
        found = await client.search_pages(namespace="bge-notes", query=QUERY, limit=3)
    assert calls == {BGE: 1}
    assert found.hits[0].path == "/pumps.md"


async def test_a_new_namespace_without_a_model_gets_the_default(
    client: AsyncQuireClient, harness: Harness, site: SiteServer
) -> None:
    report = await _sync(client, "default-notes", f"{site.url}/llms.txt")
    assert report.embedding_model == MINILM
    assert (await _namespaces(client))["default-notes"].embedding_model == MINILM
    with QueryCounts(harness) as calls:
        found = await client.search_pages(namespace="default-notes", query=QUERY, limit=3)
    assert calls == {MINILM: 1}
    assert found.hits[0].path == "/pumps.md"


async def test_another_model_without_reindex_is_refused_and_the_namespace_untouched(
    client: AsyncQuireClient, site: SiteServer, bge_report: pages_pb2.SyncReport
) -> None:
    before = (await _namespaces(client))["bge-notes"]
    with pytest.raises(qe.InvalidRequest) as refused:
        await _sync(client, "bge-notes", f"{site.url}/llms.txt", embedding_model=MINILM)
    assert [f for f, _ in refused.value.field_violations] == ["start.embedding_model"]
    message = refused.value.message
    assert f"embedded with {BGE}" in message
    assert f"--namespace bge-notes --model {MINILM} --reindex" in message
    after = (await _namespaces(client))["bge-notes"]
    assert (after.embedding_model, after.filesystem_version) == (BGE, before.filesystem_version)
    assert await client.get_sync_report(namespace="bge-notes") == bge_report
    # Naming the namespace's own model, or none, is an ordinary sync.
    again = await _sync(client, "bge-notes", f"{site.url}/llms.txt", embedding_model=BGE)
    assert (again.status, again.embedding_model) == (pages_pb2.SYNC_STATUS_UNCHANGED, BGE)


@pytest.mark.parametrize(
    ("model", "words"),
    [("no-such-model", "unknown embedding model"), ("x" * 65, "at most 64")],
)
async def test_an_unknown_model_is_refused_and_nothing_is_created(
    client: AsyncQuireClient, site: SiteServer, model: str, words: str
) -> None:
    before = await _namespaces(client)
    with pytest.raises(qe.InvalidRequest) as refused:
        await _sync(client, f"refused-{len(model)}", f"{site.url}/llms.txt", embedding_model=model)
    assert words in refused.value.message
    assert [f for f, _ in refused.value.field_violations] == ["start.embedding_model"]
    assert await _namespaces(client) == before


async def test_a_model_the_server_has_not_loaded_names_the_command(
    client: AsyncQuireClient, harness: Harness, site: SiteServer
) -> None:
    state = harness.running.state  # type: ignore[attr-defined]
    loaded = state.extra_models.pop(BGE)
    try:
        with pytest.raises(qe.InvalidRequest) as refused:
            await _sync(client, "unloaded", f"{site.url}/llms.txt", embedding_model=BGE)
        assert f"quire model prepare --model {BGE}" in refused.value.message
        assert f"--models {BGE}" in refused.value.message
        assert "unloaded" not in await _namespaces(client)
    finally:
        state.extra_models[BGE] = loaded


async def test_the_named_reindex_moves_a_namespace_to_another_model(
    client: AsyncQuireClient,
    harness: Harness,
    keys: Keys,
    site: SiteServer,
    bge_report: pages_pb2.SyncReport,
) -> None:
    url = f"{site.url}/llms.txt"
    first = await _sync(client, "moving-notes", url)
    assert first.embedding_model == MINILM
    await client.search_pages(namespace="moving-notes", query=QUERY)  # remembers MiniLM
    with pytest.raises(qe.InvalidRequest) as refused:
        await _sync(client, "moving-notes", url, embedding_model=BGE)
    # The command the refusal names, run as it is (the CLI's `--reindex` is SyncStart.reindex).
    named = re.search(r"`(quire pages sync [^`]+)`", refused.value.message)
    assert named is not None, refused.value.message
    command = shlex.split(named.group(1))
    assert command == [
        *("quire", "pages", "sync", url, "--namespace", "moving-notes"),
        *("--model", BGE, "--reindex"),
    ]
    ran = await quire(harness.address, keys.all, *command[1:], "--json")
    assert ran.code == 0, ran.stderr
    moved = ran.result()
    assert (moved["status"], moved["embedding_model"]) == ("SYNC_STATUS_COMPLETED", BGE)
    assert moved["updated"] == len(PAGES) and moved["embedded_chunks"] > 0
    assert (await _namespaces(client))["moving-notes"].embedding_model == BGE
    bge_pages = await client.list_pages(namespace="bge-notes")
    moved_pages = await client.list_pages(namespace="moving-notes")
    assert {p.index_fingerprint for p in moved_pages.pages} == {
        p.index_fingerprint for p in bge_pages.pages
    }
    # Another server process may still remember MiniLM: its search finds bge in its snapshot
    # and embeds the query again with bge, never comparing MiniLM's vector with bge's.
    pages_service = harness.running.services.pages  # type: ignore[attr-defined]
    pages_service.namespace_models.learn(keys.org_id, "moving-notes", MINILM)
    with QueryCounts(harness) as calls:
        found = await client.search_pages(namespace="moving-notes", query=QUERY, limit=3)
    assert calls == {MINILM: 1, BGE: 1}
    assert found.hits[0].path == "/pumps.md"
    with QueryCounts(harness) as calls:
        await client.search_pages(namespace="moving-notes", query=QUERY, limit=3)
    assert calls == {BGE: 1}  # remembered now

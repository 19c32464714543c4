"""The LangChain and LlamaIndex retrievers (quire.client.langchain, quire.client.llama_index)
against a real server: a tiny site synced on loopback and a collection of three documents
indexed by the worker; sync and async paths with both clients; the runnable examples."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient, QuireClient
from quire.client import filters as f
from quire.v1 import pages_pb2
from tests.conftest import Harness, Keys
from tests.integration.test_examples import run
from tests.support.site_server import SiteServer

if TYPE_CHECKING:
    from langchain_core.documents import Document
    from llama_index.core.schema import NodeWithScore

# The module takes 4 s, and 5 s of imports under load (`make test-fast` leaves it out).
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
NEEDS_WORKER = True
NS = "rag-site"
AGENT = "rag-agent"
PAGES = {
    "install.md": "# Install\n\n## With pip\n\nRun `pip install frobnicator` to install it.\n",
    "tokens.md": "# Tokens\n\nRotate your OAuth2 bearer tokens every day.\n",
    "backups.md": "# Backups\n\nSnapshots of the database are kept for ninety days.\n",
}
DOCUMENTS = {
    "walrus.md": ("# Walruses\n\nWalruses eat clams on the sea floor.\n", {"animal": "walrus"}),
    "otters.md": ("# Otters\n\nSea otters hold hands while they sleep.\n", {"animal": "otter"}),
    "budget.txt": ("The aquarium fund pays for the clams the walruses eat.\n", {"kind": "budget"}),
}


@dataclass
class World:
    keys: Keys
    collection_id: str
    documents: dict[str, str]  # file name → document id


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, harness: Harness) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("rag-site")
    # The link text is the page's title; each page's first line is its heading.
    links = "\n".join(f"- [{text.splitlines()[0][2:]}](/{name})" for name, text in PAGES.items())
    (root / "llms.txt").write_text(f"# Site\n\n{links}\n")
    for name, text in PAGES.items():
        (root / name).write_text(text)
    server = SiteServer(root=root)
    with server:
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def world(harness: Harness, site: SiteServer) -> World:
    """The namespace synced, the collection's documents indexed, the agent attached to it."""
    keys = await harness.keys("rag-org")
    async with AsyncQuireClient(harness.address, api_key=keys.all) as client:
        async for message in client.sync_pages(namespace=NS, url=f"{site.url}/llms.txt"):
            if isinstance(message, pages_pb2.SyncReport):
                assert message.status == pages_pb2.SYNC_STATUS_COMPLETED, list(message.errors)
                assert message.updated == len(PAGES)
        collection = await client.create_collection(name="rag-handbook")
        documents = {}
        for name, (text, metadata) in DOCUMENTS.items():
            doc = await client.upload_document(
                collection_id=collection.collection_id,
                file_name=name,
                data=text.encode(),
                external_key=f"handbook/{name}",
                metadata=metadata,
            )
            documents[name] = doc.document_id
        await client.upsert_agent(
            agent_id=AGENT, attached_collection_ids=[collection.collection_id]
        )
        waited = await client.wait_until_searchable(
            collection_id=collection.collection_id, timeout=120
        )
        assert waited.complete and {o.outcome for o in waited.outcomes} == {"INDEXED"}, waited
    return World(keys, collection.collection_id, documents)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, world: World) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=world.keys.read) as c:
        yield c


def blocking(harness: Harness, world: World) -> QuireClient:
    return QuireClient(harness.address, api_key=world.keys.read)


# The retrievers are imported when a test of theirs runs, not when the module is collected:
# LangChain and LlamaIndex take seconds to import, which a run that leaves these tests out
# (`make test-fast`) should not pay.
@pytest.fixture(scope="module")
def lc() -> ModuleType:
    return importlib.import_module("quire.client.langchain")


@pytest.fixture(scope="module")
def li() -> ModuleType:
    return importlib.import_module("quire.client.llama_index")


async def test_langchain_knowledge_async_through_an_agent(
    client: AsyncQuireClient, world: World, lc: ModuleType
) -> None:
    retriever = lc.QuireKnowledgeRetriever(client=client, agent_id=AGENT, mode="hybrid", limit=2)
    docs = await retriever.ainvoke("what do walruses eat")
    assert 1 <= len(docs) <= 2
    top = docs[0]
    assert "Walruses eat clams" in top.page_content
    meta = top.metadata
    assert meta["document_id"] == world.documents["walrus.md"]
    assert meta["collection_id"] == world.collection_id
    assert meta["file_name"] == meta["source"] == "walrus.md"
    assert meta["external_key"] == "handbook/walrus.md"
    assert meta["rank"] == 1 and meta["score"] > 0
    assert [d.metadata["rank"] for d in docs] == list(range(1, len(docs) + 1))
    # A HYBRID chunk hit: its chunk, where it sits, the generation it was read from.
    assert meta["chunk_id"] and top.id == meta["chunk_id"]
    assert meta["chunk_ordinal"] == 0
    assert meta["heading_path"] == ["Walruses"]
    assert meta["index_generation"] >= 1
    assert meta["index_state"] == "INDEXED" and meta["mode"] == "HYBRID"
    assert meta["document_metadata"] == {"animal": "walrus"}


async def test_langchain_knowledge_blocking_with_collections_filter_and_legacy_mode(
    harness: Harness, world: World, lc: ModuleType
) -> None:
    def search() -> list[Document]:
        with blocking(harness, world) as c:
            retriever = lc.QuireKnowledgeRetriever(
                client=c,
                collection_ids=[world.collection_id],
                mode="legacy_fts",
                filter=~f.eq("animal", "walrus"),
                include_metadata=False,
            )
            return retriever.invoke("clams")

    docs = await asyncio.to_thread(search)  # the server runs in this event loop
    # The walrus document matches "clams" too, but the filter leaves only the budget.
    assert [d.metadata["file_name"] for d in docs] == ["budget.txt"]
    meta = docs[0].metadata
    # The snippet is a ts_headline: its <b> highlight tags are left out of the text.
    assert "aquarium fund pays for the clams" in docs[0].page_content
    assert "<b>" not in docs[0].page_content
    assert meta["document_id"] == world.documents["budget.txt"] == docs[0].id
    # LEGACY_FTS hits are documents: no chunk fields, no index state.
    assert meta["mode"] == "LEGACY_FTS" and meta["index_state"] == "UNSPECIFIED"
    assert meta["chunk_id"] is None and meta["index_generation"] is None
    assert "document_metadata" not in meta


async def test_langchain_blocking_client_serves_ainvoke_on_a_thread(
    harness: Harness, world: World, lc: ModuleType
) -> None:
    with blocking(harness, world) as c:
        retriever = lc.QuireKnowledgeRetriever(client=c, agent_id=AGENT, mode="hybrid")
        docs = await retriever.ainvoke("sea otters sleep")
    assert docs[0].metadata["file_name"] == "otters.md"


async def test_langchain_pages_async_and_blocking(
    harness: Harness, client: AsyncQuireClient, world: World, site: SiteServer, lc: ModuleType
) -> None:
    retriever = lc.QuirePagesRetriever(
        client=client, namespace=NS, alternatives=["how to set it up with pip"], limit=3
    )
    docs = await retriever.ainvoke("install frobnicator")
    top = docs[0]
    assert "pip install frobnicator" in top.page_content
    meta = top.metadata
    assert meta["path"] == "/install.md" and meta["title"] == "Install"
    assert meta["url"] == meta["source"] == f"{site.url}/install"  # the citation URL
    assert meta["namespace"] == NS and meta["rank"] == 1 and meta["score"] > 0
    assert meta["heading_path"] == ["Install", "With pip"]
    assert meta["chunk_id"] == top.id and meta["filesystem_version"] >= 1
    # The revision is the one the text came from: ReadPage at it returns the same page.
    read = await client.read_page(namespace=NS, path=meta["path"], revision=meta["revision"])
    assert read.page.revision == meta["revision"] and "frobnicator" in read.content

    def search() -> list[Document]:
        with blocking(harness, world) as c:
            return lc.QuirePagesRetriever(client=c, namespace=NS, limit=3).invoke("bearer tokens")

    found = await asyncio.to_thread(search)
    assert found[0].metadata["path"] == "/tokens.md"
    assert "Rotate your OAuth2 bearer tokens" in found[0].page_content


async def test_langchain_refuses_what_it_cannot_serve(
    client: AsyncQuireClient, lc: ModuleType
) -> None:
    with pytest.raises(TypeError, match="ainvoke only"):
        lc.QuirePagesRetriever(client=client, namespace=NS).invoke("install")
    with pytest.raises(ValueError, match="agent_id or collection_ids"):
        lc.QuireKnowledgeRetriever(client=client)
    with pytest.raises(ValueError, match="RETRIEVAL_MODE_NOPE"):
        lc.QuireKnowledgeRetriever(client=client, agent_id=AGENT, mode="nope")


async def test_llamaindex_knowledge_async_and_blocking(
    harness: Harness, client: AsyncQuireClient, world: World, li: ModuleType
) -> None:
    retriever = li.QuireKnowledgeRetriever(client, agent_id=AGENT, mode="hybrid", limit=2)
    nodes = await retriever.aretrieve("what do walruses eat")
    top = nodes[0]
    assert "Walruses eat clams" in top.node.get_content()
    meta = top.node.metadata
    assert top.score == meta["score"] and meta["rank"] == 1
    assert meta["document_id"] == world.documents["walrus.md"]
    assert meta["collection_id"] == world.collection_id and meta["file_name"] == "walrus.md"
    assert top.node.node_id == meta["chunk_id"] and meta["chunk_ordinal"] == 0
    assert meta["index_generation"] >= 1 and meta["document_metadata"] == {"animal": "walrus"}
    source = top.node.source_node
    assert source is not None and source.node_id == world.documents["walrus.md"]
    # The model sees where the text comes from, not ids and scores.
    from llama_index.core.schema import MetadataMode

    shown = top.node.get_content(MetadataMode.LLM)
    assert "file_name: walrus.md" in shown and "Walruses eat clams" in shown
    assert world.documents["walrus.md"] not in shown and "score" not in shown

    def search() -> list[NodeWithScore]:
        with blocking(harness, world) as c:
            return li.QuireKnowledgeRetriever(
                c, collection_ids=[world.collection_id], filter=f.eq("kind", "budget")
            ).retrieve("clams")

    found = await asyncio.to_thread(search)
    assert [n.node.metadata["file_name"] for n in found] == ["budget.txt"]
    assert found[0].node.metadata["document_metadata"] == {"kind": "budget"}


async def test_llamaindex_pages_async_and_blocking(
    harness: Harness, client: AsyncQuireClient, world: World, site: SiteServer, li: ModuleType
) -> None:
    retriever = li.QuirePagesRetriever(client, namespace=NS, limit=3)
    nodes = await retriever.aretrieve("how long are database snapshots kept")
    top = nodes[0]
    meta = top.node.metadata
    assert meta["path"] == "/backups.md" and meta["title"] == "Backups"
    assert "ninety days" in top.node.get_content()
    assert top.score == meta["score"] and top.node.node_id == meta["chunk_id"]
    assert meta["revision"] and meta["url"] == f"{site.url}/backups"
    source = top.node.source_node
    assert source is not None and source.node_id == "/backups.md"

    def search() -> list[NodeWithScore]:
        with blocking(harness, world) as c:
            return li.QuirePagesRetriever(c, namespace=NS).retrieve("bearer tokens")

    found = await asyncio.to_thread(search)
    assert found[0].node.metadata["path"] == "/tokens.md"
    with pytest.raises(TypeError, match="aretrieve only"):
        retriever.retrieve("install")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def example_keys(harness: Harness, site: SiteServer) -> Keys:
    """Another organisation, with the same namespace synced, for the examples to write to."""
    keys = await harness.keys("rag-example-org")
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        async for message in c.sync_pages(namespace=NS, url=f"{site.url}/llms.txt"):
            if isinstance(message, pages_pb2.SyncReport):
                assert message.status == pages_pb2.SYNC_STATUS_COMPLETED, list(message.errors)
    return keys


@pytest.mark.slow  # over 10 s under load (`make test-fast` leaves it out)
@pytest.mark.parametrize("script", ["langchain_retriever.py", "llamaindex_retriever.py"])
async def test_example_runs(harness: Harness, example_keys: Keys, script: str) -> None:
    code, out = await run(script, harness.address, NS, env={"QUIRE_API_KEY": example_keys.write})
    assert code == 0, out
    assert "Rotterdam" in out, out  # a knowledge hit was printed
    assert "Install" in out, out  # and a page hit

"""LlamaIndex retrievers over Quire (`pip install 'quire-client[llamaindex]'`).

    from quire.client import QuireClient
    from quire.client.llama_index import QuireKnowledgeRetriever

    retriever = QuireKnowledgeRetriever(QuireClient(), agent_id="support-bot", limit=5)
    nodes = retriever.retrieve("refund window")  # -> list[NodeWithScore]

`client` is a `QuireClient` (serves `retrieve`, and `aretrieve` on a worker thread) or an
`AsyncQuireClient` (serves `aretrieve` only). Each node holds the hit's text, its fields in
`metadata` and, as its source node, the page path or document id (docs/clients/python.md,
"LangChain and LlamaIndex").
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from quire.client._convert import ModeArg
from quire.client._passages import CITATION_KEYS, KnowledgeSearch, PageSearch, Passage
from quire.client.aio import AsyncQuireClient
from quire.client.blocking import QuireClient
from quire.client.filters import FilterArg

try:
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import (
        NodeRelationship,
        NodeWithScore,
        QueryBundle,
        RelatedNodeInfo,
        TextNode,
    )
except ImportError as exc:  # the base client does not depend on LlamaIndex
    raise ImportError(
        "quire.client.llama_index needs llama-index-core: pip install 'quire-client[llamaindex]'"
    ) from exc

__all__ = ["QuireKnowledgeRetriever", "QuirePagesRetriever"]


class _QuireRetriever(BaseRetriever):
    def __init__(
        self,
        client: QuireClient | AsyncQuireClient,
        search: KnowledgeSearch | PageSearch,
        callback_manager: CallbackManager | None,
    ) -> None:
        super().__init__(callback_manager=callback_manager)
        self.client = client
        self.search = search

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if not isinstance(self.client, QuireClient):
            # A grpc.aio channel belongs to its event loop: it cannot serve a blocking call.
            raise TypeError("an AsyncQuireClient serves aretrieve only; use a QuireClient")
        return _nodes(self.search.run(self.client, query_bundle.query_str))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        query = query_bundle.query_str
        if isinstance(self.client, AsyncQuireClient):
            return _nodes(await self.search.arun(self.client, query))
        return _nodes(await asyncio.to_thread(self.search.run, self.client, query))


class QuireKnowledgeRetriever(_QuireRetriever):
    """SearchKnowledge: an agent's collections (`agent_id`) or `collection_ids`, with an optional
    retrieval `mode` ("hybrid", "legacy_fts"), metadata `filter` (quire.client.filters) and
    `limit`; `include_metadata` puts each document's metadata in `document_metadata`."""

    def __init__(
        self,
        client: QuireClient | AsyncQuireClient,
        *,
        agent_id: str | None = None,
        collection_ids: Sequence[str] = (),
        mode: ModeArg | None = None,
        filter: FilterArg | None = None,
        limit: int | None = None,
        include_metadata: bool = True,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        search = KnowledgeSearch(agent_id, collection_ids, mode, filter, limit, include_metadata)
        super().__init__(client, search, callback_manager)


class QuirePagesRetriever(_QuireRetriever):
    """SearchPages over a published `namespace`; `alternatives` are extra phrasings searched
    with every query and fused with it."""

    def __init__(
        self,
        client: QuireClient | AsyncQuireClient,
        *,
        namespace: str,
        alternatives: Sequence[str] = (),
        limit: int | None = None,
        max_output_bytes: int | None = None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        search = PageSearch(namespace, alternatives, limit, max_output_bytes)
        super().__init__(client, search, callback_manager)


def _nodes(passages: list[Passage]) -> list[NodeWithScore]:
    nodes = []
    for p in passages:
        # Only where the text comes from is shown to the model and the embedder.
        hidden = [key for key in p.metadata if key not in CITATION_KEYS]
        node = TextNode(
            id_=p.id,
            text=p.text,
            metadata=p.metadata,
            excluded_llm_metadata_keys=hidden,
            excluded_embed_metadata_keys=hidden,
            relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=p.source_id)},
        )
        nodes.append(NodeWithScore(node=node, score=p.score))
    return nodes

"""LangChain retrievers over Quire (`pip install 'quire-client[langchain]'`).

    from quire.client import QuireClient
    from quire.client.langchain import QuireKnowledgeRetriever

    retriever = QuireKnowledgeRetriever(client=QuireClient(), agent_id="support-bot", limit=5)
    docs = retriever.invoke("refund window")  # -> list[Document]

`client` is a `QuireClient` (serves `invoke`, and `ainvoke` on a worker thread) or an
`AsyncQuireClient` (serves `ainvoke` only). Each `Document` holds the hit's text and its
fields in `metadata` (docs/clients/python.md, "LangChain and LlamaIndex").
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from quire.client._convert import ModeArg
from quire.client._passages import KnowledgeSearch, PageSearch, Passage
from quire.client.aio import AsyncQuireClient
from quire.client.blocking import QuireClient
from quire.client.filters import FilterArg

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # the base client does not depend on LangChain
    raise ImportError(
        "quire.client.langchain needs langchain-core: pip install 'quire-client[langchain]'"
    ) from exc

__all__ = ["QuireKnowledgeRetriever", "QuirePagesRetriever"]


class _QuireRetriever(BaseRetriever):
    client: QuireClient | AsyncQuireClient

    def _query(self) -> KnowledgeSearch | PageSearch:
        raise NotImplementedError

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if not isinstance(self.client, QuireClient):
            # A grpc.aio channel belongs to its event loop: it cannot serve a blocking call.
            raise TypeError("an AsyncQuireClient serves ainvoke only; use a QuireClient for invoke")
        return _documents(self._query().run(self.client, query))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if isinstance(self.client, AsyncQuireClient):
            return _documents(await self._query().arun(self.client, query))
        return _documents(await asyncio.to_thread(self._query().run, self.client, query))


class QuireKnowledgeRetriever(_QuireRetriever):
    """SearchKnowledge: an agent's collections (`agent_id`) or `collection_ids`, with an optional
    retrieval `mode` ("hybrid", "legacy_fts"), metadata `filter` (quire.client.filters) and
    `limit`; `include_metadata` puts each document's metadata in `document_metadata`."""

    agent_id: str | None = None
    collection_ids: Sequence[str] = ()
    mode: ModeArg | None = None
    filter: FilterArg | None = None
    limit: int | None = None
    include_metadata: bool = True

    def _query(self) -> KnowledgeSearch:
        return KnowledgeSearch(
            agent_id=self.agent_id,
            collection_ids=self.collection_ids,
            mode=self.mode,
            filter=self.filter,
            limit=self.limit,
            include_metadata=self.include_metadata,
        )

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._query()  # refuse a missing target or an unknown mode now, not at the first query


class QuirePagesRetriever(_QuireRetriever):
    """SearchPages over a published `namespace`; `alternatives` are extra phrasings searched
    with every query and fused with it."""

    namespace: str
    alternatives: Sequence[str] = ()
    limit: int | None = None
    max_output_bytes: int | None = None

    def _query(self) -> PageSearch:
        return PageSearch(
            namespace=self.namespace,
            alternatives=self.alternatives,
            limit=self.limit,
            max_output_bytes=self.max_output_bytes,
        )


def _documents(passages: list[Passage]) -> list[Document]:
    return [Document(page_content=p.text, metadata=p.metadata, id=p.id) for p in passages]

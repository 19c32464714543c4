"""What the framework retrievers (quire.client.langchain, quire.client.llama_index) share: the
search they run, with either client, and each hit as a framework-neutral passage."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quire.client._convert import ModeArg, retrieval_mode
from quire.client.aio import AsyncQuireClient
from quire.client.blocking import QuireClient
from quire.client.filters import FilterArg
from quire.client.structs import to_dict
from quire.v1 import knowledge_pb2, knowledge_service_pb2, pages_pb2

# The metadata keys that say where a passage comes from. LlamaIndex shows a node's metadata to
# the model and the embedder; ids, scores and revisions there are noise, so it shows only these.
CITATION_KEYS = ("title", "url", "file_name", "heading_path")

_HIGHLIGHT = re.compile(r"</?b>")


@dataclass(frozen=True)
class Passage:
    """One hit: its text, a stable id, the hit's score, the id of the page or document it is
    part of, and the hit's fields as JSON-friendly metadata."""

    id: str
    text: str
    score: float
    source_id: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class KnowledgeSearch:
    """SearchKnowledge with fixed arguments: an agent or collections, mode, filter, limit."""

    agent_id: str | None = None
    collection_ids: Sequence[str] = ()
    mode: ModeArg | None = None
    filter: FilterArg | None = None
    limit: int | None = None
    include_metadata: bool = True

    def __post_init__(self) -> None:
        # The server would refuse it too, but only at the first query; say it at construction.
        if bool(self.agent_id) == bool(self.collection_ids):
            raise ValueError("give agent_id or collection_ids (exactly one)")
        retrieval_mode(self.mode)  # an unknown mode name raises ValueError here

    def arguments(self, query: str) -> dict[str, Any]:
        """The search_knowledge arguments, the same for either client."""
        return {
            "query": query,
            "agent_id": self.agent_id,
            "collection_ids": self.collection_ids,
            "limit": self.limit,
            "mode": retrieval_mode(self.mode),
            "filter": self.filter,
            "include_metadata": self.include_metadata,
        }

    def run(self, client: QuireClient, query: str) -> list[Passage]:
        return knowledge_passages(client.search_knowledge(**self.arguments(query)))

    async def arun(self, client: AsyncQuireClient, query: str) -> list[Passage]:
        return knowledge_passages(await client.search_knowledge(**self.arguments(query)))


@dataclass(frozen=True)
class PageSearch:
    """SearchPages with fixed arguments: a namespace, extra phrasings, limit, byte budget."""

    namespace: str
    alternatives: Sequence[str] = ()
    limit: int | None = None
    max_output_bytes: int | None = None

    def arguments(self, query: str) -> dict[str, Any]:
        """The search_pages arguments, the same for either client."""
        return {
            "namespace": self.namespace,
            "query": query,
            "alternatives": self.alternatives,
            "limit": self.limit,
            "max_output_bytes": self.max_output_bytes,
        }

    def run(self, client: QuireClient, query: str) -> list[Passage]:
        return page_passages(client.search_pages(**self.arguments(query)))

    async def arun(self, client: AsyncQuireClient, query: str) -> list[Passage]:
        return page_passages(await client.search_pages(**self.arguments(query)))


def knowledge_passages(found: knowledge_service_pb2.SearchKnowledgeResponse) -> list[Passage]:
    mode = knowledge_pb2.RetrievalMode.Name(found.mode).removeprefix("RETRIEVAL_MODE_")
    passages = []
    for hit in found.hits:
        chunk = bool(hit.chunk_id)  # HYBRID chunk hits; document-level hits have no chunk fields
        metadata: dict[str, Any] = {
            "source": hit.file_name,
            "document_id": hit.document_id,
            "collection_id": hit.collection_id,
            "file_name": hit.file_name,
            "external_key": hit.external_key or None,
            "score": hit.score,
            "rank": hit.rank,
            "chunk_id": hit.chunk_id if chunk else None,
            "chunk_ordinal": hit.chunk_ordinal if chunk else None,
            "heading_path": list(hit.heading_path),
            "index_generation": hit.index_generation if chunk else None,
            "index_state": knowledge_pb2.HitIndexState.Name(hit.index_state).removeprefix(
                "HIT_INDEX_STATE_"
            ),
            "mode": mode,
        }
        if hit.HasField("metadata"):
            metadata["document_metadata"] = to_dict(hit.metadata)
        passages.append(
            Passage(
                id=hit.chunk_id or hit.document_id,
                # A document-level hit's snippet is a ts_headline, which marks the query's
                # words with <b>…</b>: markup a prompt or an embedder should not see.
                text=hit.snippet if chunk else _HIGHLIGHT.sub("", hit.snippet),
                score=hit.score,
                source_id=hit.document_id,
                metadata=metadata,
            )
        )
    return passages


def page_passages(result: pages_pb2.SearchResult) -> list[Passage]:
    return [
        Passage(
            id=hit.chunk_id,
            text=hit.content,
            score=hit.score,
            source_id=hit.path,
            metadata={
                "source": hit.url,
                "namespace": result.namespace,
                "path": hit.path,
                "url": hit.url,
                "title": hit.title,
                "revision": hit.revision,
                "chunk_id": hit.chunk_id,
                "score": hit.score,
                "rank": hit.rank,
                "heading_path": list(hit.heading_path),
                "filesystem_version": result.filesystem_version,
            },
        )
        for hit in result.hits
    ]

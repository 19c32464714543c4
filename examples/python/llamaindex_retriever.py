"""Quire as a LlamaIndex retriever: knowledge documents, and published pages when a namespace is
given. Needs `pip install 'quire-client[llamaindex]'` and a server with a worker (`make run`).

    .venv/bin/python examples/python/llamaindex_retriever.py [ADDRESS] [NAMESPACE]

ADDRESS defaults to $QUIRE_ADDRESS or 127.0.0.1:50051; the key is $QUIRE_API_KEY (scopes read
+ write). The program uploads two documents to a new collection, attaches it to the agent
`llamaindex-example`, retrieves through the agent with the async client, searches NAMESPACE (a
synced page namespace) if given, and deletes the collection again.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid

from llama_index.core.schema import MetadataMode, NodeWithScore

from quire.client import AsyncQuireClient
from quire.client.llama_index import QuireKnowledgeRetriever, QuirePagesRetriever

HANDBOOK = {
    "refunds.md": b"# Refunds\n\nCustomers may ask for a refund within 30 days of purchase.\n",
    "shipping.md": b"# Shipping\n\nOrders ship from Rotterdam within two working days.\n",
}
AGENT = "llamaindex-example"  # upserted on every run: it then holds the new collection only


def show(nodes: list[NodeWithScore]) -> None:
    for n in nodes:
        # What an LLM would be shown: the citation fields and the text (ids and scores hidden).
        print(f"  score {n.get_score():.4f}: {n.node.get_content(MetadataMode.LLM)!r}")


async def run(address: str, namespace: str | None) -> int:
    async with AsyncQuireClient(address) as client:  # the key comes from $QUIRE_API_KEY
        collection = await client.create_collection(name=f"llamaindex-{uuid.uuid4().hex[:8]}")
        try:
            for name, data in HANDBOOK.items():
                await client.upload_document(
                    collection_id=collection.collection_id, file_name=name, data=data
                )
            await client.upsert_agent(
                agent_id=AGENT, attached_collection_ids=[collection.collection_id]
            )
            waited = await client.wait_until_searchable(
                collection_id=collection.collection_id, timeout=60
            )
            if not waited.complete:
                print("documents not indexed within 60 s", file=sys.stderr)
                return 1

            retriever = QuireKnowledgeRetriever(client, agent_id=AGENT, mode="hybrid", limit=2)
            nodes = await retriever.aretrieve("where do orders ship from")
            print("knowledge:")
            show(nodes)
            top = nodes[0].node
            source = top.source_node  # the document the chunk is part of
            print(f"top hit: {top.metadata['file_name']}, document {source and source.node_id}")

            if namespace:
                pages = QuirePagesRetriever(client, namespace=namespace, limit=3)
                print(f"pages of {namespace}:")
                show(await pages.aretrieve("install"))
        finally:
            await client.delete_collection(collection_id=collection.collection_id)
    return 0


def main(argv: list[str]) -> int:
    address = argv[1] if len(argv) > 1 else os.environ.get("QUIRE_ADDRESS", "127.0.0.1:50051")
    return asyncio.run(run(address, argv[2] if len(argv) > 2 else None))


if __name__ == "__main__":
    sys.exit(main(sys.argv))

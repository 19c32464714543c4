"""Quire as a LangChain retriever: knowledge documents, and published pages when a namespace is
given. Needs `pip install 'quire-client[langchain]'` and a server with a worker (`make run`).

    .venv/bin/python examples/python/langchain_retriever.py [ADDRESS] [NAMESPACE]

ADDRESS defaults to $QUIRE_ADDRESS or 127.0.0.1:50051; the key is $QUIRE_API_KEY (scopes read
+ write). The program uploads two documents to a new collection, retrieves from it with the
blocking and the async client, searches NAMESPACE (a synced page namespace) if given, and
deletes the collection again.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid

from langchain_core.documents import Document

from quire.client import AsyncQuireClient, QuireClient
from quire.client import filters as f
from quire.client.langchain import QuireKnowledgeRetriever, QuirePagesRetriever

HANDBOOK = {
    "refunds.md": b"# Refunds\n\nCustomers may ask for a refund within 30 days of purchase.\n",
    "shipping.md": b"# Shipping\n\nOrders ship from Rotterdam within two working days.\n",
}


def context(docs: list[Document]) -> str:
    """The retrieved passages as a prompt's context block, each with its citation."""
    return "\n\n".join(f"[{d.metadata['source']}] {d.page_content.strip()}" for d in docs)


async def search_async(address: str, collection_id: str) -> list[Document]:
    async with AsyncQuireClient(address) as client:
        retriever = QuireKnowledgeRetriever(
            client=client, collection_ids=[collection_id], filter=f.eq("team", "logistics")
        )
        return await retriever.ainvoke("where do orders ship from")


def main(argv: list[str]) -> int:
    address = argv[1] if len(argv) > 1 else os.environ.get("QUIRE_ADDRESS", "127.0.0.1:50051")
    with QuireClient(address) as client:  # the key comes from $QUIRE_API_KEY
        collection = client.create_collection(name=f"langchain-example-{uuid.uuid4().hex[:8]}")
        try:
            for name, data in HANDBOOK.items():
                team = "support" if name == "refunds.md" else "logistics"
                client.upload_document(
                    collection_id=collection.collection_id,
                    file_name=name,
                    data=data,
                    metadata={"team": team},
                )
            waited = client.wait_until_searchable(
                collection_id=collection.collection_id, timeout=60
            )
            if not waited.complete:
                print("documents not indexed within 60 s", file=sys.stderr)
                return 1

            retriever = QuireKnowledgeRetriever(
                client=client, collection_ids=[collection.collection_id], mode="hybrid", limit=3
            )
            docs = retriever.invoke("how long do customers have to ask for a refund")
            print("knowledge (blocking):")
            print(context(docs))
            top = docs[0].metadata
            print(f"top hit: {top['file_name']} rank {top['rank']} chunk {top['chunk_ordinal']}")

            print("knowledge (async, filtered to team=logistics):")
            print(context(asyncio.run(search_async(address, collection.collection_id))))

            if len(argv) > 2:
                pages = QuirePagesRetriever(client=client, namespace=argv[2], limit=3)
                print(f"pages of {argv[2]}:")
                for doc in pages.invoke("install"):
                    print(f"  {doc.metadata['title']} <{doc.metadata['url']}>")
        finally:
            client.delete_collection(collection_id=collection.collection_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

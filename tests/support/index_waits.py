"""Waiting for a collection's serving index generation to hold every document."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg

from quire.client import AsyncQuireClient
from quire.v1 import knowledge_pb2


async def wait_indexed(
    client: AsyncQuireClient, collection_id: str, within: float = 120, documents: int = 0
) -> None:
    """Until the serving generation holds every READY document with text, and at least
    `documents` of them: an upload still being extracted is not READY yet, so without that
    count the wait can end before it is counted at all."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        status = await client.get_index_status(collection_id=collection_id)
        serving = [g for g in status.generations if g.generation == status.serving_generation]
        if serving and serving[0].documents_indexed >= max(serving[0].documents_total, documents):
            return
        assert asyncio.get_running_loop().time() < deadline, status
        await asyncio.sleep(0.2)


async def wait_settled(pool: asyncpg.Pool, collection_id: str, within: float = 120) -> None:
    """Until the worker has settled the collection (nothing pending, exact term statistics):
    before that, BM25 scores use interim statistics and its results are not cached."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        async with pool.acquire() as conn:
            settled = await conn.fetchval(
                "SELECT settled_revision = revision FROM collections WHERE collection_id = $1",
                uuid.UUID(collection_id),
            )
        if settled:
            return
        assert asyncio.get_running_loop().time() < deadline, "collection never settled"
        await asyncio.sleep(0.1)


async def filled(
    client: AsyncQuireClient, name: str, files: dict[str, bytes], model: str = ""
) -> knowledge_pb2.Collection:
    """A new collection of `model` (the default when empty) holding `files`, once its serving
    generation holds them all."""
    collection = await client.create_collection(name=name, embedding_model=model)
    for file_name, data in files.items():
        await client.upload_document(
            collection_id=collection.collection_id, file_name=file_name, data=data
        )
    await wait_indexed(client, collection.collection_id, within=300, documents=len(files))
    return collection

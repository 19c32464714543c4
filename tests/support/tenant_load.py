"""A bulk-loading tenant and a small one, for the fair-indexing test and benchmark: the bulk
load's files, and how long the small tenant's upload takes to be found and indexed."""

from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg

from quire.client import AsyncQuireClient
from quire.v1 import knowledge_pb2

# The document's chunks in its collection's serving generation.
INDEXED = """
SELECT count(*) FROM knowledge_chunks k
JOIN collections c ON c.org_id = k.org_id AND c.collection_id = k.collection_id
     AND c.serving_generation = k.generation
WHERE k.org_id = $1 AND k.document_id = $2
"""
WORDS = ("turbine", "blade", "coolant", "valve", "pressure", "sensor", "housing", "torque")
WORDS += ("flange", "gasket", "rotor", "bearing", "lubricant", "manifold", "throttle", "seal")


def big_text(size: int) -> bytes:
    """`size` bytes of prose-like lines, numbered so that chunks differ."""
    lines = []
    total = i = 0
    while total < size:
        line = f"Line {i}: " + " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(14))
        line += "." + ("\n\n" if i % 6 == 5 else "\n")
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines).encode()[:size]


async def upload_burst(client: AsyncQuireClient, collection_id: str, count: int) -> None:
    """`count` small text files, 16 uploads at a time."""
    gate = asyncio.Semaphore(16)

    async def one(i: int) -> None:
        async with gate:
            await client.upload_document(
                collection_id=collection_id,
                file_name=f"b{i}.txt",
                data=f"Burst note {i}: flange {i % 97} torque check.".encode(),
            )

    await asyncio.gather(*(one(i) for i in range(count)))


async def time_to_indexed(
    pool: asyncpg.Pool,
    client: AsyncQuireClient,
    org_id: uuid.UUID,
    name: str,
    word: str,
    *,
    within_s: float = 60.0,
) -> tuple[float, float]:
    """Uploads one small document into a new collection of the (HYBRID) organisation; seconds
    until a HYBRID search finds it, and until its chunks serve and a search finds it then."""
    cid = (await client.create_collection(name=name)).collection_id
    started = time.monotonic()
    doc = await client.upload_document(
        collection_id=cid,
        file_name=f"{name}.txt",
        data=f"The {word} gauge reads the coolant loop pressure every morning.".encode(),
    )
    found = None
    while time.monotonic() - started < within_s:
        reply = await client.search_knowledge(collection_ids=[cid], query=word)
        assert reply.mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID, reply.mode
        hit = any(h.document_id == doc.document_id for h in reply.hits)
        if hit and found is None:
            found = time.monotonic() - started
        async with pool.acquire() as conn:
            chunks = await conn.fetchval(INDEXED, org_id, uuid.UUID(doc.document_id))
        if hit and chunks:
            return found or 0.0, time.monotonic() - started
        await asyncio.sleep(0.1)
    raise AssertionError(f"{name} not indexed within {within_s:.0f} s")

"""The search result cache (design §4).

The key holds the organisation, the mode, every collection's id, revision, serving
generation and term-statistics version, the normalised query, the limit and the index
fingerprint, so any upload, edit, removal, generation flip or statistics refresh makes old
entries unreachable. A result is written only when every collection searched is settled
(its index has caught up with its revision: `ReachableCollection.settled`), so a cached answer
is the one a fresh search gives. Partial results are never written; in HYBRID a write also
needs a passed FTS baseline gate for the current fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence

import asyncpg

from quire.server import telemetry
from quire.server.knowledge.reachable import ReachableCollection
from quire.v1 import knowledge_service_pb2

TTL_SECONDS = 600

LOOKUP = """
SELECT result FROM search_cache WHERE org_id = $1 AND cache_key = $2 AND expires_at > now()
"""
WRITE = """
INSERT INTO search_cache (org_id, cache_key, result, expires_at)
VALUES ($1, $2, $3, now() + make_interval(secs => $4))
ON CONFLICT (org_id, cache_key) DO UPDATE SET result = EXCLUDED.result,
    created_at = now(), expires_at = EXCLUDED.expires_at
"""
GATE_PASSED = """
SELECT passed FROM gate_results WHERE fingerprint = $1 ORDER BY measured_at DESC LIMIT 1
"""


def normalise(query: str) -> str:
    return " ".join(query.lower().split())


def key(
    org_id: uuid.UUID,
    mode: int,
    collections: Sequence[ReachableCollection],
    query: str,
    limit: int,
    fingerprint: str,
    *,
    shape: Sequence[object] = (),
) -> bytes:
    """`shape`: whatever else of the request changes the response (its metadata filter,
    whether hits carry metadata), JSON-serialisable."""
    material = json.dumps(
        [
            str(org_id),
            mode,
            [
                [str(c.collection_id), c.revision, c.serving_generation, c.stats_version]
                for c in collections
            ],
            normalise(query),
            limit,
            fingerprint,
            *shape,
        ]
    )
    return hashlib.sha256(material.encode()).digest()


async def lookup(
    conn: asyncpg.Connection, org_id: uuid.UUID, cache_key: bytes, mode_name: str
) -> knowledge_service_pb2.SearchKnowledgeResponse | None:
    raw = await conn.fetchval(LOOKUP, org_id, cache_key)
    telemetry.cache_lookups.add(1, {"outcome": "hit" if raw else "miss", "mode": mode_name})
    if raw is None:
        return None
    return knowledge_service_pb2.SearchKnowledgeResponse.FromString(raw)


def settled(collections: Sequence[ReachableCollection]) -> bool:
    """Whether a result over `collections` may be cached: every collection's index has caught up
    with its revision (until then the same key can get a different answer)."""
    return all(c.settled for c in collections)


async def gate_passed(conn: asyncpg.Connection, fingerprint: str) -> bool:
    return bool(await conn.fetchval(GATE_PASSED, fingerprint))


async def write(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    cache_key: bytes,
    response: knowledge_service_pb2.SearchKnowledgeResponse,
) -> None:
    # A lost cache entry costs one recomputation, so the write need not wait for a disk flush.
    async with conn.transaction():
        await conn.execute("SET LOCAL synchronous_commit = off")
        await conn.execute(WRITE, org_id, cache_key, response.SerializeToString(), TTL_SECONDS)

"""The verified-key cache (auth.KeyVerifier): bounded, least recently used dropped first, and a
revocation made elsewhere (another server process, or the database directly) takes effect
within the documented `CACHE_TTL_S` (docs/operations.md, "Limits and deadlines")."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest

from quire.server import auth
from quire.v1 import knowledge_service_pb2, knowledge_service_pb2_grpc
from tests.conftest import Harness, bearer

pytestmark = pytest.mark.asyncio(loop_scope="session")
MARGIN_S = 1.0


@pytest.mark.slow  # 5 s under load (`make test-fast` leaves it out)
async def test_a_key_revoked_elsewhere_is_refused_within_the_cache_window(
    harness: Harness,
) -> None:
    keys = await harness.keys("key-cache-org")
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    request = knowledge_service_pb2.ListCollectionsRequest()
    await stub.ListCollections(request, metadata=bearer(keys.read))  # verified, now cached
    verifier: auth.KeyVerifier = harness.running.state.verifier  # type: ignore[attr-defined]
    assert verifier.cached(keys.read)
    key_id = keys.read[len(auth.KEY_PREFIX) :].split("_", 1)[0]
    async with harness.pool.acquire() as conn:  # as another process's RevokeApiKey does
        assert await auth.revoke_key(conn, keys.org_id, key_id)
    revoked_at = time.monotonic()
    while True:  # polled: each call either is refused or was served from the cache
        try:
            await stub.ListCollections(request, metadata=bearer(keys.read))
        except grpc.aio.AioRpcError as exc:
            assert exc.code() == grpc.StatusCode.UNAUTHENTICATED
            break
        assert time.monotonic() - revoked_at < auth.CACHE_TTL_S + MARGIN_S, "still accepted"
        await asyncio.sleep(0.02)  # the poll interval of the condition above, as until() does
    assert time.monotonic() - revoked_at < auth.CACHE_TTL_S + MARGIN_S
    assert not verifier.cached(keys.read)


async def test_the_cache_drops_the_least_recently_used_key(harness: Harness) -> None:
    keys = await harness.keys("key-cache-lru-org")
    verifier = auth.KeyVerifier(harness.pool, max_keys=2)
    await verifier.verify(keys.read)
    await verifier.verify(keys.write)
    await verifier.verify(keys.read)  # used again: `write` is now the least recent
    await verifier.verify(keys.admin)
    assert verifier.cached(keys.read)
    assert verifier.cached(keys.admin)
    assert not verifier.cached(keys.write)

"""The per-call caches of issue 33: DescribeTools' search bound and shared responses' bytes."""

from __future__ import annotations

import uuid

from quire.server import shared_responses
from quire.server.knowledge.search_limits import SearchLimits
from quire.v1 import pages_service_pb2


async def test_search_bound_is_read_once_within_its_window_and_again_after() -> None:
    reads: list[int] = []

    async def load() -> int:
        reads.append(1)
        return 8 + len(reads)

    org = uuid.uuid4()
    cached = SearchLimits(ttl_s=60.0)
    assert await cached.get(org, load) == 9
    assert await cached.get(org, load) == 9 and len(reads) == 1
    cached.forget(org)  # SetRetrievalPolicy in this process
    assert await cached.get(org, load) == 10
    expired = SearchLimits(ttl_s=0.0)
    assert await expired.get(org, load) == 11
    assert await expired.get(org, load) == 12  # the window is over: read again


async def test_search_bounds_are_bounded_in_number() -> None:
    async def load() -> int:
        return 8

    cached = SearchLimits(ttl_s=60.0, max_orgs=2)
    for _ in range(5):
        await cached.get(uuid.uuid4(), load)
    assert len(cached._cache) == 2


def test_kept_responses_are_sent_from_their_bytes_and_others_encoded() -> None:
    kept = shared_responses.keep(pages_service_pb2.DescribeToolsResponse(schema_version=1))
    encode = shared_responses.serializer(pages_service_pb2.DescribeToolsResponse.SerializeToString)
    assert encode is not None
    kept_bytes = encode(kept)
    assert kept_bytes == kept.SerializeToString()
    assert encode(kept) is kept_bytes  # the same bytes object: not encoded again
    other = pages_service_pb2.DescribeToolsResponse(schema_version=2)
    assert encode(other) == other.SerializeToString()
    assert shared_responses.serializer(None) is None

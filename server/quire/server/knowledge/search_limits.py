"""Each organisation's search bound (`max_search_limit`), cached for DescribeTools.

DescribeTools states the caller's bound in its schemas, and is otherwise built once per
process: reading the bound from the database was most of the call's time. It is trusted for
`auth.CACHE_TTL_S` seconds, the window verified keys already have: SetRetrievalPolicy forgets
the organisation's entry in the process that served it at once, other processes show the
new bound within that time (docs/operations.md). Searches themselves always read the policy.
"""

from __future__ import annotations

import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from quire.server.auth import CACHE_MAX_KEYS, CACHE_TTL_S


class SearchLimits:
    def __init__(self, ttl_s: float = CACHE_TTL_S, max_orgs: int = CACHE_MAX_KEYS) -> None:
        self._ttl_s = ttl_s
        self._max_orgs = max_orgs
        # organisation -> (monotonic expiry, bound), least recently used first
        self._cache: OrderedDict[uuid.UUID, tuple[float, int]] = OrderedDict()

    async def get(self, org_id: uuid.UUID, load: Callable[[], Awaitable[int]]) -> int:
        now = time.monotonic()
        hit = self._cache.get(org_id)
        if hit is not None and hit[0] > now:
            self._cache.move_to_end(org_id)
            return hit[1]
        bound = await load()
        self._cache[org_id] = (now + self._ttl_s, bound)
        self._cache.move_to_end(org_id)
        while len(self._cache) > self._max_orgs:
            self._cache.popitem(last=False)
        return bound

    def forget(self, org_id: uuid.UUID) -> None:
        self._cache.pop(org_id, None)

"""The per-organisation concurrency bound of the RPC layer."""

from __future__ import annotations

import uuid

import pytest

from quire.server.errors import QuireError
from quire.server.rpc import OrgLimiter
from quire.v1 import errors_pb2


def test_limit_is_per_organisation_and_released() -> None:
    limiter = OrgLimiter(2)
    a, b = uuid.uuid4(), uuid.uuid4()
    limiter.enter(a)
    limiter.enter(a)
    with pytest.raises(QuireError) as info:
        limiter.enter(a)
    assert info.value.code == errors_pb2.ERROR_CODE_RESOURCE_EXHAUSTED
    assert info.value.retry_after_s == 1
    limiter.enter(b)  # another organisation is unaffected
    limiter.leave(a)
    limiter.enter(a)
    for _ in range(2):
        limiter.leave(a)
    limiter.leave(b)
    assert limiter.in_flight == {}

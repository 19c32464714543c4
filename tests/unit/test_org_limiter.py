"""The per-organisation concurrency bound of the RPC layer."""

from __future__ import annotations

import uuid

import pytest

from quire.server.failures import QuireError
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


async def test_unary_turns_queue_per_organisation() -> None:
    import asyncio

    limiter = OrgLimiter(256, running=2)
    noisy, quiet = uuid.uuid4(), uuid.uuid4()
    release = asyncio.Event()
    order: list[str] = []

    async def call(org: uuid.UUID, name: str) -> None:
        async with limiter.turn(org):
            order.append(name)
            await release.wait()

    running = [asyncio.create_task(call(noisy, f"noisy-{i}")) for i in range(2)]
    waiting = asyncio.create_task(call(noisy, "noisy-3"))
    await asyncio.sleep(0.05)
    assert order == ["noisy-0", "noisy-1"], "the third call of the organisation waits its turn"
    other = asyncio.create_task(call(quiet, "quiet"))
    await asyncio.sleep(0.05)
    assert order[-1] == "quiet", "another organisation does not wait behind it"
    release.set()
    await asyncio.gather(*running, waiting, other)
    assert order[-1] == "noisy-3"
    assert limiter.queued_organisations == 0, "no per-organisation state is left behind"


async def test_a_cancelled_wait_gives_its_turn_back() -> None:
    import asyncio

    limiter = OrgLimiter(256, running=1)
    org = uuid.uuid4()
    release = asyncio.Event()

    async def hold() -> None:
        async with limiter.turn(org):
            await release.wait()

    holder = asyncio.create_task(hold())
    await asyncio.sleep(0.01)
    waiter = asyncio.create_task(hold())
    await asyncio.sleep(0.01)
    waiter.cancel()  # e.g. its deadline passed while it waited
    with pytest.raises(asyncio.CancelledError):
        await waiter
    release.set()
    await holder
    assert limiter.queued_organisations == 0
    async with limiter.turn(org):  # the turn is free again
        pass

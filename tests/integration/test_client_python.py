"""The Python client (async and blocking) against a real server and PostgreSQL."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from random import Random
from typing import Any, TypeVar

import pytest
import pytest_asyncio

import quire.client as qc
from quire.client import AsyncQuireClient, QuireClient, RetryPolicy
from quire.server.contract import bounds as B
from quire.v1 import knowledge_pb2, search_config_pb2
from tests.conftest import Harness, Keys

pytestmark = pytest.mark.asyncio(loop_scope="session")
T = TypeVar("T")

MOST_HITS = B.SetRetrievalPolicyRequest.max_search_limit.max or 0


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("client-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def other(harness: Harness) -> Keys:
    return await harness.keys("client-org-2")


@pytest_asyncio.fixture(loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


async def blocking(fn: Callable[[], T]) -> T:
    """The server runs in this event loop: blocking calls go to a thread."""
    return await asyncio.to_thread(fn)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def test_collections_round_trip_async(client: AsyncQuireClient) -> None:
    created = await client.create_collection(name="async-crud")
    assert isinstance(created, knowledge_pb2.Collection)
    assert created.name == "async-crud" and created.schema_version == 1
    got = await client.get_collection(collection_id=created.collection_id)
    assert got.collection_id == created.collection_id
    listed = await client.list_collections()
    assert created.collection_id in {c.collection_id for c in listed}
    with pytest.raises(qc.AlreadyExists):
        await client.create_collection(name="async-crud")
    deleted = await client.delete_collection(collection_id=created.collection_id)
    assert deleted.collection_id == created.collection_id
    with pytest.raises(qc.CollectionNotFound) as info:
        await client.get_collection(collection_id=created.collection_id)
    assert info.value.code_name == "COLLECTION_NOT_FOUND"
    assert '"error":"collection_not_found"' in qc.to_tool_error(info.value)


async def test_collections_round_trip_blocking(harness: Harness, keys: Keys) -> None:
    def scenario() -> None:
        with QuireClient(harness.address, api_key=keys.all) as c:
            created = c.create_collection(name="sync-crud")
            assert c.get_collection(collection_id=created.collection_id).name == "sync-crud"
            assert created.collection_id in {x.collection_id for x in c.list_collections()}
            c.delete_collection(collection_id=created.collection_id)
            with pytest.raises(qc.CollectionNotFound):
                c.get_collection(collection_id=created.collection_id)
            assert c.list_namespaces() == []

    await blocking(scenario)


async def test_admin_calls_async(client: AsyncQuireClient, harness: Harness) -> None:
    policy = await client.get_retrieval_policy()
    assert policy.max_search_limit == 8
    policy = await client.set_retrieval_policy(mode="hybrid", max_search_limit=MOST_HITS)
    assert policy.effective_mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID
    assert policy.max_search_limit == MOST_HITS
    with pytest.raises(qc.InvalidRequest):
        await client.set_retrieval_policy(max_search_limit=MOST_HITS + 1)
    engaged = await client.set_kill_switch(engaged=True)
    assert engaged.kill_switch_engaged
    assert engaged.effective_mode == knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS
    released = await client.set_kill_switch(engaged=False)
    assert released.effective_mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID
    await client.set_retrieval_policy(
        mode=knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS, max_search_limit=8
    )

    key = await client.create_api_key(scopes=["read"])
    assert key.secret and list(key.scopes) == [qc_scope_read()]
    async with AsyncQuireClient(harness.address, api_key=key.secret) as reader:
        await reader.list_collections()
        with pytest.raises(qc.PermissionDenied):
            await reader.create_collection(name="nope")
        await client.revoke_api_key(key_id=key.key_id)
        with pytest.raises(qc.Unauthenticated):
            await reader.list_collections()

    with pytest.raises(qc.InvalidRequest) as info:
        await client.set_namespace_search_config(
            namespace="docs",
            config=search_config_pb2.PageSearchConfig(max_parallel_workers_per_gather=2000),
        )
    assert [f for f, _ in info.value.field_violations] == ["config.max_parallel_workers_per_gather"]
    with pytest.raises(qc.NotFound):
        await client.set_namespace_search_config(
            namespace="nope", config=search_config_pb2.PageSearchConfig()
        )


def qc_scope_read() -> int:
    from quire.v1 import admin_pb2

    return admin_pb2.SCOPE_READ


async def test_admin_calls_blocking(harness: Harness, keys: Keys) -> None:
    def scenario() -> None:
        with QuireClient(harness.address, api_key=keys.admin) as c:
            assert c.get_retrieval_policy().schema_version == 1
            assert c.set_retrieval_policy(max_search_limit=9).max_search_limit == 9
            assert c.set_kill_switch(engaged=True).kill_switch_engaged
            assert not c.set_kill_switch(engaged=False).kill_switch_engaged
            c.set_retrieval_policy(max_search_limit=8)
            key = c.create_api_key(scopes=["read", "write"])
            c.revoke_api_key(key_id=key.key_id)
            with pytest.raises(qc.NotFound):
                c.revoke_api_key(key_id=key.key_id)
            with pytest.raises(qc.InvalidRequest):
                c.set_namespace_search_config(
                    namespace="docs",
                    config=search_config_pb2.PageSearchConfig(plan_cache_mode="sometimes"),
                )

    await blocking(scenario)


async def test_auth_errors_are_typed(harness: Harness, keys: Keys, monkeypatch: Any) -> None:
    monkeypatch.delenv("QUIRE_API_KEY", raising=False)
    async with AsyncQuireClient(harness.address) as anonymous:
        with pytest.raises(qc.Unauthenticated):
            await anonymous.list_collections()
    async with AsyncQuireClient(harness.address, api_key="qk_nope_nope") as invalid:
        with pytest.raises(qc.Unauthenticated):
            await invalid.list_collections()
    async with AsyncQuireClient(harness.address, api_key=keys.read) as reader:
        with pytest.raises(qc.PermissionDenied):
            await reader.get_retrieval_policy()
    monkeypatch.setenv("QUIRE_API_KEY", keys.read)
    async with AsyncQuireClient(harness.address) as from_env:
        await from_env.list_collections()


async def test_other_organisation_gets_collection_not_found(
    harness: Harness, keys: Keys, other: Keys
) -> None:
    async with (
        AsyncQuireClient(harness.address, api_key=keys.write) as mine,
        AsyncQuireClient(harness.address, api_key=other.write) as theirs,
    ):
        created = await mine.create_collection(name="private-client")
        with pytest.raises(qc.CollectionNotFound):
            await theirs.get_collection(collection_id=created.collection_id)
        with pytest.raises(qc.CollectionNotFound):
            await theirs.delete_collection(collection_id=created.collection_id)

    def blocking_check() -> None:
        with (
            QuireClient(harness.address, api_key=other.read) as c,
            pytest.raises(qc.CollectionNotFound),
        ):
            c.get_collection(collection_id=created.collection_id)

    await blocking(blocking_check)


async def _drain(iterator: AsyncIterator[Any]) -> list[Any]:
    return [item async for item in iterator]


class CountingRetry(RetryPolicy):
    def __init__(self) -> None:
        super().__init__(max_attempts=3, initial_backoff=0.05, max_backoff=0.2)
        object.__setattr__(self, "waits", [])

    def delay(
        self, failed_attempt: int, retry_after: timedelta | None = None, rng: Random | None = None
    ) -> float:
        value = super().delay(failed_attempt, retry_after, rng)
        self.waits.append(value)  # type: ignore[attr-defined]
        return value


async def test_unavailable_reads_are_retried_then_raise() -> None:
    target = f"127.0.0.1:{free_port()}"  # nothing listens there
    policy = CountingRetry()
    async with AsyncQuireClient(target, api_key="qk_x", retry=policy) as c:
        started = time.monotonic()
        with pytest.raises(qc.Unavailable):
            await c.list_collections()
        assert len(policy.waits) == 2  # 3 attempts
        with pytest.raises(qc.Unavailable):
            await c.create_collection(name="never")  # writes are never retried
        assert len(policy.waits) == 2
        assert time.monotonic() - started < 5


async def test_unavailable_blocking_is_retried_then_raises() -> None:
    target = f"127.0.0.1:{free_port()}"
    policy = CountingRetry()

    def scenario() -> None:
        with QuireClient(target, api_key="qk_x", retry=policy) as c:
            with pytest.raises(qc.Unavailable):
                c.get_collection(collection_id="x")
            with pytest.raises(qc.Unavailable):
                c.set_kill_switch(engaged=True)

    started = time.monotonic()
    await blocking(scenario)
    assert len(policy.waits) == 2
    assert time.monotonic() - started < 5


async def test_retries_stay_within_the_deadline() -> None:
    target = f"127.0.0.1:{free_port()}"
    slow = RetryPolicy(max_attempts=3, initial_backoff=5.0, max_backoff=5.0, multiplier=1.0)
    async with AsyncQuireClient(target, api_key="qk_x", retry=slow) as c:
        started = time.monotonic()
        with pytest.raises(qc.Unavailable):
            # Jitter may pick a tiny wait; the 0.5 s budget still bounds the whole call.
            await c.list_collections(timeout=0.5)
        assert time.monotonic() - started < 1.5


async def test_per_call_timeout_is_a_deadline(client: AsyncQuireClient) -> None:
    with pytest.raises(qc.DeadlineExceeded):
        await client.list_collections(timeout=1e-6)

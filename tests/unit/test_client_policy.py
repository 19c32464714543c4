"""Retry classification, backoff and default deadlines of the Python client."""

from __future__ import annotations

import math
import random
from datetime import timedelta

import grpc
import pytest

from quire.client import exceptions
from quire.client.policy import (
    DEFAULT_TIMEOUTS,
    RPC_KINDS,
    CallKind,
    RetryPolicy,
    Timeouts,
    is_idempotent,
    is_retryable,
    resolve_timeout,
)
from quire.v1 import admin_service_pb2, knowledge_service_pb2, pages_service_pb2

ALL_METHODS = [
    method
    for module, service in (
        (pages_service_pb2, "PagesService"),
        (knowledge_service_pb2, "KnowledgeService"),
        (admin_service_pb2, "AdminService"),
    )
    for method in module.DESCRIPTOR.services_by_name[service].methods
]


def test_every_rpc_has_a_kind() -> None:
    assert {m.name for m in ALL_METHODS} == set(RPC_KINDS)


def test_streams_are_never_idempotent() -> None:
    for method in ALL_METHODS:
        if method.client_streaming or method.server_streaming:
            assert not is_idempotent(method.name), method.name
            assert RPC_KINDS[method.name] in {
                CallKind.SYNC,
                CallKind.UPLOAD,
                CallKind.WATCH,
                CallKind.GATE,
            }


@pytest.mark.parametrize(
    "rpc",
    [
        "GetCollection",
        "ListCollections",
        "SearchPages",
        "SearchKnowledge",
        "ReadPage",
        "ReadDocument",
        "GrepPages",
        "DescribeTools",
        "RunCommand",
        "ListNamespaces",
        "GetRetrievalPolicy",
        "GetSyncReport",
    ],
)
def test_reads_are_idempotent(rpc: str) -> None:
    assert is_idempotent(rpc)


@pytest.mark.parametrize(
    "rpc",
    [
        "CreateCollection",
        "DeleteCollection",
        "DeleteDocument",
        "UpsertAgent",
        "SetRetrievalPolicy",
        "SetKillSwitch",
        "SetNamespaceSearchConfig",
        "RebuildIndex",
        "RollbackIndex",
        "CreateApiKey",
        "RevokeApiKey",
        "SyncPages",
        "UploadDocument",
        "WatchDocuments",
        "WatchIndexStatus",
        "RunGate",
    ],
)
def test_writes_and_streams_are_not_retried(rpc: str) -> None:
    assert not is_idempotent(rpc)


def test_only_unavailable_is_retryable() -> None:
    assert is_retryable(exceptions.Unavailable("x", grpc_code=grpc.StatusCode.UNAVAILABLE))
    assert is_retryable(exceptions.SearchUnavailable("x", grpc_code=grpc.StatusCode.UNAVAILABLE))
    for cls, code in (
        (exceptions.DeadlineExceeded, grpc.StatusCode.DEADLINE_EXCEEDED),
        (exceptions.Internal, grpc.StatusCode.INTERNAL),
        (exceptions.ResourceExhausted, grpc.StatusCode.RESOURCE_EXHAUSTED),
        (exceptions.NotFound, grpc.StatusCode.NOT_FOUND),
    ):
        assert not is_retryable(cls("x", grpc_code=code))


def test_backoff_is_bounded_jittered_and_honours_retry_after() -> None:
    policy = RetryPolicy(max_attempts=3, initial_backoff=0.2, max_backoff=1.0, multiplier=2.0)
    rng = random.Random(7)
    for attempt, ceiling in ((1, 0.2), (2, 0.4), (3, 0.8), (4, 1.0), (10, 1.0)):
        delays = [policy.delay(attempt, rng=rng) for _ in range(200)]
        assert all(0.0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.8  # full jitter spreads over the range
    assert policy.delay(1, timedelta(seconds=3), rng=rng) == 3.0


def test_default_timeouts_per_kind() -> None:
    assert resolve_timeout(None, CallKind.READ, DEFAULT_TIMEOUTS) == 10.0
    assert resolve_timeout(None, CallKind.SEARCH, DEFAULT_TIMEOUTS) == 15.0
    assert resolve_timeout(None, CallKind.WRITE, DEFAULT_TIMEOUTS) == 30.0
    assert resolve_timeout(None, CallKind.SYNC, DEFAULT_TIMEOUTS) == 1800.0
    assert resolve_timeout(None, CallKind.UPLOAD, DEFAULT_TIMEOUTS) == 600.0
    assert resolve_timeout(None, CallKind.WATCH, DEFAULT_TIMEOUTS) is None


def test_per_call_timeout_overrides_and_inf_means_none() -> None:
    assert resolve_timeout(2.5, CallKind.READ, DEFAULT_TIMEOUTS) == 2.5
    assert resolve_timeout(math.inf, CallKind.WRITE, DEFAULT_TIMEOUTS) is None
    custom = Timeouts(read=1.0, write=None)
    assert resolve_timeout(None, CallKind.READ, custom) == 1.0
    assert resolve_timeout(None, CallKind.WRITE, custom) is None

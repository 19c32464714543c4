"""The interceptors that apply the call policy (deadlines, read retries) to the Python clients.

The blocking interceptor is generated from the asyncio one, so checking one with a fake
continuation checks the logic of both; tests/integration/test_client_python.py runs both
against real channels.
"""

from __future__ import annotations

import math
from typing import Any

import grpc

from quire.client._blocking_interceptors import (
    StreamStreamDeadlineInterceptor,
    UnaryPolicyInterceptor,
    UnaryStreamDeadlineInterceptor,
)
from quire.client._blocking_transport import with_timeout
from quire.client.policy import DEFAULT_TIMEOUTS, RetryPolicy, rpc_of_method

FAST = RetryPolicy(max_attempts=3, initial_backoff=0.001, max_backoff=0.002)


class _Details(grpc.ClientCallDetails):
    def __init__(self, method: str, timeout: float | None = None) -> None:
        self.method = method
        self.timeout = timeout
        self.metadata = None
        self.credentials = None
        self.wait_for_ready = None
        self.compression = None


class _Failed(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._code.name

    def trailing_metadata(self) -> tuple[()]:
        return ()

    def exception(self) -> grpc.RpcError:
        return self


class _Succeeded:
    def exception(self) -> None:
        return None


class _Server:
    """A continuation that fails with `codes` in turn, then succeeds; records every timeout."""

    def __init__(self, *codes: grpc.StatusCode) -> None:
        self.codes = list(codes)
        self.timeouts: list[float | None] = []

    def __call__(self, details: grpc.ClientCallDetails, request: Any) -> Any:
        self.timeouts.append(details.timeout)
        return _Failed(self.codes.pop(0)) if self.codes else _Succeeded()


def test_rpc_of_method() -> None:
    assert rpc_of_method("/quire.v1.PagesService/ReadPage") == "ReadPage"
    assert rpc_of_method(b"/quire.v1.KnowledgeService/ListCollections") == "ListCollections"
    assert rpc_of_method("/grpc.health.v1.Health/Check") is None
    assert rpc_of_method("/quire.v1.PagesService/NoSuchRpc") is None


def test_reads_get_the_kind_deadline_and_retry_on_unavailable() -> None:
    server = _Server(grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNAVAILABLE)
    interceptor = UnaryPolicyInterceptor(DEFAULT_TIMEOUTS, FAST)
    outcome = interceptor.intercept_unary_unary(
        server, _Details("/quire.v1.PagesService/ReadPage"), None
    )
    assert isinstance(outcome, _Succeeded)
    assert len(server.timeouts) == 3
    assert all(t is not None and 9.0 < t <= 10.0 for t in server.timeouts)


def test_writes_and_other_codes_are_not_retried() -> None:
    interceptor = UnaryPolicyInterceptor(DEFAULT_TIMEOUTS, FAST)
    write = _Server(grpc.StatusCode.UNAVAILABLE)
    interceptor.intercept_unary_unary(write, _Details("/quire.v1.AdminService/SetKillSwitch"), None)
    assert len(write.timeouts) == 1
    assert write.timeouts[0] is not None and 29.0 < write.timeouts[0] <= 30.0
    internal = _Server(grpc.StatusCode.INTERNAL)
    interceptor.intercept_unary_unary(internal, _Details("/quire.v1.PagesService/ReadPage"), None)
    assert len(internal.timeouts) == 1


def test_per_call_timeout_wins_and_inf_means_none() -> None:
    interceptor = UnaryPolicyInterceptor(DEFAULT_TIMEOUTS, FAST)
    server = _Server()
    interceptor.intercept_unary_unary(
        server, _Details("/quire.v1.PagesService/ReadPage", 2.5), None
    )
    interceptor.intercept_unary_unary(
        server, _Details("/quire.v1.PagesService/ReadPage", math.inf), None
    )
    assert server.timeouts[0] is not None and 2.0 < server.timeouts[0] <= 2.5
    assert server.timeouts[1] is None


def test_other_services_pass_through_untouched() -> None:
    interceptor = UnaryPolicyInterceptor(DEFAULT_TIMEOUTS, FAST)
    server = _Server(grpc.StatusCode.UNAVAILABLE)
    details = _Details("/grpc.health.v1.Health/Check")
    interceptor.intercept_unary_unary(server, details, None)
    assert server.timeouts == [None]


def test_streams_get_their_kind_deadline() -> None:
    seen: list[float | None] = []

    def continuation(details: grpc.ClientCallDetails, request: Any) -> None:
        seen.append(details.timeout)

    UnaryStreamDeadlineInterceptor(DEFAULT_TIMEOUTS).intercept_unary_stream(
        continuation, _Details("/quire.v1.AdminService/RunGate"), None
    )
    StreamStreamDeadlineInterceptor(DEFAULT_TIMEOUTS).intercept_stream_stream(
        continuation, _Details("/quire.v1.PagesService/SyncPages"), iter(())
    )
    UnaryStreamDeadlineInterceptor(DEFAULT_TIMEOUTS).intercept_unary_stream(
        continuation, _Details("/quire.v1.KnowledgeService/WatchDocuments"), None
    )
    assert seen == [7200.0, 1800.0, None]


def test_with_timeout_keeps_the_rest_of_the_call() -> None:
    details = _Details("/quire.v1.PagesService/ReadPage", 1.0)
    changed = with_timeout(details, 3.0)
    assert (changed.method, changed.timeout) == (details.method, 3.0)

"""The few primitives that differ between grpc.aio and blocking grpc, for the blocking client.

The same names as `_aio_transport`, for blocking grpc: `blocking.py` and
`_blocking_interceptors.py`, generated from the asyncio modules by `scripts/unasync_client.py`,
import this module where the asyncio ones import `_aio_transport`.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import grpc

from quire.client._channel import Connection
from quire.client.exceptions import QuireError, from_rpc_error
from quire.v1 import pages_pb2

T = TypeVar("T")
R = TypeVar("R")

Channel = grpc.Channel
ClientCallDetails = grpc.ClientCallDetails
UnaryUnaryMultiCallable = grpc.UnaryUnaryMultiCallable
UnaryStreamMultiCallable = grpc.UnaryStreamMultiCallable

SyncDiscoveryValidator = Callable[[pages_pb2.DiscoveryCheck], bool]

sleep = time.sleep

# The stubs make these generic; grpc's classes are not, so subclasses name them bare.
UnaryUnaryClientInterceptor = grpc.UnaryUnaryClientInterceptor
UnaryStreamClientInterceptor = grpc.UnaryStreamClientInterceptor
StreamUnaryClientInterceptor = grpc.StreamUnaryClientInterceptor
StreamStreamClientInterceptor = grpc.StreamStreamClientInterceptor


def open_channel(conn: Connection, interceptors: list[Any]) -> grpc.Channel:
    if conn.credentials is None:
        channel = grpc.insecure_channel(conn.target, options=conn.options)
    else:
        channel = grpc.secure_channel(conn.target, conn.credentials, options=conn.options)
    return grpc.intercept_channel(channel, *interceptors)


def close_channel(channel: grpc.Channel) -> None:
    channel.close()


@dataclass
class _CallDetails(grpc.ClientCallDetails):
    method: str
    timeout: float | None
    metadata: Any
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


def with_timeout(details: grpc.ClientCallDetails, timeout: float | None) -> grpc.ClientCallDetails:
    """The same call with another deadline (seconds from now, None for none)."""
    return _CallDetails(
        details.method,
        timeout,
        details.metadata,
        details.credentials,
        getattr(details, "wait_for_ready", None),
        getattr(details, "compression", None),
    )


def with_metadata(
    details: grpc.ClientCallDetails, extra: Sequence[tuple[str, str]]
) -> grpc.ClientCallDetails:
    """The same call with `extra` metadata added."""
    if not extra:
        return details
    return _CallDetails(
        details.method,
        details.timeout,
        (*(details.metadata or ()), *extra),
        details.credentials,
        getattr(details, "wait_for_ready", None),
        getattr(details, "compression", None),
    )


def trailers(call: Any) -> Any:
    """A finished call's trailing metadata."""
    return call.trailing_metadata()


def failure(call: Any) -> QuireError | None:
    """Waits for a unary call to end; its error, or None when it succeeded."""
    error = call.exception()
    return from_rpc_error(error) if isinstance(error, grpc.RpcError) else None


def cancel(call: Any) -> None:
    call.cancel()


def pause(seconds: float) -> None:
    time.sleep(seconds)


def run_all(jobs: Sequence[Callable[[], R]], concurrency: int) -> list[R]:
    """Runs the jobs on at most `concurrency` threads (gRPC's blocking calls release the GIL);
    their results in job order. The jobs catch their own errors."""
    if len(jobs) <= 1 or concurrency <= 1:
        return [job() for job in jobs]
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(lambda job: job(), jobs))


def decide(validate: SyncDiscoveryValidator | None, check: pages_pb2.DiscoveryCheck) -> bool:
    """The validator's verdict on a DiscoveryCheck (no validator accepts)."""
    return True if validate is None else bool(validate(check))


class Outbox(Generic[T]):
    """The request side of a bidirectional stream: messages put while the replies are read."""

    def __init__(self, first: T) -> None:
        self._queue: queue.SimpleQueue[T | None] = queue.SimpleQueue()
        self._queue.put(first)

    def put(self, message: T) -> None:
        self._queue.put(message)

    def close(self) -> None:
        """Ends the request side once the messages put so far are sent."""
        self._queue.put(None)

    def messages(self) -> Iterator[T]:
        while (message := self._queue.get()) is not None:
            yield message

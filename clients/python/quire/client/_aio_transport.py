"""The few primitives that differ between grpc.aio and blocking grpc, for the asyncio client.

`aio.py` and `_aio_interceptors.py` reach grpc.aio only through this module. The blocking
client is derived from them by `scripts/unasync_client.py`, which renames this module to
`_blocking_transport`: that module offers the same names for blocking grpc, so the rewrite
stays a mechanical token substitution.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Generic, TypeVar

import grpc
from grpc import aio

from quire.client._channel import Connection
from quire.client.exceptions import QuireError, from_rpc_error
from quire.v1 import pages_pb2

T = TypeVar("T")
R = TypeVar("R")

Channel = aio.Channel
ClientCallDetails = aio.ClientCallDetails
UnaryUnaryMultiCallable = aio.UnaryUnaryMultiCallable
UnaryStreamMultiCallable = aio.UnaryStreamMultiCallable

# A validator may be a plain function or a coroutine function.
DiscoveryValidator = Callable[[pages_pb2.DiscoveryCheck], bool | Awaitable[bool]]

sleep = asyncio.sleep

# The stubs make these generic; grpc's classes are not, so subclasses name them bare.
UnaryUnaryClientInterceptor = aio.UnaryUnaryClientInterceptor
UnaryStreamClientInterceptor = aio.UnaryStreamClientInterceptor
StreamUnaryClientInterceptor = aio.StreamUnaryClientInterceptor
StreamStreamClientInterceptor = aio.StreamStreamClientInterceptor


def open_channel(conn: Connection, interceptors: list[Any]) -> aio.Channel:
    if conn.credentials is None:
        return aio.insecure_channel(conn.target, options=conn.options, interceptors=interceptors)
    return aio.secure_channel(
        conn.target, conn.credentials, options=conn.options, interceptors=interceptors
    )


async def close_channel(channel: aio.Channel) -> None:
    await channel.close(None)


def with_timeout(details: aio.ClientCallDetails, timeout: float | None) -> aio.ClientCallDetails:
    """The same call with another deadline (seconds from now, None for none)."""
    return aio.ClientCallDetails(
        details.method, timeout, details.metadata, details.credentials, details.wait_for_ready
    )


def with_metadata(
    details: aio.ClientCallDetails, extra: Sequence[tuple[str, str]]
) -> aio.ClientCallDetails:
    """The same call with `extra` metadata added."""
    if not extra:
        return details
    return aio.ClientCallDetails(
        details.method,
        details.timeout,
        aio.Metadata(*(details.metadata or ()), *extra),
        details.credentials,
        details.wait_for_ready,
    )


async def trailers(call: Any) -> Any:
    """A finished call's trailing metadata."""
    return await call.trailing_metadata()


async def failure(call: Any) -> QuireError | None:
    """Waits for a unary call to end; its error, or None when it succeeded."""
    try:
        await call
    except grpc.RpcError as exc:
        return from_rpc_error(exc)
    return None


def cancel(call: Any) -> None:
    call.cancel()


async def pause(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def run_all(jobs: Sequence[Callable[[], Awaitable[R]]], concurrency: int) -> list[R]:
    """Runs the jobs, at most `concurrency` at once; their results in job order. The jobs
    catch their own errors (the helpers report per-file failures instead of stopping)."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(job: Callable[[], Awaitable[R]]) -> R:
        async with gate:
            return await job()

    return list(await asyncio.gather(*(one(job) for job in jobs)))


async def decide(validate: DiscoveryValidator | None, check: pages_pb2.DiscoveryCheck) -> bool:
    """The validator's verdict on a DiscoveryCheck (no validator accepts)."""
    if validate is None:
        return True
    verdict = validate(check)
    if inspect.isawaitable(verdict):
        verdict = await verdict
    return bool(verdict)


class Outbox(Generic[T]):
    """The request side of a bidirectional stream: messages put while the replies are read."""

    def __init__(self, first: T) -> None:
        self._queue: asyncio.Queue[T | None] = asyncio.Queue()
        self._queue.put_nowait(first)

    def put(self, message: T) -> None:
        self._queue.put_nowait(message)

    def close(self) -> None:
        """Ends the request side once the messages put so far are sent."""
        self._queue.put_nowait(None)

    async def messages(self) -> AsyncIterator[T]:
        while (message := await self._queue.get()) is not None:
            yield message

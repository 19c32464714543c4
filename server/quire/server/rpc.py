"""The RPC layer every handler runs inside: auth, scope, deadline, metrics, errors.

A server interceptor wraps each method handler. The wrapper authenticates the bearer key,
checks the method's scope, holds one of the organisation's slots (`OrgLimiter`), publishes the
Principal and deadline in context variables, routes a read to a replica (read_routing.py),
records the call's latency and turns any exception into a status via `failures.status_for` —
handlers never build a status themselves. The RPC's span is opened before it, by OpenTelemetry's
interceptor (`telemetry.rpc_interceptor`), which also sees the status through `context.abort`.
While the database is unavailable (health.py), calls are refused at once with UNAVAILABLE, and
a call that fails on a lost connection makes health probe at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc
from grpc import aio
from opentelemetry import trace

from quire.server import shared_responses, telemetry
from quire.server.auth import KeyVerifier, Principal, Scope, bearer_token
from quire.server.contract.tables import SCOPE_BY_METHOD
from quire.server.failures import (
    QuireError,
    database_unavailable,
    lost_database,
    status_for,
)
from quire.server.health import DatabaseHealth
from quire.server.read_routing import routed, send_write_token
from quire.server.storage.database import request_deadline
from quire.server.storage.replicas import ReplicaSet
from quire.v1 import errors_pb2

current_principal: contextvars.ContextVar[Principal] = contextvars.ContextVar("current_principal")

# The scope each RPC needs, by method path: the `(quire.v1.call)` options of the contract.
# Methods without auth (health, reflection) are not in this table and pass through untouched.
REQUIRED_SCOPE: dict[str, Scope] = {
    method: Scope(scope) for method, scope in SCOPE_BY_METHOD.items()
}


def principal() -> Principal:
    return current_principal.get()


@dataclass
class _Turns:
    semaphore: asyncio.Semaphore
    users: int = 0  # calls running or waiting


class OrgLimiter:
    """Per organisation and process: refuses calls beyond `limit` in flight (streams
    included), and lets at most `running` calls with one response (unary and client-streaming
    uploads) run at once, the rest waiting their turn, so one tenant's burst cannot take every
    pooled connection from the others. Server and bidirectional streams are not queued: a
    watch is mostly idle, and a sync holds no connection while it fetches."""

    def __init__(self, limit: int, running: int | None = None) -> None:
        self.limit = limit
        self.running = running or limit
        self.in_flight: dict[uuid.UUID, int] = {}
        self._turns: dict[uuid.UUID, _Turns] = {}

    @contextlib.asynccontextmanager
    async def turn(self, org_id: uuid.UUID) -> AsyncIterator[None]:
        """Waits until fewer than `running` of the organisation's unary calls run."""
        turns = self.queue(org_id)
        try:
            async with turns.semaphore:
                yield
        finally:
            self.unqueue(org_id, turns)

    # `turn` in two plain calls, for rpc.py's per-call path (no generator per call):
    # `turns = queue(org)`, then `async with turns.semaphore`, and `unqueue(org, turns)` after.
    def queue(self, org_id: uuid.UUID) -> _Turns:
        turns = self._turns.get(org_id)
        if turns is None:
            turns = self._turns[org_id] = _Turns(asyncio.Semaphore(self.running))
        turns.users += 1
        return turns

    def unqueue(self, org_id: uuid.UUID, turns: _Turns) -> None:
        turns.users -= 1
        if turns.users == 0:  # nobody running or waiting: drop the organisation's state
            del self._turns[org_id]

    @property
    def queued_organisations(self) -> int:
        return len(self._turns)

    def enter(self, org_id: uuid.UUID) -> None:
        count = self.in_flight.get(org_id, 0)
        if count >= self.limit:
            raise QuireError(
                errors_pb2.ERROR_CODE_RESOURCE_EXHAUSTED,
                f"Too many concurrent calls for this organisation (limit {self.limit})",
                retry_after_s=1,
            )
        self.in_flight[org_id] = count + 1

    def leave(self, org_id: uuid.UUID) -> None:
        count = self.in_flight.get(org_id, 1) - 1
        if count <= 0:
            self.in_flight.pop(org_id, None)
        else:
            self.in_flight[org_id] = count


class _Call:
    """Per-method preamble and error mapping shared by the four handler shapes. Built once
    per method and kept (QuireInterceptor), so it holds no state of any one call."""

    def __init__(
        self,
        verifier: KeyVerifier,
        limiter: OrgLimiter,
        method: str,
        scope: Scope,
        database: DatabaseHealth | None = None,
        replicas: ReplicaSet | None = None,
    ) -> None:
        self.verifier = verifier
        self.limiter = limiter
        self.method = method
        self.scope = scope
        self.database = database
        self.replicas = replicas
        # The latency metric's attributes by status code, built once: the same dict each call.
        self._labels: dict[str, dict[str, str]] = {}

    def label_span(self) -> None:
        # The span is telemetry.rpc_interceptor's (it runs first); `rpc.method` is set to the
        # full path, as on quire.rpc.duration, so spans and the histogram join on one value.
        # Without a tracer provider the current span is the no-op one: nothing to label.
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attribute("rpc.method", self.method)

    async def finish(
        self,
        context: aio.ServicerContext[Any, Any],
        exc: BaseException | None,
        org_id: uuid.UUID | None,
        started: float,
    ) -> None:
        """Ends a call that raised `exc` (None: OK): a failure becomes the typed status
        (`context.abort`, which raises), the organisation's slot is freed (once `enter` took
        it) and the latency recorded by status."""
        code = "OK"
        try:
            if isinstance(exc, asyncio.CancelledError | aio.AbortError):
                code = "CANCELLED"
            elif isinstance(exc, Exception):  # every failure becomes a typed status
                if self.database is not None and lost_database(exc):
                    self.database.suspect()
                status = status_for(exc)
                code = status.grpc_code.name
                await context.abort(status.grpc_code, status.message, status.trailing_metadata)
        finally:
            if org_id is not None:
                self.limiter.leave(org_id)
            self.record(started, code)

    def record(self, started: float, code: str) -> None:
        labels = self._labels.get(code)
        if labels is None:
            labels = self._labels[code] = {"rpc.method": self.method, "rpc.code": code}
        telemetry.rpc_duration.record((time.perf_counter() - started) * 1000, labels)

    async def enter(self, context: aio.ServicerContext[Any, Any]) -> uuid.UUID:
        """Authenticates, checks the scope and the organisation's bound; the organisation,
        which holds one of its in-flight slots until `_Outcome` frees it."""
        if self.database is not None and not self.database.available:
            raise database_unavailable()  # at once, not after the pool's connect timeout
        metadata: Any = context.invocation_metadata()
        who = await self.verifier.verify(bearer_token(metadata))
        who.require(self.scope)
        self.limiter.enter(who.org_id)
        current_principal.set(who)
        remaining = context.time_remaining()
        if remaining is not None:
            request_deadline.set(time.monotonic() + remaining)
        return who.org_id


class _Outcome:
    """`async with _Outcome(call, context) as outcome:` around a handler: labels the RPC's
    span, turns a failure into the typed status (`context.abort`), then frees the
    organisation's slot (`outcome.org_id`, once `call.enter` took it) and records the latency
    by status — the same for unary and streaming handlers."""

    __slots__ = ("call", "context", "org_id", "started")

    def __init__(self, call: _Call, context: aio.ServicerContext[Any, Any]) -> None:
        self.call = call
        self.context = context
        self.org_id: uuid.UUID | None = None
        self.started = 0.0

    async def __aenter__(self) -> _Outcome:
        self.started = time.perf_counter()
        self.call.label_span()
        return self

    async def enter(self) -> uuid.UUID:
        self.org_id = await self.call.enter(self.context)
        return self.org_id

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        org_id, self.org_id = self.org_id, None
        await self.call.finish(self.context, exc, org_id, self.started)


def _wrap(handler: Any, call: _Call) -> Any:
    if handler.unary_unary or handler.stream_unary:
        inner: Callable[..., Awaitable[Any]] = handler.unary_unary or handler.stream_unary

        limiter = call.limiter

        async def unary(request: Any, context: aio.ServicerContext[Any, Any]) -> Any:
            # `_Outcome` and `limiter.turn` written out: this runs on every unary call, and
            # the two context managers' objects and generator cost more than the work.
            started = time.perf_counter()
            call.label_span()
            failure: BaseException | None = None
            org_id: uuid.UUID | None = None
            try:
                org_id = await call.enter(context)
                turns = limiter.queue(org_id)
                try:
                    async with turns.semaphore:
                        if call.replicas is None:  # nothing to route, no token to send
                            return await inner(request, context)
                        return await routed(
                            call.replicas, call.method, context, lambda: inner(request, context)
                        )
                finally:
                    limiter.unqueue(org_id, turns)
            except BaseException as exc:
                failure = exc
                raise
            finally:
                await call.finish(context, failure, org_id, started)

        # A response shared between calls (DescribeTools) is sent from its kept bytes.
        encode = shared_responses.serializer(handler.response_serializer)
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(unary, handler.request_deserializer, encode)
        return grpc.stream_unary_rpc_method_handler(unary, handler.request_deserializer, encode)

    streaming: Callable[..., AsyncIterator[Any]] = handler.unary_stream or handler.stream_stream

    async def stream(request: Any, context: aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        async with _Outcome(call, context) as outcome:
            await outcome.enter()
            async for item in streaming(request, context):
                yield item
            await send_write_token(call.replicas, context)  # a sync or a gate run ended

    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(
            stream, handler.request_deserializer, handler.response_serializer
        )
    return grpc.stream_stream_rpc_method_handler(
        stream, handler.request_deserializer, handler.response_serializer
    )


class QuireInterceptor(aio.ServerInterceptor):  # type: ignore[type-arg]
    def __init__(
        self,
        verifier: KeyVerifier,
        org_concurrency: int = 256,
        org_running: int | None = None,
        database: DatabaseHealth | None = None,
        replicas: ReplicaSet | None = None,
    ) -> None:
        self._verifier = verifier
        self._limiter = OrgLimiter(org_concurrency, org_running)
        self._database = database
        self._replicas = replicas
        # Each method's wrapped handler, built at its first call: the wrapper keeps no
        # per-call state, so building it again for every call would only cost time.
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        known = self._wrapped.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        scope = REQUIRED_SCOPE.get(method)
        if handler is None or scope is None:
            return handler
        wrapped = _wrap(
            handler,
            _Call(self._verifier, self._limiter, method, scope, self._database, self._replicas),
        )
        self._wrapped[method] = (handler, wrapped)
        return wrapped

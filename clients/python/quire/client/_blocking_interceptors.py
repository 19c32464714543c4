# Generated from _aio_interceptors.py by scripts/unasync_client.py (make generate); do not edit.
"""Client interceptors that give every quire.v1 call its kind's deadline and retry unary reads.

The policy itself (call kinds, default deadlines, backoff) is `quire.client.policy`; these
interceptors only apply it, so that each client method is a single plain stub call. A call's
`timeout=` reaches them as the call's deadline: None means "the kind's default", `math.inf`
means "none". The deadline covers every attempt of a retried read. Calls outside quire.v1
(health checks on `client.channel`) pass through untouched.
"""

from __future__ import annotations

import time
from typing import Any

from quire.client._blocking_transport import (
    ClientCallDetails,
    StreamStreamClientInterceptor,
    StreamUnaryClientInterceptor,
    UnaryStreamClientInterceptor,
    UnaryUnaryClientInterceptor,
    failure,
    sleep,
    trailers,
    with_metadata,
    with_timeout,
)
from quire.client.consistency import ConsistencyTokens
from quire.client.policy import (
    RPC_KINDS,
    RetryPolicy,
    Timeouts,
    is_idempotent,
    is_retryable,
    resolve_timeout,
    rpc_of_method,
)

Continuation = Any  # the stubs type it loosely and differently for grpc and grpc.aio


class _Deadlines:
    def __init__(self, timeouts: Timeouts, tokens: ConsistencyTokens | None = None) -> None:
        self._timeouts = timeouts
        self._tokens = ConsistencyTokens(enabled=False) if tokens is None else tokens

    def budget(self, rpc: str, details: ClientCallDetails) -> float | None:
        """Seconds the whole call may take: the call's `timeout=`, else its kind's default."""
        return resolve_timeout(details.timeout, RPC_KINDS[rpc], self._timeouts)

    def applied(self, details: ClientCallDetails) -> ClientCallDetails:
        rpc = rpc_of_method(details.method)
        return details if rpc is None else with_timeout(details, self.budget(rpc, details))

    def with_token(self, rpc: str, details: ClientCallDetails) -> ClientCallDetails:
        """A read carries the highest consistency token seen (quire.client.consistency)."""
        if not is_idempotent(rpc):
            return details
        return with_metadata(details, self._tokens.request_metadata())

    def observe(self, call: Any) -> None:
        """Remembers the token a successful call's trailing metadata carries."""
        if self._tokens.enabled:
            self._tokens.observe(trailers(call))


class UnaryPolicyInterceptor(UnaryUnaryClientInterceptor, _Deadlines):  # type: ignore[type-arg]
    """Deadline of every unary call; retries of idempotent reads on UNAVAILABLE; the
    consistency token sent with reads and taken from every response."""

    def __init__(
        self, timeouts: Timeouts, retry: RetryPolicy, tokens: ConsistencyTokens | None = None
    ) -> None:
        _Deadlines.__init__(self, timeouts, tokens)
        self._retry = retry

    def intercept_unary_unary(
        self, continuation: Continuation, client_call_details: ClientCallDetails, request: Any
    ) -> Any:
        rpc = rpc_of_method(client_call_details.method)
        if rpc is None:
            return continuation(client_call_details, request)
        budget = self.budget(rpc, client_call_details)
        deadline = None if budget is None else time.monotonic() + budget
        attempts = self._retry.max_attempts if is_idempotent(rpc) else 1
        details = self.with_token(rpc, client_call_details)
        attempt = 0
        while True:
            attempt += 1
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            call = continuation(with_timeout(details, remaining), request)
            error = failure(call)
            if error is None:
                self.observe(call)
                return call
            if attempt >= attempts or not is_retryable(error):
                return call
            delay = self._retry.delay(attempt, error.retry_after)
            if deadline is not None and time.monotonic() + delay >= deadline:
                return call
            sleep(delay)


class _StreamDeadlines(_Deadlines):
    """A stream's deadline; its kind of call is the grpc base class of the subclass. Streamed
    responses (a sync, a gate run) hand their token over in the client (aio.py), once read."""

    def _with_deadline(
        self, continuation: Continuation, client_call_details: ClientCallDetails, request: Any
    ) -> Any:
        return continuation(self.applied(client_call_details), request)

    def _upload(
        self, continuation: Continuation, client_call_details: ClientCallDetails, request: Any
    ) -> Any:
        """An upload (one response): its token is taken here, as for unary calls."""
        call = continuation(self.applied(client_call_details), request)
        if failure(call) is None:
            self.observe(call)
        return call

    intercept_unary_stream = _with_deadline
    intercept_stream_unary = _upload
    intercept_stream_stream = _with_deadline


# grpc.aio files an interceptor under the first kind of call it is an instance of, so each kind
# needs its own class.
class UnaryStreamDeadlineInterceptor(_StreamDeadlines, UnaryStreamClientInterceptor):  # type: ignore[type-arg]
    pass


class StreamUnaryDeadlineInterceptor(_StreamDeadlines, StreamUnaryClientInterceptor):  # type: ignore[type-arg]
    pass


class StreamStreamDeadlineInterceptor(_StreamDeadlines, StreamStreamClientInterceptor):  # type: ignore[type-arg]
    pass


def call_policy_interceptors(
    timeouts: Timeouts, retry: RetryPolicy, tokens: ConsistencyTokens | None = None
) -> list[Any]:
    """The interceptors a client installs on its channel, one per kind of call."""
    return [
        UnaryPolicyInterceptor(timeouts, retry, tokens),
        UnaryStreamDeadlineInterceptor(timeouts, tokens),
        StreamUnaryDeadlineInterceptor(timeouts, tokens),
        StreamStreamDeadlineInterceptor(timeouts, tokens),
    ]

"""Call kinds, default deadlines and the retry policy shared by both clients.

Every RPC of the contract has one `CallKind` (its `(quire.v1.call)` option); the kind picks the
default deadline (the kind's `(quire.v1.call_kind)` option). Only the unary RPCs the contract
marks `idempotency_level = NO_SIDE_EFFECTS` (or `IDEMPOTENT`) are retried, only on
`UNAVAILABLE`, never writes or streams. `CallKind`, `RPC_KINDS`, the default deadlines and the
retried RPCs are generated from the proto into `_contract.py`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import timedelta

import grpc

from quire.client._contract import DEFAULT_DEADLINE_S, IDEMPOTENT_RPCS
from quire.client._contract import RPC_KINDS as RPC_KINDS
from quire.client._contract import CallKind as CallKind
from quire.client.exceptions import QuireError


@dataclass(frozen=True)
class Timeouts:
    """Default deadline in seconds per call kind; `None` means no deadline.

    A call's `timeout=` overrides its kind's default. For retried reads the deadline covers
    all attempts together (the client never waits past it).
    """

    # The defaults are the contract's (`(quire.v1.call_kind).default_deadline`, generated).
    read: float | None = DEFAULT_DEADLINE_S[CallKind.READ]
    search: float | None = DEFAULT_DEADLINE_S[CallKind.SEARCH]
    write: float | None = DEFAULT_DEADLINE_S[CallKind.WRITE]
    sync: float | None = DEFAULT_DEADLINE_S[CallKind.SYNC]
    upload: float | None = DEFAULT_DEADLINE_S[CallKind.UPLOAD]
    watch: float | None = DEFAULT_DEADLINE_S[CallKind.WATCH]
    gate: float | None = DEFAULT_DEADLINE_S[CallKind.GATE]

    def for_kind(self, kind: CallKind) -> float | None:
        # A kind newer than this class's fields gets the contract's default.
        value: float | None = getattr(self, kind.value, DEFAULT_DEADLINE_S[kind])
        return value


DEFAULT_TIMEOUTS = Timeouts()


def is_idempotent(rpc: str) -> bool:
    """True for the unary reads that may be retried (`rpc` is the bare RPC name)."""
    return rpc in IDEMPOTENT_RPCS


def is_retryable(error: QuireError) -> bool:
    """A failed attempt is retried only when its gRPC status is UNAVAILABLE."""
    return error.grpc_code == grpc.StatusCode.UNAVAILABLE


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter for UNAVAILABLE on idempotent reads.

    After failed attempt n (1-based) the client waits
    `uniform(0, min(max_backoff, initial_backoff * multiplier ** (n - 1)))` seconds, or the
    server's `ErrorDetail.retry_after` when that is longer.
    """

    max_attempts: int = 3
    initial_backoff: float = 0.2
    max_backoff: float = 2.0
    multiplier: float = 2.0

    def delay(
        self,
        failed_attempt: int,
        retry_after: timedelta | None = None,
        rng: random.Random | None = None,
    ) -> float:
        ceiling = min(
            self.max_backoff, self.initial_backoff * self.multiplier ** (failed_attempt - 1)
        )
        jittered = (rng or random).uniform(0.0, ceiling)
        if retry_after is not None:
            jittered = max(jittered, retry_after.total_seconds())
        return jittered


DEFAULT_RETRY = RetryPolicy()
NO_RETRY = RetryPolicy(max_attempts=1)


def resolve_timeout(timeout: float | None, kind: CallKind, defaults: Timeouts) -> float | None:
    """The deadline of one call: `timeout=` when given, else the kind's default.

    `math.inf` (or any non-finite value) means no deadline.
    """
    value = defaults.for_kind(kind) if timeout is None else timeout
    if value is None or not math.isfinite(value):
        return None
    return value


_CONTRACT_PREFIX = "/quire.v1."


def rpc_of_method(method: str | bytes) -> str | None:
    """The bare RPC name of a gRPC method path (`/quire.v1.PagesService/ReadPage` → `ReadPage`).

    None for methods outside quire.v1 (health checks, reflection): those keep their own
    deadline and are never retried. grpc.aio hands the interceptors the path as bytes.
    """
    path = method.decode() if isinstance(method, bytes) else method
    if not path.startswith(_CONTRACT_PREFIX):
        return None
    rpc = path.rpartition("/")[2]
    return rpc if rpc in RPC_KINDS else None


__all__ = [
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUTS",
    "NO_RETRY",
    "RPC_KINDS",
    "CallKind",
    "RetryPolicy",
    "Timeouts",
    "is_idempotent",
    "is_retryable",
    "resolve_timeout",
    "rpc_of_method",
]

"""Which calls read from a replica, and the consistency token in call metadata.

With read replicas configured (storage/replicas.py), the read-only RPCs (`REPLICA_READS`, the
contract's unary NO_SIDE_EFFECTS calls, generated into contract/tables.py) run with a
`ReadRoute`, so their read-only transactions go to a healthy replica. A call that fails there
with a connection error (or a query cancelled by a conflict with recovery) is run once more
on the primary, so a replica dying costs only the calls that were reading from it at that
moment and none after. Every other successful call (the writes) answers with the primary's
WAL insert position in the trailing metadata `quire-consistency-token`, and so does a read the
primary served; a read a replica served answers with that replica's replay position. A read
that sends a token back is served only by a node that has replayed that far. No proto field
is involved, so every client and the Connect listener carry it as a header.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import asyncpg
from grpc import aio

from quire.server.contract.tables import REPLICA_READS as GENERATED_REPLICA_READS
from quire.server.failures import QuireError, lost_database
from quire.server.storage.replicas import (
    PRIMARY_LSN,
    ReadRoute,
    ReplicaSet,
    format_token,
    parse_token,
    read_route,
)
from quire.v1 import errors_pb2

log = logging.getLogger(__name__)

TOKEN_KEY = "quire-consistency-token"
TOKEN_MAX_CHARS = 17  # "FFFFFFFF/FFFFFFFF"

# The read-only unary RPCs a replica may serve: those the contract marks
# `idempotency_level = NO_SIDE_EFFECTS` (generated). Watches are not among them: their first
# state is read on the primary, beside the LISTEN that follows it (a standby cannot LISTEN).
REPLICA_READS = GENERATED_REPLICA_READS

T = TypeVar("T")


def requested_token(metadata: Any) -> int:
    """The token a call sends (0 without one); INVALID_REQUEST naming it when malformed."""
    for key, value in metadata or ():
        if key == TOKEN_KEY:
            text = value.decode() if isinstance(value, bytes) else str(value)
            try:
                if len(text) > TOKEN_MAX_CHARS:
                    raise ValueError(text)
                return parse_token(text)
            except ValueError:
                raise QuireError(
                    errors_pb2.ERROR_CODE_INVALID_REQUEST,
                    f"metadata {TOKEN_KEY}: not a consistency token (an LSN such as 0/16B3748, "
                    f"at most {TOKEN_MAX_CHARS} characters), as a write's response carries",
                ) from None
    return 0


def failed_on_replica(exc: BaseException) -> bool:
    """A failure that says the replica, not the call, is the problem."""
    cause: BaseException | None = exc
    for _ in range(8):
        if cause is None:
            break
        # On a read-only standby transaction this can only be a conflict with recovery.
        if isinstance(cause, asyncpg.exceptions.SerializationError):
            return True
        cause = cause.__cause__ or cause.__context__
    return lost_database(exc)


def _send_token(context: aio.ServicerContext[Any, Any], lsn: int) -> None:
    context.set_trailing_metadata(((TOKEN_KEY, format_token(lsn)),))


async def routed(
    replicas: ReplicaSet | None,
    method: str,
    context: aio.ServicerContext[Any, Any],
    work: Callable[[], Awaitable[T]],
) -> T:
    """Runs a unary call's handler (`work`) routed as described in the module docstring."""
    if replicas is None:
        return await work()
    if method not in REPLICA_READS:
        result = await work()
        await send_write_token(replicas, context)
        return result
    route = ReadRoute(token=requested_token(context.invocation_metadata()))
    read_route.set(route)
    try:
        result = await work()
    except Exception as exc:
        if route.replica is None or not failed_on_replica(exc):
            raise
        replicas.lost(route.replica, exc)
        log.warning(
            "read failed on a replica: retried on the primary",
            extra={"replica": route.replica.name, "method": method, "error": repr(exc)[:200]},
        )
        route = ReadRoute(token=route.token, primary_only=True)
        read_route.set(route)
        result = await work()
    if route.replica is not None:
        # Where this replica is: later reads with it never see an older state (monotonic reads).
        _send_token(context, max(route.token, route.replica.replay_lsn))
    else:
        # Served by the primary: what it read (e.g. a document the worker indexed meanwhile)
        # may be newer than any token the client holds.
        await send_write_token(replicas, context)
    return result


async def state_token(replicas: ReplicaSet | None, conn: asyncpg.Connection) -> str:
    """For a stream's message: the primary's position right after `conn` (a primary
    connection) read the state the message carries, so a read sent with it sees at least that
    state; "" without replicas."""
    if replicas is None:
        return ""
    return format_token(int(await conn.fetchval(PRIMARY_LSN)))


async def send_write_token(
    replicas: ReplicaSet | None, context: aio.ServicerContext[Any, Any]
) -> None:
    """After a successful write: the primary's position, past all of the call's commits."""
    if replicas is None:
        return
    try:
        _send_token(context, await replicas.primary_token())
    except Exception as exc:  # the write is done; only read-your-writes is not promised
        log.warning("no consistency token for a write", extra={"error": repr(exc)[:200]})

"""Typed failures and the one layer that turns any failure into a gRPC status.

Handlers raise `QuireError` (or let infrastructure errors propagate); `status_for` is the only
place a status is built. The gRPC code and the ErrorInfo reason of each ErrorCode come from
`_contract.py`, generated from the `(quire.v1.error)` options of errors.proto.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType

import asyncpg
import grpc
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from quire.server.contract.tables import GRPC_STATUS_BY_CODE, REASON_BY_CODE
from quire.v1 import errors_pb2

log = logging.getLogger(__name__)

STATUS_DETAILS_KEY = "grpc-status-details-bin"  # where rpc_status.to_status puts the status
ERROR_DOMAIN = "quire.v1"


@dataclass(frozen=True)
class Violation:
    field: str
    description: str
    # The bound the value broke, for a model to correct itself ("1–8"); "" when none applies.
    bound: str = ""


@dataclass
class QuireError(Exception):
    code: int
    message: str
    current_revision: str = ""
    violations: Sequence[Violation] = field(default_factory=tuple)
    retry_after_s: float | None = None

    def __str__(self) -> str:
        return f"{REASON_BY_CODE.get(self.code, self.code)}: {self.message}"


def invalid(field_name: str, description: str, bound: str = "") -> QuireError:
    """INVALID_REQUEST naming one field and, when the value broke one, its bound."""
    return QuireError(
        errors_pb2.ERROR_CODE_INVALID_REQUEST,
        f"{field_name}: {description}",
        violations=(Violation(field_name, description, bound),),
    )


def above_search_limit(bound: int, default: int, most: int) -> QuireError:
    """SearchKnowledge.limit above the organisation's bound (its retrieval policy, not the
    contract's `most`): says whose bound it is and how it is raised."""
    return invalid(
        "limit",
        f"must be 1–{bound}, the organisation's bound (0 means {default}); a key with scope "
        f"admin raises the bound, up to {most}, with `quire policy set --max-search-limit N` "
        "(AdminService.SetRetrievalPolicy)",
        f"1–{bound}",
    )


def not_found(code: int = errors_pb2.ERROR_CODE_NOT_FOUND, what: str = "Not found") -> QuireError:
    return QuireError(code, what)


@dataclass(frozen=True)
class Status:
    grpc_code: grpc.StatusCode
    message: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...]


def error_detail(err: QuireError) -> errors_pb2.ErrorDetail:
    """The ErrorDetail a status carries for `err`; also one document's error in a batch."""
    detail = errors_pb2.ErrorDetail(
        code=err.code,  # type: ignore[arg-type]
        message=err.message,
        current_revision=err.current_revision,
        field_violations=[
            errors_pb2.FieldViolation(field=v.field, description=v.description, bound=v.bound)
            for v in err.violations
        ],
    )
    if err.retry_after_s is not None:
        # Rounded up: a client that waits what it is told must not come back early.
        detail.retry_after.CopyFrom(duration_pb2.Duration(seconds=math.ceil(err.retry_after_s)))
    return detail


def _status(err: QuireError) -> Status:
    detail = error_detail(err)
    info = error_details_pb2.ErrorInfo(reason=REASON_BY_CODE[err.code], domain=ERROR_DOMAIN)
    grpc_code = GRPC_STATUS_BY_CODE[err.code]
    rich = status_pb2.Status(code=grpc_code.value[0], message=err.message)
    rich.details.add().Pack(detail)
    rich.details.add().Pack(info)
    return Status(grpc_code, err.message, rpc_status.to_status(rich).trailing_metadata)


_UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    ConnectionError,
    OSError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.InterfaceError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.TooManyConnectionsError,
    # The client-side protocol state of a connection broken mid-operation (e.g. "cannot
    # switch to state 15; another operation is in progress" after a server shutdown).
    asyncpg.exceptions.InternalClientError,
)


def _caused_by_lost_database(exc: BaseException) -> bool:
    """A follow-on failure of a lost connection, e.g. asyncpg's InternalClientError ("cannot
    switch to state ...") from a transaction's rollback after the server shut down mid-query:
    the exception chain names the real cause."""
    seen = 0
    cause = exc.__cause__ or exc.__context__
    while cause is not None and seen < 8:
        if isinstance(cause, _UNAVAILABLE_ERRORS):
            return True
        cause = cause.__cause__ or cause.__context__
        seen += 1
    return False


def lost_database(exc: BaseException) -> bool:
    """Whether `exc` says the database (or the connection to it) is gone."""
    return isinstance(exc, _UNAVAILABLE_ERRORS) or _caused_by_lost_database(exc)


def database_unavailable() -> QuireError:
    return QuireError(
        errors_pb2.ERROR_CODE_UNAVAILABLE,
        "The database is unavailable; retry with backoff",
        retry_after_s=1,
    )


def _frame(tb: TracebackType | None, *, ours: bool = False) -> str:
    """`module.py:function:line` of the innermost frame (of Quire's code with `ours`)."""
    frames = traceback.extract_tb(tb)
    if ours:
        frames = traceback.StackSummary.from_list(
            [f for f in frames if f"{os.sep}quire{os.sep}" in f.filename]
        )
    if not frames:
        return ""
    last = frames[-1]
    return f"{os.path.basename(last.filename)}:{last.name}:{last.lineno}"


def _timeout_cause(exc: BaseException) -> str:
    if isinstance(exc, QuireError):
        return "request deadline passed"  # storage.database.remaining_ms, before a statement
    if isinstance(exc, asyncpg.exceptions.QueryCanceledError):
        if "statement timeout" in str(exc):
            return "statement_timeout (set from the request deadline)"
        return "statement cancelled"
    return "timeout in the server"


def log_timeout(exc: BaseException) -> None:
    """One structured line per call that ends DEADLINE_EXCEEDED: its cause, where it was
    raised and how much of the caller's deadline was left (a timeout with most of it left is
    the server's own doing). No request content."""
    from quire.server.storage.database import request_deadline  # storage imports this module

    deadline = request_deadline.get()
    left = None if deadline is None else round((deadline - time.monotonic()) * 1000)
    log.warning(
        "timeout",
        extra={
            "cause": _timeout_cause(exc),
            "error_type": type(exc).__name__,
            "raised_at": _frame(exc.__traceback__),
            "quire_frame": _frame(exc.__traceback__, ours=True),
            "deadline_left_ms": left,
        },
    )


def to_quire_error(exc: BaseException) -> QuireError:
    """Classifies any exception; unknown ones become INTERNAL with no internals exposed."""
    if isinstance(exc, QuireError):
        if exc.code == errors_pb2.ERROR_CODE_DEADLINE_EXCEEDED:
            log_timeout(exc)
        return exc
    if isinstance(exc, asyncpg.exceptions.QueryCanceledError | TimeoutError | asyncio.TimeoutError):
        log_timeout(exc)
        return QuireError(errors_pb2.ERROR_CODE_DEADLINE_EXCEEDED, "Deadline exceeded")
    if lost_database(exc):
        return database_unavailable()
    log.exception("unhandled error", exc_info=exc)
    return QuireError(errors_pb2.ERROR_CODE_INTERNAL, "Internal error")


def status_for(exc: BaseException) -> Status:
    return _status(to_quire_error(exc))

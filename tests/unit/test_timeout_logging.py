"""Every call that ends DEADLINE_EXCEEDED is logged once, with its cause, where it was raised
and how much of the caller's deadline was left (issue 30: spurious timeouts left no trace)."""

from __future__ import annotations

import logging
import time

import asyncpg
import grpc
import pytest

from quire.server.failures import QuireError, status_for
from quire.server.storage.database import request_deadline
from quire.v1 import errors_pb2


def _timeouts(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == "timeout"]


def _release_that_times_out() -> None:
    raise TimeoutError


def test_a_timeout_inside_the_server_is_logged_with_where_and_the_deadline_left(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="quire.server.failures")
    token = request_deadline.set(time.monotonic() + 30)
    try:
        try:
            _release_that_times_out()
        except TimeoutError as exc:
            status = status_for(exc)
    finally:
        request_deadline.reset(token)
    assert status.grpc_code == grpc.StatusCode.DEADLINE_EXCEEDED
    [record] = _timeouts(caplog)
    assert record.levelno == logging.WARNING
    assert record.cause == "timeout in the server"  # type: ignore[attr-defined]
    assert record.error_type == "TimeoutError"  # type: ignore[attr-defined]
    assert "_release_that_times_out" in record.raised_at  # type: ignore[attr-defined]
    # Most of the 30 s left: the server's own doing, not the caller's deadline.
    assert 25_000 < record.deadline_left_ms <= 30_000  # type: ignore[attr-defined]


def test_a_statement_timeout_is_logged_as_such(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="quire.server.failures")
    exc = asyncpg.exceptions.QueryCanceledError("canceling statement due to statement timeout")
    assert status_for(exc).grpc_code == grpc.StatusCode.DEADLINE_EXCEEDED
    [record] = _timeouts(caplog)
    assert record.cause.startswith("statement_timeout")  # type: ignore[attr-defined]
    assert record.deadline_left_ms is None  # type: ignore[attr-defined]  # no deadline set


def test_a_passed_request_deadline_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="quire.server.failures")
    status_for(QuireError(errors_pb2.ERROR_CODE_DEADLINE_EXCEEDED, "Deadline exceeded"))
    [record] = _timeouts(caplog)
    assert record.cause == "request deadline passed"  # type: ignore[attr-defined]


def test_other_errors_log_no_timeout(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="quire.server.failures")
    status_for(QuireError(errors_pb2.ERROR_CODE_NOT_FOUND, "Not found"))
    assert _timeouts(caplog) == []

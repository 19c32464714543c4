"""The ErrorCode table is complete and the derived client classes and JSON agree with it."""

from __future__ import annotations

import json

import grpc

from quire.client import exceptions
from quire.client.codes import GRPC_STATUS_BY_CODE, code_name, tool_error_name
from quire.client.tool_error import tool_error_json
from quire.server.failures import QuireError, status_for
from quire.v1 import errors_pb2

DESIGN_CODES = {
    "INVALID_REQUEST", "UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "PAGE_UNAVAILABLE",
    "PAGE_NOT_FOUND", "PAGE_CHANGED", "SEARCH_UNAVAILABLE", "SYNC_FAILED", "PAGE_SOURCE_BUSY",
    "DISCOVERY_REJECTED", "DOCUMENT_NOT_FOUND", "COLLECTION_NOT_FOUND", "AGENT_NOT_FOUND",
    "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE", "RESOURCE_EXHAUSTED", "UNAVAILABLE",
    "DEADLINE_EXCEEDED", "INTERNAL",
}  # fmt: skip


def all_codes() -> list[int]:
    return [v for v in errors_pb2.ErrorCode.values() if v != errors_pb2.ERROR_CODE_UNSPECIFIED]


def test_every_design_code_is_in_the_contract() -> None:
    assert {code_name(v) for v in all_codes()} >= DESIGN_CODES


def test_every_code_has_a_grpc_status_and_a_client_class() -> None:
    for value in all_codes():
        assert value in GRPC_STATUS_BY_CODE, code_name(value)
        cls = exceptions.ERROR_CLASSES[value]
        assert issubclass(cls, exceptions.QuireError)
        assert cls.code == value


def test_page_changed_maps_to_failed_precondition_with_revision() -> None:
    status = status_for(QuireError(errors_pb2.ERROR_CODE_PAGE_CHANGED, "stale", "rev-2"))
    assert status.grpc_code == grpc.StatusCode.FAILED_PRECONDITION
    assert exceptions.PageChanged.__name__ == "PageChanged"
    assert json.loads(tool_error_json(errors_pb2.ERROR_CODE_PAGE_CHANGED, "rev-2")) == {
        "schema_version": 1,
        "error": "page_changed",
        "current_revision": "rev-2",
    }
    assert tool_error_json(errors_pb2.ERROR_CODE_NOT_FOUND) == (
        '{"schema_version":1,"error":"not_found"}'
    )
    assert tool_error_name(errors_pb2.ERROR_CODE_DOCUMENT_NOT_FOUND) == "document_not_found"


def test_unknown_exceptions_become_internal_without_details() -> None:
    status = status_for(RuntimeError("secret table name"))
    assert status.grpc_code == grpc.StatusCode.INTERNAL
    assert "secret" not in status.message


def test_connection_loss_is_unavailable() -> None:
    assert status_for(ConnectionRefusedError()).grpc_code == grpc.StatusCode.UNAVAILABLE


def test_retry_after_is_rounded_up_to_whole_seconds() -> None:
    from google.rpc import status_pb2

    from quire.server.failures import STATUS_DETAILS_KEY

    waits = {0.2: 1, 1.0: 1, 1.01: 2, 119.5: 120, 120.0: 120}
    for asked, told in waits.items():
        status = status_for(
            QuireError(errors_pb2.ERROR_CODE_PAGE_SOURCE_BUSY, "busy", retry_after_s=asked)
        )
        assert status.grpc_code == grpc.StatusCode.UNAVAILABLE
        raw = dict(status.trailing_metadata)[STATUS_DETAILS_KEY]
        detail = errors_pb2.ErrorDetail()
        assert status_pb2.Status.FromString(raw).details[0].Unpack(detail)
        assert detail.retry_after.seconds == told, (asked, detail.retry_after)

"""Error mapping: a gRPC failure becomes the QuireError subclass of its ErrorCode."""

from __future__ import annotations

import json
from typing import Any

import grpc
from google.rpc import status_pb2

import quire.client as client
from quire.client import exceptions
from quire.client.rich_status import STATUS_DETAILS_KEY
from quire.v1 import errors_pb2


class FakeRpcError(grpc.RpcError):
    def __init__(
        self, code: grpc.StatusCode, details: str, detail: errors_pb2.ErrorDetail | None = None
    ) -> None:
        self._code, self._details = code, details
        self._trailers: tuple[tuple[str, Any], ...] = ()
        if detail is not None:
            status = status_pb2.Status(code=code.value[0], message=details)
            packed = status.details.add()
            packed.type_url = "type.googleapis.com/" + detail.DESCRIPTOR.full_name
            packed.value = detail.SerializeToString()
            self._trailers = ((STATUS_DETAILS_KEY, status.SerializeToString()),)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self._trailers


def test_every_error_code_has_an_exported_class() -> None:
    for value in errors_pb2.ErrorCode.values():
        if value == errors_pb2.ERROR_CODE_UNSPECIFIED:
            continue
        cls = exceptions.ERROR_CLASSES[value]
        assert issubclass(cls, client.QuireError)
        assert getattr(client, cls.__name__, cls) is cls


def test_page_changed_carries_current_revision() -> None:
    detail = errors_pb2.ErrorDetail(
        code=errors_pb2.ERROR_CODE_PAGE_CHANGED, message="stale", current_revision="rev-2"
    )
    exc = exceptions.from_rpc_error(
        FakeRpcError(grpc.StatusCode.FAILED_PRECONDITION, "stale", detail)
    )
    assert isinstance(exc, client.PageChanged)
    assert exc.current_revision == "rev-2"
    assert exc.grpc_code == grpc.StatusCode.FAILED_PRECONDITION
    assert json.loads(client.to_tool_error(exc)) == {
        "schema_version": 1,
        "error": "page_changed",
        "message": "stale",
        "current_revision": "rev-2",
    }


def test_field_violations_and_retry_after() -> None:
    detail = errors_pb2.ErrorDetail(
        code=errors_pb2.ERROR_CODE_INVALID_REQUEST,
        field_violations=[errors_pb2.FieldViolation(field="config.x", description="0-1")],
    )
    detail.retry_after.FromSeconds(2)
    exc = exceptions.from_rpc_error(FakeRpcError(grpc.StatusCode.INVALID_ARGUMENT, "bad", detail))
    assert isinstance(exc, client.InvalidRequest)
    assert exc.field_violations == [("config.x", "0-1")]
    assert exc.retry_after is not None and exc.retry_after.total_seconds() == 2


def test_status_without_detail_falls_back_on_the_grpc_code() -> None:
    cases = {
        grpc.StatusCode.UNAVAILABLE: client.Unavailable,
        grpc.StatusCode.DEADLINE_EXCEEDED: client.DeadlineExceeded,
        grpc.StatusCode.UNIMPLEMENTED: client.Unimplemented,
        grpc.StatusCode.RESOURCE_EXHAUSTED: client.ResourceExhausted,
        grpc.StatusCode.UNKNOWN: client.Internal,
    }
    for code, cls in cases.items():
        exc = exceptions.from_rpc_error(FakeRpcError(code, "boom"))
        assert type(exc) is cls, code
        assert exc.retry_after is None


def test_detail_code_wins_over_grpc_code() -> None:
    detail = errors_pb2.ErrorDetail(code=errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND)
    exc = exceptions.from_rpc_error(FakeRpcError(grpc.StatusCode.NOT_FOUND, "nope", detail))
    assert isinstance(exc, client.CollectionNotFound)
    assert not isinstance(exc, client.NotFound)
    assert json.loads(client.to_tool_error(exc))["error"] == "collection_not_found"


def test_tool_error_for_foreign_exceptions() -> None:
    assert json.loads(client.to_tool_error(ValueError("x"))) == {
        "schema_version": 1,
        "error": "internal",
    }


def test_tool_error_message_in_its_place_and_never_for_internal() -> None:
    detail = errors_pb2.ErrorDetail(
        code=errors_pb2.ERROR_CODE_INVALID_REQUEST,
        message="limit: at most 8",
        field_violations=[errors_pb2.FieldViolation(field="limit", bound="1–8")],
    )
    exc = exceptions.from_rpc_error(FakeRpcError(grpc.StatusCode.INVALID_ARGUMENT, "x", detail))
    assert client.to_tool_error(exc) == (
        '{"schema_version":1,"error":"invalid_request","message":"limit: at most 8",'
        '"field":"limit","bound":"1–8"}'
    )
    internal = errors_pb2.ErrorDetail(code=errors_pb2.ERROR_CODE_INTERNAL, message="oops")
    exc = exceptions.from_rpc_error(FakeRpcError(grpc.StatusCode.INTERNAL, "oops", internal))
    assert client.to_tool_error(exc) == '{"schema_version":1,"error":"internal"}'

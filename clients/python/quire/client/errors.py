"""Exceptions raised by the client: one class per `quire.v1.ErrorCode`, all under QuireError.

The classes are built from the proto enum at import time (the enum is the single source of
truth), so a new ErrorCode gets its class without editing this file. Names are the code in
CamelCase: ERROR_CODE_PAGE_CHANGED → PageChanged.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import grpc

from quire.client.codes import CODE_BY_GRPC_STATUS, code_name
from quire.client.rich_status import call_error_detail
from quire.client.tool_error import tool_error_dict, tool_error_json
from quire.v1 import errors_pb2


class QuireError(Exception):
    """A failed call. `code` is a `quire.v1.ErrorCode` value; `detail` the full ErrorDetail."""

    code: int = errors_pb2.ERROR_CODE_UNSPECIFIED

    def __init__(
        self,
        message: str,
        *,
        detail: errors_pb2.ErrorDetail | None = None,
        grpc_code: grpc.StatusCode | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail or errors_pb2.ErrorDetail(code=self.code, message=message)  # type: ignore[arg-type]
        self.grpc_code = grpc_code

    @property
    def code_name(self) -> str:
        return code_name(self.code)

    @property
    def current_revision(self) -> str:
        return self.detail.current_revision

    @property
    def field_violations(self) -> list[tuple[str, str]]:
        return [(v.field, v.description) for v in self.detail.field_violations]

    @property
    def retry_after(self) -> timedelta | None:
        if not self.detail.HasField("retry_after"):
            return None
        return self.detail.retry_after.ToTimedelta()

    def to_tool_error(self) -> dict[str, Any]:
        return tool_error_dict(self.code, self.current_revision)


def _class_name(code: int) -> str:
    return "".join(part.capitalize() for part in code_name(code).split("_"))


ERROR_CLASSES: dict[int, type[QuireError]] = {}
for _value in errors_pb2.ErrorCode.values():
    if _value == errors_pb2.ERROR_CODE_UNSPECIFIED:
        continue
    _cls = type(_class_name(_value), (QuireError,), {"code": _value, "__module__": __name__})
    ERROR_CLASSES[_value] = _cls
    globals()[_cls.__name__] = _cls

# Explicit names for the classes type checkers and users most often reach for.
InvalidRequest: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_INVALID_REQUEST]
Unauthenticated: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_UNAUTHENTICATED]
PermissionDenied: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_PERMISSION_DENIED]
NotFound: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_NOT_FOUND]
PageNotFound: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_PAGE_NOT_FOUND]
PageChanged: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_PAGE_CHANGED]
DocumentNotFound: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_DOCUMENT_NOT_FOUND]
CollectionNotFound: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND]
AgentNotFound: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_AGENT_NOT_FOUND]
UnsupportedMediaType: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_UNSUPPORTED_MEDIA_TYPE]
PayloadTooLarge: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_PAYLOAD_TOO_LARGE]
ResourceExhausted: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_RESOURCE_EXHAUSTED]
Unavailable: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_UNAVAILABLE]
DeadlineExceeded: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_DEADLINE_EXCEEDED]
Internal: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_INTERNAL]
Unimplemented: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_UNIMPLEMENTED]
PageUnavailable: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_PAGE_UNAVAILABLE]
SearchUnavailable: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_SEARCH_UNAVAILABLE]
SyncFailed: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_SYNC_FAILED]
PageSourceBusy: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_PAGE_SOURCE_BUSY]
DiscoveryRejected: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_DISCOVERY_REJECTED]
AlreadyExists: type[QuireError] = ERROR_CLASSES[errors_pb2.ERROR_CODE_ALREADY_EXISTS]


def from_rpc_error(exc: grpc.RpcError) -> QuireError:
    """Turns a failed gRPC call into the matching QuireError subclass."""
    code: grpc.StatusCode = exc.code()
    message: str = exc.details() or code.name
    detail = call_error_detail(exc)
    value = (
        detail.code
        if detail is not None and detail.code
        else CODE_BY_GRPC_STATUS.get(code, errors_pb2.ERROR_CODE_INTERNAL)
    )
    cls = ERROR_CLASSES.get(value, QuireError)
    return cls(message, detail=detail, grpc_code=code)


def to_tool_error(exc: BaseException) -> str:
    """The design's tool_error JSON for any exception (unknown ones are `internal`)."""
    if isinstance(exc, grpc.RpcError):
        exc = from_rpc_error(exc)
    if isinstance(exc, QuireError):
        return tool_error_json(exc.code, exc.current_revision)
    return tool_error_json(errors_pb2.ERROR_CODE_INTERNAL)

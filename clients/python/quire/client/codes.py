"""The one table from `quire.v1.ErrorCode` to canonical gRPC status codes.

The server's error mapping and the client's exception classes are both derived from this
table; `tests/unit/test_error_table.py` fails when a new ErrorCode has no row here.
"""

from __future__ import annotations

import grpc

from quire.v1 import errors_pb2

ErrorCode = errors_pb2.ErrorCode

GRPC_STATUS_BY_CODE: dict[int, grpc.StatusCode] = {
    errors_pb2.ERROR_CODE_INVALID_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    errors_pb2.ERROR_CODE_UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    errors_pb2.ERROR_CODE_PERMISSION_DENIED: grpc.StatusCode.PERMISSION_DENIED,
    errors_pb2.ERROR_CODE_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    errors_pb2.ERROR_CODE_PAGE_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    errors_pb2.ERROR_CODE_PAGE_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    errors_pb2.ERROR_CODE_PAGE_CHANGED: grpc.StatusCode.FAILED_PRECONDITION,
    errors_pb2.ERROR_CODE_SEARCH_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    errors_pb2.ERROR_CODE_SYNC_FAILED: grpc.StatusCode.ABORTED,
    errors_pb2.ERROR_CODE_PAGE_SOURCE_BUSY: grpc.StatusCode.UNAVAILABLE,
    errors_pb2.ERROR_CODE_DISCOVERY_REJECTED: grpc.StatusCode.ABORTED,
    errors_pb2.ERROR_CODE_DOCUMENT_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    errors_pb2.ERROR_CODE_AGENT_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    errors_pb2.ERROR_CODE_UNSUPPORTED_MEDIA_TYPE: grpc.StatusCode.INVALID_ARGUMENT,
    errors_pb2.ERROR_CODE_PAYLOAD_TOO_LARGE: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors_pb2.ERROR_CODE_RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors_pb2.ERROR_CODE_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    errors_pb2.ERROR_CODE_DEADLINE_EXCEEDED: grpc.StatusCode.DEADLINE_EXCEEDED,
    errors_pb2.ERROR_CODE_INTERNAL: grpc.StatusCode.INTERNAL,
    errors_pb2.ERROR_CODE_UNIMPLEMENTED: grpc.StatusCode.UNIMPLEMENTED,
    errors_pb2.ERROR_CODE_ALREADY_EXISTS: grpc.StatusCode.ALREADY_EXISTS,
}

# The ErrorCode a client assumes when a status arrives without an ErrorDetail (e.g. one
# produced by gRPC itself, such as an oversize message).
CODE_BY_GRPC_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.INVALID_ARGUMENT: errors_pb2.ERROR_CODE_INVALID_REQUEST,
    grpc.StatusCode.UNAUTHENTICATED: errors_pb2.ERROR_CODE_UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED: errors_pb2.ERROR_CODE_PERMISSION_DENIED,
    grpc.StatusCode.NOT_FOUND: errors_pb2.ERROR_CODE_NOT_FOUND,
    grpc.StatusCode.RESOURCE_EXHAUSTED: errors_pb2.ERROR_CODE_RESOURCE_EXHAUSTED,
    grpc.StatusCode.UNAVAILABLE: errors_pb2.ERROR_CODE_UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED: errors_pb2.ERROR_CODE_DEADLINE_EXCEEDED,
    grpc.StatusCode.UNIMPLEMENTED: errors_pb2.ERROR_CODE_UNIMPLEMENTED,
    grpc.StatusCode.ALREADY_EXISTS: errors_pb2.ERROR_CODE_ALREADY_EXISTS,
    grpc.StatusCode.CANCELLED: errors_pb2.ERROR_CODE_UNAVAILABLE,
}

_PREFIX = "ERROR_CODE_"


def code_name(code: int) -> str:
    """`ERROR_CODE_PAGE_CHANGED` → `PAGE_CHANGED` (the ErrorInfo reason)."""
    return ErrorCode.Name(code).removeprefix(_PREFIX)  # type: ignore[arg-type]


def tool_error_name(code: int) -> str:
    """`ERROR_CODE_PAGE_CHANGED` → `page_changed` (the `error` field of tool_error JSON)."""
    return code_name(code).lower()

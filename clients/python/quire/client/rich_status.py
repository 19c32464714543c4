"""The server's `google.rpc.Status` and the `quire.v1.ErrorDetail` packed in it.

A failed call carries the standard rich status in its `grpc-status-details-bin` trailer:
`grpcio-status` (`grpc_status.rpc_status`) reads it from a call and checks it against the
call's own code and message; `googleapis-common-protos` provides the `google.rpc.Status`
message for reading bare trailers.
"""

from __future__ import annotations

from typing import Any

from google.rpc import status_pb2
from grpc_status import rpc_status

from quire.v1 import errors_pb2

__all__ = ["STATUS_DETAILS_KEY", "call_error_detail", "error_detail", "error_reasons"]

# The trailer grpcio-status reads and writes (it does not export the name).
STATUS_DETAILS_KEY = "grpc-status-details-bin"


def _detail_of(status: status_pb2.Status) -> errors_pb2.ErrorDetail | None:
    for item in status.details:
        if item.Is(errors_pb2.ErrorDetail.DESCRIPTOR):
            detail = errors_pb2.ErrorDetail()
            item.Unpack(detail)
            return detail
    return None


def _trailer_status(metadata: Any) -> status_pb2.Status | None:
    for key, value in metadata or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            return status_pb2.Status.FromString(value)
    return None


def call_error_detail(call: Any) -> errors_pb2.ErrorDetail | None:
    """The ErrorDetail of a failed call (`grpc.RpcError`, `grpc.aio.AioRpcError`), if the
    server sent one. A status whose code or message contradicts the call's (a proxy replaced
    the status but passed the trailer on) describes another failure and is ignored."""
    try:
        status = rpc_status.from_call(call)
    except ValueError:
        return None
    return None if status is None else _detail_of(status)


def error_detail(metadata: Any) -> errors_pb2.ErrorDetail | None:
    """The ErrorDetail inside bare trailers, if the server sent one (no consistency check:
    for tests and tools that hold only the trailers)."""
    status = _trailer_status(metadata)
    return None if status is None else _detail_of(status)


def error_reasons(metadata: Any) -> list[str]:
    """Type URLs of every detail (useful in tests and debugging)."""
    status = _trailer_status(metadata)
    return [] if status is None else [item.type_url for item in status.details]

"""Exceptions raised by the client: one class per `quire.v1.ErrorCode`, all under QuireError.

The classes are generated from the contract (`_error_classes.py`, by scripts/contractgen), so
a new ErrorCode gets its class from `make generate`. Names are the code in CamelCase:
ERROR_CODE_PAGE_CHANGED → PageChanged.
"""

from __future__ import annotations

import grpc

from quire.client._error_classes import *  # noqa: F403  (the generated classes, re-exported)
from quire.client._error_classes import ERROR_CLASSES
from quire.client.codes import CODE_BY_GRPC_STATUS, code_name
from quire.client.quire_error import QuireError as QuireError
from quire.client.rich_status import call_error_detail
from quire.client.tool_error import tool_error_json
from quire.v1 import errors_pb2


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


def from_error_detail(detail: errors_pb2.ErrorDetail) -> QuireError:
    """The QuireError subclass of an ErrorDetail received inside a response (a document refused
    within UploadDocuments)."""
    cls = ERROR_CLASSES.get(detail.code, QuireError)
    return cls(detail.message or code_name(detail.code), detail=detail)


def to_tool_error(exc: BaseException) -> str:
    """The design's tool_error JSON for any exception (unknown ones are `internal`)."""
    if isinstance(exc, grpc.RpcError):
        exc = from_rpc_error(exc)
    if isinstance(exc, QuireError):
        return exc.to_tool_error()
    return tool_error_json(errors_pb2.ERROR_CODE_INTERNAL)

"""ErrorCode ↔ gRPC status for the client, and the names a code goes by.

`GRPC_STATUS_BY_CODE` (the status the server sends with each code) and `CODE_BY_GRPC_STATUS`
(the code assumed for a status that carries no ErrorDetail) are generated from the
`(quire.v1.error)` options of errors.proto into `_contract.py`.
"""

from __future__ import annotations

from quire.client._contract import CODE_BY_GRPC_STATUS as CODE_BY_GRPC_STATUS
from quire.client._contract import GRPC_STATUS_BY_CODE as GRPC_STATUS_BY_CODE
from quire.v1 import errors_pb2

ErrorCode = errors_pb2.ErrorCode

_PREFIX = "ERROR_CODE_"


def code_name(code: int) -> str:
    """`ERROR_CODE_PAGE_CHANGED` → `PAGE_CHANGED` (the ErrorInfo reason)."""
    return ErrorCode.Name(code).removeprefix(_PREFIX)  # type: ignore[arg-type]


def tool_error_name(code: int) -> str:
    """`ERROR_CODE_PAGE_CHANGED` → `page_changed` (the `error` field of tool_error JSON)."""
    return code_name(code).lower()

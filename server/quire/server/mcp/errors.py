"""How a Quire failure outside a tool call reaches an MCP client.

Inside a tool call a failure is the call's result (`isError`, tool_error JSON) for the model to
read. Outside one — listing the tools, or the HTTP endpoint's key and binding — it is the
client's problem, not the model's: over HTTP an HTTP status before any MCP processing, over
JSON-RPC an error with a code from the JSON-RPC spec where one fits and one of Quire's in the
band the MCP spec leaves to implementations (-32000..-32019, above the SDK's own -32000 and
-32001). Either way the body (the JSON-RPC `data`) is the tool_error object, so its `error`
names the Quire code, and `field` and `bound` the parameter at fault. docs/agents.md has the
table.

- INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION (a bad binding): -32602, invalid params;
  HTTP 400.
- UNAUTHENTICATED: -32010; HTTP 401. PERMISSION_DENIED: -32011; HTTP 403.
- UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, ABORTED, CANCELLED: -32012, retry
  later; HTTP 503.
- anything else (INTERNAL, a failure that is not Quire's): -32603, internal; HTTP 500.

Only the last is logged with its traceback: the others are the caller's key, binding or
timing, or the server saying why.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import grpc
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from quire.client.codes import GRPC_STATUS_BY_CODE, tool_error_name
from quire.client.exceptions import QuireError, from_rpc_error
from quire.client.tool_error import tool_error_dict, tool_error_json
from quire.v1 import errors_pb2

log = logging.getLogger(__name__)

UNAUTHENTICATED = -32010
PERMISSION_DENIED = -32011
RETRY_LATER = -32012

_BY_STATUS: dict[grpc.StatusCode, tuple[int, int]] = {
    grpc.StatusCode.INVALID_ARGUMENT: (INVALID_PARAMS, 400),
    grpc.StatusCode.NOT_FOUND: (INVALID_PARAMS, 400),
    grpc.StatusCode.FAILED_PRECONDITION: (INVALID_PARAMS, 400),
    grpc.StatusCode.UNAUTHENTICATED: (UNAUTHENTICATED, 401),
    grpc.StatusCode.PERMISSION_DENIED: (PERMISSION_DENIED, 403),
    grpc.StatusCode.UNAVAILABLE: (RETRY_LATER, 503),
    grpc.StatusCode.RESOURCE_EXHAUSTED: (RETRY_LATER, 503),
    grpc.StatusCode.DEADLINE_EXCEEDED: (RETRY_LATER, 503),
    grpc.StatusCode.ABORTED: (RETRY_LATER, 503),
    grpc.StatusCode.CANCELLED: (RETRY_LATER, 503),
}
_INTERNAL = (INTERNAL_ERROR, 500)


@dataclass(frozen=True)
class Refusal:
    """One failure as MCP's transports send it."""

    jsonrpc_code: int
    http_status: int
    body: dict[str, Any]

    @property
    def message(self) -> str:
        """One line: the Quire code and its sentence, e.g. `unauthenticated: Missing ...`."""
        text = self.body.get("message")
        return f"{self.body['error']}: {text}" if text else str(self.body["error"])

    def http_body(self) -> bytes:
        return json.dumps(self.body, ensure_ascii=False, separators=(",", ":")).encode()

    def protocol_error(self) -> MCPError:
        return MCPError(self.jsonrpc_code, self.message, data=self.body)


def refusal(exc: BaseException) -> Refusal:
    """The refusal for any failure; one that is not a Quire error is `internal`, logged."""
    failure = from_rpc_error(exc) if isinstance(exc, grpc.RpcError) else exc
    if not isinstance(failure, QuireError):
        log.error("MCP request failed", exc_info=exc)
        body = json.loads(tool_error_json(errors_pb2.ERROR_CODE_INTERNAL))
        return Refusal(*_INTERNAL, body)
    status = GRPC_STATUS_BY_CODE.get(failure.code, grpc.StatusCode.INTERNAL)
    jsonrpc_code, http_status = _BY_STATUS.get(status, _INTERNAL)
    if (jsonrpc_code, http_status) == _INTERNAL:
        log.error("MCP request failed: %s", tool_error_name(failure.code), exc_info=exc)
    return Refusal(jsonrpc_code, http_status, failure.tool_error_object())


def invalid_parameter(name: str, description: str, bound: str) -> Refusal:
    """A refusal of the endpoint's own query parameter, as the server words one."""
    body = tool_error_dict(
        errors_pb2.ERROR_CODE_INVALID_REQUEST,
        field=name,
        bound=bound,
        message=f"{name}: {description}",
    )
    return Refusal(INVALID_PARAMS, 400, body)

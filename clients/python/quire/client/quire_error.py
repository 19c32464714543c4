"""`QuireError`, the base of every exception the client raises.

Its subclasses, one per `quire.v1.ErrorCode`, are generated from the contract into
`_error_classes.py`; `quire.client.exceptions` publishes them all.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import grpc

from quire.client.codes import code_name
from quire.client.tool_error import compact_json, tool_error_dict
from quire.v1 import errors_pb2


class QuireError(Exception):
    """A failed call. `code` is a `quire.v1.ErrorCode` value; `detail` the full ErrorDetail."""

    __module__ = "quire.client.exceptions"
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

    def to_tool_error(self) -> str:
        """The tool_error JSON (compact, as a tool result carries it), like the module function
        `quire.client.exceptions.to_tool_error` and the other clients' `toToolError`."""
        return compact_json(self.tool_error_object())

    def tool_error_object(self) -> dict[str, Any]:
        """The tool_error object (TypeScript's `toToolErrorObject`): `message` is the
        ErrorDetail's, `field` and `bound` come from the first field violation."""
        first = self.detail.field_violations[0] if self.detail.field_violations else None
        return tool_error_dict(
            self.code,
            self.current_revision,
            first.field if first else "",
            first.bound if first else "",
            self.detail.message,
        )

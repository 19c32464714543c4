"""The JSON an agent tool returns instead of raising (design §2, docs/errors.md#tool_error)."""

from __future__ import annotations

import json
from typing import Any

from quire.client.codes import tool_error_name
from quire.v1 import errors_pb2

SCHEMA_VERSION = 1


def tool_error_dict(
    code: int, current_revision: str = "", field: str = "", bound: str = "", message: str = ""
) -> dict[str, Any]:
    """`message` is the ErrorDetail's sentence for people and models; `field` and `bound` name
    the first offending argument and the bound it broke, so a model can correct the call.
    Each key appears only when set. The order of the keys is fixed (the TypeScript and Go
    clients write the same bytes): schema_version, error, message, current_revision, field,
    bound."""
    body: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "error": tool_error_name(code)}
    # An `internal` failure never says more than its code: its text may come from a runtime or
    # from code that is not Quire's, which is not the model's to read.
    if message and code != errors_pb2.ERROR_CODE_INTERNAL:
        body["message"] = message
    if current_revision:
        body["current_revision"] = current_revision
    if field:
        body["field"] = field
    if bound:
        body["bound"] = bound
    return body


def compact_json(body: dict[str, Any]) -> str:
    """The compact JSON text of a tool_error object."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def tool_error_json(
    code: int, current_revision: str = "", field: str = "", bound: str = "", message: str = ""
) -> str:
    """Canonical compact JSON, e.g. `{"schema_version":1,"error":"page_changed",...}`."""
    return compact_json(tool_error_dict(code, current_revision, field, bound, message))

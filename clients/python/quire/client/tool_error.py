"""The JSON an agent tool returns instead of raising (design §2, docs/errors.md#tool_error)."""

from __future__ import annotations

import json
from typing import Any

from quire.client.codes import tool_error_name

SCHEMA_VERSION = 1


def tool_error_dict(
    code: int, current_revision: str = "", field: str = "", bound: str = ""
) -> dict[str, Any]:
    """`field` and `bound` name the first offending argument and the bound it broke, so a
    model can correct the call; each key appears only when set."""
    body: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "error": tool_error_name(code)}
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


def tool_error_json(code: int, current_revision: str = "", field: str = "", bound: str = "") -> str:
    """Canonical compact JSON, e.g. `{"schema_version":1,"error":"page_changed",...}`."""
    return compact_json(tool_error_dict(code, current_revision, field, bound))

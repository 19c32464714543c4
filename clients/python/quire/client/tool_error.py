"""The JSON an agent tool returns instead of raising (design §2)."""

from __future__ import annotations

import json
from typing import Any

from quire.client.codes import tool_error_name

SCHEMA_VERSION = 1


def tool_error_dict(code: int, current_revision: str = "") -> dict[str, Any]:
    body: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "error": tool_error_name(code)}
    if current_revision:
        body["current_revision"] = current_revision
    return body


def tool_error_json(code: int, current_revision: str = "") -> str:
    """Canonical compact JSON, e.g. `{"schema_version":1,"error":"page_changed",...}`."""
    return json.dumps(tool_error_dict(code, current_revision), separators=(",", ":"))

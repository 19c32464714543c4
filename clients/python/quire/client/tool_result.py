"""The JSON an agent tool returns for a successful call: the result message, as budgets count it.

The text is protobuf's JSON mapping with the proto field names, every field present (so a model
sees `"truncated":false` rather than guessing what a missing key means), keys sorted, compact
separators and raw UTF-8 — the encoding whose bytes the server's output budgets count, so a
search that fits its 24,000-byte budget gives a tool result of at most that size. 64-bit
integers are strings, as the mapping says. The TypeScript client's `toToolResult` writes the same
bytes for the same message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from google.protobuf.message import Message

from quire.client.proto_json import canonical_dict


def tool_result_value(result: Message | Sequence[Message]) -> Any:
    """The JSON value (dict, or list for list-returning calls such as `list_collections`)."""
    if isinstance(result, Message):
        return canonical_dict(result)  # json_format.MessageToDict with those options, faster
    return [tool_result_value(item) for item in result]


def to_tool_result(result: Message | Sequence[Message]) -> str:
    """Canonical compact JSON of a call's result, e.g. `{"content":"…","next_offset":"4000",…}`."""
    return json.dumps(
        tool_result_value(result), ensure_ascii=False, separators=(",", ":"), sort_keys=True
    )

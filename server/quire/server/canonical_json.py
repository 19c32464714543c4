"""The canonical JSON of a result: what output budgets count.

Protobuf's JSON mapping with proto field names, every field present, keys sorted, compact
separators and UTF-8 (not \\u-escaped). Budgets are in bytes of this encoding, so an agent
that receives the JSON gets at most that many bytes.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.message import Message

from quire.client.proto_json import canonical_dict


def as_dict(message: Message) -> dict[str, Any]:
    """Protobuf's JSON mapping with those options (json_format's result, made faster)."""
    value: dict[str, Any] = canonical_dict(message)
    return value


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def size(message: Message) -> int:
    return len(dumps(as_dict(message)))

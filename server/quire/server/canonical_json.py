"""The canonical JSON of a result: what output budgets count.

Protobuf's JSON mapping with proto field names, every field present, keys sorted, compact
separators and UTF-8 (not \\u-escaped). Budgets are in bytes of this encoding, so an agent
that receives the JSON gets at most that many bytes.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message


def as_dict(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def size(message: Message) -> int:
    return len(dumps(as_dict(message)))

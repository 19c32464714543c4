"""The JSON an agent tool returns on success: the result message as canonical JSON.

Canonical means what Quire's byte budgets count (SearchPages' max_output_bytes, ReadPage's
24,000 bytes): proto field names, every field printed (zero values too), keys sorted, no
spaces, UTF-8 as is. 64-bit integers are JSON strings, as the protobuf JSON mapping says.
"""

from __future__ import annotations

import json

from google.protobuf import json_format
from google.protobuf.message import Message


def tool_result(message: Message) -> str:
    body = json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True)

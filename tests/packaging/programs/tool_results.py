"""A user's program against the `quire-client` wheel, installed into a clean virtualenv
(tests/packaging/test_python_wheel.py). Prints the same `label<TAB>json` lines as
tool_results.mjs for the same calls and messages.

    QUIRE_ADDRESS=host:port QUIRE_API_KEY=qk_... QUIRE_DOCUMENT_ID=... python tool_results.py

stdin: one {"type": "quire.v1.X", "binary": "<base64>"} per line.
"""

from __future__ import annotations

import base64
import json
import os
import sys

from google.protobuf import descriptor_pool, message_factory

# Imported for their side effect: the message types register in the default pool by name.
import quire.v1.admin_service_pb2
import quire.v1.knowledge_service_pb2
import quire.v1.pages_service_pb2  # noqa: F401
from quire.client import QuireClient, QuireError, to_tool_error, to_tool_result

MISSING_DOCUMENT = "00000000-0000-4000-8000-000000000000"


def main() -> None:
    with QuireClient(os.environ["QUIRE_ADDRESS"], api_key=os.environ["QUIRE_API_KEY"]) as client:
        document = client.get_document(document_id=os.environ["QUIRE_DOCUMENT_ID"])
        print(f"get_document\t{to_tool_result(document)}")
        print(f"list_collections\t{to_tool_result(client.list_collections())}")
        try:
            client.get_document(document_id=MISSING_DOCUMENT)
            print("missing_document\tfound")
        except QuireError as exc:
            print(f"missing_document\t{to_tool_error(exc)}")
    for index, line in enumerate(line for line in sys.stdin if line.strip()):
        item = json.loads(line)
        descriptor = descriptor_pool.Default().FindMessageTypeByName(item["type"])
        message = message_factory.GetMessageClass(descriptor).FromString(
            base64.b64decode(item["binary"])
        )
        print(f"message_{index}\t{to_tool_result(message)}")


if __name__ == "__main__":
    main()

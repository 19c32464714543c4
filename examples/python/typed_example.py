"""A small typed program using the async client: create a collection, list it, handle errors.

    .venv/bin/python examples/python/typed_example.py [ADDRESS] [API_KEY]

ADDRESS defaults to $QUIRE_ADDRESS or 127.0.0.1:50051; API_KEY to $QUIRE_API_KEY (a key with
scopes read + write). CI type-checks it with `mypy --strict` and runs it against a live server.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid

from quire.client import AsyncQuireClient, CollectionNotFound, QuireError, to_tool_error
from quire.v1.knowledge_pb2 import Collection


async def run(address: str, api_key: str | None) -> int:
    async with AsyncQuireClient(address, api_key=api_key) as client:
        name = f"typed-example-{uuid.uuid4().hex[:8]}"
        created: Collection = await client.create_collection(name=name)
        print(f"created {created.name} ({created.collection_id})")

        listed: list[Collection] = await client.list_collections()
        assert created.collection_id in {c.collection_id for c in listed}
        print(f"{len(listed)} collection(s): {sorted(c.name for c in listed)}")

        await client.delete_collection(collection_id=created.collection_id)
        try:
            await client.get_collection(collection_id=created.collection_id)
        except CollectionNotFound as exc:
            print(f"deleted collection is gone: {exc.code_name} -> {to_tool_error(exc)}")
        else:
            print("expected CollectionNotFound after delete", file=sys.stderr)
            return 1
    return 0


def main(argv: list[str]) -> int:
    address = argv[1] if len(argv) > 1 else os.environ.get("QUIRE_ADDRESS", "127.0.0.1:50051")
    api_key = argv[2] if len(argv) > 2 else None  # None: the client reads $QUIRE_API_KEY
    try:
        return asyncio.run(run(address, api_key))
    except QuireError as exc:
        print(f"error: {to_tool_error(exc)} {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

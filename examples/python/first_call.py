"""A first call against a running `quire up` (or `make run`).

    .venv/bin/python examples/python/first_call.py [address]

Reads the dev key that `quire up` wrote to $QUIRE_HOME/dev-key (or $QUIRE_API_KEY).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import grpc

from quire.v1 import knowledge_service_pb2, knowledge_service_pb2_grpc


def dev_key() -> str:
    if os.environ.get("QUIRE_API_KEY"):
        return os.environ["QUIRE_API_KEY"]
    home = Path(os.environ.get("QUIRE_HOME", Path.home() / ".local/share/quire"))
    return (home / "dev-key").read_text().strip()


def main(address: str = "127.0.0.1:50051") -> None:
    metadata = (("authorization", f"Bearer {dev_key()}"),)
    with grpc.insecure_channel(address) as channel:
        stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(channel)
        reply = stub.ListCollections(
            knowledge_service_pb2.ListCollectionsRequest(), metadata=metadata, timeout=5
        )
        print(f"{len(reply.collections)} collection(s):", [c.name for c in reply.collections])


if __name__ == "__main__":
    main(*sys.argv[1:])

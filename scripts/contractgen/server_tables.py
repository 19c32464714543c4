"""Writes the server's own tables: the status and reason of each ErrorCode, the scope per RPC,
the reads a replica may serve.

The server enforces these facts, so it reads them from its own generated module
(`quire/server/contract/tables.py`), never from the client package.
"""

from __future__ import annotations

from scripts.contractgen.contract import Contract
from scripts.contractgen.facts import GENERATED_HEADER, error_codes, rpcs

TABLES = "server/quire/server/contract/tables.py"


def _tables(contract: Contract) -> str:
    codes = error_codes(contract)
    lines = [
        f'"""{GENERATED_HEADER}.',
        "",
        "The contract's per-code and per-RPC facts the server enforces: the status and the",
        "ErrorInfo reason each ErrorCode is sent with, the API-key scope each RPC needs, and the",
        "reads a replica may serve.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import grpc",
        "",
        "from quire.v1 import errors_pb2",
        "",
        "# (quire.v1.error).grpc_status: the gRPC status sent with each ErrorCode.",
        "GRPC_STATUS_BY_CODE: dict[int, grpc.StatusCode] = {",
        *(f"    errors_pb2.{c.full_name}: grpc.StatusCode.{c.grpc_status}," for c in codes),
        "}",
        "",
        "# The google.rpc.ErrorInfo reason of each ErrorCode: its name without the prefix.",
        "REASON_BY_CODE: dict[int, str] = {",
        *(f'    errors_pb2.{c.full_name}: "{c.name}",' for c in codes),
        "}",
        "",
        "# (quire.v1.call).scope of every RPC, by gRPC method path: a `quire.server.auth.Scope`",
        "# value. Methods not listed (health, reflection) need no key.",
        "SCOPE_BY_METHOD: dict[str, str] = {",
        *(f'    "{rpc.method_path}": "{rpc.scope.lower()}",' for rpc in rpcs(contract)),
        "}",
        "",
        "# The unary RPCs whose idempotency_level is NO_SIDE_EFFECTS, by gRPC method path: the",
        "# reads a replica may serve (read_routing.py). Streams never are.",
        "REPLICA_READS: frozenset[str] = frozenset(",
        "    {",
        *(f'        "{rpc.method_path}",' for rpc in rpcs(contract) if rpc.replica_read),
        "    }",
        ")",
    ]
    return "\n".join(lines) + "\n"


def emit(contract: Contract) -> dict[str, str]:
    return {TABLES: _tables(contract)}

"""Writes the Python client's tables and its exception classes, one per ErrorCode.

`quire/client/_contract.py` holds the status mapping, the call kinds with their default
deadlines and the retried RPCs
(`codes.py` and `policy.py` publish them); `quire/client/_error_classes.py` holds the classes
`quire.client.exceptions` re-exports.
"""

from __future__ import annotations

import textwrap

from scripts.contractgen.contract import Contract
from scripts.contractgen.facts import (
    GENERATED_HEADER,
    call_kinds,
    error_codes,
    pascal,
    rows_by_service,
    rpcs,
)

CLIENT_DIR = "clients/python/quire/client"
TABLES = f"{CLIENT_DIR}/_contract.py"
ERROR_CLASSES = f"{CLIENT_DIR}/_error_classes.py"
# The classes present themselves where users import them from (as the hand-built ones did).
PUBLIC_MODULE = "quire.client.exceptions"


def _status_tables(contract: Contract) -> list[str]:
    codes = error_codes(contract)
    lines = [
        "# (quire.v1.error).grpc_status: the gRPC status the server sends with each ErrorCode.",
        "GRPC_STATUS_BY_CODE: dict[int, grpc.StatusCode] = {",
        *(f"    errors_pb2.{c.full_name}: grpc.StatusCode.{c.grpc_status}," for c in codes),
        "}",
        "",
        "# (quire.v1.error).assumed_for: the ErrorCode a client assumes when a status arrives",
        "# without an ErrorDetail (one produced by gRPC itself, such as an oversize message).",
        "CODE_BY_GRPC_STATUS: dict[grpc.StatusCode, int] = {",
        *(
            f"    grpc.StatusCode.{status}: errors_pb2.{c.full_name},"
            for c in codes
            for status in c.assumed_for
        ),
        "}",
    ]
    return lines


def _seconds(deadline_s: int | None) -> str:
    return "None" if deadline_s is None else f"{float(deadline_s)!r}"


def _call_tables(contract: Contract) -> list[str]:
    lines = [
        "",
        "",
        "class CallKind(enum.Enum):",
        '    """quire.v1.CallKind: how a client treats a call; picks its default deadline."""',
        "",
    ]
    kinds = call_kinds(contract)
    for kind in kinds:
        lines.append(f"    # {kind.comment} {kind.deadline_words}")
        lines.append(f'    {kind.name} = "{kind.name.lower()}"')
    lines += [
        "",
        "",
        "# (quire.v1.call_kind).default_deadline of each kind in seconds; None: no default",
        "# deadline.",
        "DEFAULT_DEADLINE_S: dict[CallKind, float | None] = {",
        *(f"    CallKind.{k.name}: {_seconds(k.deadline_s)}," for k in kinds),
        "}",
        "",
        "",
        "# (quire.v1.call).kind of every RPC of quire.v1, by bare name.",
        "RPC_KINDS: dict[str, CallKind] = {",
        *rows_by_service(rpcs(contract), "    # ", lambda r: f'    "{r.name}": CallKind.{r.kind},'),
        "}",
        "",
        "# The unary RPCs whose idempotency_level is NO_SIDE_EFFECTS or IDEMPOTENT: the only calls",
        "# a client retries.",
        "IDEMPOTENT_RPCS: frozenset[str] = frozenset(",
        "    {",
        *(f'        "{rpc.name}",' for rpc in rpcs(contract) if rpc.retried),
        "    }",
        ")",
    ]
    return lines


def _tables(contract: Contract) -> str:
    head = [
        f'"""{GENERATED_HEADER}.',
        "",
        "The contract's per-code and per-RPC facts for the Python client; `codes.py` and",
        "`policy.py` publish them under their public names.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import enum",
        "",
        "import grpc",
        "",
        "from quire.v1 import errors_pb2",
        "",
    ]
    return "\n".join([*head, *_status_tables(contract), *_call_tables(contract)]) + "\n"


def _docstring(text: str) -> list[str]:
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') or "An ErrorCode."
    lines = textwrap.wrap(body, width=100 - 4 - 6)
    if len(lines) == 1:
        return [f'    """{lines[0]}"""']
    return ['    """' + lines[0], *(f"    {line}" for line in lines[1:]), '    """']


def _error_classes(contract: Contract) -> str:
    codes = error_codes(contract)
    names = sorted(pascal(c.name) for c in codes)
    lines = [
        f'"""{GENERATED_HEADER}.',
        "",
        "One exception class per quire.v1.ErrorCode, all under QuireError, documented by the",
        "value's comment in errors.proto; `quire.client.exceptions` re-exports them.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from quire.client.quire_error import QuireError",
        "from quire.v1 import errors_pb2",
        "",
        "__all__ = [",
        '    "ERROR_CLASSES",',
        *(f'    "{name}",' for name in names),
        "]",
    ]
    for c in codes:
        lines += [
            "",
            "",
            f"class {pascal(c.name)}(QuireError):",
            *_docstring(c.comment),
            "",
            f'    __module__ = "{PUBLIC_MODULE}"',
            f"    code = errors_pb2.{c.full_name}",
        ]
    lines += [
        "",
        "",
        "# Every ErrorCode but UNSPECIFIED → its class.",
        "ERROR_CLASSES: dict[int, type[QuireError]] = {",
        *(f"    errors_pb2.{c.full_name}: {pascal(c.name)}," for c in codes),
        "}",
    ]
    return "\n".join(lines) + "\n"


def emit(contract: Contract) -> dict[str, str]:
    return {TABLES: _tables(contract), ERROR_CLASSES: _error_classes(contract)}

"""Writes the Go client's tables (`quire/contract_gen.go`).

The sentinel errors (ErrPageChanged, ...), the status mapping errors.go uses, the call kinds and
the retried RPCs policy.go uses. The output goes through gofmt, which Go's generated-code check
and editors expect; Go is needed to run the generator.
"""

from __future__ import annotations

import shutil
import subprocess

from scripts.contractgen.contract import Contract
from scripts.contractgen.facts import (
    GENERATED_HEADER,
    ContractError,
    call_kinds,
    error_codes,
    largest_unit,
    pascal,
    rows_by_service,
    rpcs,
    status_member,
)

TABLES = "clients/go/quire/contract_gen.go"


def _gofmt(source: str) -> str:
    gofmt = shutil.which("gofmt")
    if gofmt is None:
        raise ContractError("gofmt is not on PATH: install Go to generate the Go tables")
    done = subprocess.run([gofmt], input=source, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ContractError(f"gofmt refused the generated Go tables:\n{done.stderr}")
    return done.stdout


def _errors(contract: Contract) -> list[str]:
    codes = error_codes(contract)
    enum = "quirev1.ErrorCode_"
    return [
        "// Sentinel errors, one per quirev1.ErrorCode; match with",
        "// errors.Is(err, quire.ErrPageChanged).",
        "var (",
        *(
            f"\t// Err{pascal(c.name)} matches errors whose code is {c.full_name}.\n"
            f"\tErr{pascal(c.name)} error = CodeError({enum}{c.full_name})"
            for c in codes
        ),
        ")",
        "",
        "// generatedSentinels lists the sentinels above by code (a test checks it covers the",
        "// enum).",
        "var generatedSentinels = map[quirev1.ErrorCode]error{",
        *(f"\t{enum}{c.full_name}: Err{pascal(c.name)}," for c in codes),
        "}",
        "",
        "// codeByGRPC is (quire.v1.error).assumed_for: the code assumed when a status carries no",
        "// ErrorDetail (produced by gRPC itself, e.g. a refused connection or an oversize",
        "// message).",
        "var codeByGRPC = map[codes.Code]quirev1.ErrorCode{",
        *(
            f"\tcodes.{status_member(status)}: {enum}{c.full_name},"
            for c in codes
            for status in c.assumed_for
        ),
        "}",
    ]


_GO_UNIT = {"h": "time.Hour", "min": "time.Minute", "s": "time.Second"}


def _go_duration(deadline_s: int | None) -> str:
    """A Go time.Duration expression in the largest whole unit (NoDeadline: none)."""
    if deadline_s is None:
        return "NoDeadline"
    count, unit = largest_unit(deadline_s)
    return f"{count} * {_GO_UNIT[unit]}"


def _calls(contract: Contract) -> list[str]:
    kinds = call_kinds(contract)
    all_rpcs = rpcs(contract)
    lines = ["", "// The values of quire.v1.CallKind.", "const ("]
    for i, kind in enumerate(kinds):
        lines.append(f"\t// Kind{pascal(kind.name)}: {kind.comment} {kind.deadline_words}")
        lines.append(f"\tKind{pascal(kind.name)}" + (" CallKind = iota" if i == 0 else ""))
    lines += [
        ")",
        "",
        "func (k CallKind) String() string {",
        "\tswitch k {",
    ]
    for kind in kinds:
        lines += [f"\tcase Kind{pascal(kind.name)}:", f'\t\treturn "{kind.name.lower()}"']
    lines += [
        "\t}",
        '\treturn "unknown"',
        "}",
        "",
        "// defaultDeadlines is (quire.v1.call_kind).default_deadline of every kind; NoDeadline:",
        "// none.",
        "var defaultDeadlines = map[CallKind]time.Duration{",
        *(f"\tKind{pascal(k.name)}: {_go_duration(k.deadline_s)}," for k in kinds),
        "}",
        "",
        "// RPCKinds maps every RPC of quire.v1 (bare name) to its kind: (quire.v1.call).kind.",
        "var RPCKinds = map[string]CallKind{",
        *rows_by_service(all_rpcs, "\t// ", lambda r: f'\t"{r.name}": Kind{pascal(r.kind)},'),
        "}",
        "",
        "// idempotentRPCs are the unary RPCs whose idempotency_level is NO_SIDE_EFFECTS or",
        "// IDEMPOTENT: the only calls the client retries.",
        "var idempotentRPCs = map[string]bool{",
        *(f'\t"{rpc.name}": true,' for rpc in all_rpcs if rpc.retried),
        "}",
    ]
    return lines


def _tables(contract: Contract) -> str:
    # Go's marker of generated code is "// Code generated ... DO NOT EDIT." (go help generate).
    header = f"// Code {GENERATED_HEADER.replace('do not edit', 'DO NOT EDIT')}."
    lines = [
        header,
        "",
        "package quire",
        "",
        "import (",
        '\t"time"',
        "",
        '\t"google.golang.org/grpc/codes"',
        "",
        '\t"github.com/quire/quire/clients/go/quirev1"',
        ")",
        "",
        *_errors(contract),
        *_calls(contract),
    ]
    return _gofmt("\n".join(lines) + "\n")


def emit(contract: Contract) -> dict[str, str]:
    return {TABLES: _tables(contract)}

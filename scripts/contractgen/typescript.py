"""Writes the TypeScript client's tables (`src/contract.gen.ts`).

errors.ts publishes the status mapping, policy.ts the call kinds and the retried RPCs, and
tools.ts the agent tools (the RPC behind each, its description and argument schema).
"""

from __future__ import annotations

import json
from typing import Any

from scripts.contractgen.contract import Contract
from scripts.contractgen.facts import (
    GENERATED_HEADER,
    call_kinds,
    error_codes,
    rows_by_service,
    rpcs,
    status_member,
)
from scripts.contractgen.tools import tools

TABLES = "clients/typescript/src/contract.gen.ts"


def _tables(contract: Contract) -> str:
    codes = error_codes(contract)
    all_rpcs = rpcs(contract)
    kinds = " | ".join(f'"{k.name.lower()}"' for k in call_kinds(contract))
    lines = [
        f"// {GENERATED_HEADER}.",
        "//",
        "// The contract's per-code and per-RPC facts for the TypeScript client; errors.ts and",
        "// policy.ts publish them, and tools.ts the agent tools.",
        'import type { JsonObject } from "@bufbuild/protobuf";',
        'import { Code } from "@connectrpc/connect";',
        "",
        'import { ErrorCode } from "./gen/quire/v1/errors_pb.js";',
        "",
        "/** (quire.v1.error).grpc_status: the canonical gRPC status of every ErrorCode. */",
        "export const GRPC_STATUS_BY_CODE: Readonly<"
        "Record<Exclude<ErrorCode, ErrorCode.UNSPECIFIED>, Code>> = {",
        *(f"  [ErrorCode.{c.name}]: Code.{status_member(c.grpc_status)}," for c in codes),
        "};",
        "",
        "/**",
        " * (quire.v1.error).assumed_for: the ErrorCode assumed when a status arrives without an",
        " * ErrorDetail (one produced by gRPC itself, e.g. an oversize message or a transport",
        " * failure). Anything else is INTERNAL.",
        " */",
        "export const CODE_BY_GRPC_STATUS: ReadonlyMap<Code, ErrorCode> = new Map([",
        *(
            f"  [Code.{status_member(status)}, ErrorCode.{c.name}],"
            for c in codes
            for status in c.assumed_for
        ),
        "]);",
        "",
        "/** quire.v1.CallKind: how a client treats a call; picks its default deadline. */",
        f"export type CallKind = {kinds};",
        "",
        "/**",
        " * (quire.v1.call_kind).default_deadline of every kind in milliseconds; undefined: no",
        " * default deadline.",
        " */",
        "export const DEFAULT_DEADLINES_MS: Readonly<Record<CallKind, number | undefined>> = "
        "Object.freeze({",
        *(
            f"  {k.name.lower()}: "
            f"{'undefined' if k.deadline_s is None else f'{k.deadline_s * 1000:_}'},"
            for k in call_kinds(contract)
        ),
        "});",
        "",
        "/** (quire.v1.call).kind of every RPC of quire.v1, by bare name. */",
        "export const RPC_KINDS: Readonly<Record<string, CallKind>> = Object.freeze({",
        *rows_by_service(all_rpcs, "  // ", lambda r: f'  {r.name}: "{r.kind.lower()}",'),
        "});",
        "",
        "/** The unary RPCs whose idempotency_level is NO_SIDE_EFFECTS or IDEMPOTENT: retried. */",
        "export const IDEMPOTENT_RPCS: ReadonlySet<string> = new Set([",
        *(f'  "{rpc.name}",' for rpc in all_rpcs if rpc.retried),
        "]);",
        "",
        *_tools(contract),
    ]
    return "\n".join(lines) + "\n"


def _literal(value: Any, indent: str) -> str:
    """A JSON value as a TypeScript literal (JSON is one), its continuation lines indented."""
    return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + indent)


def _tools(contract: Contract) -> list[str]:
    found = tools(contract)
    return [
        "/** The agent tools (`option (quire.v1.tool)`), by the name a model calls them. */",
        "export type ToolName =",
        *(f'  | "{t.name}"' + (";" if i == len(found) - 1 else "") for i, t in enumerate(found)),
        "",
        "/** One agent tool as the contract states it. */",
        "export interface ToolContract {",
        "  /** The service and RPC that answer a call of the tool. */",
        "  readonly service: string;",
        "  readonly rpc: string;",
        "  /** What a model reads about the tool. */",
        "  readonly description: string;",
        "  /**",
        "   * The JSON Schema of its arguments (request fields by their proto names).",
        "   * DescribeTools gives it with the caller's bounds and bindings applied, which is",
        "   * what a runner checks.",
        "   */",
        "  readonly inputSchema: JsonObject;",
        "}",
        "",
        "/** Every agent tool, in the order DescribeTools lists them. */",
        "export const TOOLS: Readonly<Record<ToolName, ToolContract>> = Object.freeze({",
        *(
            line
            for t in found
            for line in (
                f"  {t.name}: {{",
                f'    service: "{t.service}",',
                f'    rpc: "{t.rpc}",',
                f"    description: {_literal(t.description, '    ')},",
                f"    inputSchema: {_literal(t.schema, '    ')},",
                "  },",
            )
        ),
        "});",
    ]


def emit(contract: Contract) -> dict[str, str]:
    return {TABLES: _tables(contract)}

"""Writes the Java client's tables and its exception classes, one per ErrorCode.

`dev/quire/client/Contract.java` holds the call kinds with their default deadlines, the kind
of every RPC, the retried RPCs and the status mapping (`Policy` and `QuireException` use them);
`dev/quire/client/QuireErrors.java` holds one QuireException subclass per ErrorCode, each
documented by the value's comment in errors.proto.
"""

from __future__ import annotations

import textwrap

from scripts.contractgen.contract import Contract
from scripts.contractgen.facts import (
    GENERATED_HEADER,
    CallKindFacts,
    call_kinds,
    error_codes,
    largest_unit,
    pascal,
    rows_by_service,
    rpcs,
)

CLIENT_DIR = "clients/java/src/main/java/dev/quire/client"
TABLES = f"{CLIENT_DIR}/Contract.java"
ERROR_CLASSES = f"{CLIENT_DIR}/QuireErrors.java"


_DURATION_OF = {"h": "ofHours", "min": "ofMinutes", "s": "ofSeconds"}


def _deadline(kind: CallKindFacts) -> str:
    """The Java expression of a kind's default deadline (`(quire.v1.call_kind)`; null: none),
    in the largest whole unit."""
    if kind.deadline_s is None:
        return "null"
    count, unit = largest_unit(kind.deadline_s)
    return f"Duration.{_DURATION_OF[unit]}({count})"


def _javadoc(text: str, indent: str) -> list[str]:
    body = (text or "An ErrorCode.").replace("*/", "*&#47;")
    lines = textwrap.wrap(body, width=100 - len(indent) - 3)
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}" for line in lines), f"{indent} */"]


def _commas(items: list[str]) -> list[str]:
    """Java argument lines: a comma after each but the last."""
    return [item + ("," if i < len(items) - 1 else "") for i, item in enumerate(items)]


def _tables(contract: Contract) -> str:
    codes = error_codes(contract)
    all_rpcs = rpcs(contract)
    kinds = call_kinds(contract)
    lines = [
        f"// {GENERATED_HEADER}.",
        "package dev.quire.client;",
        "",
        "import dev.quire.v1.ErrorCode;",
        "import io.grpc.Status;",
        "import java.time.Duration;",
        "import java.util.Map;",
        "import java.util.Set;",
        "",
        "/** The contract's per-code and per-RPC facts for the Java client. */",
        "public final class Contract {",
        "  private Contract() {}",
        "",
        "  /** quire.v1.CallKind: how the client treats a call; picks its default deadline. */",
        "  public enum CallKind {",
    ]
    for i, kind in enumerate(kinds):
        end = ";" if i == len(kinds) - 1 else ","
        doc = f"{kind.comment} {kind.deadline_words}"
        lines += [*_javadoc(doc, "    "), f"    {kind.name}({_deadline(kind)}){end}"]
    lines += [
        "",
        "    private final Duration defaultDeadline;",
        "",
        "    CallKind(Duration defaultDeadline) {",
        "      this.defaultDeadline = defaultDeadline;",
        "    }",
        "",
        "    /** The deadline a call of this kind gets when the caller sets none; null: none. */",
        "    public Duration defaultDeadline() {",
        "      return defaultDeadline;",
        "    }",
        "  }",
        "",
        "  /** (quire.v1.call).kind of every RPC of quire.v1, by bare name. */",
        "  public static final Map<String, CallKind> RPC_KINDS =",
        "      Map.ofEntries(",
    ]
    rows = rows_by_service(
        all_rpcs, "          // ", lambda r: f'          Map.entry("{r.name}", CallKind.{r.kind}),'
    )
    last = max(i for i, row in enumerate(rows) if not row.lstrip().startswith("//"))
    rows[last] = rows[last].removesuffix(",")
    lines += [*rows, "      );", ""]
    retried = [rpc.name for rpc in all_rpcs if rpc.retried]
    lines += [
        "  /** The unary RPCs marked NO_SIDE_EFFECTS or IDEMPOTENT: the only ones retried. */",
        "  public static final Set<String> IDEMPOTENT_RPCS =",
        "      Set.of(",
        *_commas([f'          "{name}"' for name in retried]),
        "      );",
        "",
        "  /** (quire.v1.error).grpc_status: the gRPC status sent with each ErrorCode. */",
        "  public static final Map<ErrorCode, Status.Code> GRPC_STATUS_BY_CODE =",
        "      Map.ofEntries(",
    ]
    entries = [
        f"          Map.entry(ErrorCode.{c.full_name}, Status.Code.{c.grpc_status})" for c in codes
    ]
    lines += [*_commas(entries), "      );"]
    assumed = [
        f"          Map.entry(Status.Code.{status}, ErrorCode.{c.full_name})"
        for c in codes
        for status in c.assumed_for
    ]
    lines += [
        "",
        "  /**",
        "   * (quire.v1.error).assumed_for: the ErrorCode assumed when a status arrives without an",
        "   * ErrorDetail (one made by gRPC itself, e.g. a refused connection). Others: INTERNAL.",
        "   */",
        "  public static final Map<Status.Code, ErrorCode> CODE_BY_GRPC_STATUS =",
        "      Map.ofEntries(",
        *_commas(assumed),
        "      );",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _error_classes(contract: Contract) -> str:
    codes = error_codes(contract)
    lines = [
        f"// {GENERATED_HEADER}.",
        "package dev.quire.client;",
        "",
        "import dev.quire.v1.ErrorCode;",
        "import dev.quire.v1.ErrorDetail;",
        "import io.grpc.Status;",
        "",
        "/**",
        " * One QuireException subclass per quire.v1.ErrorCode, documented by the value's comment",
        " * in errors.proto: {@code catch (QuireErrors.PageChanged e)}.",
        " */",
        "public final class QuireErrors {",
        "  private QuireErrors() {}",
    ]
    for c in codes:
        name = pascal(c.name)
        lines += [
            "",
            *_javadoc(c.comment, "  "),
            f"  public static final class {name} extends QuireException {{",
            f"    public {name}(Status.Code grpcCode, String message, ErrorDetail detail, "
            "Throwable cause) {",
            f"      super(ErrorCode.{c.full_name}, grpcCode, message, detail, cause);",
            "    }",
            "  }",
        ]
    lines += [
        "",
        "  /** The exception of `code` (a plain QuireException for a code this table lacks). */",
        "  static QuireException of(",
        "      ErrorCode code, Status.Code grpcCode, String message, ErrorDetail detail, "
        "Throwable cause) {",
        "    switch (code) {",
    ]
    for c in codes:
        lines += [
            f"      case {c.full_name}:",
            f"        return new {pascal(c.name)}(grpcCode, message, detail, cause);",
        ]
    lines += [
        "      default:",
        "        return new QuireException(code, grpcCode, message, detail, cause);",
        "    }",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"


def emit(contract: Contract) -> dict[str, str]:
    return {TABLES: _tables(contract), ERROR_CLASSES: _error_classes(contract)}

"""Small argument conversions shared by both clients (enum names, scopes)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from quire.v1 import admin_pb2, knowledge_pb2

# Enum values (ints) or their names.
ModeArg: TypeAlias = int | str
ScopeArg: TypeAlias = int | str


def retrieval_mode(mode: ModeArg | None) -> knowledge_pb2.RetrievalMode.ValueType:
    """`"hybrid"`, `"HYBRID"`, `"RETRIEVAL_MODE_HYBRID"` or the enum value; None → UNSPECIFIED."""
    if mode is None:
        return knowledge_pb2.RETRIEVAL_MODE_UNSPECIFIED
    if isinstance(mode, str):
        name = mode.upper()
        if not name.startswith("RETRIEVAL_MODE_"):
            name = "RETRIEVAL_MODE_" + name
        return knowledge_pb2.RetrievalMode.Value(name)
    return knowledge_pb2.RetrievalMode.ValueType(mode)


def scope_values(values: Iterable[ScopeArg]) -> list[admin_pb2.Scope.ValueType]:
    """`"read"`, `"SCOPE_READ"` or enum values."""
    out: list[admin_pb2.Scope.ValueType] = []
    for value in values:
        if isinstance(value, str):
            name = value.upper()
            if not name.startswith("SCOPE_"):
                name = "SCOPE_" + name
            out.append(admin_pb2.Scope.Value(name))
        else:
            out.append(admin_pb2.Scope.ValueType(value))
    return out

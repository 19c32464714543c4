"""Servicer plumbing: UNIMPLEMENTED stand-ins for RPCs whose capability is not built yet."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from google.protobuf.descriptor import ServiceDescriptor

from quire.server.errors import unimplemented

SCHEMA_VERSION = 1


def _unary(full_name: str) -> Any:
    async def handler(self: object, request: object, context: object) -> object:
        raise unimplemented(full_name)

    return handler


def _streaming(full_name: str) -> Any:
    async def handler(self: object, request: object, context: object) -> AsyncIterator[object]:
        raise unimplemented(full_name)
        yield  # pragma: no cover - makes this an async generator

    return handler


def fill_unimplemented(cls: type, service: ServiceDescriptor) -> list[str]:
    """Gives `cls` a typed-UNIMPLEMENTED handler for every RPC it does not define.

    Returns the names filled in, so a test can list exactly which RPCs are not built yet.
    """
    filled = []
    for method in service.methods:
        if method.name in cls.__dict__:
            continue
        make = _streaming if method.server_streaming else _unary
        setattr(cls, method.name, make(method.full_name))
        filled.append(method.name)
    return filled

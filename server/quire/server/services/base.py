"""Servicer plumbing: UNIMPLEMENTED stand-ins for RPCs whose capability is not built yet."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, TypeVar

from google.protobuf.descriptor import ServiceDescriptor

from quire.server.errors import unimplemented

SCHEMA_VERSION = 1
T = TypeVar("T")


def _unary(full_name: str) -> Any:
    async def handler(self: object, request: object, context: object) -> object:
        raise unimplemented(full_name)

    return handler


def _streaming(full_name: str) -> Any:
    async def handler(self: object, request: object, context: object) -> AsyncIterator[object]:
        raise unimplemented(full_name)
        yield  # pragma: no cover - makes this an async generator

    return handler


async def drain_while_running(task: asyncio.Task[Any], queue: asyncio.Queue[T]) -> AsyncIterator[T]:
    """Yields what `queue` receives until `task` ends, then whatever is left in it.

    How long-running streams (a sync, a gate run) forward their progress messages."""
    while True:
        getter = asyncio.create_task(queue.get())
        done, _ = await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            yield getter.result()
            continue
        getter.cancel()
        break
    while not queue.empty():
        yield queue.get_nowait()


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

"""What the servicers share: forwarding a background task's progress into a response stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, TypeVar

T = TypeVar("T")


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

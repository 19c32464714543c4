"""Background tasks owned by a long-lived object (the LISTEN connection, the health probe)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancel(task: asyncio.Task[Any] | None) -> None:
    """Cancels `task` and waits until it has ended; its cancellation is not an error."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task

"""Runs the ASGI lifespan of several apps behind one listener.

An app such as the MCP SDK's streamable-HTTP endpoint starts its session manager in its
lifespan; mounted under the router it would otherwise never see one. Each app's lifespan runs
as its own task with its own message queues: startup is sent to all and awaited, shutdown
likewise. An app that does not implement lifespan (it raises, or returns at once) is skipped,
as ASGI servers do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

Message = MutableMapping[str, Any]
ASGIApp = Callable[..., Awaitable[None]]

log = logging.getLogger(__name__)


class _AppLifespan:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.outbox: asyncio.Queue[Message] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def _run(self, scope: dict[str, Any]) -> None:
        try:
            await self.app(scope, self.inbox.get, self.outbox.put)
        except Exception as exc:  # no lifespan support: the app is served without one
            log.debug("app without lifespan support: %s", exc)
        finally:
            await self.outbox.put({"type": "ended"})

    async def step(self, scope: dict[str, Any], event: str) -> str | None:
        """Sends `lifespan.<event>`; the failure message, or None when it completed."""
        if self.task is None:
            self.task = asyncio.create_task(self._run(scope))
        elif self.task.done():
            return None
        await self.inbox.put({"type": f"lifespan.{event}"})
        reply = await self.outbox.get()
        if reply["type"] == f"lifespan.{event}.failed":
            return str(reply.get("message", "failed"))
        return None


async def run_lifespans(
    apps: Sequence[ASGIApp], scope: dict[str, Any], receive: Any, send: Any
) -> None:
    """The lifespan protocol for the listener, forwarded to each app in `apps`."""
    runs = [_AppLifespan(app) for app in apps]
    while True:
        message = await receive()
        event = message["type"].removeprefix("lifespan.")
        failures = [failure for run in runs if (failure := await run.step(scope, event))]
        if failures:
            await send({"type": f"lifespan.{event}.failed", "message": "; ".join(failures)})
        else:
            await send({"type": f"lifespan.{event}.complete"})
        if event == "shutdown":
            for run in runs:
                if run.task is not None:
                    with contextlib.suppress(Exception):
                        await run.task
            return

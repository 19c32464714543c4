"""Cancelling a bidirectional stream whose client went away.

connectrpc notices a disconnect only once the request body has been read to its end, and
a bidirectional stream's servicer may not read it (SyncPages reads its start message, then
only a discovery decision if it asks for one; its client keeps the request open). Over gRPC
the call is cancelled when the client goes; here `run_until_disconnect` gives the same: it
reads the request ahead into a small queue, so a disconnect is seen while the app is not
reading, and then cancels the app (the servicer's CancelledError path: a sync stops after the
page in flight and records a cancelled report).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
ASGIApp = Callable[..., Awaitable[None]]

# Request messages read ahead of the app; reading stops while the queue is full, so a
# client cannot make the server buffer more than this (each message is bounded already).
READ_AHEAD = 8


async def run_until_disconnect(
    app: ASGIApp,
    scope: MutableMapping[str, Any],
    receive: Callable[[], Awaitable[Message]],
    send: Callable[[Message], Awaitable[None]],
) -> None:
    """Runs `app`; cancels it when the client disconnects before it is done."""
    ahead: asyncio.Queue[Message] = asyncio.Queue(READ_AHEAD)

    async def serve() -> None:
        await app(scope, ahead.get, send)

    serving = asyncio.create_task(serve())

    async def read_ahead() -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                serving.cancel()
                return
            await ahead.put(message)

    reading = asyncio.create_task(read_ahead())
    try:
        await serving
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # the server is cancelling this request, not the client leaving
    finally:
        reading.cancel()

"""A watcher that falls behind the notification listener: its queue stays bounded and one
RESYNC replaces what was dropped, so it re-reads state instead of missing changes."""

from __future__ import annotations

import json

import pytest

from quire.server.storage.notifications import MAX_QUEUED, RESYNC, Notifications

pytestmark = pytest.mark.asyncio


def _event(n: int) -> str:
    return json.dumps({"org": "o", "collection": "c", "document": str(n)})


async def test_a_full_queue_ends_with_one_resync_and_takes_events_again_once_read() -> None:
    notifications = Notifications("postgresql://unused")
    async with notifications.subscribe("quire_documents") as queue:
        for n in range(MAX_QUEUED + 500):
            notifications._deliver(None, 0, "quire_documents", _event(n))
        assert queue.qsize() == MAX_QUEUED + 1
        events = [queue.get_nowait() for _ in range(MAX_QUEUED + 1)]
        assert [e["document"] for e in events[:MAX_QUEUED]] == [str(n) for n in range(MAX_QUEUED)]
        assert events[-1] == RESYNC
        # Read the RESYNC: the next change is queued as itself.
        notifications._deliver(None, 0, "quire_documents", _event(-1))
        assert queue.get_nowait()["document"] == "-1"
        assert queue.empty()


async def test_events_while_behind_are_dropped_until_the_resync_is_read() -> None:
    notifications = Notifications("postgresql://unused")
    async with notifications.subscribe("quire_documents") as queue:
        for n in range(MAX_QUEUED + 1):
            notifications._deliver(None, 0, "quire_documents", _event(n))
        queue.get_nowait()  # room again, but the RESYNC at the end still covers new events
        notifications._deliver(None, 0, "quire_documents", _event(-2))
        assert queue.qsize() == MAX_QUEUED
        remaining = [queue.get_nowait() for _ in range(MAX_QUEUED)]
        assert remaining[-1] == RESYNC
        assert all(e.get("document") != "-2" for e in remaining)


async def test_a_queue_under_the_bound_gets_every_event() -> None:
    notifications = Notifications("postgresql://unused")
    async with notifications.subscribe("quire_documents") as queue:
        for n in range(MAX_QUEUED):
            notifications._deliver(None, 0, "quire_documents", _event(n))
        assert queue.qsize() == MAX_QUEUED
        assert RESYNC not in [queue.get_nowait() for _ in range(MAX_QUEUED)]

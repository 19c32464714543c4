"""The embedding stage of a process: one schedule (schedule.py) that page syncs and the
knowledge worker both put their chunked entries in, and one loop that embeds it group by group.

One stage per process (the server makes it beside its EmbeddingService; `quire up` runs the
worker on the same one), so a page sync and an organisation's knowledge indexing take turns
at the one embedder instead of queueing whole batches behind each other. A group is at most
GROUP_TEXTS texts / GROUP_CHARS characters: a fraction of a second of embedding (the embedder
runs one text per ONNX call, so small groups cost no throughput), which bounds how long a
newly queued entry of another tenant waits for its turn.

Up to GROUPS_AHEAD groups are handed to the embedder at once: the one it runs and the next,
queued in its executor, so it goes from one group to the next without waiting for the event
loop (busy with page writes and fetches, it delayed each small group's start enough to slow a
page sync by a fifth). A newly queued entry so waits at most two groups.

The loop runs while anything is scheduled or embedding and ends when nothing is (the next
`put` starts it again), so the stage needs no start or stop of its own.

With a vector store (vector_store.py; the server attaches one), `put` first looks the entry's
texts up: stored vectors are used as they are, and only the texts never embedded by the
organisation under this model go to the schedule (as a smaller entry standing in for the
original, so `clear` still returns one entry per `put`). Newly embedded texts are stored
before their entry is handed back. A lookup or store that fails only costs the reuse: the
texts are embedded as without a store.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Protocol
from uuid import UUID

import numpy as np
import numpy.typing as npt

from quire.indexer.ingest.schedule import EmbedSchedule, Queued, Slice
from quire.indexer.ingest.vector_store import VectorStore

log = logging.getLogger(__name__)

Vectors = npt.NDArray[np.float32]
DIMENSION = 384
GROUP_TEXTS = 16
GROUP_CHARS = 16 * 900
GROUPS_AHEAD = 2
# An entry counts at most this many characters towards an owner's queued characters, so one
# huge document does not make the worker's queue look full (its claims would stop, and the
# same tenant's other collections would wait behind the one file).
ENTRY_CHARS_CAP = 512 * 700 // 4


class BulkEmbedder(Protocol):
    @property
    def fingerprint(self) -> str: ...

    async def embed_bulk(self, texts: list[str]) -> Vectors: ...


@dataclass(eq=False)
class EmbedEntry:
    """Texts of one document or page waiting for the embedder. `on_done` gets the entry's
    vectors, or the exception its group's embedding raised; `subject` is the caller's own
    record of the entry (returned by `clear`)."""

    org_id: UUID
    lane: Hashable
    owner: Hashable
    texts: list[str]
    on_done: Callable[[Vectors | Exception], Awaitable[None]]
    subject: object = None
    handed_out: int = 0
    vectors: Vectors = field(init=False)

    def __post_init__(self) -> None:
        self.vectors = np.empty((len(self.texts), DIMENSION), dtype=np.float32)


class EmbedStage:
    """`busy` while groups are with the embedder; `listeners` are called whenever the loop
    takes a group or runs out of work (the worker's claim loop refills then)."""

    def __init__(self, embedder: BulkEmbedder, store: VectorStore | None = None) -> None:
        self.embedder = embedder
        self.store = store
        # Texts embedded, and texts whose stored vector was reused (benchmarks, tests).
        self.texts_embedded = 0
        self.texts_reused = 0
        # Wall seconds with at least one group at the embedder (a sync's log line uses it).
        self._busy_s = 0.0
        self._busy_since = 0.0
        # Entries whose texts are being looked up, by owner (not yet in the schedule).
        self._looking_up: dict[EmbedEntry, Hashable] = {}
        self._schedule: EmbedSchedule[EmbedEntry] = EmbedSchedule(ENTRY_CHARS_CAP)
        self._loop_task: asyncio.Task[None] | None = None
        self._embedding = 0  # groups handed to the embedder and not yet back
        # Entries whose embedding failed while a later slice of theirs was out in the next group.
        self._failed: set[EmbedEntry] = set()
        self.listeners: set[Callable[[], None]] = set()

    @property
    def busy(self) -> bool:
        return self._embedding > 0

    @property
    def busy_s(self) -> float:
        running = time.perf_counter() - self._busy_since if self._embedding else 0.0
        return self._busy_s + running

    @property
    def fingerprint(self) -> str:
        return self.embedder.fingerprint

    def queued(self, owner: Hashable) -> Queued:
        return self._schedule.queued(owner)

    def put(self, entry: EmbedEntry) -> None:
        if self.store is None or not entry.texts:
            self._schedule_entry(entry)
            return
        self._looking_up[entry] = entry.owner
        asyncio.get_running_loop().create_task(self._look_up(entry, self.store))

    def _schedule_entry(self, entry: EmbedEntry) -> None:
        self._schedule.put(entry)
        if self._loop_task is None or self._loop_task.done():
            self._loop_task = asyncio.get_running_loop().create_task(self._run())

    async def _look_up(self, entry: EmbedEntry, store: VectorStore) -> None:
        try:
            found = await store.lookup(entry.org_id, self.fingerprint, entry.texts)
        except Exception:
            log.warning("vector store lookup failed; embedding instead", exc_info=True)
            found = {}
        if self._looking_up.pop(entry, None) is None:
            return  # cleared meanwhile
        self.texts_reused += len(found)
        missing = [i for i in range(len(entry.texts)) if i not in found]
        for i, vector in found.items():
            entry.vectors[i] = vector
        if not missing:
            await self._done(entry, entry.vectors)
        elif not found:
            self._schedule_entry(entry)
        else:
            self._schedule_entry(_remainder(entry, missing, self._done))

    def clear(self, owner: Hashable, *, lane: Hashable | None = None) -> list[EmbedEntry]:
        """Takes the owner's waiting entries (of one `lane`, if given) out, those partly
        embedded or being looked up too; their `on_done` is not called."""
        looking = [
            e
            for e, o in self._looking_up.items()
            if o == owner and (lane is None or e.lane == lane)
        ]
        for entry in looking:
            del self._looking_up[entry]
        return looking + self._schedule.clear(owner, lane=lane)

    def _notify(self) -> None:
        for listener in list(self.listeners):
            listener()

    async def _run(self) -> None:
        out: deque[tuple[list[Slice[EmbedEntry]], asyncio.Future[Vectors]]] = deque()
        try:
            while self._schedule or out:
                while self._schedule and len(out) < GROUPS_AHEAD:
                    group = self._schedule.take(GROUP_TEXTS, GROUP_CHARS)
                    self._notify()
                    out.append((group, asyncio.ensure_future(self._embed(group))))
                    if not self._embedding:
                        self._busy_since = time.perf_counter()
                    self._embedding += 1
                group, embedding = out.popleft()
                try:
                    await asyncio.wait([embedding])
                finally:
                    self._embedding -= 1
                    if not self._embedding:
                        self._busy_s += time.perf_counter() - self._busy_since
                await self._hand_over(group, embedding)
        finally:
            for _, embedding in out:
                embedding.cancel()
            if self._embedding:
                self._busy_s += time.perf_counter() - self._busy_since
            self._embedding = 0
            self._notify()

    async def _embed(self, group: list[Slice[EmbedEntry]]) -> Vectors:
        texts = [t for part in group for t in part.item.texts[part.start : part.end]]
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return await self.embedder.embed_bulk(texts)

    async def _hand_over(
        self, group: list[Slice[EmbedEntry]], embedding: asyncio.Future[Vectors]
    ) -> None:
        """Places the group's vectors; entries whose last slice this was are done. A failed
        group fails its entries; a later slice of one already out in the next group is then
        ignored (`_failed`)."""
        exc = embedding.exception()
        if exc is not None:
            if not isinstance(exc, Exception):
                raise exc
            log.error("embedding failed", exc_info=exc)
            ends: dict[EmbedEntry, int] = {}
            for part in group:
                ends[part.item] = part.end
            for entry, end in ends.items():
                if entry in self._failed:
                    self._forget_failed(entry, end)
                    continue
                self._schedule.remove(entry)  # retried whole by its owner, if at all
                if entry.handed_out > end:
                    self._failed.add(entry)
                await self._done(entry, exc)
            return
        vectors = embedding.result()
        offset = 0
        for part in group:
            size = part.end - part.start
            entry = part.item
            if entry in self._failed:
                self._forget_failed(entry, part.end)
            else:
                entry.vectors[part.start : part.end] = vectors[offset : offset + size]
                if part.last:
                    await self._remember(entry)
                    await self._done(entry, entry.vectors)
            offset += size

    async def _remember(self, entry: EmbedEntry) -> None:
        self.texts_embedded += len(entry.texts)
        if self.store is None:
            return
        try:
            await self.store.remember(entry.org_id, self.fingerprint, entry.texts, entry.vectors)
        except Exception:
            log.warning("vector store write failed; vectors not kept for reuse", exc_info=True)

    def _forget_failed(self, entry: EmbedEntry, end: int) -> None:
        """After the failed entry's last slice that was out (it left the schedule then)."""
        if end >= entry.handed_out:
            self._failed.discard(entry)

    async def _done(self, entry: EmbedEntry, outcome: Vectors | Exception) -> None:
        try:
            await entry.on_done(outcome)
        except Exception:  # one owner's failure must not stop everyone's embedding
            log.exception("handing over embedded texts failed")


def _remainder(
    entry: EmbedEntry,
    missing: list[int],
    done: Callable[[EmbedEntry, Vectors | Exception], Awaitable[None]],
) -> EmbedEntry:
    """An entry for `entry`'s texts at `missing` only, standing in for it in the schedule:
    when embedded, its vectors fill `entry`, which is then handed back."""

    async def merged(outcome: Vectors | Exception) -> None:
        if not isinstance(outcome, Exception):
            entry.vectors[missing] = outcome
            outcome = entry.vectors
        await done(entry, outcome)

    return EmbedEntry(
        org_id=entry.org_id,
        lane=entry.lane,
        owner=entry.owner,
        texts=[entry.texts[i] for i in missing],
        on_done=merged,
        subject=entry.subject,
    )

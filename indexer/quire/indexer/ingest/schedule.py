"""The embedding schedule: chunked documents and pages waiting for the embedder, handed out in
bounded slices, round robin across organisations and, within one organisation, across lanes
(a knowledge collection, or a page namespace being synced).

A group for one embedder call is made of turns of at most SLICE_TEXTS texts: the next
organisation's next lane's oldest entries (a slice of a large one, or several small ones). So
a 64 MiB file becomes thousands of slices that alternate with other tenants' documents, a
burst of small files in another collection, or a page sync of a large site, gets the same
share of texts as the big file, and one tenant's load takes turns with another tenant's single
upload instead of going first. When only one organisation is waiting, its turns follow each
other and groups fill as before.

An entry leaves the schedule when its last slice is handed out; it is embedded when that
slice is (slices of one entry are embedded in order, by the one embedding stage).

Each entry has an owner (the worker, or one page sync) that puts it in: `queued(owner)` is
what that owner has waiting, so one owner's backlog does not look like another's.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar
from uuid import UUID

# Texts of one entry per turn: the grain at which entries of different tenants alternate.
SLICE_TEXTS = 8


class Sliceable(Protocol):
    @property
    def org_id(self) -> UUID: ...

    @property
    def lane(self) -> Hashable: ...

    @property
    def owner(self) -> Hashable: ...

    texts: list[str]
    handed_out: int  # texts already given to a group


T = TypeVar("T", bound=Sliceable)


@dataclass(frozen=True)
class Slice(Generic[T]):
    item: T
    start: int
    end: int

    @property
    def last(self) -> bool:
        """The entry's final slice: once embedded, the entry is."""
        return self.end == len(self.item.texts)


@dataclass
class Queued:
    """What one owner has waiting: entries, and characters not yet handed out (capped)."""

    entries: int = 0
    chars: int = 0


class EmbedSchedule(Generic[T]):
    """`queued_chars`: characters of texts not yet handed out, each entry counting at most
    `doc_chars_cap` (so one huge document does not make the queue look full to the claims:
    other collections' documents must still come in to take their turns)."""

    def __init__(self, doc_chars_cap: int | None = None) -> None:
        self._orgs: OrderedDict[UUID, OrderedDict[Hashable, deque[T]]] = OrderedDict()
        self._items = 0
        self._cap = doc_chars_cap
        self._remaining: dict[int, int] = {}  # id(item) → characters not yet handed out
        self._owners: dict[Hashable, Queued] = {}
        self.queued_chars = 0

    def __len__(self) -> int:
        return self._items

    def queued(self, owner: Hashable) -> Queued:
        return self._owners.get(owner) or Queued()

    def _counted(self, chars: int) -> int:
        return chars if self._cap is None else min(chars, self._cap)

    def _count(self, owner: Hashable, entries: int, chars: int) -> None:
        self._items += entries
        self.queued_chars += chars
        tally = self._owners.setdefault(owner, Queued())
        tally.entries += entries
        tally.chars += chars
        if tally.entries == 0:
            del self._owners[owner]

    def put(self, item: T) -> None:
        lanes = self._orgs.setdefault(item.org_id, OrderedDict())
        lanes.setdefault(item.lane, deque()).append(item)
        remaining = sum(len(t) for t in item.texts[item.handed_out :])
        self._remaining[id(item)] = remaining
        self._count(item.owner, 1, self._counted(remaining))

    def take(self, max_texts: int, max_chars: int) -> list[Slice[T]]:
        """Slices for one group of at most `max_texts` texts / `max_chars` characters (at
        least one text when anything is waiting): turns of up to SLICE_TEXTS texts, each from
        the next organisation's next lane (its oldest entries, several if small)."""
        out: list[Slice[T]] = []
        texts = chars = 0
        full = False
        while self._orgs and not full:
            org_id, lanes = next(iter(self._orgs.items()))
            lane, queue = next(iter(lanes.items()))
            turn = 0
            while queue and turn < SLICE_TEXTS:
                item = queue[0]
                start = end = item.handed_out
                while end < len(item.texts) and turn < SLICE_TEXTS:
                    size = len(item.texts[end])
                    if texts and (texts >= max_texts or chars + size > max_chars):
                        full = True
                        break
                    texts += 1
                    chars += size
                    turn += 1
                    end += 1
                if end == start and end < len(item.texts):
                    break  # the group is full
                item.handed_out = end
                before = self._remaining[id(item)]
                after = before - sum(len(t) for t in item.texts[start:end])
                out.append(Slice(item, start, end))
                if end < len(item.texts):
                    self._remaining[id(item)] = after
                    self._count(item.owner, 0, self._counted(after) - self._counted(before))
                    break  # the turn (or the group) is used up inside this entry
                del self._remaining[id(item)]
                self._count(item.owner, -1, -self._counted(before))
                queue.popleft()
            if not queue:
                del lanes[lane]
            else:
                lanes.move_to_end(lane)
            if lanes:
                self._orgs.move_to_end(org_id)
            else:
                del self._orgs[org_id]
        return out

    def remove(self, item: T) -> None:
        """Takes a waiting entry out (its embedding failed: it is retried whole)."""
        lanes = self._orgs.get(item.org_id)
        queue = lanes.get(item.lane) if lanes is not None else None
        if lanes is None or queue is None or item not in queue:
            return
        queue.remove(item)
        self._count(item.owner, -1, -self._counted(self._remaining.pop(id(item))))
        if not queue:
            del lanes[item.lane]
            if not lanes:
                del self._orgs[item.org_id]

    def clear(self, owner: Hashable, *, lane: Hashable | None = None) -> list[T]:
        """Removes and returns the owner's waiting entries, of one `lane` if given (a stopping
        worker hands them back; a cancelled page sync or a deleted collection drops them)."""
        waiting = [
            item
            for lanes in self._orgs.values()
            for key, queue in lanes.items()
            for item in queue
            if item.owner == owner and (lane is None or key == lane)
        ]
        for item in waiting:
            self.remove(item)
        return waiting

"""The embedding schedule: chunked documents waiting for the embedder, handed out in bounded
slices, round robin across organisations and, within one organisation, across collections.

A group for one embedder call is made of turns of at most SLICE_TEXTS texts: the next
organisation's next collection's oldest documents (a slice of a large one, or several small
ones). So a 64 MiB file becomes thousands of slices that alternate with other tenants'
documents, a burst of small files in another collection gets the same share of texts as the
big file, and one tenant's load takes turns with another tenant's single upload instead of
going first. When only one organisation is waiting, its turns follow each other and groups
fill as before.

A document leaves the schedule when its last slice is handed out; it is embedded when that
slice is (slices of one document are embedded in order, by one embedding stage).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar
from uuid import UUID

# Texts of one document per turn: the grain at which documents of different tenants alternate.
SLICE_TEXTS = 8


class Sliceable(Protocol):
    org_id: UUID
    collection_id: UUID
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
        """The document's final slice: once embedded, the document is."""
        return self.end == len(self.item.texts)


class EmbedSchedule(Generic[T]):
    """`queued_chars`: characters of texts not yet handed out, each document counting at most
    `doc_chars_cap` (so one huge document does not make the queue look full to the claims:
    other collections' documents must still come in to take their turns)."""

    def __init__(self, doc_chars_cap: int | None = None) -> None:
        self._orgs: OrderedDict[UUID, OrderedDict[UUID, deque[T]]] = OrderedDict()
        self._items = 0
        self._cap = doc_chars_cap
        self._remaining: dict[int, int] = {}  # id(item) → characters not yet handed out
        self.queued_chars = 0

    def __len__(self) -> int:
        return self._items

    def _counted(self, chars: int) -> int:
        return chars if self._cap is None else min(chars, self._cap)

    def put(self, item: T) -> None:
        collections = self._orgs.setdefault(item.org_id, OrderedDict())
        collections.setdefault(item.collection_id, deque()).append(item)
        self._items += 1
        remaining = sum(len(t) for t in item.texts[item.handed_out :])
        self._remaining[id(item)] = remaining
        self.queued_chars += self._counted(remaining)

    def take(self, max_texts: int, max_chars: int) -> list[Slice[T]]:
        """Slices for one group of at most `max_texts` texts / `max_chars` characters (at
        least one text when anything is waiting): turns of up to SLICE_TEXTS texts, each from
        the next organisation's next collection (its oldest documents, several if small)."""
        out: list[Slice[T]] = []
        texts = chars = 0
        full = False
        while self._orgs and not full:
            org_id, collections = next(iter(self._orgs.items()))
            collection_id, queue = next(iter(collections.items()))
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
                self.queued_chars += self._counted(after) - self._counted(before)
                out.append(Slice(item, start, end))
                if end < len(item.texts):
                    self._remaining[id(item)] = after
                    break  # the turn (or the group) is used up inside this document
                del self._remaining[id(item)]
                queue.popleft()
                self._items -= 1
            if not queue:
                del collections[collection_id]
            else:
                collections.move_to_end(collection_id)
            if collections:
                self._orgs.move_to_end(org_id)
            else:
                del self._orgs[org_id]
        return out

    def remove(self, item: T) -> None:
        """Takes a waiting document out (its embedding failed: it is retried whole)."""
        collections = self._orgs.get(item.org_id)
        queue = collections.get(item.collection_id) if collections is not None else None
        if collections is None or queue is None or item not in queue:
            return
        queue.remove(item)
        self._items -= 1
        self.queued_chars -= self._counted(self._remaining.pop(id(item)))
        if not queue:
            del collections[item.collection_id]
            if not collections:
                del self._orgs[item.org_id]

    def clear(self) -> list[T]:
        """Removes and returns every waiting document (a stopping worker hands them back)."""
        waiting = [item for cs in self._orgs.values() for q in cs.values() for item in q]
        self._orgs.clear()
        self._remaining.clear()
        self._items = 0
        self.queued_chars = 0
        return waiting

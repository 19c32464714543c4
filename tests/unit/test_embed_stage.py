"""The process's embedding stage: owners' entries take turns, vectors come back whole and in
place, a failed group fails its entries only, and an owner's clear leaves the others alone.
A stand-in embedder (vector row = the text's number) keeps it deterministic."""

from __future__ import annotations

import asyncio
import uuid

import numpy as np

from quire.indexer.ingest.embed_stage import DIMENSION, GROUP_TEXTS, EmbedEntry, EmbedStage, Vectors

BULK, SMALL = uuid.UUID(int=1), uuid.UUID(int=2)


class NumberingEmbedder:
    """Each text "n" becomes a vector of n's; records every call's texts; fails on "fail"."""

    fingerprint = "test"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    async def embed_bulk(self, texts: list[str]) -> Vectors:
        self.calls.append(texts)
        await asyncio.sleep(0)  # the real one runs in a thread: let others queue meanwhile
        if "fail" in texts:
            raise RuntimeError("embedder failed")
        return np.array([[float(t)] * DIMENSION for t in texts], dtype=np.float32)


class Owner:
    """Collects what the stage hands back, by entry name."""

    def __init__(self) -> None:
        self.done: dict[str, Vectors | Exception] = {}
        self.finished = asyncio.Event()

    def entry(self, org: uuid.UUID, lane: object, name: str, texts: list[str]) -> EmbedEntry:
        async def on_done(outcome: Vectors | Exception) -> None:
            self.done[name] = outcome
            self.finished.set()

        return EmbedEntry(org, lane, self, texts, on_done, subject=name)


async def test_an_upload_waits_one_group_behind_a_big_page_sync() -> None:
    embedder = NumberingEmbedder()
    stage = EmbedStage(embedder)
    sync, worker = Owner(), Owner()
    for page in range(40):
        stage.put(sync.entry(BULK, ("pages", "site"), f"p{page}", [str(page)] * 8))
    stage.put(worker.entry(SMALL, uuid.UUID(int=9), "upload", ["7", "7", "7"]))
    await asyncio.wait_for(worker.finished.wait(), 5)
    # The sync's first turn, then the upload, in the first group.
    assert embedder.calls[0] == ["0"] * 8 + ["7"] * 3 + ["1"] * 5
    assert stage.queued(sync).entries > 30 and stage.queued(worker).entries == 0
    vectors = worker.done["upload"]
    assert isinstance(vectors, np.ndarray) and vectors.shape == (3, DIMENSION)
    while len(sync.done) < 40:
        sync.finished.clear()
        await asyncio.wait_for(sync.finished.wait(), 5)
    page = sync.done["p1"]  # split over two groups, put back together in order
    assert isinstance(page, np.ndarray) and (page == 1.0).all()
    assert all(len(call) <= GROUP_TEXTS for call in embedder.calls)


async def test_a_failed_group_fails_its_entries_and_the_stage_goes_on() -> None:
    stage = EmbedStage(NumberingEmbedder())
    owner = Owner()
    stage.put(owner.entry(BULK, "a", "bad", ["fail"]))
    stage.put(owner.entry(BULK, "a", "also-in-group", ["1"]))
    while len(owner.done) < 2:
        owner.finished.clear()
        await asyncio.wait_for(owner.finished.wait(), 5)
    assert all(isinstance(o, RuntimeError) for o in owner.done.values())
    stage.put(owner.entry(BULK, "a", "later", ["2"]))
    owner.finished.clear()
    await asyncio.wait_for(owner.finished.wait(), 5)
    assert isinstance(owner.done["later"], np.ndarray)


async def test_clear_takes_one_owners_waiting_entries_and_listeners_hear_each_turn() -> None:
    stage = EmbedStage(NumberingEmbedder())
    sync, worker = Owner(), Owner()
    turns: list[int] = []
    stage.listeners.add(lambda: turns.append(1))
    for page in range(10):
        stage.put(sync.entry(BULK, ("pages", "site"), f"p{page}", [str(page)] * 8))
    stage.put(worker.entry(SMALL, "c", "upload", ["3"]))
    cleared = stage.clear(sync)
    assert [e.subject for e in cleared] == [f"p{i}" for i in range(10)]
    await asyncio.wait_for(worker.finished.wait(), 5)
    await asyncio.sleep(0.01)
    assert sync.done == {} and set(worker.done) == {"upload"}
    assert len(turns) >= 2  # a group taken, then out of work


async def test_an_entry_failed_in_one_group_is_not_done_again_by_its_next() -> None:
    """Two groups are out at once: the entry's first slice fails while its last is being
    embedded in the next group; the owner hears about it once, as a failure."""
    embedder = NumberingEmbedder()
    stage = EmbedStage(embedder)
    calls: list[object] = []

    async def on_done(outcome: Vectors | Exception) -> None:
        calls.append(outcome)

    stage.put(EmbedEntry(BULK, "a", "owner", ["fail"] + ["1"] * (GROUP_TEXTS + 3), on_done))
    for _ in range(100):
        if len(embedder.calls) >= 2 and not stage.busy:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.01)
    assert len(embedder.calls) == 2 and len(calls) == 1 and isinstance(calls[0], RuntimeError)
    owner = Owner()
    stage.put(owner.entry(SMALL, "b", "after", ["2"]))
    await asyncio.wait_for(owner.finished.wait(), 5)
    assert isinstance(owner.done["after"], np.ndarray) and len(calls) == 1

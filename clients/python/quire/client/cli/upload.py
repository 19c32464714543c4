"""The engine of `quire docs upload`: uploads files concurrently, skipping the ones the
collection already holds, then waits for extraction and indexing.

Safe re-runs: Quire names a document by its file name and keeps the sha256 of its bytes
(`Document.sha256`). Before uploading, the collection's documents are listed once. A local
file whose name and sha256 match a live document is skipped; one whose name matches but whose
bytes differ replaces that document (an edit, same document id); any other is uploaded as new.
The server holds the truth, so a re-run after a crash, a Ctrl-C or a server that went away
resumes where it stopped, from any machine, with no local state. An upload interrupted midway
is not stored (the server commits a document only when its stream ends), so nothing is left
half-uploaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.client.batches import shown_name, utf8_error
from quire.v1 import knowledge_pb2

# Files up to this size are read once into memory (hash and upload from the same bytes);
# bigger ones are hashed and then streamed from disk in 1 MiB chunks.
_IN_MEMORY = 4 * 1024 * 1024
_HASH_BLOCK = 1024 * 1024
# Small files are read on the event loop: a thread hand-off costs more than the read itself
# (most documents are a few KiB), and thousands of them are what bulk uploads are made of.
_READ_INLINE = 256 * 1024
NO_TEXT = "no text extracted"
FINAL = frozenset(
    {
        knowledge_pb2.DOCUMENT_STATUS_READY,
        knowledge_pb2.DOCUMENT_STATUS_FAILED,
        knowledge_pb2.DOCUMENT_STATUS_DELETED,
    }
)
# Failures that end the whole run: every further file would fail the same way.
_FATAL = (qe.Unavailable, qe.DeadlineExceeded, qe.Unauthenticated, qe.PermissionDenied)


@dataclass
class Item:
    """One local file and what became of it."""

    path: Path
    name: str
    action: str = ""  # uploaded | replaced | skipped | failed
    document_id: str = ""
    status: str = ""
    extract_error: str = ""
    stage: str = ""  # where it failed: find | upload | extract
    reason: str = ""


@dataclass
class Run:
    collection_id: str
    items: list[Item]
    uploaded_bytes: int = 0
    upload_seconds: float = 0.0
    wait_seconds: float = 0.0
    # Set when the run stopped early (server gone, key refused): the error that stopped it.
    stopped_by: qe.QuireError | None = None
    index: knowledge_pb2.IndexStatus | None = None
    remote: dict[str, knowledge_pb2.Document] = field(default_factory=dict)

    def failed(self) -> list[Item]:
        return [i for i in self.items if i.action == "failed" or i.stage]

    def to_send(self) -> list[Item]:
        return [i for i in self.items if i.action != "failed"]


def shown(path: Path | str) -> str:
    """A path or name fit to print and to put in JSON: bytes that are not UTF-8 as ``\\xNN``."""
    return shown_name(str(path))


Tick = Callable[[Item], None]


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _read(path: Path) -> tuple[bytes | Path, str, int]:
    """The upload source, its sha256 and its size (runs in a worker thread)."""
    size = path.stat().st_size
    if size > _IN_MEMORY:
        return path, _sha256_file(path), size
    data = path.read_bytes()
    return data, hashlib.sha256(data).hexdigest(), len(data)


def _reason(exc: qe.QuireError) -> str:
    return f"{exc.code_name}: {exc.message}"


def plan(paths: list[Path]) -> list[Item]:
    """One item per path; a second file with the same name fails (a document is named by its
    file name, so both cannot live in one collection), and so does a file whose name is not
    UTF-8 (Quire's file names are text; renaming it would store a name that is not the
    file's)."""
    items: list[Item] = []
    names: dict[str, Path] = {}
    for path in paths:
        item = Item(path=path, name=path.name)
        first = names.setdefault(path.name, path)
        if (error := utf8_error("file name", path.name)) is not None:
            item.action, item.stage, item.reason = "failed", "upload", error.message
        elif first is not path:
            item.action, item.stage = "failed", "upload"
            item.reason = f"another file of this upload has the same name: {shown(first)}"
        items.append(item)
    return items


async def existing(
    client: AsyncQuireClient, collection_id: str
) -> dict[str, knowledge_pb2.Document]:
    """The collection's live documents by file name (the newest when names repeat)."""
    by_name: dict[str, knowledge_pb2.Document] = {}
    async for doc in client.iter_documents(collection_id=collection_id, page_size=500):
        by_name.setdefault(doc.file_name, doc)  # ListDocuments is newest first
    return by_name


async def upload_all(client: AsyncQuireClient, run: Run, concurrency: int, tick: Tick) -> None:
    """Uploads every planned item with `concurrency` streams at once; stops early (setting
    `run.stopped_by`) on a failure that every further file would share."""
    queue: asyncio.Queue[Item] = asyncio.Queue()
    for item in run.items:
        if item.action == "failed":
            tick(item)
        else:
            queue.put_nowait(item)

    async def one(item: Item) -> None:
        try:
            if item.path.stat().st_size <= _READ_INLINE:
                source, sha, size = _read(item.path)
            else:
                source, sha, size = await asyncio.to_thread(_read, item.path)
        except OSError as exc:
            item.action, item.stage, item.reason = "failed", "upload", f"cannot read: {exc}"
            return
        known = run.remote.get(item.name)
        if known is not None and known.sha256 == sha:
            item.action, item.document_id = "skipped", known.document_id
            item.status = knowledge_pb2.DocumentStatus.Name(known.status)
            item.extract_error = known.extract_error
            return
        try:
            doc = await client.upload_document(
                collection_id=run.collection_id,
                file_name=item.name,
                data=source,
                document_id=known.document_id if known is not None else None,
            )
        except _FATAL:
            raise
        except qe.QuireError as exc:
            item.action, item.stage, item.reason = "failed", "upload", _reason(exc)
            return
        item.action = "replaced" if known is not None else "uploaded"
        item.document_id = doc.document_id
        item.status = knowledge_pb2.DocumentStatus.Name(doc.status)
        run.uploaded_bytes += size

    async def worker() -> None:
        while run.stopped_by is None:
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                await one(item)
            except _FATAL as exc:
                run.stopped_by = run.stopped_by or exc
                return
            tick(item)

    started = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for _ in range(max(1, concurrency)):
            group.create_task(worker())
    run.upload_seconds = time.perf_counter() - started


def _settle(item: Item, doc: knowledge_pb2.Document) -> None:
    item.status = knowledge_pb2.DocumentStatus.Name(doc.status)
    item.extract_error = doc.extract_error
    if doc.status == knowledge_pb2.DOCUMENT_STATUS_FAILED:
        item.stage, item.reason = "extract", doc.extract_error or "extraction failed"
    elif doc.status == knowledge_pb2.DOCUMENT_STATUS_DELETED:
        item.stage, item.reason = "extract", "deleted while waiting"


def waiting(run: Run) -> dict[str, Item]:
    """Items whose document is still on its way to READY or FAILED, by document id."""
    pending = {}
    for item in run.items:
        if item.document_id and item.action in {"uploaded", "replaced", "skipped"}:
            if item.status in {"DOCUMENT_STATUS_READY", "DOCUMENT_STATUS_FAILED"}:
                if item.action == "skipped" and item.status == "DOCUMENT_STATUS_FAILED":
                    item.stage, item.reason = "extract", item.extract_error or "extraction failed"
                continue
            pending[item.document_id] = item
    return pending


async def wait_extracted(
    client: AsyncQuireClient, run: Run, pending: dict[str, Item], tick: Tick
) -> None:
    """Follows WatchDocuments (current states first, then changes) until every pending
    document is READY or FAILED."""
    if not pending:
        return
    # The client's streams are async generators; closing one cancels the RPC.
    stream = cast(
        AsyncGenerator[knowledge_pb2.Document, None],
        client.watch_documents(collection_id=run.collection_id),
    )
    async with contextlib.aclosing(stream):
        async for doc in stream:
            item = pending.get(doc.document_id)
            if item is None:
                continue
            if doc.status in FINAL:
                _settle(item, doc)
                del pending[doc.document_id]
                tick(item)
                if not pending:
                    return
            else:
                item.status = knowledge_pb2.DocumentStatus.Name(doc.status)


def index_settled(status: knowledge_pb2.IndexStatus) -> bool:
    """No build running, and a generation serves (or the newest one failed to build)."""
    if status.building_generation:
        return False
    if status.serving_generation or not status.generations:
        return True
    return status.generations[0].state == knowledge_pb2.GENERATION_STATE_FAILED


async def wait_indexed(
    client: AsyncQuireClient,
    run: Run,
    show: Callable[[knowledge_pb2.IndexStatus], None],
) -> None:
    """Follows WatchIndexStatus (the current status first) until the collection's index
    build is done. Documents extracted after a build started reach the serving generation by
    their own chunk writes, which the API does not report one by one: the wait ends with the
    build."""
    stream = cast(
        AsyncGenerator[knowledge_pb2.IndexStatus, None],
        client.watch_index_status(collection_id=run.collection_id),
    )
    async with contextlib.aclosing(stream):
        async for status in stream:
            show(status)
            run.index = status
            if index_settled(status):
                return


__all__ = [
    "NO_TEXT",
    "Item",
    "Run",
    "existing",
    "index_settled",
    "plan",
    "shown",
    "upload_all",
    "wait_extracted",
    "wait_indexed",
    "waiting",
]

"""Turns upload sources into `UploadDocumentRequest` streams of at most 1 MiB per data message.

A source is `bytes`, a path (`str` or `os.PathLike`), a binary file object, or an (async)
iterable of byte chunks of any size. Chunks are re-cut so that every data message except the
last holds exactly `CHUNK_SIZE` bytes. The first message is always `metadata`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import BinaryIO, TypeAlias

from quire.v1 import knowledge_service_pb2

CHUNK_SIZE = 1024 * 1024

SyncSource: TypeAlias = (
    bytes | bytearray | memoryview | str | os.PathLike[str] | BinaryIO | Iterable[bytes]
)
AsyncSource: TypeAlias = SyncSource | AsyncIterable[bytes]


def metadata_message(
    collection_id: str, file_name: str, mime_type: str | None, document_id: str | None
) -> knowledge_service_pb2.UploadDocumentRequest:
    return knowledge_service_pb2.UploadDocumentRequest(
        metadata=knowledge_service_pb2.UploadMetadata(
            collection_id=collection_id,
            file_name=file_name,
            mime_type=mime_type or "",
            document_id=document_id or "",
        )
    )


def _whole_chunks(buffer: bytearray, size: int) -> Iterator[bytes]:
    """Takes every whole chunk of `size` bytes off the front of `buffer`."""
    while len(buffer) >= size:
        yield bytes(buffer[:size])
        del buffer[:size]


def rechunk(pieces: Iterable[bytes], size: int = CHUNK_SIZE) -> Iterator[bytes]:
    """Re-cuts pieces of any size into chunks of exactly `size` bytes (the last may be shorter)."""
    buffer = bytearray()
    for piece in pieces:
        buffer += piece
        yield from _whole_chunks(buffer, size)
    if buffer:
        yield bytes(buffer)


async def arechunk(pieces: AsyncIterable[bytes], size: int = CHUNK_SIZE) -> AsyncIterator[bytes]:
    """`rechunk` of an asynchronous stream of pieces."""
    buffer = bytearray()
    async for piece in pieces:
        buffer += piece
        for chunk in _whole_chunks(buffer, size):
            yield chunk
    if buffer:
        yield bytes(buffer)


def _read_file(file: BinaryIO, size: int) -> Iterator[bytes]:
    while True:
        piece = file.read(size)
        if not piece:
            return
        yield piece


def _path_chunks(path: str | os.PathLike[str], size: int) -> Iterator[bytes]:
    with open(path, "rb") as file:
        yield from _read_file(file, size)


def iter_chunks(data: SyncSource, size: int = CHUNK_SIZE) -> Iterator[bytes]:
    """The data chunks of a synchronous source."""
    if isinstance(data, bytes | bytearray | memoryview):
        view = memoryview(data).cast("B")
        for start in range(0, len(view), size):
            yield bytes(view[start : start + size])
    elif isinstance(data, str | os.PathLike):
        yield from _path_chunks(data, size)
    elif hasattr(data, "read"):
        yield from rechunk(_read_file(data, size), size)  # type: ignore[arg-type]
    else:
        yield from rechunk(data, size)


async def aiter_chunks(data: AsyncSource, size: int = CHUNK_SIZE) -> AsyncIterator[bytes]:
    """The data chunks of any source; file reads run in a worker thread."""
    if isinstance(data, AsyncIterable):
        async for chunk in arechunk(data, size):
            yield chunk
        return
    if isinstance(data, bytes | bytearray | memoryview):
        for chunk in iter_chunks(data, size):
            yield chunk
        return
    chunks = iter_chunks(data, size)
    while True:
        piece = await asyncio.to_thread(_next_or_none, chunks)
        if piece is None:
            return
        yield piece


def _next_or_none(chunks: Iterator[bytes]) -> bytes | None:
    return next(chunks, None)


def upload_requests(
    metadata: knowledge_service_pb2.UploadDocumentRequest, data: SyncSource, size: int = CHUNK_SIZE
) -> Iterator[knowledge_service_pb2.UploadDocumentRequest]:
    yield metadata
    for chunk in iter_chunks(data, size):
        yield knowledge_service_pb2.UploadDocumentRequest(data=chunk)


async def aupload_requests(
    metadata: knowledge_service_pb2.UploadDocumentRequest, data: AsyncSource, size: int = CHUNK_SIZE
) -> AsyncIterator[knowledge_service_pb2.UploadDocumentRequest]:
    yield metadata
    async for chunk in aiter_chunks(data, size):
        yield knowledge_service_pb2.UploadDocumentRequest(data=chunk)


__all__ = [
    "CHUNK_SIZE",
    "AsyncSource",
    "SyncSource",
    "aiter_chunks",
    "aupload_requests",
    "iter_chunks",
    "metadata_message",
    "rechunk",
    "upload_requests",
]

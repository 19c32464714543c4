"""Upload chunking: every data message ≤ 1 MiB, metadata first, all sources accepted."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from quire.client.uploads import (
    CHUNK_SIZE,
    aupload_requests,
    iter_chunks,
    metadata_message,
    rechunk,
    upload_requests,
)
from quire.v1 import knowledge_service_pb2

DATA = bytes(range(256)) * (CHUNK_SIZE // 256 * 2 + 100)  # 2 MiB + 25,600 bytes


def _check(requests: list[knowledge_service_pb2.UploadDocumentRequest], data: bytes) -> None:
    assert requests[0].WhichOneof("message") == "metadata"
    chunks = [r.data for r in requests[1:]]
    assert all(r.WhichOneof("message") == "data" for r in requests[1:])
    assert all(len(c) == CHUNK_SIZE for c in chunks[:-1])
    assert all(0 < len(c) <= CHUNK_SIZE for c in chunks)
    assert b"".join(chunks) == data


def _meta() -> knowledge_service_pb2.UploadDocumentRequest:
    return metadata_message("c1", "f.txt", None, None)


def test_metadata_message_fields() -> None:
    m = metadata_message("c1", "a.pdf", "application/pdf", "d1").metadata
    assert (m.collection_id, m.file_name, m.mime_type, m.document_id) == (
        "c1",
        "a.pdf",
        "application/pdf",
        "d1",
    )
    assert metadata_message("c1", "a", None, None).metadata.mime_type == ""


def test_bytes_are_cut_in_one_mebibyte_chunks() -> None:
    _check(list(upload_requests(_meta(), DATA)), DATA)
    assert len(list(iter_chunks(DATA))) == 3


def test_exact_multiple_and_empty() -> None:
    exact = b"x" * (2 * CHUNK_SIZE)
    assert [len(c) for c in iter_chunks(exact)] == [CHUNK_SIZE, CHUNK_SIZE]
    assert list(iter_chunks(b"")) == []
    assert len(list(upload_requests(_meta(), b""))) == 1  # metadata only


def test_path_and_file_object(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(DATA)
    _check(list(upload_requests(_meta(), path)), DATA)
    _check(list(upload_requests(_meta(), str(path))), DATA)
    _check(list(upload_requests(_meta(), io.BytesIO(DATA))), DATA)


def test_iterables_of_odd_pieces_are_rechunked() -> None:
    pieces = [DATA[i : i + 333_333] for i in range(0, len(DATA), 333_333)]
    _check(list(upload_requests(_meta(), iter(pieces))), DATA)
    big = [DATA]  # one piece larger than a chunk is split
    _check(list(upload_requests(_meta(), big)), DATA)
    assert list(rechunk([b"ab", b"cde", b"f"], size=4)) == [b"abcd", b"ef"]


async def test_async_sources(tmp_path: Path) -> None:
    async def pieces() -> AsyncIterator[bytes]:
        for i in range(0, len(DATA), 700_000):
            yield DATA[i : i + 700_000]

    _check([r async for r in aupload_requests(_meta(), pieces())], DATA)
    _check([r async for r in aupload_requests(_meta(), DATA)], DATA)
    path = tmp_path / "g.bin"
    path.write_bytes(DATA)
    _check([r async for r in aupload_requests(_meta(), path)], DATA)


def test_missing_path_raises() -> None:
    with pytest.raises(FileNotFoundError):
        list(iter_chunks("/nonexistent/definitely/missing.txt"))

"""Corrupt packages fail, and legacy-encoded text is read right (issue 16, findings 5 and 8).

Over real gRPC with the real worker. A corrupt or bomb-like package ends FAILED with a reason
after one attempt (the same bytes would fail the same way): the no-text marker is only for
valid files without text. A text file that is not UTF-8 is decoded with the encoding detected
for it, which the document records, and its words are found.
"""

from __future__ import annotations

import asyncio
import time
import tracemalloc
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer.extraction import ExtractionFailed
from quire.indexer.extraction.zipguard import check_zip
from quire.v1 import knowledge_pb2
from tests.conftest import Harness
from tests.support.sample_files import (
    CORRUPT,
    make_docx_lying_sizes,
    make_empty_docx,
    make_xlsx,
    rezip,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True
TERMINAL = (knowledge_pb2.DOCUMENT_STATUS_READY, knowledge_pb2.DOCUMENT_STATUS_FAILED)
READY, FAILED = knowledge_pb2.DOCUMENT_STATUS_READY, knowledge_pb2.DOCUMENT_STATUS_FAILED
_MIB = 1024 * 1024


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness) -> AsyncIterator[AsyncQuireClient]:
    keys = await harness.keys("extraction-org")
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def collection_id(client: AsyncQuireClient) -> str:
    return (await client.create_collection(name="corrupt-and-encoded")).collection_id


async def _upload_and_wait(
    client: AsyncQuireClient, collection_id: str, file_name: str, data: bytes, within: float = 60
) -> tuple[knowledge_pb2.Document, float]:
    """The document once it is READY or FAILED, and the seconds that took."""
    started = time.monotonic()
    doc = await client.upload_document(collection_id=collection_id, file_name=file_name, data=data)
    while True:
        doc = await client.get_document(document_id=doc.document_id)
        if doc.status in TERMINAL:
            return doc, time.monotonic() - started
        assert time.monotonic() - started < within, f"{file_name} stuck in {doc.status}"
        await asyncio.sleep(0.1)


async def _job(harness: Harness, document_id: str) -> tuple[str, int, str]:
    async with harness.pool.acquire() as conn:
        row = await conn.fetchrow(
            "SELECT state, attempts, last_error FROM jobs WHERE payload->>'document_id' = $1",
            document_id,
        )
    assert row is not None
    return row["state"], row["attempts"], row["last_error"] or ""


# --- finding 5: corrupt and bomb-like packages ---------------------------------------------------


async def test_the_guard_refuses_a_lying_bomb_quickly_in_bounded_memory() -> None:
    """900 MiB behind headers that declare 2 KiB: refused after inflating one byte past them."""
    data = make_docx_lying_sizes()
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(ExtractionFailed, match="corrupt or unsafe archive") as info:
            check_zip(data, "docx")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.monotonic() - started
    assert "fails its CRC check" in str(info.value)
    assert peak < 8 * _MIB, f"peak {peak / _MIB:.1f} MiB"
    assert elapsed < 1.0, f"{elapsed:.2f} s"


async def test_lying_zip_bomb_fails_at_once_with_a_reason(
    client: AsyncQuireClient, harness: Harness, collection_id: str
) -> None:
    doc, elapsed = await _upload_and_wait(
        client, collection_id, "bomb.docx", make_docx_lying_sizes()
    )
    assert doc.status == FAILED, (doc.status, doc.extract_error)
    assert doc.extract_error.startswith("corrupt or unsafe archive: docx entry 'word/document.xml'")
    assert "no text extracted" not in doc.extract_error
    assert doc.attempts == 1
    assert await _job(harness, doc.document_id) == ("failed", 1, doc.extract_error)
    assert elapsed < 20, f"{elapsed:.1f} s"


@pytest.mark.parametrize(
    ("file_name", "make", "reason"),
    [
        ("truncated.docx", CORRUPT["truncated.docx"], "not a valid docx file"),
        # kreuzberg reads past a broken sheet: on its own this ended READY with partial text
        (
            "broken-sheet.xlsx",
            lambda: rezip(make_xlsx(), "xl/worksheets/sheet1.xml", crc=1),
            "corrupt or unsafe archive: xlsx entry 'xl/worksheets/sheet1.xml' fails its CRC",
        ),
        ("random.pdf", CORRUPT["random.pdf"], "could not read the file as .pdf"),
    ],
)
async def test_corrupt_files_fail_after_one_attempt(
    client: AsyncQuireClient,
    harness: Harness,
    collection_id: str,
    file_name: str,
    make: Callable[[], bytes],
    reason: str,
) -> None:
    doc, elapsed = await _upload_and_wait(client, collection_id, file_name, make())
    assert doc.status == FAILED, (doc.status, doc.extract_error)
    assert reason in doc.extract_error, doc.extract_error
    assert doc.attempts == 1
    assert (await _job(harness, doc.document_id))[:2] == ("failed", 1)
    assert elapsed < 20, f"{elapsed:.1f} s"


async def test_valid_document_without_text_is_ready_with_the_marker(
    client: AsyncQuireClient, collection_id: str
) -> None:
    doc, _ = await _upload_and_wait(client, collection_id, "blank.docx", make_empty_docx())
    assert doc.status == READY
    assert doc.extract_error == "no text extracted"
    assert doc.attempts == 1
    assert doc.detected_encoding == ""  # the docx parser reads its own bytes


# --- finding 8: text that is not UTF-8 -----------------------------------------------------------


@pytest.mark.parametrize(
    ("file_name", "text", "data", "encodings"),
    [
        ("menu.txt", "Café résumé", "Café résumé".encode("cp1252"), {"cp1252"}),
        (
            "greeting.txt",
            "Grüße aus Köln, schöne Straße",
            "Grüße aus Köln, schöne Straße".encode("utf-16"),  # with its byte order mark
            {"utf-16-le"},
        ),
        (
            "letter.txt",
            "Grüße aus München",
            "Grüße aus München".encode("latin-1"),
            {"cp1252"},  # the same bytes: cp1252 is a superset of Latin-1's printable range
        ),
        (
            "memo.txt",
            "東京で会議の議事録です。",
            "東京で会議の議事録です。".encode("shift_jis"),
            {"cp932", "shift_jis"},
        ),
    ],
)
async def test_legacy_encoded_text_is_read_right_and_recorded(
    client: AsyncQuireClient,
    harness: Harness,
    collection_id: str,
    file_name: str,
    text: str,
    data: bytes,
    encodings: set[str],
) -> None:
    doc, _ = await _upload_and_wait(client, collection_id, file_name, data)
    assert doc.status == READY, doc.extract_error
    assert doc.extract_error == ""
    read = await client.read_document(collection_ids=[collection_id], document_id=doc.document_id)
    assert read.text == text
    assert doc.detected_encoding in encodings
    async with harness.pool.acquire() as conn:
        stored = await conn.fetchval(
            "SELECT detected_encoding FROM documents WHERE document_id = $1",
            uuid.UUID(doc.document_id),
        )
    assert stored == doc.detected_encoding


async def test_cp1252_words_are_found(client: AsyncQuireClient, collection_id: str) -> None:
    doc, _ = await _upload_and_wait(
        client, collection_id, "specials.txt", "Le café du jour, résumé".encode("cp1252")
    )
    found = await client.search_knowledge(collection_ids=[collection_id], query="café")
    assert doc.document_id in [hit.document_id for hit in found.hits]
    assert doc.detected_encoding == "cp1252"

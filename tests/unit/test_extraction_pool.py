"""Tests for quire.indexer.extraction.pool: worker processes, bounds, hostile files, recovery.

Small bounds keep the suite fast: 5 s per file and 512 MiB of address space per worker. The
``_stall`` / ``_crash`` / ``_hog`` targets are module-level so the spawned workers can import them.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from quire.indexer.extraction import (
    Extracted,
    ExtractionFailed,
    ExtractionPool,
    FileType,
    decoding,
    extract_text,
    resolve_type,
)
from tests.support.sample_files import (
    HOSTILE,
    SAMPLES,
    make_docx,
    make_docx_lying_sizes,
    make_pdf_flate_bomb,
)

TIMEOUT = 5.0
MEMORY = 512 * 1024 * 1024
DOCX = resolve_type("x.docx", None)


def _stall(data: bytes, file_type: FileType) -> Extracted:
    time.sleep(3600)
    raise AssertionError("unreachable")


def _crash(data: bytes, file_type: FileType) -> Extracted:
    os._exit(3)


def _hog(data: bytes, file_type: FileType) -> Extracted:
    blocks = [bytearray(64 * 1024 * 1024) for _ in range(64)]  # 4 GiB, far over the limit
    return Extracted(str(len(blocks)))


def _stall_on_marker(data: bytes, file_type: FileType) -> Extracted:
    if data == b"stall":
        time.sleep(3600)
    return extract_text(data, file_type)


@pytest_asyncio.fixture(scope="module")
async def pool() -> AsyncIterator[ExtractionPool]:
    async with ExtractionPool(max_workers=2, timeout=TIMEOUT, memory_limit=MEMORY) as pool:
        yield pool


async def _still_serves(pool: ExtractionPool) -> None:
    result = await pool.extract(make_docx(), DOCX)
    assert "Zebra handbook" in result.text


@pytest.mark.parametrize(
    "file_name", ["handbook.docx", "report.pdf", "budget.xlsx", "meeting.ics", "deck.odp"]
)
async def test_samples_through_the_pool(pool: ExtractionPool, file_name: str) -> None:
    sample = SAMPLES[file_name]
    result = await pool.extract(sample.make(), resolve_type(file_name, None))
    assert result == extract_text(sample.make(), resolve_type(file_name, None))
    assert all(word in result.text for word in sample.words)


async def test_name_only_types_need_no_worker() -> None:
    pool = ExtractionPool(target=_crash)  # would fail if a worker ran
    try:
        assert (await pool.extract(b"\x89PNG...", resolve_type("a.png", None))).text == ""
    finally:
        pool.close()


async def test_plain_text_is_decoded_without_a_worker() -> None:
    pool = ExtractionPool()
    try:
        for name in ("notes.txt", "guide.md", "data.json", "main.py"):
            file_type = resolve_type(name, None)
            assert pool.in_process(file_type)
            data = "# Überschrift\r\n\r\nValves and pumps.\x00\n".encode()
            assert await pool.extract(data, file_type) == extract_text(data, file_type)
        big = ("pumps and valves " * 20_000).encode()  # over the inline bound: on a thread
        assert (
            await pool.extract(big, resolve_type("big.txt", None))
        ).text == big.decode().rstrip()
        assert not pool._workers, "no worker process was started"
    finally:
        pool.close()


async def test_legacy_encoded_text_is_detected_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A small cp1252 file is not decoded inline (detection takes milliseconds) but on a
    thread, still without a worker process; its encoding comes back with the text."""
    loop_thread = threading.get_ident()
    threads: list[int] = []
    real_detect = decoding._detect

    def spy(data: bytes) -> str | None:
        threads.append(threading.get_ident())
        return real_detect(data)

    monkeypatch.setattr(decoding, "_detect", spy)
    pool = ExtractionPool()
    try:
        utf8 = await pool.extract("Café résumé".encode(), resolve_type("a.txt", None))
        legacy = await pool.extract("Café résumé".encode("cp1252"), resolve_type("b.txt", None))
        assert (utf8.text, utf8.encoding) == ("Café résumé", "utf-8")
        assert (legacy.text, legacy.encoding) == ("Café résumé", "cp1252")
        assert threads and loop_thread not in threads
        assert not pool._workers, "no worker process was started"
    finally:
        pool.close()


async def test_a_corrupt_file_is_a_permanent_failure_across_the_pipe(pool: ExtractionPool) -> None:
    with pytest.raises(ExtractionFailed, match="corrupt or unsafe archive") as info:
        await pool.extract(make_docx_lying_sizes(), resolve_type("bomb.docx", None))
    assert info.value.permanent
    timeout = ExtractionPool(timeout=0.5, target=_stall)
    try:
        with pytest.raises(ExtractionFailed, match="timed out") as bound:
            await timeout.extract(b"%PDF-", resolve_type("a.pdf", None))
        assert not bound.value.permanent  # a bound can depend on load: retried
    finally:
        timeout.close()


def test_parsed_formats_and_custom_targets_keep_the_worker() -> None:
    pool = ExtractionPool()
    custom = ExtractionPool(target=_stall_on_marker)
    try:
        for name in ("table.csv", "page.html", "report.pdf", "handbook.docx", "meeting.ics"):
            assert not pool.in_process(resolve_type(name, None)), name
        assert not custom.in_process(resolve_type("notes.txt", None))
        assert custom.in_process(resolve_type("photo.png", None))  # no text: no worker at all
    finally:
        pool.close()
        custom.close()


async def test_corrupt_file_fails_and_the_worker_is_reused(pool: ExtractionPool) -> None:
    with pytest.raises(ExtractionFailed, match="not a valid docx"):
        await pool.extract(b"\x89PNG\r\n\x1a\n not a docx", DOCX)
    await _still_serves(pool)


@pytest.mark.slow  # 9 s for the four files under load (`make test-fast` leaves it out)
@pytest.mark.parametrize("file_name", sorted(HOSTILE))
async def test_hostile_files_are_bounded(pool: ExtractionPool, file_name: str) -> None:
    data = HOSTILE[file_name]()
    started = time.monotonic()
    try:
        result = await pool.extract(data, resolve_type(file_name, None))
    except ExtractionFailed as exc:
        assert str(exc)
    else:
        assert len(result.text) <= max(len(data), 1_000_000)  # no entity expansion
    assert time.monotonic() - started < TIMEOUT + 3
    await _still_serves(pool)


@pytest.mark.parametrize("file_name", ["laughs.xml", "laughs.docx", "laughs.html"])
async def test_entities_are_not_expanded(pool: ExtractionPool, file_name: str) -> None:
    result = await pool.extract(HOSTILE[file_name](), resolve_type(file_name, None))
    assert "lollollol" not in result.text


@pytest.mark.slow  # 1 to 5 s under load (`make test-fast` leaves it out)
async def test_zip_bomb_is_refused_up_front(pool: ExtractionPool) -> None:
    with pytest.raises(ExtractionFailed, match=r"uncompressed|zip bomb"):
        await pool.extract(HOSTILE["bomb.docx"](), DOCX)
    with pytest.raises(ExtractionFailed, match="zip bomb"):
        await pool.extract(HOSTILE["textbomb.docx"](), DOCX)


@pytest.mark.slow  # 4 s under load (`make test-fast` leaves it out)
async def test_pdf_decompression_bomb_hits_the_memory_limit(pool: ExtractionPool) -> None:
    with pytest.raises(ExtractionFailed, match=r"^exceeded memory limit$"):
        await pool.extract(make_pdf_flate_bomb(100), resolve_type("bomb.pdf", None))
    await _still_serves(pool)


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_timeout_kills_and_replaces_the_worker() -> None:
    async with ExtractionPool(timeout=1.0, memory_limit=MEMORY, target=_stall_on_marker) as pool:
        started = time.monotonic()
        with pytest.raises(ExtractionFailed, match=r"^timed out after 1 s$"):
            await pool.extract(b"stall", DOCX)
        assert time.monotonic() - started < 1.0 + 10  # the timeout, plus a worker start
        await _still_serves(pool)


@pytest.mark.slow  # 1 s under load (`make test-fast` leaves it out)
async def test_timeout_message_uses_the_configured_bound() -> None:
    async with ExtractionPool(timeout=0.5, target=_stall) as pool:
        with pytest.raises(ExtractionFailed, match=r"^timed out after 0\.5 s$"):
            await pool.extract(b"x", DOCX)


@pytest.mark.slow  # 3 s under load (`make test-fast` leaves it out)
async def test_python_memory_error_is_reported() -> None:
    async with ExtractionPool(timeout=TIMEOUT, memory_limit=MEMORY, target=_hog) as pool:
        for _ in range(2):  # the worker retires after a MemoryError; a new one takes over
            with pytest.raises(ExtractionFailed, match=r"^exceeded memory limit$"):
                await pool.extract(b"x", DOCX)


@pytest.mark.slow  # 3 s under load (`make test-fast` leaves it out)
async def test_crash_is_reported_and_the_pool_recovers() -> None:
    async with ExtractionPool(timeout=TIMEOUT, target=_crash) as pool:
        with pytest.raises(ExtractionFailed, match=r"worker crashed \(exit code 3\)"):
            await pool.extract(b"x", DOCX)
        with pytest.raises(ExtractionFailed, match="worker crashed"):
            await pool.extract(b"x", DOCX)


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_the_event_loop_is_not_blocked() -> None:
    async with ExtractionPool(timeout=1.5, target=_stall) as pool:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.05)
                ticks += 1

        task = asyncio.create_task(ticker())
        try:
            with pytest.raises(ExtractionFailed, match="timed out"):
                await pool.extract(b"x", DOCX)
        finally:
            task.cancel()
        assert ticks >= 10


@pytest.mark.slow  # 5 s under load (`make test-fast` leaves it out)
async def test_two_workers_run_in_parallel() -> None:
    async with ExtractionPool(max_workers=2, timeout=1.0, target=_stall_on_marker) as pool:
        await asyncio.gather(pool.extract(make_docx(), DOCX), pool.extract(make_docx(), DOCX))
        started = time.monotonic()
        results = await asyncio.gather(
            pool.extract(b"stall", DOCX), pool.extract(b"stall", DOCX), return_exceptions=True
        )
        assert all(isinstance(r, ExtractionFailed) for r in results)
        assert time.monotonic() - started < 1.9  # both timed out together, not one after another


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_cancellation_kills_the_job_and_the_pool_goes_on() -> None:
    async with ExtractionPool(timeout=30, target=_stall_on_marker) as pool:
        await _still_serves(pool)
        task = asyncio.create_task(pool.extract(b"stall", DOCX))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        started = time.monotonic()
        await _still_serves(pool)
        assert time.monotonic() - started < 10


async def test_closed_pool_refuses_work() -> None:
    pool = ExtractionPool()
    pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        await pool.extract(make_docx(), DOCX)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_workers"):
        ExtractionPool(max_workers=0)
    with pytest.raises(ValueError, match="timeout"):
        ExtractionPool(timeout=0)

"""``ExtractionPool``: :func:`extract_text` in worker processes, bounded in time and memory.

Each worker is a separate process (``spawn`` start method: a fresh interpreter, nothing inherited
from the caller but its arguments), so a hostile or broken file can crash or stall only its
worker. Per file:

- **Wall time** (default 60 s): when no answer comes in time the worker is killed (SIGKILL) and
  replaced; the call raises ``ExtractionFailed("timed out after 60 s")``.
- **Memory** (default 1 GiB of address space, ``RLIMIT_AS`` set in the worker after its imports):
  Python's ``MemoryError`` and native allocation failures (the Rust core printing "memory
  allocation of N bytes failed", pdfium's ``std::bad_alloc`` aborting the Rust core) raise
  ``ExtractionFailed("exceeded memory limit")``; the worker is replaced. A silent SIGABRT is
  counted as an allocation failure too (native code that aborts without a word).
- **Crashes** of any other kind raise ``ExtractionFailed("extraction worker crashed (...)")``.

The worker's standard error goes to a private temporary file, read back after a crash to tell an
allocation failure from other crashes and logged. Workers start lazily, are reused for up to
``max_jobs_per_worker`` files, and are replaced after any failure of their own.

:meth:`ExtractionPool.extract` is a coroutine: the blocking pipe I/O runs on a small private
thread pool, never on the event loop. Types with no body text (images, audio, video, ...) are
answered at once without a worker, and so are plain-text types (``Extractor.PLAIN``: text,
Markdown, JSON, source code, ...): their extraction is a decode with no parser, so it runs
in-process instead of paying a process round trip per document — inline when the file is small
(≤ 256 KiB) and UTF-8 or marked by a BOM (microseconds), on a thread otherwise (a larger file,
or one whose encoding must be detected: milliseconds, bounded by ``decoding.DETECT_BYTES``).
Delimited tables (csv module), markup and every binary format keep the worker process and its
bounds. :meth:`ExtractionPool.in_process` tells which path a type takes.

A failure's ``permanent`` flag (corrupt or unsafe bytes, see :class:`ExtractionFailed`) crosses
the pipe with its message; the pool's own bounds and crashes are not permanent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import resource
import signal
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import TracebackType

from quire.indexer.extraction.decoding import DetectionNeeded
from quire.indexer.extraction.extract import Extracted, extract_text
from quire.indexer.extraction.formats import Extractor, FileType
from quire.indexer.extraction.refusals import ExtractionFailed

__all__ = ["DEFAULT_MEMORY_LIMIT", "DEFAULT_TIMEOUT", "ExtractFunction", "ExtractionPool"]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY_LIMIT = 1024 * 1024 * 1024

#: A module-level function with the signature of :func:`extract_text` (it is pickled by name).
ExtractFunction = Callable[[bytes, FileType], Extracted]

_READY = "ready"
_MEMORY_LIMIT_MESSAGE = "exceeded memory limit"
_STDERR_TAIL = 4096
#: Substrings of a crashed worker's standard error that mean an allocation failed.
_ALLOCATION_FAILURES = (
    "memoryerror",
    "memory allocation of",
    "cannot allocate memory",
    "out of memory",
    "bad_alloc",
    "failed to allocate",
    # pdfium's C++ std::bad_alloc unwinding into the Rust core, which then aborts
    "cannot catch foreign exceptions",
)
_M_ARENA_MAX = -8  # glibc mallopt parameter
#: Extractors run in the calling process: a decode, linear in the input, nothing to exploit.
_IN_PROCESS = frozenset({Extractor.PLAIN})
#: In-process files up to this size are decoded on the event loop (tens of microseconds).
_INLINE_BYTES = 256 * 1024


# --- worker process --------------------------------------------------------------------------


def _limit_malloc_arenas() -> None:
    """Fewer glibc malloc arenas: each reserves 64 MiB of address space, which RLIMIT_AS counts."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).mallopt(_M_ARENA_MAX, 2)


def _worker_main(
    conn: Connection, target: ExtractFunction, memory_limit: int | None, stderr_path: str
) -> None:
    """Serve jobs ``(data, file_type)`` from ``conn`` until it closes or ``None`` arrives."""
    fd = os.open(stderr_path, os.O_WRONLY | os.O_APPEND)
    os.dup2(fd, 2)
    os.close(fd)
    _limit_malloc_arenas()
    with contextlib.suppress(ImportError):
        import kreuzberg  # noqa: F401 - load the native core before the memory limit applies
    if memory_limit is not None:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            memory_limit = min(memory_limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, hard))
    conn.send(_READY)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        data, file_type = job
        retire = False
        outcome: tuple[str, object, bool]
        try:
            outcome = ("ok", target(data, file_type), False)
        except ExtractionFailed as exc:
            outcome = ("failed", exc.message, exc.permanent)
        except MemoryError:
            outcome, retire = ("failed", _MEMORY_LIMIT_MESSAGE, False), True
        except Exception as exc:  # report, never die on a library's bug
            outcome = ("failed", f"extraction error: {type(exc).__name__}: {exc}"[:500], False)
        del job, data
        try:
            conn.send(outcome)
        except MemoryError:
            conn.send(("failed", _MEMORY_LIMIT_MESSAGE, False))
            retire = True
        if retire:
            return


def _extract_here(data: bytes, file_type: FileType, detect_encoding: bool = True) -> Extracted:
    """:func:`extract_text` in this process, failing as a worker would report it."""
    try:
        return extract_text(data, file_type, detect_encoding=detect_encoding)
    except (ExtractionFailed, DetectionNeeded):
        raise
    except MemoryError:
        raise ExtractionFailed(_MEMORY_LIMIT_MESSAGE) from None
    except Exception as exc:
        raise ExtractionFailed(f"extraction error: {type(exc).__name__}: {exc}"[:500]) from None


# --- parent side -----------------------------------------------------------------------------


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    conn: Connection
    stderr_path: str
    jobs: int = 0

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        self.process.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()
        with contextlib.suppress(OSError):
            os.unlink(self.stderr_path)

    def stop(self) -> None:
        """Ask an idle worker to exit, then make sure it has."""
        with contextlib.suppress(Exception):
            self.conn.send(None)
        self.process.join(1)
        self.kill()

    def crash_reason(self) -> str:
        """Why the process ended without answering (call before :meth:`kill`)."""
        self.process.join(5)
        try:
            with open(self.stderr_path, "rb") as handle:
                handle.seek(max(0, os.path.getsize(self.stderr_path) - _STDERR_TAIL))
                tail = handle.read().decode("utf-8", "replace")
        except OSError:
            tail = ""
        code = self.process.exitcode
        if code is None:
            how = "still running"
        elif code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exit code {code}"
        log.warning("extraction worker ended without an answer (%s): %s", how, tail.strip()[-1000:])
        if any(marker in tail.lower() for marker in _ALLOCATION_FAILURES):
            return _MEMORY_LIMIT_MESSAGE
        if code == -signal.SIGABRT and not tail.strip():
            # native code that aborts silently on a failed allocation (pdfium does)
            return _MEMORY_LIMIT_MESSAGE
        return f"extraction worker crashed ({how})"


@dataclass(eq=False)
class _Job:
    lock: threading.Lock = field(default_factory=threading.Lock)
    cancelled: bool = False
    worker: _Worker | None = None

    def attach(self, worker: _Worker) -> bool:
        with self.lock:
            if self.cancelled:
                return False
            self.worker = worker
            return True

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            worker = self.worker
        if worker is not None:
            with contextlib.suppress(Exception):
                worker.process.kill()


class ExtractionPool:
    """Runs :func:`extract_text` in up to ``max_workers`` worker processes (see the module doc).

    ``timeout`` is seconds of wall time per file; ``memory_limit`` bytes of address space per
    worker (``None``: unlimited). ``target`` replaces :func:`extract_text` (a module-level
    function, for tests). Use as ``async with ExtractionPool() as pool`` or call :meth:`close`.
    """

    def __init__(
        self,
        max_workers: int = 1,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
        max_jobs_per_worker: int = 100,
        start_timeout: float = 60.0,
        target: ExtractFunction = extract_text,
    ) -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self._timeout = timeout
        self._memory_limit = memory_limit
        self._max_jobs = max(1, max_jobs_per_worker)
        self._start_timeout = start_timeout
        self._target = target
        self._context = multiprocessing.get_context("spawn")
        self._slots = asyncio.Semaphore(max_workers)
        self._threads = ThreadPoolExecutor(max_workers, thread_name_prefix="quire-extract")
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._workers: set[_Worker] = set()
        self._closed = False

    @property
    def timeout(self) -> float:
        return self._timeout

    @property
    def memory_limit(self) -> int | None:
        return self._memory_limit

    def in_process(self, file_type: FileType) -> bool:
        """True when :meth:`extract` answers ``file_type`` without a worker process (types
        without body text, and plain-text decoding unless a custom ``target`` is set)."""
        if not file_type.extracts_text:
            return True
        return self._target is extract_text and file_type.extractor in _IN_PROCESS

    async def extract(self, data: bytes, file_type: FileType) -> Extracted:
        """The text of ``data`` as ``file_type``, computed in a worker process (or in-process
        for the types :meth:`in_process` names).

        Raises :class:`ExtractionFailed` for corrupt files and when a bound is exceeded.
        """
        if self._closed:
            raise RuntimeError("extraction pool is closed")
        if not file_type.extracts_text:
            return Extracted("")
        if self.in_process(file_type):
            if len(data) <= _INLINE_BYTES:
                with contextlib.suppress(DetectionNeeded):
                    return _extract_here(data, file_type, detect_encoding=False)
            return await asyncio.to_thread(_extract_here, data, file_type)
        async with self._slots:
            job = _Job()
            future = self._threads.submit(self._run, job, data, file_type)
            try:
                return await asyncio.wrap_future(future)
            except asyncio.CancelledError:
                job.cancel()
                raise

    def close(self) -> None:
        """Stop every worker (a running extraction fails); the pool cannot be used afterwards."""
        self._closed = True
        with self._lock:
            idle, self._idle = self._idle, []
            busy = self._workers - set(idle)
            self._workers = set()
        for worker in idle:
            worker.stop()
        for worker in busy:
            worker.kill()
        self._threads.shutdown(wait=False, cancel_futures=True)

    async def __aenter__(self) -> ExtractionPool:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # --- blocking part, on the private threads --------------------------------------------------

    def _start_worker(self) -> _Worker:
        fd, stderr_path = tempfile.mkstemp(prefix="quire-extract-", suffix=".stderr")
        os.close(fd)
        parent, child = self._context.Pipe(duplex=True)
        process = self._context.Process(
            target=_worker_main,
            args=(child, self._target, self._memory_limit, stderr_path),
            name="quire-extract-worker",
            daemon=True,
        )
        process.start()
        child.close()
        worker = _Worker(process, parent, stderr_path)
        with self._lock:
            self._workers.add(worker)
        try:
            ready = parent.poll(self._start_timeout) and parent.recv() == _READY
        except (EOFError, OSError):
            ready = False
        if not ready:
            process.join(1)
            reason = "did not start in time" if process.exitcode is None else worker.crash_reason()
            self._retire(worker)
            raise ExtractionFailed(f"extraction worker could not start: {reason}")
        return worker

    def _take_worker(self) -> tuple[_Worker, bool]:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker, True
                self._workers.discard(worker)
                worker.kill()
        return self._start_worker(), False

    def _retire(self, worker: _Worker) -> None:
        with self._lock:
            self._workers.discard(worker)
        worker.kill()

    def _release(self, worker: _Worker) -> None:
        with self._lock:
            keep = not self._closed and worker in self._workers and worker.jobs < self._max_jobs
            if keep:
                self._idle.append(worker)
                return
            self._workers.discard(worker)
        worker.stop()

    def _run(self, job: _Job, data: bytes, file_type: FileType) -> Extracted:
        for attempt in range(2):
            worker, reused = self._take_worker()
            if not job.attach(worker):
                self._retire(worker)
                raise ExtractionFailed("extraction cancelled")
            try:
                worker.conn.send((data, file_type))
            except (OSError, ValueError):
                # an idle worker that died meanwhile: one more try on a fresh one
                self._retire(worker)
                if reused and attempt == 0:
                    continue
                raise ExtractionFailed(
                    "extraction worker crashed (could not send the file)"
                ) from None
            return self._await_answer(job, worker)
        raise AssertionError("unreachable")

    def _await_answer(self, job: _Job, worker: _Worker) -> Extracted:
        try:
            answered = worker.conn.poll(self._timeout)
        except (OSError, ValueError):
            answered = True  # the pipe broke: read the crash below
        if not answered:
            self._retire(worker)
            raise ExtractionFailed(f"timed out after {self._timeout:g} s")
        try:
            status, payload, permanent = worker.conn.recv()
        except (EOFError, OSError, ValueError):
            reason = "extraction cancelled" if job.cancelled else worker.crash_reason()
            self._retire(worker)
            raise ExtractionFailed(reason) from None
        worker.jobs += 1
        if status == "ok" and isinstance(payload, Extracted):
            self._release(worker)
            return payload
        if payload == _MEMORY_LIMIT_MESSAGE:
            self._retire(worker)  # it exits by itself after a MemoryError
        else:
            self._release(worker)
        raise ExtractionFailed(str(payload), permanent=permanent)

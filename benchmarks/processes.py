"""Search throughput of 1 and then 2 `quire serve --reuse-port` processes on one port, in one
run (docs/scaling.md §1). Prints JSON.

    .venv/bin/python benchmarks/processes.py [--documents 300] [--seconds 20]
        [--concurrency 64] [--connections 64] [--mode legacy|hybrid]
        [--rpc search|get-collection] [--quick]

The first `--documents` SciFact abstracts are uploaded into one collection of a fresh database
(the UploadDocument storage path) and indexed by the worker, in this process, which then stops.
For 1 and then 2 processes, `quire serve --reuse-port` starts on one free port (the HTTP
listener off) and `benchmarks/loadgen` (Go, built here) sends SearchKnowledge at
`--concurrency` calls in flight over `--connections` gRPC connections for `--seconds` (after a
short warm-up). Every query is sent once per phase and the search cache is emptied between
phases, so no call is a cache hit (`cached` counts them) and both phases send the same queries:
SciFact training claims, and each claim with one of its words left out. With `--rpc
get-collection` it sends GetCollection instead: little database work per call, so the server
processes themselves are the bound.

Reported per phase: requests/s, p50/p95/p99, errors; CPU seconds of each server process, of
the PostgreSQL backends serving them, of the load generator and of the whole machine (busy
core-seconds); the load average before and after; per server process, the connections it
accepted (SO_REUSEPORT spreads connections, not calls, over the processes); and the ceiling:
the machine's cores over the CPU one call costs (servers + backends + load generator). Then the
ratio of the 2-process throughput to the 1-process one, and the most it could be on this
machine (the 1-process ceiling over the 1-process throughput). With `--rpc get-collection`, a
`direct` phase follows: GetCollection's transaction on asyncpg from one Python process at the
same concurrency, no Quire (`ratio_to_direct`).

With `--rpc search-pages`, the first `--pages` pages of the FastAPI site are synced instead
(in this process, which then stops) and the load generator sends SearchPages, cycling through
pages_search.QUERIES; the `direct` phase is pages_search.Direct.search (the same SQL, fusion
and query embedding, on asyncpg and the same model) from one Python process at the same
concurrency. Unlike pages_search.py, whose client shares the server's process and event loop,
the load here comes from another process, as a load-testing user's does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import _harness as h
import knowledge_search
import pages_search

MODES = {"legacy": 1, "hybrid": 3}  # RetrievalMode numbers
LOADGEN = h.REPO / "benchmarks" / "loadgen"
WARM_UP_S = 3.0


def distinct_queries() -> list[str]:
    """The training claims, then each claim without one of its words: realistic, and
    thousands of distinct texts (a repeat would be served from the search cache)."""
    claims = knowledge_search.load_queries(10_000)
    variants = [
        " ".join(words[:i] + words[i + 1 :])
        for words in (c.split() for c in claims)
        for i in range(len(words))
        if len(words) > 3
    ]
    return list(dict.fromkeys([*claims, *variants]))


def build_loadgen(into: Path) -> Path:
    binary = into / "quire-loadgen"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=LOADGEN, check=True)
    return binary


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_servers(n: int, port: int, database_url: str) -> list[subprocess.Popen[bytes]]:
    quire = Path(sys.executable).parent / "quire"
    env = {**os.environ, "QUIRE_DATABASE_URL": database_url, "QUIRE_LOG_LEVEL": "WARNING"}
    command = [str(quire), "serve", "--reuse-port", "--address", f"127.0.0.1:{port}"]
    return [
        subprocess.Popen([*command, "--http-address", ""], env=env, stdout=subprocess.DEVNULL)
        for _ in range(n)
    ]


def listening(pid: int, port: int) -> bool:
    import psutil

    with contextlib.suppress(psutil.Error):
        return any(
            c.status == psutil.CONN_LISTEN and c.laddr.port == port
            for c in psutil.Process(pid).net_connections("tcp")
        )
    return False


async def wait_listening(servers: list[subprocess.Popen[bytes]], port: int) -> None:
    deadline = time.monotonic() + 120
    while not all(listening(s.pid, port) for s in servers):
        for s in servers:
            if s.poll() is not None:
                raise SystemExit(f"quire serve exited with {s.returncode}")
        if time.monotonic() > deadline:
            raise SystemExit("quire serve did not listen within 120 s")
        await asyncio.sleep(0.2)


def accepted(pid: int, port: int) -> int:
    """Established connections on `port` owned by `pid`: the ones the kernel gave it."""
    import psutil

    with contextlib.suppress(psutil.Error):
        return sum(
            1
            for c in psutil.Process(pid).net_connections("tcp")
            if c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port
        )
    return 0


def cpu_s(pid: int) -> float:
    import psutil

    with contextlib.suppress(psutil.Error):
        t = psutil.Process(pid).cpu_times()
        return float(t.user + t.system)
    return 0.0


async def backend_pids(database_url: str) -> list[int]:
    import asyncpg

    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()
    return [r["pid"] for r in rows]


async def empty_cache(database_url: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute("TRUNCATE search_cache")
    finally:
        await conn.close()


async def run_loadgen(
    binary: Path, args: argparse.Namespace, target: dict[str, str], queries: list[str], s: float
) -> tuple[dict[str, Any], int]:
    """One loadgen run of `s` seconds; its report and its pid."""
    process = await asyncio.create_subprocess_exec(
        str(binary),
        f"-address={target['address']}",
        f"-key={target['key']}",
        f"-collection={target.get('collection', '')}",
        f"-mode={MODES[args.mode]}",
        f"-concurrency={args.concurrency}",
        f"-connections={args.connections}",
        f"-seconds={s}",
        f"-rpc={args.rpc}",
        f"-namespace={pages_search.NAMESPACE}",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate("\n".join(queries).encode())
    if process.returncode != 0:
        raise SystemExit(f"loadgen failed ({process.returncode})")
    report: dict[str, Any] = json.loads(out)
    return report, process.pid


async def phase(
    n: int,
    binary: Path,
    args: argparse.Namespace,
    database_url: str,
    target: dict[str, str],
    queries: list[str],
    warm_up: list[str],
) -> dict[str, Any]:
    import psutil

    port = free_port()
    target = {**target, "address": f"127.0.0.1:{port}"}
    servers = start_servers(n, port, database_url)
    try:
        await wait_listening(servers, port)
        await run_loadgen(binary, args, target, warm_up, WARM_UP_S)
        await empty_cache(database_url)
        backends = {pid: cpu_s(pid) for pid in await backend_pids(database_url)}
        server_cpu = {s.pid: cpu_s(s.pid) for s in servers}
        idle_before = psutil.cpu_times().idle
        load_before = [round(x, 2) for x in os.getloadavg()]
        started = time.perf_counter()
        run = asyncio.create_task(run_loadgen(binary, args, target, queries, args.seconds))
        await asyncio.sleep(args.seconds / 2)
        connections = {str(s.pid): accepted(s.pid, port) for s in servers}
        report, _ = await run
        elapsed = time.perf_counter() - started
        idle = psutil.cpu_times().idle - idle_before
        ends = {pid: cpu_s(pid) for pid in await backend_pids(database_url)}
        per_server = {str(s.pid): round(cpu_s(s.pid) - server_cpu[s.pid], 1) for s in servers}
    finally:
        for s in servers:
            s.send_signal(signal.SIGTERM)
        for s in servers:
            try:
                s.wait(30)
            except subprocess.TimeoutExpired:
                s.kill()
    cores = len(os.sched_getaffinity(0))
    postgres = sum(ends[p] - backends.get(p, 0.0) for p in ends)
    servers_total = sum(per_server.values())
    stack_s = servers_total + postgres + report["loadgen_cpu_s"]
    stack_ms = 1000 * stack_s / max(1, report["requests"])
    return {
        "processes": n,
        "requests_per_s": round(report["requests_per_s"], 1),
        "requests": report["requests"],
        "p50_ms": round(report["p50_ms"], 1),
        "p95_ms": round(report["p95_ms"], 1),
        "p99_ms": round(report["p99_ms"], 1),
        "errors": report["errors"],
        "first_error": report.get("first_error", ""),
        "cached": report["cached"],
        "queries_ran_out": report["queries_ran_out"],
        "seconds": round(elapsed, 1),
        "cpu_s": {
            "servers": round(servers_total, 1),
            "per_server": per_server,
            "postgres_backends": round(postgres, 1),
            # Includes its warm-up run: an upper bound on the measured run's share.
            "loadgen": round(report["loadgen_cpu_s"], 1),
            "machine_busy": round(elapsed * cores - idle, 1),
            "machine_available": round(elapsed * cores, 1),
        },
        "server_cpu_ms_per_request": round(1000 * servers_total / max(1, report["requests"]), 2),
        # Servers, their PostgreSQL backends and the load generator, per call; with every core
        # of the machine for them alone, no number of processes could exceed the ceiling.
        "stack_cpu_ms_per_request": round(stack_ms, 2),
        "ceiling_requests_per_s": round(cores * 1000 / stack_ms, 1) if stack_ms else None,
        "connections_per_server": connections,
        "loadavg_before": load_before,
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }


async def drive(call: Any, concurrency: int, seconds: float) -> dict[str, Any]:
    """`call()` from `concurrency` tasks for `seconds`: throughput, latency and this process's
    CPU time, as the direct phase's one JSON line reports them."""
    latencies: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def worker() -> None:
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            await call()
            latencies.append(time.perf_counter() - t0)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": len(latencies),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(1000 * latencies[len(latencies) // 2], 2),
        "p95_ms": round(1000 * latencies[int(len(latencies) * 0.95)], 2),
    }


async def direct_load(
    rpc: str, database_url: str, org_id: str, collection_id: str, args: Any
) -> None:
    """The direct phase's child process, one JSON line on stdout. get-collection:
    GetCollection's transaction (BEGIN READ ONLY, statement_timeout, the SELECT, COMMIT) on
    asyncpg. search-pages: pages_search.Direct.search over the synced namespace, the query
    embedded by the same model in this process."""
    from quire.server.knowledge.collection_store import GET as GET_COLLECTION
    from quire.server.storage.database import SET_CONFIG, create_pool

    org = uuid.UUID(org_id)
    # Quire's own pool set-up (the vector codec the search needs), as the servers have.
    pool = await create_pool(database_url, min_size=20, max_size=20)
    if rpc == "search-pages":
        embeddings = h.load_model()
        direct = pages_search.Direct(argparse.Namespace(pool=pool), org, embeddings)
        turn = iter(range(1 << 62))
        queries = pages_search.QUERIES

        async def call() -> None:
            await direct.search(queries[next(turn) % len(queries)])

    else:
        cid = uuid.UUID(collection_id)

        async def call() -> None:
            async with pool.acquire() as conn, conn.transaction(readonly=True):
                await conn.execute(SET_CONFIG, "statement_timeout", "30000")
                await conn.fetchrow(GET_COLLECTION, org, cid)

    await drive(call, args.concurrency, WARM_UP_S)  # as the servers' phases warm up
    cpu_before = time.process_time()
    result = await drive(call, args.concurrency, args.seconds)
    result["cpu_s"] = round(time.process_time() - cpu_before, 1)
    await pool.close()
    print(json.dumps(result), flush=True)


async def direct_phase(database_url: str, target: dict[str, Any], args: Any) -> dict[str, Any]:
    """The same calls without Quire: one Python process on asyncpg (the direct path beside
    which the server processes are read), its load average and PostgreSQL's CPU."""
    backends = {pid: cpu_s(pid) for pid in await backend_pids(database_url)}
    load_before = [round(x, 2) for x in os.getloadavg()]
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "direct",
        args.rpc,
        database_url,
        target["org_id"],
        target.get("collection", ""),
        str(args.concurrency),
        str(args.seconds),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await child.communicate()
    ends = {pid: cpu_s(pid) for pid in await backend_pids(database_url)}
    result: dict[str, Any] = json.loads(out)
    result["cpu_s_postgres_backends"] = round(sum(ends[p] - backends.get(p, 0.0) for p in ends), 1)
    result["loadavg_before"] = load_before
    result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    return result


async def ingest_abstracts(url: str, documents: int) -> dict[str, Any]:
    """A collection of the first `documents` SciFact abstracts, indexed by a worker in this
    process (which then stops): the target of search and get-collection."""
    embeddings = h.load_model()
    async with h.Quire(url, embeddings=embeddings, worker=True) as quire:
        org = await quire.key()
        async with quire.client(org.token) as client:
            made = await client.create_collection(name="processes")
        cid = uuid.UUID(made.collection_id)
        h.note(f"ingesting {documents} SciFact abstracts")
        corpus = await knowledge_search.ingest(quire, org.org_id, cid, documents)
    embeddings.close()
    return {"key": org.token, "collection": str(cid), "org_id": str(org.org_id), "corpus": corpus}


async def sync_pages(url: str, pages: int, tmp: Path) -> dict[str, Any]:
    """The first `pages` pages of the FastAPI site synced into pages_search.NAMESPACE by Quire
    in this process (which then stops): the target of search-pages."""
    site = h.copy_site(tmp)
    kept = h.limit_llms(site, pages)
    embeddings = h.load_model()
    with h.site_process(site) as base_url:
        async with h.Quire(url, embeddings=embeddings, allow_sources=[base_url]) as quire:
            org = await quire.key()
            async with quire.client(org.token) as client:
                sync = await h.synced_entry(
                    client, pages_search.NAMESPACE, f"{base_url}/llms.txt", len(kept)
                )
    embeddings.close()
    return {"key": org.token, "org_id": str(org.org_id), "sync": sync}


async def main(args: argparse.Namespace) -> dict[str, Any]:
    import tempfile

    if args.rpc == "search-pages":
        queries = warm_up = list(pages_search.QUERIES)
    else:
        queries = distinct_queries()
        warm_up, queries = queries[-300:], queries[:-300]
    report: dict[str, Any] = {
        "benchmark": "processes",
        "machine_at_start": h.machine(),
        "rpc": args.rpc,
        "mode": args.mode,
        "concurrency": args.concurrency,
        "connections": args.connections,
        "seconds_per_phase": args.seconds,
        "distinct_queries": len(queries),
    }
    with tempfile.TemporaryDirectory(prefix="quire-loadgen-") as tmp:
        binary = build_loadgen(Path(tmp))
        async with h.database("processes") as url:
            if args.rpc == "search-pages":
                target = await sync_pages(url, args.pages, Path(tmp))
                report["corpus"] = {"pages": args.pages, "sync": target.pop("sync")}
            else:
                target = await ingest_abstracts(url, args.documents)
                report["corpus"] = target.pop("corpus")
            phases = []
            for n in (1, 2):
                h.note(f"{n} process(es): {args.seconds} s at concurrency {args.concurrency}")
                phases.append(await phase(n, binary, args, url, target, queries, warm_up))
                h.note(f"  {phases[-1]['requests_per_s']} requests/s")
            if args.rpc in ("get-collection", "search-pages"):
                h.note(f"direct: asyncpg alone, {args.seconds} s")
                report["direct"] = await direct_phase(url, target, args)
                h.note(f"  {report['direct']['requests_per_s']} requests/s")
    report["phases"] = phases
    if "direct" in report:
        direct_rps = report["direct"]["requests_per_s"]
        report["ratio_to_direct"] = {
            f"{p['processes']}_process": h.ratio(p["requests_per_s"], direct_rps) for p in phases
        }
    report["ratio_2_vs_1"] = h.ratio(phases[1]["requests_per_s"], phases[0]["requests_per_s"])
    # The most a second process could add on this machine: the 1-process ceiling over the
    # 1-process throughput.
    report["ratio_bound_by_cores"] = h.ratio(
        phases[0]["ceiling_requests_per_s"], phases[0]["requests_per_s"]
    )
    return report


if __name__ == "__main__" and len(sys.argv) == 8 and sys.argv[1] == "direct":
    _, _, rpc_arg, dsn, org_arg, collection_arg, concurrency_arg, seconds_arg = sys.argv
    asyncio.run(
        direct_load(
            rpc_arg,
            dsn,
            org_arg,
            collection_arg,
            argparse.Namespace(concurrency=int(concurrency_arg), seconds=float(seconds_arg)),
        )
    )
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--mode", choices=sorted(MODES), default="legacy")
    parser.add_argument(
        "--rpc",
        choices=("search", "get-collection", "search-pages"),
        default="search",
        help="get-collection: little database work per call, the server process is the bound; "
        "search-pages: SearchPages over the FastAPI site",
    )
    parser.add_argument(
        "--pages", type=int, default=100, help="search-pages: pages of the FastAPI site synced"
    )
    parser.add_argument("--quick", action="store_true", help="100 documents, 5 s per phase")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    parsed = parser.parse_args()
    if parsed.quick:
        parsed.documents, parsed.seconds, parsed.pages = 100, 5.0, 30
    h.setup_logging()
    h.emit(h.run(main(parsed)), parsed.out)

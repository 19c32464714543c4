"""Soak test: a mixed read/write workload at fixed concurrency for a fixed time; errors, per-RPC
latency, server memory over time and PostgreSQL connections before/after. Prints JSON.

    # Quire in this process (fresh database, real model, worker, FastAPI site subset synced):
    .venv/bin/python benchmarks/soak.py [--concurrency 64] [--duration 600] [--quick]

    # against a running server (e.g. `make run`; the key needs read + write):
    .venv/bin/python benchmarks/soak.py --address 127.0.0.1:50051 --key qk_... \\
        [--server-pid PID] [--database-url postgresql://...] [--namespace NAME]

Workers (closed loop, `--concurrency` of them, seeded) pick an operation by weight until
`--duration` seconds have passed: SearchPages, ReadPage, ListPages, GrepPages, RunCommand,
SearchKnowledge (HYBRID when the policy allows it, else the deployment mode) and UploadDocument
(a small SciFact abstract into a soak collection, which the worker then indexes). The mix is set
with `--mix op=weight,...`.

Against an external server the namespace must already hold pages: either pass `--namespace` of a
synced one, or let the soak sync the FastAPI site from a loopback child process (the server must
allow-list 127.0.0.1 sources, e.g. QUIRE_ALLOW_SOURCES). Without `--server-pid` the server's pid
is looked up by its listening port (same host only); without it no memory is reported. The
soak creates a collection `soak-<time>` (deleted at the end) and, without `--namespace`, the
namespace `soak`.

Reports: errors per RPC (goal 0) with samples, data loss (every acknowledged upload READY or
FAILED once the worker caught up, none missing: goal 0 missing), p50/p95/p99 per RPC,
throughput, RSS samples of the server process every `--sample-s` seconds and its growth from
the end of the warm-up to the end (goal < 10 %), open PostgreSQL connections before, at the
end of the warm-up and after (goal: no leak: none busy after the load, no more than at the
end of the warm-up), and for the in-process server the peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import tempfile
import time
from itertools import islice
from pathlib import Path
from typing import Any

import _harness as h

NAMESPACE = "soak"
DEFAULT_MIX = {
    "search_pages": 30,
    "read_page": 20,
    "list_pages": 10,
    "grep_pages": 10,
    "run_command": 10,
    "search_knowledge": 18,
    "upload": 2,
}
SEARCHES = [
    "declare query parameters with defaults",
    "dependency injection with yield",
    "custom response headers",
    "OAuth2 password flow",
    "upload files",
    "background tasks",
    "CORS middleware",
    "testing with TestClient",
    "deploy with Docker",
    "request body validation",
]
GREPS = ["Depends(", "async def", "HTTPException", "response_model", "uvicorn", "Query("]
COMMANDS = [
    "ls /",
    "grep -rn Depends /",
    "head -n 20 {page}",
    "wc -l {page}",
    "grep -c -i fastapi {page}",
    "find / -name '*.md'",
    "tree -L 1 /",
]


def parse_mix(text: str) -> dict[str, int]:
    if not text:
        return dict(DEFAULT_MIX)
    mix = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        if name not in DEFAULT_MIX:
            raise SystemExit(f"unknown operation {name!r}; known: {', '.join(DEFAULT_MIX)}")
        mix[name] = int(weight)
    return mix


def scifact(n: int, skip: int = 0) -> list[tuple[str, str]]:
    with (h.SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
        return [
            (d["_id"], f"{d.get('title', '')}\n\n{d.get('text', '')}".strip())
            for d in map(json.loads, islice(fh, skip, skip + n))
        ]


def find_server_pid(address: str) -> int | None:
    import psutil

    port = int(address.rsplit(":", 1)[1])
    with contextlib.suppress(psutil.Error, PermissionError):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN:
                return int(conn.pid) if conn.pid else None
    return None


class Workload:
    def __init__(
        self, client: Any, paths: list[str], collection_id: str, uploads: list[tuple[str, str]]
    ) -> None:
        self.client = client
        self.paths = paths
        self.collection_id = collection_id
        self.uploads = uploads
        with (h.SCIFACT / "queries-train.jsonl").open(encoding="utf-8") as fh:
            self.claims = [q["text"] for q in map(json.loads, fh)]
        self.upload_count = 0
        self.acknowledged: list[str] = []  # document ids of uploads the server acknowledged

    async def run(self, op: str, rng: random.Random) -> None:
        c = self.client
        if op == "search_pages":
            await c.search_pages(namespace=NAMESPACE, query=rng.choice(SEARCHES))
        elif op == "read_page":
            await c.read_page(namespace=NAMESPACE, path=rng.choice(self.paths))
        elif op == "list_pages":
            await c.list_pages(namespace=NAMESPACE, prefix="/", limit=50)
        elif op == "grep_pages":
            await c.grep_pages(namespace=NAMESPACE, query=rng.choice(GREPS))
        elif op == "run_command":
            command = rng.choice(COMMANDS).format(page=rng.choice(self.paths))
            result = await c.run_command(namespace=NAMESPACE, command=command)
            if result.exit_code == 2 and "not found" in result.error:
                raise RuntimeError(f"command failed: {result.error[:120]}")
        elif op == "search_knowledge":
            await c.search_knowledge(
                query=rng.choice(self.claims), collection_ids=[self.collection_id]
            )
        elif op == "upload":
            doc_id, text = self.uploads[self.upload_count % len(self.uploads)]
            self.upload_count += 1
            doc = await c.upload_document(
                collection_id=self.collection_id,
                file_name=f"soak-{self.upload_count}-{doc_id}.txt",
                data=text.encode(),
                mime_type="text/plain",
            )
            self.acknowledged.append(doc.document_id)
        else:
            raise ValueError(op)


async def soak(
    workload: Workload,
    mix: dict[str, int],
    *,
    concurrency: int,
    duration: float,
    seed: int,
) -> tuple[dict[str, list[float]], dict[str, int], dict[str, list[str]], float]:
    names = list(mix)
    weights = [mix[n] for n in names]
    latencies: dict[str, list[float]] = {n: [] for n in names}
    errors: dict[str, int] = dict.fromkeys(names, 0)
    samples: dict[str, list[str]] = {n: [] for n in names}
    started = time.perf_counter()
    end = started + duration

    async def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        while time.perf_counter() < end:
            op = rng.choices(names, weights)[0]
            t0 = time.perf_counter()
            try:
                await workload.run(op, rng)
            except Exception as exc:
                errors[op] += 1
                if len(samples[op]) < 3:
                    samples[op].append(f"{type(exc).__name__}: {str(exc)[:200]}")
                continue
            latencies[op].append(time.perf_counter() - t0)

    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    return latencies, errors, samples, time.perf_counter() - started


def memory_report(
    samples: list[tuple[float, float]], warmup: float, window: float
) -> dict[str, Any]:
    if not samples:
        return {"samples": 0}
    after = [v for t, v in samples if warmup <= t <= warmup + window] or [samples[0][1]]
    last_t = samples[-1][0]
    tail = [v for t, v in samples if t >= last_t - window] or [samples[-1][1]]
    base, end = statistics.median(after), statistics.median(tail)
    step = max(1, len(samples) // 60)
    return {
        "samples": len(samples),
        "first_mb": samples[0][1],
        "max_mb": max(v for _, v in samples),
        "after_warmup_median_mb": base,
        "end_median_mb": end,
        "growth_after_warmup_pct": round((end - base) / base * 100, 2) if base else None,
        "goal_growth_pct": 10,
        "series_t_s_mb": samples[::step],
    }


async def prepare_external(args: argparse.Namespace) -> Any:
    """Client + workload for an external server (namespace synced if needed)."""
    from quire.client import AsyncQuireClient

    client = AsyncQuireClient(args.address, api_key=args.key)
    global NAMESPACE
    NAMESPACE = args.namespace or NAMESPACE
    return client


async def setup_content(
    client: Any, base_url: str | None, docs: int
) -> tuple[list[str], str, dict[str, Any]]:
    """Syncs the site when the namespace is empty; a collection with `docs` SciFact abstracts."""
    from quire.client import exceptions as qe

    info: dict[str, Any] = {}
    paths: list[str] = []
    with contextlib.suppress(qe.QuireError):
        listing = await client.list_pages(namespace=NAMESPACE, limit=200)
        paths = [p.path for p in listing.pages]
    if not paths:
        if base_url is None:
            raise SystemExit(f"namespace {NAMESPACE!r} has no pages and no site to sync")
        report, seconds = await h.sync_site(client, NAMESPACE, f"{base_url}/llms.txt")
        info["sync"] = {"wall_s": round(seconds, 1), **h.report_fields(report)}
        listing = await client.list_pages(namespace=NAMESPACE, limit=200)
        paths = [p.path for p in listing.pages]
    collection = await client.create_collection(name=f"soak-{int(time.time())}")
    started = time.perf_counter()
    for doc_id, text in scifact(docs):
        await client.upload_document(
            collection_id=collection.collection_id,
            file_name=f"{doc_id}.txt",
            data=text.encode(),
            mime_type="text/plain",
        )
    # Wait (bounded) for the first generation so HYBRID has something to serve.
    while time.perf_counter() - started < 120:
        status = await client.get_index_status(collection_id=collection.collection_id)
        if status.serving_generation > 0 and status.building_generation == 0:
            break
        await asyncio.sleep(0.5)
    info["collection"] = {"documents": docs, "seconds": round(time.perf_counter() - started, 1)}
    return paths, collection.collection_id, info


async def count_lost(
    client: Any, collection_id: str, acknowledged: list[str], within_s: float = 300.0
) -> dict[str, Any]:
    """Every upload the server acknowledged during the soak, once the worker caught up
    (bounded wait): how many are READY, FAILED, still pending, or missing (lost: the goal is
    0), and whether the serving generation indexes every document of the collection."""
    from quire.client import exceptions as qe
    from quire.v1 import knowledge_pb2 as kn

    started = time.perf_counter()
    counts: dict[str, int] = {}
    while True:
        counts = {"ready": 0, "failed": 0, "pending": 0, "missing": 0}
        for document_id in acknowledged:
            try:
                doc = await client.get_document(document_id=document_id)
            except qe.QuireError:
                counts["missing"] += 1
                continue
            if doc.status == kn.DOCUMENT_STATUS_READY:
                counts["ready"] += 1
            elif doc.status == kn.DOCUMENT_STATUS_FAILED:
                counts["failed"] += 1
            else:
                counts["pending"] += 1
        status = await client.get_index_status(collection_id=collection_id)
        serving = [g for g in status.generations if g.generation == status.serving_generation]
        indexed = bool(serving) and serving[0].documents_indexed >= serving[0].documents_total
        if (counts["pending"] == 0 and indexed) or time.perf_counter() - started > within_s:
            break
        await asyncio.sleep(2.0)
    return {
        "uploads_acknowledged": len(acknowledged),
        **counts,
        "collection_fully_indexed": indexed,
        "seconds_to_catch_up": round(time.perf_counter() - started, 1),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    h.setup_logging(args.verbose)
    duration = args.duration or (30.0 if args.quick else 600.0)
    warmup = args.warmup if args.warmup is not None else (10.0 if args.quick else 60.0)
    mix = parse_mix(args.mix)
    report: dict[str, Any] = {
        "benchmark": "soak",
        "machine_at_start": h.machine(),
        "quick": bool(args.quick),
        "concurrency": args.concurrency,
        "duration_s": duration,
        "warmup_s": warmup,
        "mix": mix,
        "target": args.address or "in-process",
    }
    async with contextlib.AsyncExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="quire-soak-")))
        site = h.copy_site(tmp)
        h.limit_llms(site, args.pages)
        base_url = stack.enter_context(h.site_process(site))
        if args.address:
            client = await prepare_external(args)
            pid = args.server_pid or find_server_pid(args.address)
            db_url = args.database_url
            quire = None
        else:
            embeddings = h.load_model()
            db_url = await stack.enter_async_context(h.database("bench_soak"))
            quire = await stack.enter_async_context(
                h.Quire(db_url, embeddings=embeddings, worker=True, allow_sources=[base_url])
            )
            key = await quire.key()
            client = quire.client(key.token)
            await client.set_retrieval_policy(mode="HYBRID")
            pid = None
        stack.push_async_callback(client.close)
        report["server_pid"] = pid or "this process"
        paths, cid, info = await setup_content(client, base_url, args.documents)
        report["setup"] = info
        workload = Workload(client, paths, cid, scifact(200, skip=args.documents))
        if db_url:
            await asyncio.sleep(1.0)
            report["pg_connections_before"] = await h.pg_connections(db_url)
        h.note(f"soak: {duration:.0f} s at concurrency {args.concurrency} (warm-up {warmup:.0f} s)")
        during: dict[str, Any] = {}

        async def connections_at_warmup_end() -> None:
            await asyncio.sleep(warmup)
            with contextlib.suppress(Exception):
                during.update(await h.pg_connections(db_url))

        probe = asyncio.create_task(connections_at_warmup_end()) if db_url else None
        with h.RssSampler(pid, args.sample_s) as sampler:
            latencies, errors, samples, wall = await soak(
                workload, mix, concurrency=args.concurrency, duration=duration, seed=args.seed
            )
            if probe is not None:
                probe.cancel()
            await asyncio.sleep(min(5.0, args.sample_s * 2))  # let in-flight work settle
        if db_url:
            await asyncio.sleep(2.0)
            report["pg_connections_after"] = await h.pg_connections(db_url)
        report["data_loss"] = await count_lost(client, cid, workload.acknowledged)
        with contextlib.suppress(Exception):  # the soak's own collection, not the namespace
            await client.delete_collection(collection_id=cid)
        if quire is not None:
            report["peak_rss_mb"] = h.peak_rss_mb()
    total = sum(len(v) for v in latencies.values())
    report.update(
        {
            "wall_s": round(wall, 1),
            "requests": total + sum(errors.values()),
            "throughput_rps": round(total / wall, 1),
            "errors_total": sum(errors.values()),
            "rpcs": {
                op: {
                    **h.summary_ms(latencies[op]),
                    "errors": errors[op],
                    **({"error_samples": samples[op]} if samples[op] else {}),
                }
                for op in mix
            },
            "uploads_sent": workload.upload_count,
            "memory": memory_report(sampler.samples, warmup, max(10.0, min(60.0, warmup))),
        }
    )
    before, after = report.get("pg_connections_before"), report.get("pg_connections_after")
    if before and after:
        # Pools grow to their size under load and keep idle connections, so "after" is
        # compared with the count at the end of the warm-up (pools already grown): a leak shows
        # as more connections than then, or as connections still busy once the load stopped.
        report["pg_connections_end_of_warmup"] = during or None
        busy_after = after["total"] - after.get("idle", 0)
        report["pg_connections_check"] = {
            "after_minus_end_of_warmup": after["total"] - during["total"] if during else None,
            "busy_after_load": busy_after,
            "bound_in_process": (20 + 6 + 2) if args.address == "" else None,
            "leak_suspected": busy_after > 0 or (bool(during) and after["total"] > during["total"]),
        }
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", default="", help="host:port of a running server")
    parser.add_argument("--key", default="", help="API key (read + write) for --address")
    parser.add_argument("--server-pid", type=int, default=0)
    parser.add_argument("--database-url", default="", help="to count connections (external)")
    parser.add_argument("--namespace", default="", help="an already synced namespace (external)")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--duration", type=float, default=0.0, help="seconds (default 600)")
    parser.add_argument("--warmup", type=float, default=None, help="seconds (default 60)")
    parser.add_argument("--sample-s", type=float, default=2.0, help="RSS sampling interval")
    parser.add_argument("--pages", type=int, default=60, help="pages synced (0 = all 277)")
    parser.add_argument("--documents", type=int, default=100, help="SciFact docs before soak")
    parser.add_argument("--mix", default="", help="op=weight,... (see DEFAULT_MIX)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="30 s, 10 s warm-up")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    arguments = parser.parse_args()
    if arguments.address and not arguments.key:
        parser.error("--address needs --key")
    h.emit(h.run(main(arguments)), arguments.out)

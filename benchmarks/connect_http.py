"""SearchPages over gRPC and over Connect/JSON (HTTP/1.1), side by side in one run. Prints JSON.

    .venv/bin/python benchmarks/connect_http.py [--requests 200] [--concurrency 1,16]
        [--pages 60] [--quick] [--profile]

Syncs the first `--pages` pages of the FastAPI site (served from a child process) into a fresh
database, then for each concurrency runs the same list of queries (pages_search.QUERIES) both
ways, interleaved in rounds (`_harness.run_side_by_side`) so drift falls on both alike:

- grpc: `AsyncQuireClient.search_pages` on one channel against the gRPC port;
- connect: a POST of the JSON request to `/quire.v1.PagesService/SearchPages` on the Connect
  listener with httpx (HTTP/1.1, one pooled connection per concurrent caller, no response
  compression), the response JSON parsed: what a curl-like caller of the HTTP/JSON endpoint
  does.

Both reach the same servicer through the same interceptors, so the difference is the
transport: Hypercorn and connectrpc's JSON codec against grpc's C core and protobuf. The two
clients run together in a child process (`connect_http.py load ...`), as callers of a server
do: in the server's own event loop (as pages_search.py runs its client) httpx's pure-Python
HTTP work would be charged to the server, which gRPC's C core is not. Target: connect p50 ≤
1.5× grpc p50 at every concurrency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import _harness as h
import call_profile
import httpx
from pages_search import QUERIES

NAMESPACE = "fastapi"
SCRIPT = str(Path(__file__).resolve())
TARGET_RATIO = 1.5


async def measure(
    client: Any,
    http: httpx.AsyncClient,
    token: str,
    requests: int,
    concurrency: int,
    cap: float,
    only: str = "",
) -> dict[str, Any]:
    """One cell, run in the load process (`only`: "grpc" or "connect" runs that one alone)."""
    # No response compression, as curl asks by default and as gRPC runs here: gzip of a
    # 24,000-byte result costs both ends CPU that a loopback link does not pay back.
    headers = {
        "authorization": f"Bearer {token}",
        "content-type": "application/json",
        "accept-encoding": "identity",
    }

    async def over_grpc(i: int) -> int:
        result = await client.search_pages(namespace=NAMESPACE, query=QUERIES[i % len(QUERIES)])
        return len(result.hits)

    async def over_connect(i: int) -> int:
        body = {"namespace": NAMESPACE, "query": QUERIES[i % len(QUERIES)]}
        response = await http.post("/quire.v1.PagesService/SearchPages", json=body, headers=headers)
        response.raise_for_status()
        return len(response.json()["result"].get("hits", ()))

    if only:
        alone = await h.run_load(
            over_grpc if only == "grpc" else over_connect,
            requests=requests,
            concurrency=concurrency,
            warmup=5,
            deadline_s=cap,
        )
        return {only: alone.as_dict()}
    grpc_result, connect_result = await h.run_side_by_side(
        over_grpc,
        over_connect,
        requests=requests,
        concurrency=concurrency,
        warmup=5,
        deadline_s=cap,
    )
    grpc_cell, connect_cell = grpc_result.as_dict(), connect_result.as_dict()
    return {
        "grpc": grpc_cell,
        "connect_json": connect_cell,
        "ratio_p50": h.ratio(connect_cell.get("p50_ms"), grpc_cell.get("p50_ms")),
        "ratio_p95": h.ratio(connect_cell.get("p95_ms"), grpc_cell.get("p95_ms")),
        # At saturation a closed loop's mean is concurrency / throughput: the CPU per call.
        "ratio_mean": h.ratio(connect_cell.get("mean_ms"), grpc_cell.get("mean_ms")),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    h.setup_logging(args.verbose)
    requests = args.requests or (40 if args.quick else 200)
    concurrencies = [int(c) for c in args.concurrency.split(",") if c]
    report = h.report_header("connect_http", bool(args.quick), requests, concurrencies)
    async with (
        h.served_site("connect", args.pages, http=True) as (quire, base_url, kept, _),
    ):
        key = await quire.key()
        async with quire.client(key.token) as client:
            site_url = f"{base_url}/llms.txt"
            report["sync"] = await h.synced_entry(client, NAMESPACE, site_url, len(kept))
        cells = {}
        for concurrency in concurrencies:
            h.note(f"SearchPages at concurrency {concurrency}")
            cells[str(concurrency)] = await load_process(
                quire, key.token, requests, concurrency, args.max_cell_s
            )
        report["cells"] = cells
        if args.profile:
            report["profile"] = await profile_server(quire, key.token, requests, args)
    report["ratios_p50"] = {c: cell["ratio_p50"] for c, cell in report["cells"].items()}
    report["target"] = {
        "connect_over_grpc_p50": TARGET_RATIO,
        "met": all(r is not None and r <= TARGET_RATIO for r in report["ratios_p50"].values()),
    }
    return report


async def profile_server(
    quire: h.Quire, token: str, requests: int, args: argparse.Namespace
) -> dict[str, Any]:
    """The server process profiled (cProfile) while the load process sends SearchPages over
    gRPC alone, then over Connect alone, at the last concurrency: what Connect adds per call
    in the server, part by part (call_profile.py; the clients are in the child process)."""
    concurrency = int(args.concurrency.split(",")[-1])
    out: dict[str, Any] = {"concurrency": concurrency}
    for only in ("grpc", "connect"):
        h.note(f"profile: {only} alone at concurrency {concurrency}")
        with call_profile.Profiled() as profiled:
            cell = await load_process(quire, token, requests, concurrency, args.max_cell_s, only)
        out[only] = {"cell": cell[only], **profiled.breakdown(cell[only]["n"] or 1)}
    out["connect_extra_us_per_call"] = call_profile.extra_cost(out["grpc"], out["connect"])
    return out


async def load_process(
    quire: h.Quire, token: str, requests: int, concurrency: int, cap: float, only: str = ""
) -> dict[str, Any]:
    """Runs one cell in a child process against this process's server; its JSON result."""
    command = [
        sys.executable,
        SCRIPT,
        "load",
        quire.address,
        quire.http_url,
        str(requests),
        str(concurrency),
        str(cap),
        only,
    ]
    child = await asyncio.create_subprocess_exec(
        *command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    out, _ = await child.communicate(token.encode())  # the key on stdin, not in `ps`
    if child.returncode != 0:
        raise RuntimeError(f"load process failed ({child.returncode})")
    result: dict[str, Any] = json.loads(out)
    return result


async def load(
    address: str, http_url: str, requests: int, concurrency: int, cap: float, only: str
) -> None:
    """The load process: both clients, one cell, the result as JSON on stdout."""
    from quire.client import AsyncQuireClient

    token = sys.stdin.read().strip()
    limits = httpx.Limits(max_connections=concurrency)
    async with (
        AsyncQuireClient(address, api_key=token) as client,
        httpx.AsyncClient(base_url=http_url, limits=limits, timeout=60) as http,
    ):
        cell = await measure(client, http, token, requests, concurrency, cap, only)
    print(json.dumps(cell), flush=True)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = h.load_arguments(__doc__, pages=60, max_cell_s=240.0, quick="40 requests per cell")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile the server under gRPC alone and Connect alone (call_profile.py)",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "load":
        _, _, grpc_address, url, n, c, seconds, only = sys.argv
        asyncio.run(load(grpc_address, url, int(n), int(c), float(seconds), only))
    else:
        arguments = parse()
        h.emit(h.run(main(arguments)), arguments.out)

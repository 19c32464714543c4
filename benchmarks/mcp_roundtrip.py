"""MCP round trip against the same search over gRPC, in one run. Prints JSON.

    .venv/bin/python benchmarks/mcp_roundtrip.py [--requests 100] [--pages 100] [--quick]
        [--profile]

Syncs the first pages of the FastAPI site (served on 127.0.0.1 from a child process) into a
fresh database, starts Quire in this process with its streamable-HTTP MCP endpoint, and runs
the same fixed list of searches (limit 10) three ways, interleaved block by block so drift
falls on both columns of a pair alike:

- grpc: `AsyncQuireClient.search_pages` (the baseline: one channel, no JSON);
- mcp_http: `tools/call search_pages` through the MCP SDK's client over streamable HTTP to
  /mcp (bearer check, the SDK's JSON-RPC, the tool runner, the same gRPC call over loopback,
  the result's canonical JSON);
- mcp_http_with_list: the same preceded by `tools/list`, as an agent that lists before it
  calls (the issue's "list tools, call search_pages");
- mcp_stdio: `tools/call` to a `quire mcp` child process over its pipes.

With `--profile`, the gRPC and MCP-over-HTTP searches are then profiled apart (cProfile,
call_profile.py; the MCP client's own work included, as it shares the loop) and
`mcp_extra_us_per_call` gives what MCP adds per call, part by part.

Each MCP column is measured beside its own gRPC column. Goal: MCP p50 ≤ 1.5× gRPC p50 at
concurrency 1 (an agent's calls are sequential). The MCP client runs in the server's process
and event loop, so its own work is charged to the MCP columns.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import _harness as h
import call_profile
import pages_search

NAMESPACE = "fastapi"
# The searches of the pages benchmark, so the two measure the same work.
QUERIES = pages_search.QUERIES[:10]


async def mcp_clients(stack: AsyncExitStack, http_url: str, address: str, token: str) -> Any:
    """(client over HTTP, client over stdio), both initialised."""
    import httpx2
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client

    http = await stack.enter_async_context(
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    )
    over_http = await stack.enter_async_context(
        Client(streamable_http_client(http_url, http_client=http))
    )
    command = ["-m", "quire.server.cli", "mcp", "--address", address, "--namespace", NAMESPACE]
    environment = {**os.environ, "QUIRE_API_KEY": token, "PYTHONPATH": os.pathsep.join(sys.path)}
    over_stdio = await stack.enter_async_context(
        Client(StdioServerParameters(command=sys.executable, args=command, env=environment))
    )
    return over_http, over_stdio


def mcp_search(client: Any, with_list: bool = False) -> Callable[[int], Awaitable[None]]:
    async def call(i: int) -> None:
        if with_list:
            await client.list_tools()
        result = await client.call_tool("search_pages", {"query": QUERIES[i % len(QUERIES)]})
        if result.is_error:
            raise RuntimeError(result.content[0].text)

    return call


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.server.app import mcp_app
    from quire.server.mcp.http import start_mcp_listener

    h.setup_logging(args.verbose)
    requests = args.requests or (30 if args.quick else 100)
    pages = args.pages if args.pages is not None else (30 if args.quick else 100)
    report: dict[str, Any] = {
        "benchmark": "mcp_roundtrip",
        "machine_at_start": h.machine(),
        "requests_per_cell": requests,
        "concurrency": 1,
    }
    async with (
        h.served_site("mcp", pages) as (quire, base_url, kept, _),
        AsyncExitStack() as stack,
    ):
        key = await quire.key()
        client = await stack.enter_async_context(quire.client(key.token))
        h.note(f"syncing {len(kept)} pages")
        sync_report, sync_s = await h.sync_site(client, NAMESPACE, f"{base_url}/llms.txt")
        report["sync"] = {"wall_s": round(sync_s, 1), **h.report_fields(sync_report)}
        running = quire.running
        listener = await start_mcp_listener(
            mcp_app(running.state.settings, running.port, running.state), "127.0.0.1:0"
        )
        stack.push_async_callback(listener.stop)
        http_url = f"http://127.0.0.1:{listener.port}/mcp?namespace={NAMESPACE}"
        over_http, over_stdio = await mcp_clients(stack, http_url, quire.address, key.token)

        async def grpc(i: int) -> None:
            await client.search_pages(namespace=NAMESPACE, query=QUERIES[i % len(QUERIES)])

        columns = {
            "mcp_http": mcp_search(over_http),
            "mcp_http_with_list": mcp_search(over_http, with_list=True),
            "mcp_stdio": mcp_search(over_stdio),
        }
        for name, call in columns.items():
            h.note(f"{name} beside grpc, {requests} requests")
            base, mcp = await h.run_side_by_side(
                grpc, call, requests=requests, concurrency=1, warmup=5
            )
            report[name] = {
                "grpc": base.as_dict(),
                "mcp": mcp.as_dict(),
                "p50_ratio": h.ratio(
                    h.percentile(mcp.latencies, 50), h.percentile(base.latencies, 50)
                ),
            }
        if args.profile:
            h.note("profiles: grpc, then mcp_http")
            base = await call_profile.profile_calls(grpc, requests)
            over_mcp = await call_profile.profile_calls(mcp_search(over_http), requests)
            report["profile_c1"] = {
                "grpc": base,
                "mcp_http": over_mcp,
                "mcp_extra_us_per_call": call_profile.extra_cost(base, over_mcp),
            }
    ratios = {name: report[name]["p50_ratio"] for name in columns}
    report["p50_ratios"] = ratios
    report["goal"] = "MCP p50 ≤ 1.5× gRPC p50"
    report["met"] = all(r is not None and r <= 1.5 for r in ratios.values())
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=0, help="per column (default 100)")
    parser.add_argument("--pages", type=int, default=None, help="first N pages (default 100)")
    parser.add_argument("--quick", action="store_true", help="30 pages, 30 requests")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile grpc and mcp_http calls: MCP's extra cost per part (call_profile.py)",
    )
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), arguments.out)

"""Where the service path's time goes, per RPC kind: the `--profile` mode of call_cost.py.

Two measurements, both in the benchmark's process and run:

- `servicer_floor`: a bare grpc.aio PagesService (no interceptor, no auth, no database) whose
  DescribeTools and ReadPage return empty messages, called with the same `AsyncQuireClient`
  and with a bare generated stub. What that costs is the grpc.aio and client floor of one
  call on this machine, which no change to Quire's Python can go under.
- `profile`: cProfile around `--requests` calls of each RPC kind at concurrency 1 (client
  and server share the event loop, so one profile sees both), its own time (tottime) summed
  into the parts of the path by module: key verification, rpc.py's wrapper and limiter,
  telemetry, replica routing, validation, protobuf, the JSON encoding (output budgets, tool
  results, Connect bodies), logging, the servicers, asyncpg, grpc, the client, socket system
  calls (on loopback the kernel delivers to the peer inside `send`), the event loop. The
  event loop's wait in epoll is idle time (the database or the peer working), reported apart.
  cProfile slows Python calls down, so the shares overstate many small Python functions; use
  `calls` for how long a call takes.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import _harness as h

# (part, substrings of a profiled function's file name or built-in name), first match wins.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("benchmark_harness", ("/benchmarks/",)),
    ("idle_wait_epoll", ("method 'poll' of 'select.epoll'", "method 'select' of")),
    ("key_verification", ("quire/server/auth.py", "openssl_sha256", "compare_digest")),
    ("rpc_wrapper_limiter", ("quire/server/rpc.py",)),
    ("telemetry", ("opentelemetry/", "quire/server/telemetry.py")),
    ("replica_routing", ("quire/server/read_routing.py", "quire/server/storage/replicas.py")),
    ("validation", ("quire/server/validation.py", "quire/server/contract/")),
    ("socket_syscalls", ("of '_socket.socket'",)),
    (
        "json_encoding",
        ("quire/server/canonical_json.py", "proto_json.py", "json_format.py", "/json/"),
    ),
    ("logging", ("/logging/",)),
    ("servicer", ("quire/server/services/", "quire/server/pages/", "quire/server/knowledge/")),
    ("database_transaction", ("quire/server/storage/",)),
    ("mcp", ("quire/server/mcp/", "/mcp/", "pydantic", "anyio", "starlette", "httpx", "httpcore")),
    ("connect_http", ("quire/server/http/", "connectrpc", "hypercorn", "h11", "h2/")),
    ("quire_client", ("quire/client/",)),
    ("asyncpg", ("asyncpg",)),
    ("protobuf", ("google/protobuf", "Serialize", "FromString", "ParseFromString", "upb")),
    ("grpc", ("grpc",)),
    ("asyncio_event_loop", ("asyncio/", "selectors.py", "contextvars", "_contextvars")),
)


def part_of(file_name: str, function: str) -> str:
    where = f"{file_name}:{function}"
    for part, needles in PARTS:
        if any(needle in where for needle in needles):
            return part
    return "other"


def breakdown(profile: cProfile.Profile, calls: int, top: int = 12) -> dict[str, Any]:
    """Own time per part (µs per call, share of the non-idle time) and the costliest
    functions."""
    stats = pstats.Stats(profile)
    by_part: dict[str, float] = defaultdict(float)
    functions: list[tuple[float, str]] = []
    for (file_name, line, function), row in stats.stats.items():  # type: ignore[attr-defined]
        own = row[2]
        part = part_of(file_name, function)
        by_part[part] += own
        functions.append((own, f"{part}: {file_name.rsplit('/', 2)[-1]}:{line}({function})"))
    busy = sum(v for k, v in by_part.items() if k not in ("idle_wait_epoll", "benchmark_harness"))
    parts = {
        k: {"us_per_call": round(v / calls * 1e6, 1), "share_of_busy": round(v / busy, 3)}
        for k, v in sorted(by_part.items(), key=lambda kv: -kv[1])
    }
    functions.sort(reverse=True)
    return {
        "calls": calls,
        "busy_us_per_call": round(busy / calls * 1e6, 1),
        "parts": parts,
        "top_functions": [
            {"us_per_call": round(own / calls * 1e6, 1), "function": name}
            for own, name in functions[:top]
        ],
    }


async def profile_calls(call: Callable[[int], Awaitable[Any]], requests: int) -> dict[str, Any]:
    for i in range(20):
        await call(i)
    with Profiled() as profiled:
        result = await h.run_load(call, requests=requests, concurrency=1)
    out = profiled.breakdown(requests)
    out["p50_ms_under_profiler"] = result.as_dict().get("p50_ms")
    return out


async def servicer_floor(token: str, requests: int) -> dict[str, Any]:
    """DescribeTools and ReadPage answered with empty messages by a bare grpc.aio servicer,
    through the Quire client and through a bare stub (p50/p95 at c1, throughput at c16)."""
    from grpc import aio

    from quire.client import AsyncQuireClient
    from quire.v1 import pages_service_pb2, pages_service_pb2_grpc

    class Bare(pages_service_pb2_grpc.PagesServiceServicer):
        async def DescribeTools(self, request: Any, context: Any) -> Any:
            return pages_service_pb2.DescribeToolsResponse()

        async def ReadPage(self, request: Any, context: Any) -> Any:
            return pages_service_pb2.ReadPageResponse()

    server = aio.server()
    pages_service_pb2_grpc.add_PagesServiceServicer_to_server(Bare(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    address = f"127.0.0.1:{port}"
    out: dict[str, Any] = {}
    try:
        async with (
            AsyncQuireClient(address, api_key=token) as client,
            aio.insecure_channel(address) as channel,
        ):
            stub = pages_service_pb2_grpc.PagesServiceStub(channel)
            read = pages_service_pb2.ReadPageRequest(namespace="n", path="/p")
            metadata = (("authorization", f"Bearer {token}"),)
            ops: dict[str, Callable[[int], Awaitable[Any]]] = {
                "describe_tools_client": lambda i: client.describe_tools(),
                "read_page_client": lambda i: client.read_page(namespace="n", path="/p"),
                "read_page_bare_stub": lambda i: stub.ReadPage(read, metadata=metadata),
            }
            for name, call in ops.items():
                c1 = await h.run_load(call, requests=requests, concurrency=1, warmup=20)
                c16 = await h.run_load(call, requests=requests * 2, concurrency=16)
                started = time.process_time()
                await h.run_load(call, requests=requests, concurrency=1)
                cpu_ms = round((time.process_time() - started) / requests * 1000, 3)
                out[name] = {"c1": c1.as_dict(), "c16": c16.as_dict(), "cpu_ms_per_call_c1": cpu_ms}
    finally:
        await server.stop(None)
    return out


def extra_cost(base: dict[str, Any], other: dict[str, Any]) -> dict[str, float]:
    """What `other` spends per call beyond `base`, part by part (µs, from two breakdowns),
    largest first."""
    names = set(base["parts"]) | set(other["parts"])

    def us(breakdown: dict[str, Any], name: str) -> float:
        return float(breakdown["parts"].get(name, {}).get("us_per_call", 0.0))

    diff = {name: round(us(other, name) - us(base, name), 1) for name in names}
    diff["busy_total"] = round(other["busy_us_per_call"] - base["busy_us_per_call"], 1)
    return dict(sorted(diff.items(), key=lambda kv: -abs(kv[1])))


class Profiled:
    """`with Profiled() as p:` around work of `calls` calls; `p.breakdown(calls)` after."""

    def __enter__(self) -> Profiled:
        self.profile = cProfile.Profile()
        self.profile.enable()
        return self

    def __exit__(self, *exc: object) -> None:
        self.profile.disable()

    def breakdown(self, calls: int) -> dict[str, Any]:
        return breakdown(self.profile, calls)

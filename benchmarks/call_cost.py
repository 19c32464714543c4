"""The service's own cost per call (issue 33): where the time of one RPC goes. Prints JSON.

    .venv/bin/python benchmarks/call_cost.py [--requests 300] [--pages 30] [--quick]
        [--concurrency 1,16] [--no-sections] [--profile] [--out FILE]

Syncs the first `--pages` pages of the FastAPI site into a fresh database and starts Quire in
this process (as pages_search.py does; the client runs in the same event loop). Then, in one
run:

1. `floor`: a bare grpc.aio unary call (bytes echoed, no interceptor, raw channel) in this
   process: the Python gRPC round trip no service can go under here;
2. `calls`: DescribeTools, ReadPage, SearchPages and GrepPages through `AsyncQuireClient`, each
   beside the same work done directly on asyncpg (pages_search.Direct), interleaved, at every
   `--concurrency`: p50/p95, throughput, service/direct ratios;
3. `sections` (c1, unless `--no-sections`): the same calls again with timers (perf_counter)
   wrapped around the pieces of the service path, in microseconds per call (mean and p50):
   the client's call, the server's request decoding and response encoding, OpenTelemetry's
   interceptor, rpc.py's wrapper and its preamble (`_Call.enter`: key check, scope, limiter,
   deadline), the key check alone, replica routing, the servicer method, its validation, its
   database transaction, and `fit_text` (the JSON budget of a ReadPage). Section times are
   inclusive; `derived` subtracts the nested ones: what each layer costs by itself, and
   `transport_and_client` (what the client observed minus what the server's Python spent).

4. `servicer_floor` and `profile_c1` (with `--profile`; call_profile.py): a bare grpc.aio
   PagesService answering with empty messages, through the same client and a bare stub (the
   floor no Python change in Quire can beat), and a cProfile of each RPC kind at c1 with its
   own time summed into the parts of the path (key verification, wrapper and limiter,
   telemetry, replica routing, validation, protobuf, JSON budget, logging, servicer, asyncpg,
   grpc, client, event loop).

5. `cpu_c1`: CPU milliseconds of this process per call at concurrency 1 (client, server and
   grpc's threads; PostgreSQL's CPU is not in it), service and direct, alternated in four
   blocks (median): on a shared machine wall-clock latency mostly measures the wait for a
   core, CPU time much less so. The servicer floor has it too.

The timers add a little to every call, so the section run is slower than `calls`; use it for
where the time goes, and `calls` for how long a call takes.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

import _harness as h
import call_profile
import pages_search

NAMESPACE = pages_search.NAMESPACE


class Sections:
    """Per-section durations (seconds) of the calls made while `on`."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)
        self.on = False
        self._undo: list[Callable[[], None]] = []

    def add(self, name: str, seconds: float) -> None:
        if self.on:
            self.times[name].append(seconds)

    def patch(self, owner: Any, attr: str, replacement: Any) -> None:
        original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
        setattr(owner, attr, replacement)
        self._undo.append(lambda: setattr(owner, attr, original))

    def coroutine(self, owner: Any, attr: str, name: str) -> None:
        """Times `owner.attr`, an async function."""
        inner = getattr(owner, attr)

        @functools.wraps(inner)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return await inner(*args, **kwargs)
            finally:
                self.add(name, time.perf_counter() - t0)

        self.patch(owner, attr, timed)

    def function(self, owner: Any, attr: str, name: str) -> None:
        """Times `owner.attr`, a plain function."""
        inner = getattr(owner, attr)

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.add(name, time.perf_counter() - t0)

        self.patch(owner, attr, timed)

    def context(self, owner: Any, attr: str, name: str) -> None:
        """Times `owner.attr`, a function returning an async context manager, enter to exit."""
        inner = getattr(owner, attr)

        @contextlib.asynccontextmanager
        async def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                async with inner(*args, **kwargs) as value:
                    yield value
            finally:
                self.add(name, time.perf_counter() - t0)

        self.patch(owner, attr, timed)

    def handler(self, handler: Any, name: str) -> Any:
        """A unary gRPC method handler whose behaviour and (de)serializers are timed."""
        import grpc

        behaviour = handler.unary_unary
        if behaviour is None:
            return handler

        async def timed(request: Any, context: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return await behaviour(request, context)
            finally:
                self.add(name, time.perf_counter() - t0)

        def timed_codec(codec: Any, label: str) -> Any:
            def run(value: Any) -> Any:
                t0 = time.perf_counter()
                try:
                    return codec(value)
                finally:
                    self.add(label, time.perf_counter() - t0)

            return run

        return grpc.unary_unary_rpc_method_handler(
            timed,
            timed_codec(handler.request_deserializer, "server_decode_request"),
            timed_codec(handler.response_serializer, "server_encode_response"),
        )

    def undo(self) -> None:
        while self._undo:
            self._undo.pop()()

    def report(self, calls: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, values in sorted(self.times.items()):
            out[name] = {
                "per_call": round(len(values) / calls, 2),
                "mean_us": round(statistics.fmean(values) * 1e6, 1),
                "p50_us": round(statistics.median(values) * 1e6, 1),
            }
        return out


def instrument(sections: Sections) -> None:
    """Wraps the pieces of the service path; before the server starts (the interceptors and
    servicers are bound then)."""
    from grpc import aio

    from quire.client import aio as client_aio
    from quire.server import auth, rpc, telemetry
    from quire.server.pages import reading
    from quire.server.services import pages

    class Outermost(aio.ServerInterceptor):  # type: ignore[type-arg]
        """Times the whole server-side handler and the interceptors' handler lookup."""

        def __init__(self, first: Any) -> None:
            self.first = first

        async def intercept_service(self, continuation: Any, details: Any) -> Any:
            t0 = time.perf_counter()
            if self.first is None:
                handler = await continuation(details)
            else:
                handler = await self.first.intercept_service(continuation, details)
            sections.add("server_interceptor_lookup", time.perf_counter() - t0)
            if handler is None or not details.method.startswith("/quire."):
                return handler
            return sections.handler(handler, "server_total")

    made = telemetry.rpc_interceptor

    def rpc_interceptor() -> Any:
        return Outermost(made())

    sections.patch(telemetry, "rpc_interceptor", rpc_interceptor)
    wrap = rpc._wrap

    def timed_wrap(handler: Any, call: Any) -> Any:
        return sections.handler(wrap(handler, call), "quire_wrapper")

    sections.patch(rpc, "_wrap", timed_wrap)
    sections.coroutine(rpc._Call, "enter", "quire_enter")
    sections.coroutine(auth.KeyVerifier, "verify", "key_check")
    sections.context(rpc.OrgLimiter, "turn", "limiter_turn")
    with contextlib.suppress(AttributeError):  # an SDK instrument may refuse new attributes
        sections.function(telemetry.rpc_duration, "record", "telemetry_record")
    sections.coroutine(rpc, "routed", "replica_routing")
    for method in ("DescribeTools", "ReadPage", "SearchPages", "GrepPages"):
        sections.coroutine(pages.PagesService, method, "servicer")
    for check in ("name_field", "_path_field", "within", "clean_text"):
        sections.function(pages, check, "validation")
    sections.context(pages, "transaction", "database_transaction")
    sections.function(reading, "fit_text", "fit_text")
    sections.coroutine(client_aio.AsyncQuireClient, "_unary", "client_call")


def derived(s: dict[str, Any]) -> dict[str, Any]:
    """Each layer by itself (p50 of inclusive sections, subtracted; µs per call)."""

    def p50(name: str) -> float:
        entry = s.get(name)
        return float(entry["p50_us"]) * float(entry["per_call"]) if entry else 0.0

    server = p50("server_total") + p50("server_decode_request") + p50("server_encode_response")
    below_wrapper = p50("replica_routing") or p50("servicer")
    out = {
        "client_call": p50("client_call"),
        "transport_and_client": p50("client_call") - server - p50("server_interceptor_lookup"),
        "server_python": server + p50("server_interceptor_lookup"),
        "interceptor_lookup": p50("server_interceptor_lookup"),
        "codec": p50("server_decode_request") + p50("server_encode_response"),
        "opentelemetry_interceptor": p50("server_total") - p50("quire_wrapper"),
        # Without replicas rpc.py calls the servicer directly, not through routing.
        "quire_wrapper_own": p50("quire_wrapper")
        - p50("quire_enter")
        - (p50("limiter_turn") or below_wrapper)
        - p50("telemetry_record"),
        "limiter_turn_own": max(p50("limiter_turn") - below_wrapper, 0.0),
        "telemetry_record": p50("telemetry_record"),
        "quire_enter_own": p50("quire_enter") - p50("key_check"),
        "key_check": p50("key_check"),
        "replica_routing_own": below_wrapper - p50("servicer"),
        "servicer_own": p50("servicer") - p50("validation") - p50("database_transaction"),
        "validation": p50("validation"),
        "database_transaction": p50("database_transaction"),
        "fit_text": p50("fit_text"),
    }
    return {k: round(v, 1) for k, v in out.items()}


async def grpc_floor(requests: int) -> dict[str, Any]:
    """A bare grpc.aio echo in this process (c1 and c16)."""
    import grpc
    from grpc import aio

    def same(value: bytes) -> bytes:
        return value

    async def echo(request: bytes, context: Any) -> bytes:
        return request

    server = aio.server()
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "floor.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo, same, same)}
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary("/floor.Echo/Echo", same, same)
            payload = b"x" * 256
            c1 = await h.run_load(
                lambda i: call(payload), requests=requests, concurrency=1, warmup=20
            )
            c16 = await h.run_load(lambda i: call(payload), requests=requests * 4, concurrency=16)
    finally:
        await server.stop(None)
    return {"c1": c1.as_dict(), "c16": c16.as_dict()}


def operations(
    client: Any, stub: Any, token: str, direct: pages_search.Direct, paths: list[str]
) -> dict[str, Any]:
    """Per RPC kind: (service call, direct call or None). `read_page_bare_stub` is ReadPage
    through a generated stub on a channel without the client's interceptors (deadline,
    retries, consistency tokens): what the Python client adds is the difference."""
    from quire.v1 import pages_service_pb2

    metadata = (("authorization", f"Bearer {token}"),)

    def bare_read(i: int) -> Any:
        request = pages_service_pb2.ReadPageRequest(
            namespace=NAMESPACE, path=paths[(i * 7) % len(paths)]
        )
        return stub.ReadPage(request, metadata=metadata, timeout=30)

    pages = pages_search.operations(client, direct, paths)
    return {
        "describe_tools": (lambda i: client.describe_tools(), None),
        "read_page": pages["read_page"],
        "read_page_bare_stub": (bare_read, pages["read_page"][1]),
        "search": pages["search"],
        "grep": pages["grep"],
    }


async def measure_calls(
    ops: dict[str, Any], requests: int, concurrencies: list[int]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (service_call, direct_call) in ops.items():
        out[name] = {}
        for concurrency in concurrencies:
            h.note(f"{name} at concurrency {concurrency}")
            n = requests if concurrency == 1 else requests * 2
            if direct_call is None:
                alone = await h.run_load(
                    service_call, requests=n, concurrency=concurrency, warmup=10
                )
                out[name][str(concurrency)] = {"service": alone.as_dict()}
                continue
            service, direct = await h.run_side_by_side(
                service_call, direct_call, requests=n, concurrency=concurrency, warmup=10
            )
            out[name][str(concurrency)] = h.compared(
                service.as_dict(), direct.as_dict(), "p50_ms", "throughput_rps"
            )
    return out


async def cpu_per_call(call: Any, requests: int) -> float:
    """CPU milliseconds this process (client, server, grpc's threads) spends per call at
    concurrency 1: on a machine shared with other work, wall-clock latency mostly measures
    the wait for a core, CPU time much less so. PostgreSQL's own CPU is not in it."""
    for i in range(10):
        await call(i)
    started = time.process_time()
    await h.run_load(call, requests=requests, concurrency=1)
    return round((time.process_time() - started) / requests * 1000, 3)


async def measure_cpu(ops: dict[str, Any], requests: int) -> dict[str, Any]:
    """Per RPC kind: CPU ms per call of the service call and of the direct one, alternated
    in four blocks each, and what the service path adds."""
    out: dict[str, Any] = {}
    for name, (service_call, direct_call) in ops.items():
        h.note(f"CPU per call of {name}")
        block = max(requests // 4, 10)
        service: list[float] = []
        direct: list[float] = []
        for _ in range(4):
            service.append(await cpu_per_call(service_call, block))
            if direct_call is not None:
                direct.append(await cpu_per_call(direct_call, block))
        cell: dict[str, Any] = {"service_cpu_ms": round(statistics.median(service), 3)}
        if direct:
            cell["direct_cpu_ms"] = round(statistics.median(direct), 3)
            cell["service_minus_direct_cpu_ms"] = round(
                cell["service_cpu_ms"] - cell["direct_cpu_ms"], 3
            )
        out[name] = cell
    return out


async def measure_sections(
    sections: Sections, ops: dict[str, Any], requests: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (service_call, _) in ops.items():
        h.note(f"sections of {name}")
        for i in range(10):
            await service_call(i)
        sections.times.clear()
        sections.on = True
        result = await h.run_load(service_call, requests=requests, concurrency=1)
        sections.on = False
        timed = sections.report(requests)
        out[name] = {
            "p50_ms_with_timers": result.as_dict().get("p50_ms"),
            "sections": timed,
            "derived_us": derived(timed),
        }
    return out


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from grpc import aio

    from quire.v1 import pages_service_pb2_grpc

    h.setup_logging(args.verbose)
    requests = args.requests or (60 if args.quick else 300)
    concurrencies = [int(c) for c in args.concurrency.split(",") if c]
    report = h.report_header("call_cost", bool(args.quick), requests, concurrencies)
    sections = Sections()
    if args.sections:
        instrument(sections)
    try:
        report["floor"] = await grpc_floor(requests)
        async with h.served_site("callcost", args.pages) as (quire, base_url, kept, embeddings):
            key = await quire.key()
            async with quire.client(key.token) as client, AsyncExitStack() as stack:
                site_url = f"{base_url}/llms.txt"
                report["sync"] = await h.synced_entry(client, NAMESPACE, site_url, len(kept))
                paths = await h.page_paths(quire, key.org_id)
                direct = pages_search.Direct(quire, key.org_id, embeddings)
                bare = await stack.enter_async_context(aio.insecure_channel(quire.address))
                stub = pages_service_pb2_grpc.PagesServiceStub(bare)
                ops = operations(client, stub, key.token, direct, paths)
                report["calls"] = await measure_calls(ops, requests, concurrencies)
                report["cpu_c1"] = await measure_cpu(ops, requests)
                if args.sections:
                    report["sections_c1"] = await measure_sections(sections, ops, requests)
                if args.profile:
                    report["servicer_floor"] = await call_profile.servicer_floor(
                        key.token, requests
                    )
                    report["profile_c1"] = {
                        name: await call_profile.profile_calls(service_call, requests)
                        for name, (service_call, _) in ops.items()
                    }
    finally:
        sections.undo()
    report["summary"] = summary(report)
    return report


def summary(report: dict[str, Any]) -> dict[str, Any]:
    calls = report["calls"]
    first = str(report["concurrency"][0])
    last = str(report["concurrency"][-1])
    out: dict[str, Any] = {
        "grpc_floor_p50_ms_c1": report["floor"]["c1"].get("p50_ms"),
        "p50_ms_c1": {name: cells[first]["service"].get("p50_ms") for name, cells in calls.items()},
        "direct_p50_ms_c1": {
            name: cells[first]["direct"].get("p50_ms")
            for name, cells in calls.items()
            if "direct" in cells[first]
        },
        "ratio_p50_c1": {
            name: cells[first].get("ratio_p50")
            for name, cells in calls.items()
            if "direct" in cells[first]
        },
        f"ratio_throughput_c{last}": {
            name: cells[last].get("ratio_throughput")
            for name, cells in calls.items()
            if "direct" in cells[last]
        },
    }
    if "cpu_c1" in report:
        out["cpu_ms_per_call_c1"] = report["cpu_c1"]
    if "servicer_floor" in report:
        out["servicer_floor_p50_ms_c1"] = {
            name: cells["c1"].get("p50_ms") for name, cells in report["servicer_floor"].items()
        }
        out["servicer_floor_cpu_ms_per_call_c1"] = {
            name: cells.get("cpu_ms_per_call_c1")
            for name, cells in report["servicer_floor"].items()
        }
    if "profile_c1" in report:
        out["profile_busy_us_per_call"] = {
            name: p["busy_us_per_call"] for name, p in report["profile_c1"].items()
        }
    return out


if __name__ == "__main__":
    parser = h.load_arguments(__doc__, pages=30, max_cell_s=120.0, quick="60 requests per cell")
    parser.add_argument("--no-sections", dest="sections", action="store_false")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also the bare-servicer floor and a cProfile breakdown per RPC kind",
    )
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), arguments.out)

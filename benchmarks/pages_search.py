"""Published-pages read path: SearchPages, SearchPages with 2 alternatives, ReadPage and GrepPages
over gRPC, each beside the same work done directly on asyncpg, in one run. Prints JSON.

    .venv/bin/python benchmarks/pages_search.py [--requests 200] [--concurrency 1,16] [--quick]

Syncs the FastAPI site (served on 127.0.0.1 from a child process) into a fresh database, then
for every operation and concurrency runs the same fixed list of realistic requests twice:

- service: through the Python client (`AsyncQuireClient`, one channel) against Quire started in
  this process: key check, interceptor, validation, settings lookup, protobuf, gRPC;
- direct: the same work without the service: the query embedding on the same EmbeddingService
  overlapped, as in the service, with the same SQL (`search.VERSION`, `LEXICAL` then `VECTOR`
  per phrasing, the same fusion, `DETAILS`) in one read-only REPEATABLE READ transaction with
  the same settings (plan_cache_mode, hnsw.ef_search, hnsw.iterative_scan, statement_timeout),
  each phrasing's language, and `search.rank_phrasings` (the query's vector arm and the
  alternatives on connections importing the exported snapshot); the same `reading.READ`
  statement; the same `grep_pages` function over
  `PgPageStore` with a warm BodyCache.

Also reports DescribeTools at concurrency 1 (key check + interceptor + gRPC, no database,
no model): the fixed per-call cost of the service path. Reports p50/p95/p99 and throughput
per cell and service/direct ratios (goal: service p50 ≤ 1.5× direct). Design targets (§9):
search p50 ≤ 10 ms / p95 ≤ 20 ms, 2 alternatives p50 ≤ 20 ms, read_page p50 ≤ 1.5 ms,
grep p50 ≤ 4 ms. The client runs in the server's process and event loop, so at concurrency
> 1 its own gRPC work is charged to the service column.

Also a ranking check: 30 hand-labelled questions, each with the page a reader wants
(LABELLED), scored as page-level MRR@10 and hit@1/@3 through SearchPages. It is small and
labelled by us, so it guards against regressions rather than proving quality.
"""

from __future__ import annotations

import argparse
from typing import Any

import _harness as h

NAMESPACE = "fastapi"
QUERIES = [
    "declare query parameters with defaults",
    "how to use dependency injection with yield",
    "return a custom response with headers",
    "OAuth2 password flow with JWT tokens",
    "upload files with UploadFile",
    "background tasks after returning a response",
    "CORS middleware configuration",
    "testing an app with TestClient",
    "deploy with Docker and uvicorn workers",
    "request body validation with Pydantic models",
    "path parameters with types",
    "handle errors with HTTPException",
    "websockets endpoint example",
    "settings and environment variables",
    "SQL databases with SQLModel",
    "response model exclude unset fields",
    "async def vs def performance",
    "static files mount",
    "OpenAPI schema customization",
    "クエリパラメータ",
]
ALTERNATIVES = [
    ("optional query parameter default value", "Query() default None"),
    ("dependencies with yield cleanup", "Depends generator teardown"),
    ("set response headers", "Response object header"),
    ("JWT bearer token auth", "OAuth2PasswordBearer security"),
    ("multipart file upload", "File and Form data"),
]
GREPS = [
    ("Depends(", False),
    ("async def", False),
    ("HTTPException", False),
    ("response_model", False),
    ("oauth2passwordbearer", True),
    ("BackgroundTasks", False),
    ("status_code=", False),
    ("uvicorn", True),
    ("Query(", False),
    ("pydantic", True),
]
LABELLED = {
    "declare query parameters with defaults": "/tutorial/query-params.md",
    "how to use dependency injection with yield": (
        "/tutorial/dependencies/dependencies-with-yield.md"
    ),
    "return a custom response with headers": "/advanced/response-headers.md",
    "OAuth2 password flow with JWT tokens": "/tutorial/security/oauth2-jwt.md",
    "upload files with UploadFile": "/tutorial/request-files.md",
    "background tasks after returning a response": "/tutorial/background-tasks.md",
    "CORS middleware configuration": "/tutorial/cors.md",
    "testing an app with TestClient": "/tutorial/testing.md",
    "deploy with Docker and uvicorn workers": "/deployment/docker.md",
    "request body validation with Pydantic models": "/tutorial/body.md",
    "path parameters with types": "/tutorial/path-params.md",
    "handle errors with HTTPException": "/tutorial/handling-errors.md",
    "websockets endpoint example": "/advanced/websockets.md",
    "settings and environment variables": "/advanced/settings.md",
    "SQL databases with SQLModel": "/tutorial/sql-databases.md",
    "response model exclude unset fields": "/tutorial/response-model.md",
    "async def vs def performance": "/async.md",
    "static files mount": "/tutorial/static-files.md",
    "OpenAPI schema customization": "/how-to/extending-openapi.md",
    "クエリパラメータ": "/ja/tutorial/query-params.md",
    "how do I add a custom header to every response": "/tutorial/middleware.md",
    "stream a large file download": "/advanced/custom-response.md",
    "run code on startup and shutdown": "/advanced/events.md",
    "group routes across multiple files": "/tutorial/bigger-applications.md",
    "return a 201 status code": "/tutorial/response-status-code.md",
    "read cookies from the request": "/tutorial/cookie-params.md",
    "send form data instead of JSON": "/tutorial/request-forms.md",
    "GraphQL with Strawberry": "/how-to/graphql.md",
    "run behind a reverse proxy with a path prefix": "/advanced/behind-a-proxy.md",
    "use HTTPS certificates": "/deployment/https.md",
}
TARGETS_P50_MS = {"search": 10.0, "search_2_alternatives": 20.0, "read_page": 1.5, "grep": 4.0}
TARGETS_P95_MS = {"search": 20.0}


class Direct:
    """The service's work without the service (see the module docstring)."""

    def __init__(self, quire: h.Quire, org_id: Any, embeddings: Any) -> None:
        from quire.server.pages import search
        from quire.server.pages.body_cache import BodyCache
        from quire.server.retrieval import search_config

        self.pool = quire.pool
        self.org_id = org_id
        self.embeddings = embeddings
        self.tuning = search.PageTuning()
        self.settings = {
            **search_config.to_settings(search_config.DEPLOYMENT_DEFAULT),
            **search._arm_settings(self.tuning.depth),
            "statement_timeout": "30000",
        }
        self.bodies = BodyCache()

    async def search(self, query: str, alternatives: tuple[str, ...] = ()) -> int:
        from quire.server.pages import search
        from quire.server.storage.database import apply_settings

        # Embedded while the transaction starts and the full-text arms run, as the service does
        # (unless embeddings are queued ahead).
        vectors = await self.embeddings.start_queries([query, *alternatives])
        org, ns, tuning = self.org_id, NAMESPACE, self.tuning
        async with (
            self.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            await apply_settings(conn, self.settings)
            row = await conn.fetchrow(search.VERSION, org, ns)
            languages = [
                search.QueryLanguage.of(text, present=row["languages"], default=row["language"])
                for text in (query, *alternatives)
            ]
            searched = search.SearchedNamespace(
                org, ns, row["chunks"] <= tuning.exact_vector_max_chunks
            )
            ranked = await search.rank_phrasings(
                self.pool,
                conn,
                self.settings,
                searched,
                list(zip((query, *alternatives), languages, strict=True)),
                vectors,
                tuning,
            )
            chosen = search._cap_per_page(search.fuse_phrasings(ranked.phrasings, tuning), 10)
            rows = await conn.fetch(
                search.DETAILS, org, ns, [k[0] for k, _ in chosen], [k[1] for k, _ in chosen]
            )
        return len(rows)

    async def read(self, path: str) -> int:
        from quire.server.pages import reading
        from quire.server.storage.database import SET_CONFIG

        async with self.pool.acquire() as conn, conn.transaction(readonly=True):
            await conn.execute(SET_CONFIG, "statement_timeout", "30000")
            row = await conn.fetchrow(reading.READ, self.org_id, NAMESPACE, path, 0, 12_000)
        return len(row["slice"])

    async def grep(self, query: str, ignore_case: bool) -> int:
        from quire.server.pages import reading
        from quire.server.pages.grep import grep_pages
        from quire.server.pages.pg_store import PgPageStore
        from quire.server.storage.database import SET_CONFIG

        async with (
            self.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            await conn.execute(SET_CONFIG, "statement_timeout", "30000")
            await conn.fetchval(reading.NAMESPACE_VERSION, self.org_id, NAMESPACE)
            store = PgPageStore(conn, self.org_id, NAMESPACE)
            outcome = await grep_pages(
                store, self.bodies, query, prefix="/", ignore_case=ignore_case, deadline_s=4.0
            )
            await conn.fetchval(reading.NAMESPACE_VERSION, self.org_id, NAMESPACE)
        return len(outcome.matches)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    h.setup_logging(args.verbose)
    requests = args.requests or (40 if args.quick else 200)
    pages = args.pages or (100 if args.quick else 0)
    concurrencies = [int(c) for c in args.concurrency.split(",") if c]
    report = h.report_header("pages_search", bool(args.quick), requests, concurrencies)
    async with h.served_site("search", pages) as (quire, base_url, kept, embeddings):
        key = await quire.key()
        async with quire.client(key.token) as client:
            site_url = f"{base_url}/llms.txt"
            report["sync"] = await h.synced_entry(client, NAMESPACE, site_url, len(kept))
            paths = await h.page_paths(quire, key.org_id)
            report["ranking"] = await ranking(client)
            direct = Direct(quire, key.org_id, embeddings)
            h.note("gRPC floor: DescribeTools (no database, no model)")
            floor = await h.run_load(
                lambda i: client.describe_tools(),
                requests=requests,
                concurrency=1,
                warmup=10,
            )
            report["grpc_floor_describe_tools_c1"] = floor.as_dict()
            report["cells"] = await measure(
                client, direct, paths, requests, concurrencies, args.max_cell_s
            )
            report["peak_rss_mb"] = h.peak_rss_mb()
    report["ratios_p50"] = {
        name: {str(c): cells[str(c)]["ratio_p50"] for c in concurrencies}
        for name, cells in report["cells"].items()
    }
    single = {name: cells[str(concurrencies[0])] for name, cells in report["cells"].items()}
    report["targets"] = {
        name: {
            "goal_p50_ms": goal,
            "service_p50_ms": single[name]["service"].get("p50_ms"),
            "goal_p95_ms": TARGETS_P95_MS.get(name),
            "service_p95_ms": single[name]["service"].get("p95_ms"),
            "at_concurrency": concurrencies[0],
        }
        for name, goal in TARGETS_P50_MS.items()
    }
    report["targets"]["service_over_direct_p50"] = {"goal": 1.5}
    return report


async def ranking(client: Any) -> dict[str, Any]:
    """Page-level MRR@10 and hit@1/@3 of SearchPages on the LABELLED questions."""
    ranks = []
    for query, wanted in LABELLED.items():
        result = await client.search_pages(namespace=NAMESPACE, query=query, limit=10)
        pages = list(dict.fromkeys(hit.path for hit in result.hits))
        ranks.append(pages.index(wanted) + 1 if wanted in pages else None)
    n = len(ranks)
    return {
        "questions": n,
        "mrr_at_10": round(sum(1 / r for r in ranks if r) / n, 3),
        "hit_at_1": round(sum(1 for r in ranks if r == 1) / n, 3),
        "hit_at_3": round(sum(1 for r in ranks if r and r <= 3) / n, 3),
        "missed": [q for q, r in zip(LABELLED, ranks, strict=True) if r is None],
        "rank_of_wanted_page": dict(zip(LABELLED, ranks, strict=True)),
    }


def operations(client: Any, direct: Direct, paths: list[str]) -> dict[str, tuple[Any, Any]]:
    """Per call: (the call through the service, the same work done directly), each taking the
    request's number (call_cost.py times some of these too)."""
    return {
        "search": (
            lambda i: client.search_pages(namespace=NAMESPACE, query=QUERIES[i % len(QUERIES)]),
            lambda i: direct.search(QUERIES[i % len(QUERIES)]),
        ),
        "search_2_alternatives": (
            lambda i: client.search_pages(
                namespace=NAMESPACE,
                query=QUERIES[i % len(QUERIES)],
                alternatives=ALTERNATIVES[i % len(ALTERNATIVES)],
            ),
            lambda i: direct.search(QUERIES[i % len(QUERIES)], ALTERNATIVES[i % len(ALTERNATIVES)]),
        ),
        "read_page": (
            lambda i: client.read_page(namespace=NAMESPACE, path=paths[(i * 7) % len(paths)]),
            lambda i: direct.read(paths[(i * 7) % len(paths)]),
        ),
        "grep": (
            lambda i: client.grep_pages(
                namespace=NAMESPACE,
                query=GREPS[i % len(GREPS)][0],
                ignore_case=GREPS[i % len(GREPS)][1],
            ),
            lambda i: direct.grep(*GREPS[i % len(GREPS)]),
        ),
    }


async def measure(
    client: Any,
    direct: Direct,
    paths: list[str],
    requests: int,
    concurrencies: list[int],
    max_cell_s: float,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (service_call, direct_call) in operations(client, direct, paths).items():
        out[name] = {}
        for concurrency in concurrencies:
            h.note(f"{name} at concurrency {concurrency}")
            warm = 10 if concurrency == concurrencies[0] else 2
            service, direct_result = await h.run_side_by_side(
                service_call,
                direct_call,
                requests=requests,
                concurrency=concurrency,
                warmup=warm,
                deadline_s=max_cell_s,
            )
            out[name][str(concurrency)] = h.compared(
                service.as_dict(), direct_result.as_dict(), "p50_ms", "p95_ms", "throughput_rps"
            )
    return out


if __name__ == "__main__":
    parser = h.load_arguments(
        __doc__, pages=0, max_cell_s=60.0, quick="100 pages, 40 requests per cell"
    )
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), arguments.out)

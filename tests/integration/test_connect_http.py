"""Connect over HTTP against a real server, spoken raw with httpx as curl would speak it:
HTTP/1.1 and h2c, JSON and binary protobuf, unary and streaming calls, and bad input, which
always gets a typed Connect error (code + quire.v1.ErrorDetail), never a 500."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import pytest_asyncio

from quire.server.app import SERVICES
from quire.v1 import errors_pb2, pages_service_pb2
from tests.conftest import Harness, Keys
from tests.support.site_server import Reply, SiteServer
from tests.support.spans import in_memory_spans

NEEDS_MODEL = True
HTTP_LISTENER = True
NS = "connect-docs"

PAGES = {
    "/guide/intro.md": "# Introduction\n\nQuire keeps documentation searchable. It mentions "
    "marmalade exactly once.\n",
    "/guide/install.md": "# Install\n\nRun the installer, then start the server with quire up.\n",
}

END_STREAM = 0x02


def envelope(payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def envelopes(body: bytes) -> list[tuple[int, bytes]]:
    """The (flags, payload) frames of a Connect streaming body."""
    frames = []
    while body:
        flags, size = struct.unpack(">BI", body[:5])
        frames.append((flags, body[5 : 5 + size]))
        body = body[5 + size :]
    return frames


def stream_outcome(body: bytes) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Messages (JSON) and the end-stream error, if any, of a Connect streaming response."""
    messages, error = [], None
    for flags, payload in envelopes(body):
        if flags & END_STREAM:
            error = json.loads(payload).get("error")
        else:
            messages.append(json.loads(payload))
    return messages, error


def error_detail(error: dict[str, Any]) -> errors_pb2.ErrorDetail:
    """The quire.v1.ErrorDetail among a Connect error's details."""
    for detail in error.get("details", ()):
        if detail["type"] == "quire.v1.ErrorDetail":
            raw = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
            return errors_pb2.ErrorDetail.FromString(raw)
    raise AssertionError(f"no ErrorDetail in {error}")


@pytest.fixture(scope="module")
def site(harness: Harness) -> Iterator[SiteServer]:
    server = SiteServer()
    with server:
        links = "\n".join(f"- [{p}]({server.url}{p})" for p in PAGES)
        server.route("/llms.txt", Reply.text(f"# Docs\n\n{links}\n"))
        for path, text in PAGES.items():
            server.route(path, Reply.text(text, content_type="text/markdown"))
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("connect-org")


@pytest.fixture(scope="module")
def base_url(harness: Harness) -> str:
    return f"http://127.0.0.1:{harness.running.http.port}"  # type: ignore[attr-defined]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def http1(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        yield client


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def h2c(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    # http1=False: HTTP/2 with prior knowledge over cleartext, as `curl --http2-prior-knowledge`.
    async with httpx.AsyncClient(base_url=base_url, http1=False, http2=True, timeout=60) as c:
        yield c


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def call_json(
    client: httpx.AsyncClient, rpc: str, body: object, token: str | None, **headers: str
) -> httpx.Response:
    sent = {"content-type": "application/json", **headers, **(auth(token) if token else {})}
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return await client.post(f"/quire.v1.{rpc}", content=content, headers=sent)


def assert_typed(response: httpx.Response) -> None:
    assert response.status_code != 500, response.text
    assert "Traceback" not in response.text


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def synced(h2c: httpx.AsyncClient, site: SiteServer, keys: Keys) -> list[dict[str, Any]]:
    """SyncPages over h2c: a bidirectional stream with one request message."""
    start = {"start": {"namespace": NS, "url": f"{site.url}/llms.txt"}}
    response = await h2c.post(
        "/quire.v1.PagesService/SyncPages",
        content=envelope(json.dumps(start).encode()),
        headers={"content-type": "application/connect+json", **auth(keys.write)},
    )
    assert response.status_code == 200 and response.http_version == "HTTP/2"
    messages, error = stream_outcome(response.content)
    assert error is None, error
    return messages


async def test_sync_pages_streams_progress_and_a_report_over_h2c(
    synced: list[dict[str, Any]],
) -> None:
    assert any("progress" in m for m in synced)
    report = synced[-1]["report"]
    assert report["status"] == "SYNC_STATUS_COMPLETED"
    assert report["discovered"] == 2 and report["updated"] == 2


async def test_unary_json_over_http1(
    http1: httpx.AsyncClient, keys: Keys, synced: list[dict[str, Any]]
) -> None:
    response = await call_json(
        http1, "PagesService/SearchPages", {"namespace": NS, "query": "marmalade"}, keys.read
    )
    assert response.status_code == 200, response.text
    assert response.http_version == "HTTP/1.1"
    assert response.headers["content-type"] == "application/json"
    hits = response.json()["result"]["hits"]
    assert hits and hits[0]["path"] == "/guide/intro.md"


async def test_unary_proto_over_h2c(
    h2c: httpx.AsyncClient, keys: Keys, synced: list[dict[str, Any]]
) -> None:
    request = pages_service_pb2.ListPagesRequest(namespace=NS)
    response = await h2c.post(
        "/quire.v1.PagesService/ListPages",
        content=request.SerializeToString(),
        headers={"content-type": "application/proto", **auth(keys.read)},
    )
    assert response.status_code == 200 and response.http_version == "HTTP/2"
    assert response.headers["content-type"] == "application/proto"
    listed = pages_service_pb2.ListPagesResponse.FromString(response.content)
    assert [p.path for p in listed.page_list.pages] == sorted(PAGES)


async def test_side_effect_free_calls_answer_get(
    http1: httpx.AsyncClient, keys: Keys, synced: list[dict[str, Any]]
) -> None:
    message = json.dumps({"namespace": NS, "path": "/guide/install.md"})
    response = await http1.get(
        "/quire.v1.PagesService/ReadPage",
        params={"encoding": "json", "message": message},
        headers=auth(keys.read),
    )
    assert response.status_code == 200, response.text
    assert "quire up" in response.json()["pageRead"]["content"]


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_watch_documents_streams_over_http1(http1: httpx.AsyncClient, keys: Keys) -> None:
    created = await call_json(
        http1, "KnowledgeService/CreateCollection", {"name": "connect-watch"}, keys.write
    )
    assert created.status_code == 200, created.text
    collection_id = created.json()["collection"]["collectionId"]
    upload = [
        {"metadata": {"collectionId": collection_id, "fileName": "notes.txt"}},
        {"data": base64.b64encode(b"plain notes about marmalade").decode()},
    ]
    uploaded = await http1.post(
        "/quire.v1.KnowledgeService/UploadDocument",
        content=b"".join(envelope(json.dumps(m).encode()) for m in upload),
        headers={"content-type": "application/connect+json", **auth(keys.write)},
    )
    messages, error = stream_outcome(uploaded.content)
    assert error is None and messages[0]["document"]["fileName"] == "notes.txt"
    # A watch never ends by itself: the deadline ends it after the current state is sent.
    watched = await http1.post(
        "/quire.v1.KnowledgeService/WatchDocuments",
        content=envelope(json.dumps({"collectionId": collection_id}).encode()),
        headers={
            "content-type": "application/connect+json",
            "connect-timeout-ms": "1500",
            **auth(keys.read),
        },
    )
    assert watched.status_code == 200
    messages, error = stream_outcome(watched.content)
    assert messages and messages[0]["document"]["fileName"] == "notes.txt"
    assert error is not None and error["code"] == "deadline_exceeded"


def _rpcs() -> list[tuple[str, Any]]:
    return [(f"{s.name}/{m.name}", m) for s in SERVICES for m in s.methods]


@pytest.mark.parametrize(("rpc", "method"), _rpcs(), ids=[name for name, _ in _rpcs()])
async def test_every_rpc_is_reachable_through_the_interceptors(
    h2c: httpx.AsyncClient, rpc: str, method: Any
) -> None:
    """No key: each RPC answers `unauthenticated` from rpc.py, so each is routed, decoded
    and run through the same chain as over gRPC (a missing route would be 404)."""
    streaming = method.client_streaming or method.server_streaming
    headers = {"content-type": "application/connect+json" if streaming else "application/json"}
    body = envelope(b"{}") if streaming else b"{}"
    response = await h2c.post(f"/quire.v1.{rpc}", content=body, headers=headers)
    assert_typed(response)
    if streaming:
        assert response.status_code == 200
        _, error = stream_outcome(response.content)
    else:
        assert response.status_code == 401
        error = response.json()
    assert error is not None and error["code"] == "unauthenticated", error
    assert error_detail(error).code == errors_pb2.ERROR_CODE_UNAUTHENTICATED


async def test_bidi_over_http1_is_refused_as_unimplemented(
    http1: httpx.AsyncClient, keys: Keys
) -> None:
    start = {"start": {"namespace": NS, "url": "https://docs.example.test/llms.txt"}}
    response = await http1.post(
        "/quire.v1.PagesService/SyncPages",
        content=envelope(json.dumps(start).encode()),
        headers={"content-type": "application/connect+json", **auth(keys.write)},
    )
    assert_typed(response)
    _, error = stream_outcome(response.content)
    assert error is not None and error["code"] == "unimplemented"
    assert "HTTP/2" in error["message"]


SEARCH = "PagesService/SearchPages"


@pytest.mark.parametrize(
    ("body", "headers", "status", "code"),
    [
        (b'{"namespace": "x", "query": ', {}, 400, "invalid_argument"),  # malformed JSON
        ({"namespace": NS, "query": "q", "colour": "blue"}, {}, 400, "invalid_argument"),
        ({"namespace": NS, "query": "q"}, {"content-type": "text/plain"}, 415, "invalid_argument"),
        ({"namespace": NS, "query": "q"}, {"connect-timeout-ms": "soon"}, 400, "invalid_argument"),
        (b"{}" + b" " * (9 * 1024 * 1024), {}, 429, "resource_exhausted"),  # over 8 MiB
    ],
    ids=["malformed-json", "unknown-field", "wrong-content-type", "bad-timeout", "oversized"],
)
async def test_bad_input_gets_a_typed_connect_error(
    http1: httpx.AsyncClient,
    keys: Keys,
    body: object,
    headers: dict[str, str],
    status: int,
    code: str,
) -> None:
    response = await call_json(http1, SEARCH, body, keys.read, **headers)
    assert_typed(response)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.json()["code"] == code


@pytest.mark.parametrize(
    ("token", "status", "code", "error_code"),
    [
        (None, 401, "unauthenticated", errors_pb2.ERROR_CODE_UNAUTHENTICATED),
        ("qk_0000_wrong", 401, "unauthenticated", errors_pb2.ERROR_CODE_UNAUTHENTICATED),
        ("admin", 403, "permission_denied", errors_pb2.ERROR_CODE_PERMISSION_DENIED),
    ],
    ids=["missing-bearer", "wrong-bearer", "wrong-scope"],
)
async def test_auth_failures_carry_the_error_detail(
    http1: httpx.AsyncClient,
    keys: Keys,
    token: str | None,
    status: int,
    code: str,
    error_code: int,
) -> None:
    bearer = keys.admin if token == "admin" else token
    response = await call_json(http1, SEARCH, {"namespace": NS, "query": "q"}, bearer)
    assert_typed(response)
    assert response.status_code == status
    error = response.json()
    assert error["code"] == code
    assert error_detail(error).code == error_code
    assert any(d["type"] == "google.rpc.ErrorInfo" for d in error["details"])


async def test_validation_names_the_field(http1: httpx.AsyncClient, keys: Keys) -> None:
    response = await call_json(
        http1, SEARCH, {"namespace": NS, "query": "q", "limit": 999}, keys.read
    )
    assert response.status_code == 400
    detail = error_detail(response.json())
    assert detail.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
    assert [v.field for v in detail.field_violations] == ["limit"]


async def test_unknown_namespace_is_not_found_as_over_grpc(
    http1: httpx.AsyncClient, keys: Keys
) -> None:
    response = await call_json(
        http1, "PagesService/ReadPage", {"namespace": "nope", "path": "/a.md"}, keys.read
    )
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


async def test_an_expired_deadline_is_deadline_exceeded(
    http1: httpx.AsyncClient, keys: Keys, synced: list[dict[str, Any]]
) -> None:
    response = await call_json(
        http1,
        SEARCH,
        {"namespace": NS, "query": "marmalade"},
        keys.read,
        **{"connect-timeout-ms": "1"},
    )
    assert_typed(response)
    assert response.json()["code"] == "deadline_exceeded"


async def test_unknown_procedure_is_unimplemented(http1: httpx.AsyncClient, keys: Keys) -> None:
    response = await call_json(http1, "PagesService/Nothing", {}, keys.read)
    assert response.status_code == 404
    assert response.json()["code"] == "unimplemented"


async def test_a_connect_call_gets_the_rpc_span_in_the_callers_trace(
    http1: httpx.AsyncClient, keys: Keys
) -> None:
    """The telemetry interceptor runs over Connect too: a SERVER span named by the RPC,
    continuing the trace of an incoming `traceparent` header."""
    from opentelemetry import trace

    spans = in_memory_spans()
    trace_id = "0af7651916cd43dd8448eb211c80319c"
    traceparent = f"00-{trace_id}-b7ad6b7169203331-01"
    try:
        response = await call_json(
            http1, "PagesService/DescribeTools", {}, keys.read, traceparent=traceparent
        )
        assert response.status_code == 200
        rpc = "/quire.v1.PagesService/DescribeTools"
        (span,) = [s for s in spans.get_finished_spans() if s.name == rpc]
        assert span.kind is trace.SpanKind.SERVER
        assert format(span.context.trace_id, "032x") == trace_id
    finally:
        spans.shutdown()


async def test_a_client_that_goes_away_cancels_the_sync_cooperatively(
    base_url: str, http1: httpx.AsyncClient, keys: Keys, harness: Harness
) -> None:
    """A client closing its connection mid-sync cancels the call as a gRPC cancellation
    does: the sync stops after the page in flight, prunes nothing and records a cancelled
    report. (The connection, not the stream: httpx abandons an unfinished HTTP/2 stream
    without resetting it, which a server cannot tell from a slow reader.)"""
    slow = SiteServer()
    with slow:
        paths = [f"/slow/{n}.md" for n in range(8)]
        links = "\n".join(f"- [{p}]({slow.url}{p})" for p in paths)
        slow.route("/llms.txt", Reply.text(f"# Slow\n\n{links}\n"))
        for path in paths:
            page = f"# Page {path}\n\nA page that takes a while to fetch.\n".encode()
            slow.route(path, Reply(200, page, {"content-type": "text/markdown"}, delay=0.4))
        harness.running.state.settings.allow_sources.append(slow.origin)  # type: ignore[attr-defined]
        start = {"start": {"namespace": "connect-cancelled", "url": f"{slow.url}/llms.txt"}}
        received = b""
        leaving = httpx.AsyncClient(base_url=base_url, http1=False, http2=True, timeout=60)
        async with leaving.stream(
            "POST",
            "/quire.v1.PagesService/SyncPages",
            content=envelope(json.dumps(start).encode()),
            headers={"content-type": "application/connect+json", **auth(keys.write)},
        ) as response:
            async for chunk in response.aiter_bytes():
                received += chunk
                if b"SYNC_STAGE_FETCHING" in received:
                    await leaving.aclose()  # the connection goes, mid-stream
                    break
        report: dict[str, Any] = {}
        for _ in range(100):
            stored = await call_json(
                http1, "PagesService/GetSyncReport", {"namespace": "connect-cancelled"}, keys.read
            )
            report = stored.json().get("report", {}) if stored.status_code == 200 else {}
            if report.get("cancelled"):
                break
            await asyncio.sleep(0.2)
    assert report.get("cancelled"), report
    assert report["status"] == "SYNC_STATUS_PARTIAL" and not report.get("deleted")


HOSTILE_BODIES = {
    "json-array": ("application/json", b"[]"),
    "json-string": ("application/json", b'"namespace"'),
    "wrong-types": ("application/json", b'{"namespace": 5, "limit": "many", "query": []}'),
    "huge-number": ("application/json", b'{"limit": 1e400, "offset": -99999999999999999999}'),
    "deep-nesting": ("application/json", b"[" * 100_000 + b"]" * 100_000),
    "invalid-utf8": ("application/json", b'{"query": "\xff\xfe"}'),
    "proto-garbage": ("application/proto", b"\xff" * 64),
}


@pytest.mark.parametrize("body", sorted(HOSTILE_BODIES))
async def test_hostile_bodies_on_every_unary_rpc_get_typed_errors(
    http1: httpx.AsyncClient, keys: Keys, body: str
) -> None:
    content_type, content = HOSTILE_BODIES[body]
    for rpc, method in _rpcs():
        if method.client_streaming or method.server_streaming:
            continue
        response = await http1.post(
            f"/quire.v1.{rpc}",
            content=content,
            headers={"content-type": content_type, **auth(keys.all)},
        )
        assert_typed(response)
        assert response.status_code == 400, (rpc, response.text)
        assert response.json()["code"] == "invalid_argument", (rpc, response.text)


TYPED_FRAMING = {"invalid_argument", "resource_exhausted", "unimplemented"}
HOSTILE_ENVELOPES = {
    "truncated": struct.pack(">BI", 0, 100) + b"{}",
    "compressed-flag-without-encoding": struct.pack(">BI", 1, 2) + b"{}",
    "declared-4-GiB": struct.pack(">BI", 0, 0xFFFFFFFF) + b"{}",
    "two-requests-for-one": envelope(b"{}") + envelope(b"{}"),
    "no-request": b"",
}


@pytest.mark.parametrize("body", sorted(HOSTILE_ENVELOPES))
async def test_hostile_envelopes_on_a_server_stream_get_typed_errors(
    h2c: httpx.AsyncClient, keys: Keys, body: str
) -> None:
    response = await h2c.post(
        "/quire.v1.KnowledgeService/WatchDocuments",
        content=HOSTILE_ENVELOPES[body],
        headers={"content-type": "application/connect+json", **auth(keys.all)},
    )
    assert_typed(response)
    _, error = stream_outcome(response.content)
    assert error is not None, response.content
    # A compressed-flag envelope without an encoding is the one framing fault the Connect
    # protocol itself classes as `internal` (connect-go answers it the same way).
    expected = {"internal"} if body == "compressed-flag-without-encoding" else TYPED_FRAMING
    assert error["code"] in expected, error


async def test_a_taken_http_port_fails_the_start_clearly(harness: Harness) -> None:
    from quire.server.app import start
    from quire.server.config import Settings
    from quire.server.storage.database import create_pool

    base = harness.running.state.settings  # type: ignore[attr-defined]
    taken = f"127.0.0.1:{harness.running.http.port}"  # type: ignore[attr-defined]
    settings = Settings(address="127.0.0.1:0", http_address=taken, database_url=base.database_url)
    pool = await create_pool(base.database_url, min_size=1, max_size=2)
    try:
        with pytest.raises(RuntimeError, match="cannot listen for HTTP"):
            await start(settings, pool)
    finally:
        await pool.close()


async def test_mcp_is_mounted_at_slash_mcp_beside_connect(
    base_url: str, keys: Keys, synced: list[dict[str, Any]]
) -> None:
    """The MCP endpoint answers on the same port as Connect (its lifespan ran with the
    listener's, or the SDK would refuse the request)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    url = f"{base_url}/mcp?namespace={NS}"
    headers = {"Authorization": f"Bearer {keys.read}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        names = {tool.name for tool in (await client.list_tools()).tools}
        found = await client.call_tool("search_pages", {"query": "marmalade"})
    assert "search_pages" in names
    assert not found.is_error and "/guide/intro.md" in found.content[0].text  # type: ignore[union-attr]
    async with httpx.AsyncClient() as anonymous:
        assert (await anonymous.post(url, json={})).status_code == 401


async def test_metrics_are_off_by_default(http1: httpx.AsyncClient, keys: Keys) -> None:
    """Without --metrics, /metrics is a 404 that says how to turn it on, even to an admin key
    (not the console's page, which answers every other path)."""
    response = await http1.get("/metrics", headers={"authorization": f"Bearer {keys.admin}"})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert "--metrics" in response.json()["message"]

"""MCP with the SDK's own client against a real server: `quire mcp` over stdio (a spawned
process) and the streamable-HTTP endpoint of the server process.

One small site is synced into a namespace and one text document uploaded for an agent; both
transports list the tools, call search_pages, read_page and search_knowledge, and get a tool
error naming the field and its bound. Over HTTP a request without a valid key is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import httpx2
import mcp_types
import pytest
import pytest_asyncio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from quire.client import AsyncQuireClient
from quire.client.tools import ToolRunner
from quire.server.app import mcp_app
from quire.server.mcp.http import start_mcp_listener
from quire.server.mcp.tools_server import tools_server
from quire.v1 import knowledge_pb2, pages_pb2
from tests.conftest import REPO, Harness, Keys
from tests.support import waits
from tests.support.site_server import SiteServer
from tests.support.waits import lock_waiters

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True
NS = "mcp-site"
AGENT = "mcp-agent"
PAGES_TOOLS = {"search_pages", "read_page", "list_pages", "grep_pages", "query_pages"}
KNOWLEDGE_TOOLS = {"search_knowledge", "read_document"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, harness: Harness) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("mcp-site")
    (root / "llms.txt").write_text("# Site\n\n- [Install](/install.md)\n- [Tokens](/tokens.md)\n")
    (root / "install.md").write_text("# Install\n\nRun `pip install frobnicator` to install it.\n")
    (root / "tokens.md").write_text("# Tokens\n\nRotate your OAuth2 bearer tokens every day.\n")
    server = SiteServer(root=root)
    with server:
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness, site: SiteServer) -> Keys:
    """The organisation's keys, after its namespace is synced and its agent has a document."""
    keys = await harness.keys("mcp-org")
    async with AsyncQuireClient(harness.address, api_key=keys.all) as client:
        async for message in client.sync_pages(namespace=NS, url=f"{site.url}/llms.txt"):
            if isinstance(message, pages_pb2.SyncReport):
                assert message.status == pages_pb2.SYNC_STATUS_COMPLETED, list(message.errors)
        collection = await client.create_collection(name="mcp-handbook")
        document = await client.upload_document(
            collection_id=collection.collection_id,
            file_name="holidays.txt",
            data=b"Holiday policy: every employee gets twenty-five vacation days a year.",
        )
        await client.upsert_agent(
            agent_id=AGENT, attached_collection_ids=[collection.collection_id]
        )
        for _ in range(600):
            got = await client.get_document(document_id=document.document_id)
            if got.status == knowledge_pb2.DOCUMENT_STATUS_READY:
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the document never became READY")
    return keys


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def http_url(harness: Harness) -> AsyncIterator[str]:
    """The server process's MCP endpoint (the same app `--mcp-address` serves)."""
    running: Any = harness.running
    app = mcp_app(running.state.settings, running.port, running.state)
    listener = await start_mcp_listener(app, "127.0.0.1:0")
    try:
        yield f"http://127.0.0.1:{listener.port}/mcp"
    finally:
        await listener.stop()


@asynccontextmanager
async def over_http(url: str, key: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


@asynccontextmanager
async def over_stdio(harness: Harness, key: str, *flags: str) -> AsyncIterator[Client]:
    command = [sys.executable, "-m", "quire.server.cli", "mcp", "--address", harness.address]
    environment = {**os.environ, "QUIRE_API_KEY": key}
    parameters = StdioServerParameters(
        command=command[0], args=[*command[1:], *flags], env=environment
    )
    async with Client(parameters) as client:
        yield client


def text(result: mcp_types.CallToolResult) -> dict[str, Any]:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    body: dict[str, Any] = json.loads(block.text)
    return body


async def scenario(client: Client, *, bound: bool) -> None:
    """What both transports must do the same way."""
    listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == PAGES_TOOLS | KNOWLEDGE_TOOLS
    search = tools["search_pages"]
    assert search.annotations is not None and search.annotations.read_only_hint is True
    assert ("namespace" in search.input_schema["properties"]) is not bound
    assert ("agent_id" in tools["search_knowledge"].input_schema["properties"]) is not bound
    # The default policy: the schema says 8, as the server enforces.
    assert tools["search_knowledge"].input_schema["properties"]["limit"]["maximum"] == 8

    pages = {} if bound else {"namespace": NS}
    agent = {} if bound else {"agent_id": AGENT}
    found = await client.call_tool("search_pages", {**pages, "query": "install frobnicator"})
    assert not found.is_error, found.content
    hits = text(found)["hits"]
    assert hits and hits[0]["path"] == "/install.md"

    read = await client.call_tool(
        "read_page", {**pages, "path": "/install.md", "revision": hits[0]["revision"]}
    )
    assert not read.is_error and "pip install frobnicator" in text(read)["content"]

    knowledge = await client.call_tool("search_knowledge", {**agent, "query": "vacation"})
    assert not knowledge.is_error, knowledge.content
    assert [h["file_name"] for h in text(knowledge)["hits"]] == ["holidays.txt"]

    # Over the organisation's bound: an error the model can act on.
    refused = await client.call_tool("search_knowledge", {**agent, "query": "x", "limit": 20})
    assert refused.is_error
    assert text(refused) == {
        "schema_version": 1,
        "error": "invalid_request",
        "message": "limit: must be 1–8 (0 means 8)",
        "field": "limit",
        "bound": "1–8",
    }
    stale = await client.call_tool(
        "read_page", {**pages, "path": "/install.md", "revision": "not-the-revision"}
    )
    assert stale.is_error
    assert text(stale)["error"] == "page_changed"
    assert text(stale)["message"] == "The page changed since that revision"
    assert text(stale)["current_revision"] == hits[0]["revision"]


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_stdio_unbound(harness: Harness, keys: Keys) -> None:
    async with over_stdio(harness, keys.read) as client:
        await scenario(client, bound=False)


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_stdio_bound_to_a_namespace_and_an_agent(harness: Harness, keys: Keys) -> None:
    async with over_stdio(harness, keys.read, "--namespace", NS, "--agent", AGENT) as client:
        await scenario(client, bound=True)
        # A bound argument is not the model's to choose.
        named = await client.call_tool("search_pages", {"namespace": "other", "query": "x"})
        assert named.is_error
        assert text(named)["field"] == "namespace"


async def test_http_unbound(http_url: str, keys: Keys) -> None:
    async with over_http(http_url, keys.read) as client:
        await scenario(client, bound=False)


async def test_http_bound_by_query_parameters(http_url: str, keys: Keys) -> None:
    async with over_http(f"{http_url}?namespace={NS}&agent={AGENT}", keys.read) as client:
        await scenario(client, bound=True)


def integer_probes(schema: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """An integer argument's values: accepted, refused for their range, refused for their
    type."""
    low, high = schema["minimum"], schema["maximum"]
    accepted: list[Any] = [low, high, float(high), (low + high) // 2]
    if low > 0:
        accepted.append(0)  # the request field's unset value: the default, as the server reads
    edges = [low - 1, high + 1, -1, 2**31, 2**32, 2**40, 2**63 - 1, 2**63, 2**64, -(2**63) - 1]
    out_of_range = [v for v in edges if not low <= v <= high and v != 0]
    out_of_range += [float(2**64), 1e300]
    wrong_type = [1.5, high + 0.5, True, False, "5", [5], {"value": 5}]
    return accepted, out_of_range, wrong_type


@pytest.mark.slow  # 3 s under load (`make test-fast` leaves it out)
async def test_every_integer_argument_is_checked_at_and_past_its_bounds(
    http_url: str, keys: Keys
) -> None:
    """A small fuzz over every integer argument of every tool: in range it is served, past
    its bound (int64 overflow included) it is `invalid_request` naming the argument and its
    bound, a fraction or a boolean is `invalid_request` naming the type; never `internal`."""
    async with over_http(http_url, keys.read) as client:
        found = await client.call_tool("search_knowledge", {"agent_id": AGENT, "query": "holiday"})
        document_id = text(found)["hits"][0]["document_id"]
        required = {
            "search_pages": {"namespace": NS, "query": "install"},
            "read_page": {"namespace": NS, "path": "/install.md"},
            "list_pages": {"namespace": NS},
            "grep_pages": {"namespace": NS, "query": "install"},
            "query_pages": {"namespace": NS, "command": "ls /"},
            "search_knowledge": {"agent_id": AGENT, "query": "vacation"},
            "read_document": {"agent_id": AGENT, "document_id": document_id},
        }
        probed = 0
        for tool in (await client.list_tools()).tools:
            for name, schema in tool.input_schema["properties"].items():
                if schema["type"] != "integer":
                    continue
                accepted, out_of_range, wrong_type = integer_probes(schema)
                for value in accepted + out_of_range + wrong_type:
                    result = await client.call_tool(tool.name, {**required[tool.name], name: value})
                    outcome = text(result)
                    what = (tool.name, name, value, outcome)
                    probed += 1
                    if value in accepted and not isinstance(value, bool):
                        assert not result.is_error, what
                        continue
                    assert result.is_error, what
                    assert outcome["error"] == "invalid_request", what
                    assert outcome["field"] == name, what
                    bound = (
                        "integer"
                        if value in wrong_type
                        else f"{schema['minimum']}–{schema['maximum']}"
                    )
                    assert outcome["bound"] == bound, what
    # 8 integer arguments of 6 tools (the knowledge limit's bound is the policy's 8): 184 calls.
    assert probed == 184


@pytest.mark.parametrize("key", ["", "qk_nope_nope"])
async def test_http_refuses_a_missing_or_unknown_key(http_url: str, keys: Keys, key: str) -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    async with httpx2.AsyncClient(headers=headers) as http:
        answer = await http.post(
            http_url,
            json=request,
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert answer.json()["error"] == "unauthenticated"


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow  # 10 s for the three faults under load (`make test-fast` leaves it out)
@pytest.mark.parametrize("fault", ["wrong-key", "unreachable-server", "bad-namespace"])
async def test_stdio_checks_its_key_and_server_at_start(
    harness: Harness, keys: Keys, fault: str
) -> None:
    """`quire mcp` asks for its tools before it speaks MCP: a fault ends it with one line and
    exit status 1, before an agent sends anything."""
    address = f"127.0.0.1:{free_port()}" if fault == "unreachable-server" else harness.address
    key = "qk_nope_nope" if fault == "wrong-key" else keys.read
    flags = ["--namespace", "no spaces allowed"] if fault == "bad-namespace" else []
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "quire.server.cli", "mcp", "--address", address, *flags),
        env={**os.environ, "QUIRE_API_KEY": key},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    expected = {
        "wrong-key": "unauthenticated: ",
        "unreachable-server": "unavailable: ",
        "bad-namespace": "invalid_request: namespace: ",
    }[fault]
    assert process.returncode == 1, err.decode()
    assert out == b""  # nothing on the protocol's stream
    lines = err.decode().strip().splitlines()
    assert lines[-1].startswith(f"quire mcp: cannot start: {expected}"), lines
    assert "Traceback" not in err.decode()


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("namespce=mcp-site", "namespce", "it takes namespace, agent"),
        ("namespace=a&namespace=b", "namespace", "given more than once"),
        ("namespace=no%20spaces", "namespace", "namespace: "),
    ],
    ids=["misspelt", "twice", "malformed"],
)
async def test_http_refuses_a_binding_it_cannot_honour(
    http_url: str, keys: Keys, query: str, field: str, words: str
) -> None:
    """Binding confines the model: a parameter that would silently leave the tools unbound is
    refused before any MCP processing."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {keys.read}"}) as http:
        answer = await http.post(
            f"{http_url}?{query}",
            json=request,
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["error"] == "invalid_request"
    assert body["field"] == field
    assert words in body["message"]


@pytest.mark.parametrize("accept", ["application/json, text/event-stream", "application/json"])
async def test_http_answers_a_call_with_plain_json(http_url: str, keys: Keys, accept: str) -> None:
    """As docs/agents.md shows it with curl: one JSON body, not an event stream."""
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_pages", "arguments": {"query": "install", "limit": 50}},
    }
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {keys.read}"}) as http:
        answer = await http.post(
            f"{http_url}?namespace={NS}", json=call, headers={"Accept": accept}
        )
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    result = answer.json()["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"])["bound"] == "1–20"


@pytest.mark.parametrize(
    ("fault", "code", "error"),
    [
        ("wrong-key", -32010, "unauthenticated"),
        ("no-read-scope", -32011, "permission_denied"),
        ("unreachable-server", -32012, "unavailable"),
        ("bad-namespace", -32602, "invalid_request"),
    ],
)
async def test_a_failure_outside_a_tool_call_is_a_typed_jsonrpc_error(
    harness: Harness,
    keys: Keys,
    caplog: pytest.LogCaptureFixture,
    fault: str,
    code: int,
    error: str,
) -> None:
    """tools/list when the tools cannot be described: the JSON-RPC code of the table in
    docs/agents.md, the tool_error object as `data`, and no traceback logged."""
    address = f"127.0.0.1:{free_port()}" if fault == "unreachable-server" else harness.address
    key = {"wrong-key": "qk_nope_nope", "no-read-scope": keys.admin}.get(fault, keys.read)
    namespace = "no spaces allowed" if fault == "bad-namespace" else ""
    async with AsyncQuireClient(address, api_key=key) as quire:
        runner = ToolRunner(quire, namespace=namespace)

        async def runner_for(ctx: Any) -> ToolRunner:
            return runner

        async with Client(tools_server(runner_for)) as client:
            with pytest.raises(MCPError) as raised:
                await client.list_tools()
    assert raised.value.code == code, raised.value.error
    assert raised.value.data["error"] == error
    assert raised.value.message.startswith(f"{error}: ")
    if fault == "bad-namespace":
        assert raised.value.data["field"] == "namespace"
    assert not [r for r in caplog.records if r.exc_info], caplog.text


@pytest.mark.parametrize("script", ["openai_tool_loop.py", "anthropic_tool_loop.py"])
async def test_tool_loop_examples_run_with_the_stand_in_model(
    harness: Harness, keys: Keys, script: str
) -> None:
    """docs/agents.md's loops: the stand-in model asks for 50 hits, reads the refusal's
    field and bound, retries with 20, reads the best page at its revision and answers."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(REPO / "examples" / "python" / script),
        harness.address,
        NS,
        "install frobnicator",
        env={**os.environ, "QUIRE_API_KEY": keys.read},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    text = out.decode()
    assert process.returncode == 0, text
    lines = text.strip().splitlines()
    assert lines[0].startswith("search_pages(") and "error=True" in lines[0]
    assert "'limit': 20" in lines[1] and "error=False" in lines[1]
    assert lines[2].startswith("read_page(") and "error=False" in lines[2]
    assert lines[-1].startswith("From /install.md:") and "pip install frobnicator" in lines[-1]


@asynccontextmanager
async def pages_locked(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    """The pages table locked by another transaction: a read_page waits on it (in PostgreSQL,
    not on a CPU) until the lock goes or its call is cancelled. Yields a connection that
    watches the waiters."""
    holder = await asyncpg.connect(database_url)
    watcher = await asyncpg.connect(database_url)
    transaction = holder.transaction()
    await transaction.start()
    try:
        await holder.execute("LOCK TABLE pages IN ACCESS EXCLUSIVE MODE")
        yield watcher
    finally:
        await transaction.rollback()
        await holder.close()
        await watcher.close()


async def until(watcher: asyncpg.Connection, waiting: bool, within_s: float, what: str) -> None:
    async def now() -> bool:
        return (await lock_waiters(watcher) > 0) == waiting

    await waits.until(now, within_s=within_s, what=what)


@pytest.mark.parametrize(
    "transport",
    # stdio: 7 s under load (`make test-fast` leaves it out)
    ["http", pytest.param("stdio", marks=pytest.mark.slow)],
)
async def test_a_client_that_gives_up_cancels_the_call(
    harness: Harness, http_url: str, keys: Keys, database_url: str, transport: str
) -> None:
    """The read waits on the lock (its deadline is 10 s); the client gives up: over HTTP it
    closes the request, over stdio the SDK sends notifications/cancelled. The server's query
    must stop waiting at once, not when the lock goes or the deadline passes."""
    opened = (
        over_http(http_url, keys.read) if transport == "http" else over_stdio(harness, keys.read)
    )
    async with opened as client, pages_locked(database_url) as watcher:
        arguments = {"namespace": NS, "path": "/install.md"}
        call = asyncio.create_task(client.call_tool("read_page", arguments))
        await until(watcher, waiting=True, within_s=10, what="the read never reached the lock")
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        await until(watcher, waiting=False, within_s=3, what="the read still waits: not cancelled")

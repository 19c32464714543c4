"""Hostile input against every RPC of the three services, over real gRPC.

Requests are built by Hypothesis straight from the proto descriptors, so a new field or RPC is
fuzzed without editing this file. String fields draw from NUL bytes, traversal paths, encoded
slashes, SQL/format metacharacters, backtracking regexes, multi-megabyte strings and real ids;
numeric fields span their whole wire range. The invariant: the answer is a correct result or a
typed Quire error (ErrorDetail present, matching the gRPC code) — never INTERNAL/UNKNOWN — and
the server stays SERVING. Streaming RPCs get hostile message sequences (client streams) or a
hostile request read briefly and cancelled (server streams). Raw garbage on the TCP port must
not hurt it either. The requests tried per RPC are counted into `.quire-test/fuzz-counts.json`
(and printed with -s) for the reliability report.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf.descriptor import FieldDescriptor
from grpc import aio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    knowledge_service_pb2,
    knowledge_service_pb2_grpc,
    pages_service_pb2,
    pages_service_pb2_grpc,
)
from tests.conftest import Harness, Keys, bearer
from tests.reliability._support import InputCounts, assert_serving, seed_pages, typed_detail

pytestmark = pytest.mark.asyncio(loop_scope="session")

EXAMPLES = int(os.environ.get("QUIRE_FUZZ_EXAMPLES", "25"))
CALL_TIMEOUT = 20.0
# A hostile call may use its deadline, but nothing should come close to it.
SLOW_CALL_S = 12.0

SERVICES = [
    (pages_service_pb2, pages_service_pb2_grpc.PagesServiceStub, "PagesService"),
    (knowledge_service_pb2, knowledge_service_pb2_grpc.KnowledgeServiceStub, "KnowledgeService"),
    (admin_service_pb2, admin_service_pb2_grpc.AdminServiceStub, "AdminService"),
]


def _unary_methods() -> list[tuple[Any, str, Any]]:
    out = []
    for module, stub, service in SERVICES:
        for method in module.DESCRIPTOR.services_by_name[service].methods:
            if method.client_streaming or method.server_streaming:
                continue
            out.append((stub, method.name, getattr(module, method.input_type.name)))
    return out


UNARY = _unary_methods()


def _streaming_methods() -> list[tuple[Any, str, Any, bool, bool]]:
    out = []
    for module, stub, service in SERVICES:
        for method in module.DESCRIPTOR.services_by_name[service].methods:
            if method.client_streaming or method.server_streaming:
                request_cls = getattr(module, method.input_type.name)
                out.append(
                    (
                        stub,
                        method.name,
                        request_cls,
                        method.client_streaming,
                        method.server_streaming,
                    )
                )
    return out


STREAMING = _streaming_methods()
# Watches run until cancelled: a fuzzed watch is read for this long, then cancelled.
STREAM_WINDOW_S = 1.0
# The kill switch is deployment-wide; it is fuzzed, then reset (see the test).
BACKTRACK_LINE = "a" * 40 + "!"

HOSTILE_STRINGS = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "/\x00/x.md",
    "/../",
    "/..",
    "/../../etc/passwd",
    "//",
    "///guide//a.md",
    "/%2f",
    "/%2e%2e/%2e%2e/etc/passwd",
    "%00",
    "/guide/../guide/a.md",
    "\\..\\..\\windows",
    ".",
    "..",
    "'; DROP TABLE pages; --",
    "' OR '1'='1",
    "$1",
    "%s%s%s%n",
    "{0}{1}",
    "${jndi:ldap://127.0.0.1/}",
    "\u202e\u200b\ufeff",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "-1",
    "0",
    "99999999999999999999999",
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "qk_deadbeef_x",
    "*",
    "[",
    "(a+)+$",
    "\n\r\n\t",
    "a" * 257,
    "a" * 1025,
    "/" + "a/" * 700,
    "x" * 70_000,
]
# Large strings are pre-built (drawing megabytes through Hypothesis is slow); all stay under
# the 8 MiB message limit so the server, not the transport, answers.
BIG_STRINGS = ["y" * (3 * 1024 * 1024), "\x00" * (1024 * 1024), "é" * (1024 * 1024)]
COMMANDS = [
    "grep -E '(a+)+$' -r /",
    "grep -E '(a|a)+$' -r /",
    "grep -E '(x+x+)+y' -r /",
    "grep -rE '^(([a-z])+.)+[A-Z]([a-z])+$' /",
    "grep -P '(?<=a)b' -r /",
    "grep -E '[' -r /",
    "cat /../../etc/passwd",
    "cat //guide//a.md",
    "cat /%2e%2e/secret.md",
    "ls -R /",
    "find / -name '*'",
    "tree / -L 99999",
    "head -n 99999999999 /guide/a.md",
    "tail -c -5 /guide/a.md",
    "cat /guide/a.md | grep a | grep a | grep a | head -n 1",
    "cat /guide/a.md > /tmp/x",
    "$(reboot)",
    "`id`",
    "cat /guide/a.md; rm -rf /",
    "grep -C 100000 a -r /",
    "wc -l " + " ".join(["/guide/a.md"] * 80),
    "echo " + "'" * 3,
    "cat '/guide/a.md",
    "\x00",
    "grep " + "a" * 900 + " /",
]


@dataclass
class Seed:
    keys: Keys
    namespace: str
    paths: list[str]
    collection_id: str
    document_id: str
    key_id: str


def _field_values(seed: Seed) -> dict[str, list[str]]:
    """Real values a field name suggests, so some requests get past the first check."""
    return {
        "namespace": [seed.namespace, "other", "a" * 128],
        "path": [*seed.paths, "/", "/guide/"],
        "prefix": ["/", "/guide", "/guide/", "/nope/"],
        "collection_id": [seed.collection_id, str(uuid.uuid4())],
        "collection_ids": [seed.collection_id, str(uuid.uuid4())],
        "attached_collection_ids": [seed.collection_id, str(uuid.uuid4())],
        "document_id": [seed.document_id, str(uuid.uuid4())],
        "agent_id": ["fuzz-agent", "a:b.c-d_e"],
        "key_id": [seed.key_id[:0] + "0" * 16],
        "query": ["hello", "aaaa", "(a+)+$", "a" * 500, "a" * 501],
        "command": COMMANDS,
        "dataset": ["/nonexistent", "/etc", "../../"],
        "split": ["train", "../train"],
    }


def _text(seed: Seed, name: str) -> st.SearchStrategy[str]:
    safe = st.characters(exclude_categories=("Cs",))  # lone surrogates cannot be encoded
    parts = [st.sampled_from(HOSTILE_STRINGS), st.text(alphabet=safe, max_size=300)]
    real = _field_values(seed).get(name)
    if real:
        parts.append(st.sampled_from(real))
    common = st.one_of(*parts)
    big = st.sampled_from(BIG_STRINGS)
    # Multi-megabyte strings are rare: one draw in twenty.
    return st.integers(0, 19).flatmap(lambda n: big if n == 0 else common)


_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}


def _scalar(seed: Seed, field: FieldDescriptor) -> st.SearchStrategy[Any]:
    t = field.type
    if t == FieldDescriptor.TYPE_STRING:
        return _text(seed, field.name)
    if t == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=256)
    if t == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(width=32 if t == FieldDescriptor.TYPE_FLOAT else 64)
    if t == FieldDescriptor.TYPE_ENUM:
        known = [v.number for v in field.enum_type.values]
        return st.one_of(st.sampled_from(known), st.integers(-(2**31), 2**31 - 1))
    low, high = _INT_RANGES[t]
    edges = [low, high, 0, 1, -1 if low < 0 else 2, 2**31 - 1, 2**31]
    return st.one_of(
        st.sampled_from([e for e in edges if low <= e <= high]), st.integers(low, high)
    )


def message_strategy(seed: Seed, cls: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for field in cls.DESCRIPTOR.fields:
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            sub = field.message_type
            if depth >= 2 or sub.full_name.startswith("google.protobuf."):
                continue
            if sub.GetOptions().map_entry:
                continue
            inner = message_strategy(seed, sub._concrete_class, depth + 1)
            if field.is_repeated:
                fields[field.name] = st.lists(inner, max_size=2)
            else:
                fields[field.name] = inner
            continue
        item = _scalar(seed, field)
        if field.is_repeated:
            fields[field.name] = st.lists(item, max_size=6)
        else:
            fields[field.name] = item

    def build(values: dict[str, Any]) -> Any:
        message = cls()
        for name, value in values.items():
            field = cls.DESCRIPTOR.fields_by_name[name]
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                if field.is_repeated:
                    getattr(message, name).extend(value)
                else:
                    getattr(message, name).CopyFrom(value)
            elif field.is_repeated:
                getattr(message, name).extend(value)
            else:
                setattr(message, name, value)
        return message

    return st.fixed_dictionaries({}, optional=fields).map(build)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def seed(harness: Harness) -> Seed:
    keys = await harness.keys("fuzz-org")
    pages = {
        "/guide/a.md": "# A\n\nalpha beta gamma\n\n" + BACKTRACK_LINE + "\n",
        "/guide/b.md": "# B\n\n" + "\n".join(f"line {i} aaaa" for i in range(500)),
        "/c.md": "# C\n\nunicode 𝔘 é \u202e\n",
    }
    await seed_pages(harness.pool, keys.org_id, "fuzzdocs", pages)
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    created = await stub.CreateCollection(
        knowledge_service_pb2.CreateCollectionRequest(name="fuzz"), metadata=bearer(keys.all)
    )
    cid = created.collection.collection_id

    async def upload():  # type: ignore[no-untyped-def]
        yield knowledge_service_pb2.UploadDocumentRequest(
            metadata=knowledge_service_pb2.UploadMetadata(
                collection_id=cid, file_name="note.txt", mime_type="text/plain"
            )
        )
        yield knowledge_service_pb2.UploadDocumentRequest(data=b"hello fuzz world\n")

    doc = await stub.UploadDocument(upload(), metadata=bearer(keys.all))
    return Seed(keys, "fuzzdocs", list(pages), cid, doc.document.document_id, "")


async def _call(harness: Harness, stub_cls: Any, name: str, request: Any, key: str) -> float:
    stub = stub_cls(harness.channel)
    started = time.monotonic()
    try:
        await getattr(stub, name)(request, metadata=bearer(key), timeout=CALL_TIMEOUT)
    except aio.AioRpcError as exc:
        _check_failure(exc)
    return time.monotonic() - started


def _check_failure(exc: aio.AioRpcError) -> None:
    if exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in (
        exc.details() or ""
    ):
        return  # the transport's own message bound: fine, not the server's doing
    typed_detail(exc)


async def _call_stream(
    harness: Harness,
    stub_cls: Any,
    name: str,
    requests: list[Any],
    key: str,
    client_streaming: bool,
    server_streaming: bool,
) -> float:
    stub = stub_cls(harness.channel)
    started = time.monotonic()
    method = getattr(stub, name)
    if client_streaming:
        # Written one by one, as a client does: a request iterator would keep sending after
        # the server has answered, and grpc then reports its own INTERNAL in place of the
        # server's status.
        call = method(metadata=bearer(key), timeout=CALL_TIMEOUT)
        try:
            for request in requests:
                await call.write(request)
                # Let a refusal arrive before the next write: writing to a call the server has
                # ended fails in the client, which then reports that instead of the answer.
                await asyncio.sleep(0.05)
                if call.done():
                    break
            else:
                await call.done_writing()
        except (aio.AioRpcError, asyncio.InvalidStateError):
            pass  # the server has already ended the call; its status is read below
    else:
        call = method(requests[0], metadata=bearer(key), timeout=CALL_TIMEOUT)

    async def drain() -> None:
        async for _ in call:
            pass

    try:
        if server_streaming:
            try:
                await asyncio.wait_for(drain(), STREAM_WINDOW_S)
            except TimeoutError:
                call.cancel()
        else:
            await call
    except aio.AioRpcError as exc:
        if not (client_streaming and _own_write_failed(exc)):
            _check_failure(exc)
    return time.monotonic() - started


def _own_write_failed(exc: aio.AioRpcError) -> bool:
    """The client's own write failed because the server had already ended the call (its
    refusal took longer than the pause between writes to arrive, as under CI's load): grpc then
    replaces the server's status with an INTERNAL of its own, made in the client and named by
    the failed send operation. That status is not the server's answer, so there is nothing to
    check."""
    return exc.code() == grpc.StatusCode.INTERNAL and "SendMessageOperation" in (
        exc.debug_error_string() or ""
    )


_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {}
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


async def _round_trip(channel: aio.Channel, seed: Seed) -> None:
    """A write then a read of fresh data (the fuzzer may have deleted the seeded rows)."""
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(channel)
    name = f"after-{uuid.uuid4().hex[:8]}"
    made = await stub.CreateCollection(
        knowledge_service_pb2.CreateCollectionRequest(name=name),
        metadata=bearer(seed.keys.all),
        timeout=10,
    )
    got = await stub.GetCollection(
        knowledge_service_pb2.GetCollectionRequest(collection_id=made.collection.collection_id),
        metadata=bearer(seed.keys.read),
        timeout=10,
    )
    assert got.collection.name == name


@pytest.mark.parametrize(("stub_cls", "name", "request_cls"), UNARY, ids=[u[1] for u in UNARY])
@FUZZ_SETTINGS
@given(data=st.data())
async def test_hostile_requests_get_typed_answers(
    harness: Harness,
    seed: Seed,
    input_counts: InputCounts,
    stub_cls: Any,
    name: str,
    request_cls: Any,
    data: st.DataObject,
) -> None:
    if name not in _STRATEGIES:
        _STRATEGIES[name] = message_strategy(seed, request_cls)
    request = data.draw(_STRATEGIES[name], label="request")
    key = data.draw(st.sampled_from(["all", "read", "all"]), label="key")
    input_counts.add(name)
    took = await _call(harness, stub_cls, name, request, getattr(seed.keys, key))
    assert took < SLOW_CALL_S, f"{name} took {took:.1f} s"
    if name == "SetKillSwitch" and request.engaged:
        await admin_service_pb2_grpc.AdminServiceStub(harness.channel).SetKillSwitch(
            admin_service_pb2.SetKillSwitchRequest(engaged=False), metadata=bearer(seed.keys.all)
        )


@pytest.mark.parametrize(
    ("stub_cls", "name", "request_cls", "client_streaming", "server_streaming"),
    STREAMING,
    ids=[m[1] for m in STREAMING],
)
@FUZZ_SETTINGS
@given(data=st.data())
async def test_hostile_streams_get_typed_answers(
    harness: Harness,
    seed: Seed,
    input_counts: InputCounts,
    stub_cls: Any,
    name: str,
    request_cls: Any,
    client_streaming: bool,
    server_streaming: bool,
    data: st.DataObject,
) -> None:
    """Streaming RPCs: a client stream of 0–4 hostile messages (a start/metadata message
    anywhere, repeated, or missing), or one hostile request to a server stream that is read
    briefly and cancelled. Same invariant as the unary calls."""
    if name not in _STRATEGIES:
        _STRATEGIES[name] = message_strategy(seed, request_cls)
    size = (0, 4) if client_streaming else (1, 1)
    requests = data.draw(
        st.lists(_STRATEGIES[name], min_size=size[0], max_size=size[1]), label="requests"
    )
    key = data.draw(st.sampled_from(["all", "read", "all"]), label="key")
    input_counts.add(name)
    took = await _call_stream(
        harness,
        stub_cls,
        name,
        requests,
        getattr(seed.keys, key),
        client_streaming,
        server_streaming,
    )
    assert took < SLOW_CALL_S, f"{name} took {took:.1f} s"


async def test_server_is_serving_after_the_fuzzing(harness: Harness, seed: Seed) -> None:
    await assert_serving(harness.channel)
    await _round_trip(harness.channel, seed)


async def test_backtracking_regexes_are_bounded(harness: Harness, seed: Seed) -> None:
    """Catastrophic patterns over a line built to trigger them finish well within the deadline."""
    stub = pages_service_pb2_grpc.PagesServiceStub(harness.channel)
    for command in COMMANDS[:4]:
        started = time.monotonic()
        reply = await stub.RunCommand(
            pages_service_pb2.RunCommandRequest(namespace=seed.namespace, command=command),
            metadata=bearer(seed.keys.read),
            timeout=CALL_TIMEOUT,
        )
        assert time.monotonic() - started < SLOW_CALL_S, command
        assert reply.result.schema_version == 1
    for pattern in ("(a+)+$", "(a|a)+$", "(x+x+)+y"):
        started = time.monotonic()
        try:
            await stub.GrepPages(
                pages_service_pb2.GrepPagesRequest(namespace=seed.namespace, query=pattern),
                metadata=bearer(seed.keys.read),
                timeout=CALL_TIMEOUT,
            )
        except aio.AioRpcError as exc:
            typed_detail(exc)
        assert time.monotonic() - started < SLOW_CALL_S, pattern


async def test_lone_surrogates_fail_in_the_client_and_leave_the_server_alone(
    harness: Harness, seed: Seed
) -> None:
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    with pytest.raises((UnicodeEncodeError, ValueError, aio.AioRpcError)) as info:
        request = knowledge_service_pb2.GetCollectionRequest(collection_id="\ud800x")
        await stub.GetCollection(request, metadata=bearer(seed.keys.read), timeout=10)
    if isinstance(info.value, aio.AioRpcError):
        # grpc reports a serialization failure locally; it never reached the server.
        assert "serializ" in (info.value.details() or "").lower(), info.value.details()
    await assert_serving(harness.channel)


async def test_oversized_message_is_refused_by_the_transport(harness: Harness, seed: Seed) -> None:
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    request = knowledge_service_pb2.SearchKnowledgeRequest(query="q" * (9 * 1024 * 1024))
    with pytest.raises(aio.AioRpcError) as info:
        await stub.SearchKnowledge(request, metadata=bearer(seed.keys.read), timeout=20)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    await assert_serving(harness.channel)


@pytest.mark.parametrize(
    "token",
    ["", "Bearer", "qk_", "qk__", "qk_ _x", "qk_" + "a" * 255, "qk_a_" + "%00" * 50, "Basic x"],
)
async def test_hostile_credentials_are_unauthenticated(harness: Harness, token: str) -> None:
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    with pytest.raises(aio.AioRpcError) as info:
        await stub.ListCollections(
            knowledge_service_pb2.ListCollectionsRequest(),
            metadata=(("authorization", f"Bearer {token}"),),
            timeout=10,
        )
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    typed_detail(info.value)


GARBAGE = [
    b"",
    b"\x00" * 64,
    os.urandom(4096),
    b"PRI * HTTP/2.0\r\n\r\nSM",  # truncated preface
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + os.urandom(512),  # preface, then noise
    # preface + a frame header claiming a 16 MiB DATA frame on stream 1, then close
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    + b"\xff\xff\xff\x00\x01\x00\x00\x00\x01",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(200),  # a TLS ClientHello
]


async def test_raw_garbage_on_the_wire_does_not_hurt_the_server(
    harness: Harness, seed: Seed
) -> None:
    port = harness.running.port  # type: ignore[attr-defined]
    for payload in GARBAGE:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        writer.write(payload)
        await writer.drain()
        with contextlib.suppress(TimeoutError, ConnectionError):
            await asyncio.wait_for(reader.read(65536), 0.5)
        writer.close()
        with contextlib.suppress(TimeoutError, ConnectionError):
            await asyncio.wait_for(writer.wait_closed(), 2)
    # Half-open connections parked on the port while real traffic continues.
    parked = []
    for _ in range(50):
        _reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        writer.write(b"PRI * HTTP/2.0\r\n")
        parked.append(writer)
    try:
        await assert_serving(harness.channel)
        fresh = aio.insecure_channel(harness.address)
        try:
            await _round_trip(fresh, seed)
        finally:
            await fresh.close(None)
    finally:
        for writer in parked:
            writer.close()


async def test_found_by_fuzzing_edges_are_typed(harness: Harness, seed: Seed) -> None:
    """Regressions: each of these was INTERNAL before (NUL into SQL text, int4 overflow)."""
    knowledge = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    pages = pages_service_pb2_grpc.PagesServiceStub(harness.channel)
    admin = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    key = bearer(seed.keys.all)
    read = await pages.ReadPage(
        pages_service_pb2.ReadPageRequest(namespace=seed.namespace, path="/c.md", offset=2**31 - 1),
        metadata=key,
        timeout=10,
    )
    assert read.page_read.content == "" and not read.page_read.truncated
    calls = [
        knowledge.GetAgent(knowledge_service_pb2.GetAgentRequest(agent_id="a\x00"), metadata=key),
        knowledge.SearchKnowledge(
            knowledge_service_pb2.SearchKnowledgeRequest(query="x", agent_id="a\x00"), metadata=key
        ),
        knowledge.ReadDocument(
            knowledge_service_pb2.ReadDocumentRequest(
                document_id=str(uuid.uuid4()), agent_id="\x00"
            ),
            metadata=key,
        ),
        knowledge.ReadDocument(
            knowledge_service_pb2.ReadDocumentRequest(
                document_id=seed.document_id,
                collection_ids=[seed.collection_id],
                offset=2**31 - 1,
            ),
            metadata=key,
        ),
        admin.RevokeApiKey(admin_service_pb2.RevokeApiKeyRequest(key_id="\x00"), metadata=key),
    ]
    for call in calls:
        try:
            await call
        except aio.AioRpcError as exc:
            typed_detail(exc)

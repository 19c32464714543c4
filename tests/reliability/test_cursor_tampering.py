"""List cursors are opaque and authenticated (issue 16, finding 4): a cursor the server did not
issue for this very listing — forged, edited, from another organisation, namespace, collection
or list — is INVALID_REQUEST naming `cursor`, never INTERNAL and never quietly reinterpreted.
Genuine cursors keep working across server processes on one database and across restarts, and
stop working once the server secret is rotated. Over real gRPC on loopback.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from grpc import aio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.v1 import errors_pb2, knowledge_service_pb2_grpc, pages_service_pb2_grpc
from quire.v1 import knowledge_service_pb2 as kn
from quire.v1 import pages_service_pb2 as pg
from tests.conftest import Harness, Keys, bearer
from tests.reliability._support import InputCounts, seed_pages, typed_detail

pytestmark = pytest.mark.asyncio(loop_scope="session")

EXAMPLES = int(os.environ.get("QUIRE_CURSOR_EXAMPLES", "100"))
NS = "docs"
PAGES = {f"/guide/{i:02}.md": f"# Page {i}\n\nbody {i}\n" for i in range(5)} | {"/z.md": "# Z\n"}
RPCS = ("ListDocuments", "ListPages")


@dataclass(frozen=True)
class World:
    a: Keys
    b: Keys
    version: int  # filesystem_version of NS, the same in both organisations
    collection: str
    other_collection: str
    document_ids: list[str]
    doc_cursor: str  # genuine: A's first ListDocuments page of `collection`, limit 1
    page_cursor: str  # genuine: A's first ListPages page of NS under "/", limit 1


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def old_format(body: object) -> str:
    """A cursor as main encoded them: base64url of JSON, nothing else."""
    return b64(json.dumps(body).encode())


def list_documents(
    h: Harness, keys: Keys, collection: str, cursor: str, limit: int = 1
) -> Awaitable[kn.ListDocumentsResponse]:
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(h.channel)
    request = kn.ListDocumentsRequest(collection_id=collection, cursor=cursor, limit=limit)
    return stub.ListDocuments(request, metadata=bearer(keys.read), timeout=10)  # type: ignore[no-any-return]


def list_pages(
    h: Harness, keys: Keys, cursor: str, namespace: str = NS, prefix: str = "/", limit: int = 1
) -> Awaitable[pg.ListPagesResponse]:
    stub = pages_service_pb2_grpc.PagesServiceStub(h.channel)
    request = pg.ListPagesRequest(namespace=namespace, prefix=prefix, cursor=cursor, limit=limit)
    return stub.ListPages(request, metadata=bearer(keys.read), timeout=10)  # type: ignore[no-any-return]


async def refused(counts: InputCounts, rpc: str, call: Awaitable[Any]) -> None:
    """The call fails with INVALID_REQUEST naming `cursor` (and nothing else)."""
    counts.add(rpc)
    with pytest.raises(aio.AioRpcError) as info:
        answer = await call
        raise AssertionError(f"{rpc} accepted the cursor: {answer}")
    detail = typed_detail(info.value)
    assert detail.code == errors_pb2.ERROR_CODE_INVALID_REQUEST, (rpc, info.value.details())
    assert [v.field for v in detail.field_violations] == ["cursor"], detail


async def _upload(h: Harness, keys: Keys, collection: str, name: str) -> str:
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(h.channel)

    async def parts() -> AsyncIterator[kn.UploadDocumentRequest]:
        yield kn.UploadDocumentRequest(
            metadata=kn.UploadMetadata(collection_id=collection, file_name=name)
        )
        yield kn.UploadDocumentRequest(data=f"text of {name}\n".encode())

    made = await stub.UploadDocument(parts(), metadata=bearer(keys.all), timeout=10)
    return made.document.document_id


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def world(harness: Harness) -> World:
    a, b = await harness.keys("cursor-a"), await harness.keys("cursor-b")
    for org in (a, b):
        await seed_pages(harness.pool, org.org_id, NS, PAGES)
    await seed_pages(harness.pool, a.org_id, "other", PAGES)
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    collections = []
    for name in ("first", "second"):
        made = await stub.CreateCollection(
            kn.CreateCollectionRequest(name=name), metadata=bearer(a.all), timeout=10
        )
        collections.append(made.collection.collection_id)
    ids = [await _upload(harness, a, c, f"{i}.txt") for c in collections for i in range(3)]
    docs = await list_documents(harness, a, collections[0], "")
    pages = await list_pages(harness, a, "")
    versions = {
        (await list_pages(harness, org, "", limit=200)).page_list.filesystem_version
        for org in (a, b)
    }
    assert len(versions) == 1, versions  # so a cross-organisation cursor is not just stale
    assert docs.next_cursor and pages.page_list.next_cursor
    return World(
        a,
        b,
        versions.pop(),
        collections[0],
        collections[1],
        ids,
        docs.next_cursor,
        pages.page_list.next_cursor,
    )


async def test_genuine_cursors_page_through_everything(harness: Harness, world: World) -> None:
    seen: list[str] = []
    cursor = ""
    while True:
        reply = await list_pages(harness, world.a, cursor, limit=2)
        seen.extend(p.path for p in reply.page_list.pages)
        if not (cursor := reply.page_list.next_cursor):
            break
    assert seen == sorted(PAGES)
    docs: list[str] = []
    while True:
        listed = await list_documents(harness, world.a, world.collection, cursor, limit=2)
        docs.extend(d.document_id for d in listed.documents)
        if not (cursor := listed.next_cursor):
            break
    assert sorted(docs) == sorted(world.document_ids[:3])


async def test_document_cursor_with_a_number_for_the_id(
    harness: Harness, world: World, input_counts: InputCounts
) -> None:
    """Was INTERNAL: AttributeError in ListCursor.decode."""
    forged = old_format({"t": "2024-01-01T00:00:00+00:00", "d": 5})
    await refused(
        input_counts, "ListDocuments", list_documents(harness, world.a, world.collection, forged)
    )


@pytest.mark.parametrize("rpc", ["ListDocuments", "ListPages"])
async def test_cursors_at_and_over_their_length_bound_are_refused(
    harness: Harness, world: World, input_counts: InputCounts, rpc: str
) -> None:
    """The bound (1,024 characters for ListDocuments, 4,096 for ListPages) and one over it:
    the same typed refusal, before any decoding."""
    bound = 1024 if rpc == "ListDocuments" else 4096
    for size in (bound, bound + 1):
        token = "A" * size
        call = (
            list_documents(harness, world.a, world.collection, token)
            if rpc == "ListDocuments"
            else list_pages(harness, world.a, token)
        )
        await refused(input_counts, rpc, call)


async def test_page_cursor_with_a_nul_byte(
    harness: Harness, world: World, input_counts: InputCounts
) -> None:
    """Was INTERNAL: the NUL reached PostgreSQL as text."""
    forged = old_format({"v": world.version, "a": "\u0000", "p": "/"})
    await refused(input_counts, "ListPages", list_pages(harness, world.a, forged))


@pytest.mark.parametrize(
    "body",
    [
        {"v": "VERSION", "a": ["z"], "p": "/"},  # a list where a path goes: quietly 0 pages
        {"v": "VERSION", "a": 5, "p": "/"},
        {"v": "VERSION", "a": "/guide/01.md", "p": "/"},  # well-typed but never issued
        {"v": True, "a": "", "p": "/"},
    ],
)
async def test_forged_page_cursors_in_the_old_format(
    harness: Harness, world: World, input_counts: InputCounts, body: dict[str, Any]
) -> None:
    body = {k: world.version if v == "VERSION" else v for k, v in body.items()}
    await refused(input_counts, "ListPages", list_pages(harness, world.a, old_format(body)))


async def test_forged_cursors_in_the_new_format_with_a_wrong_tag(
    harness: Harness, world: World, input_counts: InputCounts
) -> None:
    from quire.server.cursors import CursorCodec

    stranger = CursorCodec(os.urandom(32))  # the right format, another secret
    page_listing = ("ListPages", str(world.a.org_id), NS)
    forged_page = stranger.seal(page_listing, {"v": world.version, "a": "/guide/01.md", "p": "/"})
    await refused(input_counts, "ListPages", list_pages(harness, world.a, forged_page))
    doc_listing = ("ListDocuments", str(world.a.org_id), world.collection)
    forged_doc = stranger.seal(
        doc_listing, {"t": "2999-01-01T00:00:00+00:00", "d": world.document_ids[0]}
    )
    await refused(
        input_counts,
        "ListDocuments",
        list_documents(harness, world.a, world.collection, forged_doc),
    )
    # A genuine format byte and tag (the first 17 bytes) over another payload.
    raw = base64.urlsafe_b64decode(world.page_cursor + "=" * (-len(world.page_cursor) % 4))
    payload = json.dumps({"v": world.version, "a": "\u0000", "p": "/"}).encode()
    swapped = b64(raw[:17] + payload)
    await refused(input_counts, "ListPages", list_pages(harness, world.a, swapped))


def _edits(token: str) -> list[str]:
    """Every single-character substitution, truncations and extensions of a token."""
    alphabet = "AQgw_-09"
    out = {
        token[:i] + next(c for c in alphabet if c != token[i]) + token[i + 1 :]
        for i in range(len(token))
    }
    out |= {
        token[:-1],
        token[:-4],
        token[1:],
        token + "A",
        token + "AAAA",
        token + "=",
        token + "==",
    }
    out.discard(token)
    out.discard("")
    return sorted(out)


async def test_every_edit_of_a_genuine_cursor_is_refused(
    harness: Harness, world: World, input_counts: InputCounts
) -> None:
    for edited in _edits(world.page_cursor):
        await refused(input_counts, "ListPages", list_pages(harness, world.a, edited))
    for edited in _edits(world.doc_cursor):
        await refused(
            input_counts,
            "ListDocuments",
            list_documents(harness, world.a, world.collection, edited),
        )


async def test_a_cursor_is_bound_to_its_list(
    harness: Harness, world: World, input_counts: InputCounts
) -> None:
    """Another organisation, namespace, collection or list kind: refused, not reinterpreted."""
    checks: list[tuple[str, Awaitable[Any]]] = [
        ("ListPages", list_pages(harness, world.b, world.page_cursor)),  # same name and version
        ("ListPages", list_pages(harness, world.a, world.page_cursor, namespace="other")),
        ("ListPages", list_pages(harness, world.a, world.page_cursor, prefix="/guide/")),
        ("ListPages", list_pages(harness, world.a, world.doc_cursor)),
        (
            "ListDocuments",
            list_documents(harness, world.a, world.other_collection, world.doc_cursor),
        ),
        ("ListDocuments", list_documents(harness, world.a, world.collection, world.page_cursor)),
    ]
    for rpc, call in checks:
        await refused(input_counts, rpc, call)
    # The genuine ones still work where they were issued.
    assert (await list_pages(harness, world.a, world.page_cursor)).page_list.pages
    assert (await list_documents(harness, world.a, world.collection, world.doc_cursor)).documents


# --- Property test: random cursors on every cursor-taking RPC --------------------------------

_JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["\x00", "/", "/guide/01.md", "2024-01-01T00:00:00+00:00", "9999-99-99"]),
    st.uuids().map(str),
)
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


def _cursor_strategy(world: World, rpc: str) -> st.SearchStrategy[tuple[str, str]]:
    """(kind, cursor): random bytes or text; JSON in the old format, shaped like the RPC's real
    cursors (their keys, each value real or random) or not; the new format with a random tag;
    edits of genuine cursors."""
    real = {
        "t": st.sampled_from(["2024-01-01T00:00:00+00:00", "2999-12-31T23:59:59"]),
        "d": st.sampled_from(world.document_ids),
        "v": st.just(world.version),
        "a": st.sampled_from(["", *PAGES]),
        "p": st.just("/"),
    }
    keys = {"ListDocuments": ("t", "d"), "ListPages": ("v", "a", "p")}[rpc]
    shaped = st.fixed_dictionaries({key: st.one_of(real[key], _JSON) for key in keys})
    body = st.one_of(_JSON, shaped, shaped)
    genuine = st.sampled_from([world.doc_cursor, world.page_cursor])
    edited = st.tuples(genuine, st.integers(0, 10_000), st.sampled_from("AQgw_-0=.")).map(
        lambda t: t[0][: t[1] % len(t[0])] + t[2] + t[0][t[1] % len(t[0]) + 1 :]
    )
    return st.one_of(
        st.tuples(st.just("bytes"), st.binary(min_size=1, max_size=300).map(b64)),
        st.tuples(
            st.just("text"),
            st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=300),
        ),
        st.tuples(st.just("old-json"), body.map(old_format)),
        st.tuples(
            st.just("new-json"),
            st.tuples(st.binary(min_size=16, max_size=16), body).map(
                lambda t: b64(b"\x01" + t[0] + json.dumps(t[1]).encode())
            ),
        ),
        st.tuples(st.just("edited"), edited),
    ).filter(lambda kc: kc[1] not in ("", world.doc_cursor, world.page_cursor))


_STRATEGY: dict[str, st.SearchStrategy[tuple[str, str]]] = {}


@pytest.mark.parametrize("rpc", RPCS)
@settings(
    max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
@given(data=st.data())
async def test_random_cursors_are_invalid_request(
    harness: Harness, world: World, input_counts: InputCounts, rpc: str, data: st.DataObject
) -> None:
    if rpc not in _STRATEGY:
        _STRATEGY[rpc] = _cursor_strategy(world, rpc)
    _kind, cursor = data.draw(_STRATEGY[rpc], label="cursor")
    calls: dict[str, Callable[[], Awaitable[Any]]] = {
        "ListDocuments": lambda: list_documents(harness, world.a, world.collection, cursor),
        "ListPages": lambda: list_pages(harness, world.a, cursor),
    }
    await refused(input_counts, rpc, calls[rpc]())


# --- Restarts, several servers, rotation (last: it changes the module's secret) ---------------


async def _second_server(database_url: str) -> tuple[Any, Harness]:
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings

    settings_ = Settings(address="127.0.0.1:0", database_url=database_url, grace_seconds=1.0)
    pool = await prepare_database(database_url, settings_)
    running = await start(settings_, pool)
    address = f"127.0.0.1:{running.port}"
    return running, Harness(running, address, aio.insecure_channel(address), pool)


async def test_cursors_survive_restarts_and_hold_across_servers(
    harness: Harness, world: World, database_url: str
) -> None:
    running, other = await _second_server(database_url)
    try:
        for h, k in ((harness, other), (other, harness)):
            issued = await list_pages(h, world.a, "")
            assert (await list_pages(k, world.a, issued.page_list.next_cursor)).page_list.pages[
                0
            ].path == sorted(PAGES)[1]
            docs = await list_documents(h, world.a, world.collection, "")
            followed = await list_documents(k, world.a, world.collection, docs.next_cursor)
            assert followed.documents[0].document_id != docs.documents[0].document_id
    finally:
        await other.channel.close(None)
        await running.stop(grace=1.0)


async def test_rotating_the_secret_invalidates_cursors(
    harness: Harness, world: World, database_url: str, input_counts: InputCounts
) -> None:
    from quire.server import cursors

    async with harness.pool.acquire() as conn:
        before = await conn.fetchval(cursors.GET_SECRET, cursors.SECRET_NAME)
        await conn.execute("DELETE FROM server_secrets WHERE name = $1", cursors.SECRET_NAME)
    running, rotated = await _second_server(database_url)
    try:
        await refused(input_counts, "ListPages", list_pages(rotated, world.a, world.page_cursor))
        await refused(
            input_counts,
            "ListDocuments",
            list_documents(rotated, world.a, world.collection, world.doc_cursor),
        )
        fresh = await list_pages(rotated, world.a, "")
        assert (await list_pages(rotated, world.a, fresh.page_list.next_cursor)).page_list.pages
    finally:
        await rotated.channel.close(None)
        await running.stop(grace=1.0)
        async with harness.pool.acquire() as conn:
            await conn.execute(
                "UPDATE server_secrets SET secret = $2 WHERE name = $1",
                cursors.SECRET_NAME,
                before,
            )

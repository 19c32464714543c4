"""Tenants never see each other: every id-taking RPC, called with another organisation's ids,
answers exactly as it does for ids that never existed (NOT_FOUND family or empty) — no data, no
PERMISSION_DENIED, no existence oracle — and leaves the owner's data untouched. Keys are stored
hashed, and logs never carry a key secret or document text.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import grpc
import pytest
import pytest_asyncio
from grpc import aio

from quire.server.telemetry import JsonFormatter
from quire.v1 import (
    admin_service_pb2 as adm,
)
from quire.v1 import (
    admin_service_pb2_grpc,
    knowledge_service_pb2_grpc,
    pages_service_pb2_grpc,
    search_config_pb2,
)
from quire.v1 import (
    knowledge_service_pb2 as kn,
)
from quire.v1 import (
    pages_service_pb2 as pg,
)
from tests.conftest import Harness, Keys, bearer
from tests.reliability._support import seed_pages, typed_detail

pytestmark = pytest.mark.asyncio(loop_scope="session")

ORGS = ("tenant-a", "tenant-b", "tenant-c")
SHARED_NS = "docs"  # every tenant has a namespace of this name, with its own pages
NOT_FOUND_FAMILY = {grpc.StatusCode.NOT_FOUND}
# Answers that do not depend on the id at all (checked before any lookup), e.g. no model.
ID_INDEPENDENT = {grpc.StatusCode.UNAVAILABLE}


@dataclass(frozen=True)
class Tenant:
    name: str
    keys: Keys
    key_id: str
    collection_id: str
    document_id: str
    agent_id: str
    namespace: str
    path: str
    marker: str  # text that only this tenant's document and page contain


@pytest.fixture(scope="module")
def log_stream() -> Any:
    """Everything logged while this module runs, as the server's JSON lines."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


async def _make_tenant(harness: Harness, name: str) -> Tenant:
    from quire.indexer.worker import document_queries as worker_documents

    keys = await harness.keys(name)
    marker = f"zq{uuid.uuid4().hex[:12]}secret"
    key = bearer(keys.all)
    knowledge = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    made = await knowledge.CreateCollection(
        kn.CreateCollectionRequest(name="shared-name"), metadata=key
    )
    cid = made.collection.collection_id

    async def upload() -> AsyncIterator[kn.UploadDocumentRequest]:
        yield kn.UploadDocumentRequest(
            metadata=kn.UploadMetadata(collection_id=cid, file_name="report.txt")
        )
        yield kn.UploadDocumentRequest(data=f"quarterly report {marker}\n".encode())

    doc = (await knowledge.UploadDocument(upload(), metadata=key)).document
    async with harness.pool.acquire() as conn:  # stands in for the worker's extraction
        await worker_documents.store_text(
            conn, keys.org_id, uuid.UUID(doc.document_id), f"quarterly report {marker}", ""
        )
    agent = f"agent-{name}"
    await knowledge.UpsertAgent(
        kn.UpsertAgentRequest(agent_id=agent, attached_collection_ids=[cid]), metadata=key
    )
    await seed_pages(
        harness.pool,
        keys.org_id,
        SHARED_NS,
        {"/secret.md": f"# Secret\n\nonly {name} knows {marker}\n"},
    )
    await seed_pages(harness.pool, keys.org_id, f"ns-{name}", {"/own.md": f"# Own\n\n{marker}\n"})
    key_id = keys.read[len("qk_") :].split("_", 1)[0]
    return Tenant(name, keys, key_id, cid, doc.document_id, agent, f"ns-{name}", "/own.md", marker)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def tenants(harness: Harness, log_stream: Any) -> dict[str, Tenant]:
    return {name: await _make_tenant(harness, name) for name in ORGS}


def _ghost(victim: Tenant) -> Tenant:
    """The same shape of ids and names, none of which exist anywhere."""
    return replace(
        victim,
        key_id=uuid.uuid4().hex[:16],
        collection_id=str(uuid.uuid4()),
        document_id=str(uuid.uuid4()),
        agent_id=f"agent-ghost-{uuid.uuid4().hex[:6]}",
        namespace=f"ns-ghost-{uuid.uuid4().hex[:6]}",
    )


Call = Callable[[Any, Tenant, Any], Awaitable[Any]]


async def _first(stream: Any) -> Any:
    async for item in stream:
        return item
    return None


def _cases(channel: aio.Channel) -> dict[str, Call]:
    k = knowledge_service_pb2_grpc.KnowledgeServiceStub(channel)
    p = pages_service_pb2_grpc.PagesServiceStub(channel)
    a = admin_service_pb2_grpc.AdminServiceStub(channel)

    async def upload_into(key: Any, v: Tenant, _: Any) -> Any:
        async def parts() -> AsyncIterator[kn.UploadDocumentRequest]:
            yield kn.UploadDocumentRequest(
                metadata=kn.UploadMetadata(collection_id=v.collection_id, file_name="x.txt")
            )
            yield kn.UploadDocumentRequest(data=b"intruder")

        return await k.UploadDocument(parts(), metadata=key, timeout=10)

    async def replace_document(key: Any, v: Tenant, own: Tenant) -> Any:
        async def parts() -> AsyncIterator[kn.UploadDocumentRequest]:
            yield kn.UploadDocumentRequest(
                metadata=kn.UploadMetadata(
                    collection_id=own.collection_id, file_name="x.txt", document_id=v.document_id
                )
            )
            yield kn.UploadDocumentRequest(data=b"intruder")

        return await k.UploadDocument(parts(), metadata=key, timeout=10)

    t = {"timeout": 10}
    return {
        "GetCollection": lambda key, v, _: k.GetCollection(
            kn.GetCollectionRequest(collection_id=v.collection_id), metadata=key, **t
        ),
        "ListDocuments": lambda key, v, _: k.ListDocuments(
            kn.ListDocumentsRequest(collection_id=v.collection_id), metadata=key, **t
        ),
        "GetDocument": lambda key, v, _: k.GetDocument(
            kn.GetDocumentRequest(document_id=v.document_id), metadata=key, **t
        ),
        "ReadDocument.collection": lambda key, v, _: k.ReadDocument(
            kn.ReadDocumentRequest(document_id=v.document_id, collection_ids=[v.collection_id]),
            metadata=key,
            **t,
        ),
        "ReadDocument.own_scope": lambda key, v, own: k.ReadDocument(
            kn.ReadDocumentRequest(document_id=v.document_id, collection_ids=[own.collection_id]),
            metadata=key,
            **t,
        ),
        "ReadDocument.agent": lambda key, v, _: k.ReadDocument(
            kn.ReadDocumentRequest(document_id=v.document_id, agent_id=v.agent_id),
            metadata=key,
            **t,
        ),
        "SearchKnowledge.collection": lambda key, v, _: k.SearchKnowledge(
            kn.SearchKnowledgeRequest(query=f"report {v.marker}", collection_ids=[v.collection_id]),
            metadata=key,
            **t,
        ),
        "SearchKnowledge.agent": lambda key, v, _: k.SearchKnowledge(
            kn.SearchKnowledgeRequest(query=f"report {v.marker}", agent_id=v.agent_id),
            metadata=key,
            **t,
        ),
        "GetAgent": lambda key, v, _: k.GetAgent(
            kn.GetAgentRequest(agent_id=v.agent_id), metadata=key, **t
        ),
        "GetIndexStatus": lambda key, v, _: k.GetIndexStatus(
            kn.GetIndexStatusRequest(collection_id=v.collection_id), metadata=key, **t
        ),
        "WatchDocuments": lambda key, v, _: _first(
            k.WatchDocuments(
                kn.WatchDocumentsRequest(collection_id=v.collection_id), metadata=key, timeout=5
            )
        ),
        "WatchIndexStatus": lambda key, v, _: _first(
            k.WatchIndexStatus(
                kn.WatchIndexStatusRequest(collection_id=v.collection_id), metadata=key, timeout=5
            )
        ),
        "ReadPage": lambda key, v, _: p.ReadPage(
            pg.ReadPageRequest(namespace=v.namespace, path=v.path), metadata=key, **t
        ),
        "ListPages": lambda key, v, _: p.ListPages(
            pg.ListPagesRequest(namespace=v.namespace), metadata=key, **t
        ),
        "GrepPages": lambda key, v, _: p.GrepPages(
            pg.GrepPagesRequest(namespace=v.namespace, query=v.marker), metadata=key, **t
        ),
        "RunCommand": lambda key, v, _: p.RunCommand(
            pg.RunCommandRequest(namespace=v.namespace, command=f"grep -r {v.marker} /"),
            metadata=key,
            **t,
        ),
        "SearchPages": lambda key, v, _: p.SearchPages(
            pg.SearchPagesRequest(namespace=v.namespace, query=v.marker), metadata=key, **t
        ),
        "GetSyncReport": lambda key, v, _: p.GetSyncReport(
            pg.GetSyncReportRequest(namespace=v.namespace), metadata=key, **t
        ),
        # --- writes: must not touch the other tenant's rows ---
        "UpsertAgent.attach": lambda key, v, own: k.UpsertAgent(
            kn.UpsertAgentRequest(
                agent_id=f"thief-{own.name}", attached_collection_ids=[v.collection_id]
            ),
            metadata=key,
            **t,
        ),
        "UploadDocument.into": upload_into,
        "UploadDocument.replace": replace_document,
        "SetNamespaceSearchConfig": lambda key, v, _: a.SetNamespaceSearchConfig(
            adm.SetNamespaceSearchConfigRequest(
                namespace=v.namespace,
                config=search_config_pb2.PageSearchConfig(max_parallel_workers_per_gather=0),
            ),
            metadata=key,
            **t,
        ),
        "RebuildIndex": lambda key, v, _: a.RebuildIndex(
            adm.RebuildIndexRequest(collection_id=v.collection_id), metadata=key, **t
        ),
        "RollbackIndex": lambda key, v, _: a.RollbackIndex(
            adm.RollbackIndexRequest(collection_id=v.collection_id), metadata=key, **t
        ),
        "RevokeApiKey": lambda key, v, _: a.RevokeApiKey(
            adm.RevokeApiKeyRequest(key_id=v.key_id), metadata=key, **t
        ),
        "DeleteDocument": lambda key, v, _: k.DeleteDocument(
            kn.DeleteDocumentRequest(document_id=v.document_id), metadata=key, **t
        ),
        "DeleteCollection": lambda key, v, _: k.DeleteCollection(
            kn.DeleteCollectionRequest(collection_id=v.collection_id), metadata=key, **t
        ),
    }


async def _outcome(call: Awaitable[Any]) -> tuple[Any, ...]:
    try:
        reply = await call
    except aio.AioRpcError as exc:
        detail = typed_detail(exc)
        return ("error", exc.code(), detail.code, detail.message)
    return ("ok", reply)


CASES = list(_cases(aio.insecure_channel("127.0.0.1:1")))  # names only (channel unused)
# Writes that succeed must still leave the victim alone (UpsertAgent with no live ids, etc).
PAIRS = list(itertools.permutations(ORGS, 2))


@pytest.mark.parametrize("case", CASES)
async def test_other_tenants_ids_look_like_ids_that_never_existed(
    harness: Harness, tenants: dict[str, Tenant], case: str
) -> None:
    cases = _cases(harness.channel)
    for attacker_name, victim_name in PAIRS:
        attacker, victim = tenants[attacker_name], tenants[victim_name]
        key = bearer(attacker.keys.all)
        real = await _outcome(cases[case](key, victim, attacker))
        ghost = await _outcome(cases[case](key, _ghost(victim), attacker))
        where = f"{case}: {attacker_name} → {victim_name}: {real[:3]}"
        if os.environ.get("QUIRE_TENANCY_DEBUG"):
            print(where)
        if real[0] == "error":
            assert real[1] != grpc.StatusCode.PERMISSION_DENIED, where
            assert real[1] in NOT_FOUND_FAMILY | ID_INDEPENDENT, where
            assert ghost[0] == "error" and real[1:] == ghost[1:], f"{where} vs ghost {ghost[:3]}"
        else:
            text = str(real[1])
            for secret in (victim.marker, victim.collection_id, victim.document_id):
                assert secret not in text, f"{where} leaked {secret}"


async def test_victims_data_is_intact_after_the_attacks(
    harness: Harness, tenants: dict[str, Tenant]
) -> None:
    k = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    p = pages_service_pb2_grpc.PagesServiceStub(harness.channel)
    for t in tenants.values():
        key = bearer(t.keys.read)  # the read key was the one "revoked" by the others
        got = await k.GetCollection(
            kn.GetCollectionRequest(collection_id=t.collection_id), metadata=key
        )
        assert got.collection.document_count == 1
        doc = await k.GetDocument(kn.GetDocumentRequest(document_id=t.document_id), metadata=key)
        assert doc.document.file_name == "report.txt"
        agent = await k.GetAgent(kn.GetAgentRequest(agent_id=t.agent_id), metadata=key)
        assert list(agent.agent.attached_collection_ids) == [t.collection_id]
        read = await k.ReadDocument(
            kn.ReadDocumentRequest(document_id=t.document_id, agent_id=t.agent_id), metadata=key
        )
        assert t.marker in read.slice.text
        found = await k.SearchKnowledge(
            kn.SearchKnowledgeRequest(query="quarterly", agent_id=t.agent_id), metadata=key
        )
        assert [h.document_id for h in found.hits] == [t.document_id]
        # Same namespace name in every tenant: each reads only its own page.
        page = await p.ReadPage(
            pg.ReadPageRequest(namespace=SHARED_NS, path="/secret.md"), metadata=key
        )
        assert t.marker in page.page_read.content
        for other in tenants.values():
            if other is not t:
                assert other.marker not in page.page_read.content
        grep = await p.GrepPages(
            pg.GrepPagesRequest(namespace=SHARED_NS, query="knows"), metadata=key
        )
        assert grep.result.matches and all(t.marker in m.line for m in grep.result.matches)
        listed = await k.ListCollections(kn.ListCollectionsRequest(), metadata=key)
        assert [c.collection_id for c in listed.collections] == [t.collection_id]
        spaces = await p.ListNamespaces(pg.ListNamespacesRequest(), metadata=key)
        assert {n.name for n in spaces.namespaces} == {SHARED_NS, t.namespace}


async def test_api_keys_are_stored_hashed(harness: Harness, tenants: dict[str, Tenant]) -> None:
    async with harness.pool.acquire() as conn:
        rows = await conn.fetch("SELECT * FROM api_keys")
    dump = "\n".join(repr(dict(r)) for r in rows)
    hashes = {bytes(r["secret_sha256"]) for r in rows}
    for t in tenants.values():
        for token in (t.keys.read, t.keys.write, t.keys.admin, t.keys.tune, t.keys.all):
            secret = token.split("_", 2)[2]
            assert secret not in dump and token not in dump
            assert hashlib.sha256(token.encode()).digest() in hashes


async def test_logs_carry_no_key_secret_and_no_document_text(
    harness: Harness, tenants: dict[str, Tenant], log_stream: io.StringIO
) -> None:
    # Provoke the error paths too: a bad key, a failed upload, an unknown namespace.
    k = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    t = tenants["tenant-a"]
    with pytest.raises(aio.AioRpcError):
        await k.ListCollections(kn.ListCollectionsRequest(), metadata=bearer(t.keys.read + "x"))
    text = log_stream.getvalue()
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines, "the server logged nothing at DEBUG (is the handler attached?)"
    for line in lines:
        json.loads(line)  # one JSON object a line
    for other in tenants.values():
        assert other.marker not in text
        for token in (other.keys.read, other.keys.write, other.keys.admin, other.keys.all):
            assert token.split("_", 2)[2] not in text

"""The foundation over real gRPC and a real PostgreSQL: health, reflection, auth, errors."""

from __future__ import annotations

import asyncio
import json
import math

import asyncpg
import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from quire.client.exceptions import from_rpc_error, to_tool_error
from quire.client.rich_status import error_reasons
from quire.server.contract import bounds as B
from quire.server.services import admin, knowledge, pages
from quire.server.storage import migrations
from quire.server.storage.database import request_deadline, transaction
from quire.v1 import (
    admin_pb2,
    admin_service_pb2,
    admin_service_pb2_grpc,
    errors_pb2,
    knowledge_service_pb2,
    knowledge_service_pb2_grpc,
    search_config_pb2,
)
from tests.conftest import Harness, bearer

pytestmark = pytest.mark.asyncio(loop_scope="session")

NAME_CHARS = B.CreateCollectionRequest.name.max_chars or 0
KEY_NAME_CHARS = B.CreateApiKeyRequest.name.max_chars or 0
MOST_HITS = B.SetRetrievalPolicyRequest.max_search_limit.max or 0


async def expect_error(call: object, code: grpc.StatusCode) -> errors_pb2.ErrorDetail:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call  # type: ignore[misc]
    assert info.value.code() == code, info.value.details()
    err = from_rpc_error(info.value)
    return err.detail


async def test_health_serving(harness: Harness) -> None:
    stub = health_pb2_grpc.HealthStub(harness.channel)
    for service in ("", "quire.v1.PagesService", "quire.v1.AdminService"):
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_reflection_lists_the_three_services(harness: Harness) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(harness.channel)

    async def requests():  # type: ignore[no-untyped-def]
        yield reflection_pb2.ServerReflectionRequest(list_services="")

    names = set()
    async for reply in stub.ServerReflectionInfo(requests()):
        names |= {s.name for s in reply.list_services_response.service}
    assert {"quire.v1.PagesService", "quire.v1.KnowledgeService", "quire.v1.AdminService"} <= names


async def test_missing_and_unknown_keys_are_unauthenticated(harness: Harness) -> None:
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    request = knowledge_service_pb2.ListCollectionsRequest()
    detail = await expect_error(stub.ListCollections(request), grpc.StatusCode.UNAUTHENTICATED)
    assert detail.code == errors_pb2.ERROR_CODE_UNAUTHENTICATED
    for token in ("qk_nope_nope", "not-a-quire-key", "qk_" + "x" * 300, ""):
        await expect_error(
            stub.ListCollections(request, metadata=bearer(token)),
            grpc.StatusCode.UNAUTHENTICATED,
        )
    keys = await harness.keys("auth-org")
    forged = keys.read[:-4] + "AAAA"  # right key id, wrong secret
    await expect_error(
        stub.ListCollections(request, metadata=bearer(forged)), grpc.StatusCode.UNAUTHENTICATED
    )


async def test_scopes_are_enforced(harness: Harness) -> None:
    keys = await harness.keys("scope-org")
    admin_stub = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    knowledge_stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    detail = await expect_error(
        admin_stub.GetRetrievalPolicy(
            admin_service_pb2.GetRetrievalPolicyRequest(), metadata=bearer(keys.read)
        ),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    assert detail.code == errors_pb2.ERROR_CODE_PERMISSION_DENIED
    await expect_error(
        knowledge_stub.CreateCollection(
            knowledge_service_pb2.CreateCollectionRequest(name="x"), metadata=bearer(keys.read)
        ),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    # admin alone cannot read data; write can.
    await expect_error(
        knowledge_stub.ListCollections(
            knowledge_service_pb2.ListCollectionsRequest(), metadata=bearer(keys.admin)
        ),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    created = await knowledge_stub.CreateCollection(
        knowledge_service_pb2.CreateCollectionRequest(name="scoped"), metadata=bearer(keys.write)
    )
    assert created.collection.name == "scoped"
    policy = await admin_stub.GetRetrievalPolicy(
        admin_service_pb2.GetRetrievalPolicyRequest(), metadata=bearer(keys.admin)
    )
    assert policy.policy.max_search_limit == 8


async def test_other_organisation_sees_not_found(harness: Harness) -> None:
    mine = await harness.keys("org-a")
    theirs = await harness.keys("org-b")
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    created = await stub.CreateCollection(
        knowledge_service_pb2.CreateCollectionRequest(name="private"), metadata=bearer(mine.write)
    )
    cid = created.collection.collection_id
    own = await stub.GetCollection(
        knowledge_service_pb2.GetCollectionRequest(collection_id=cid), metadata=bearer(mine.read)
    )
    assert own.collection.collection_id == cid
    detail = await expect_error(
        stub.GetCollection(
            knowledge_service_pb2.GetCollectionRequest(collection_id=cid),
            metadata=bearer(theirs.read),
        ),
        grpc.StatusCode.NOT_FOUND,
    )
    assert detail.code == errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND
    # A malformed id is the same answer, not INVALID_ARGUMENT: no existence oracle.
    await expect_error(
        stub.GetCollection(
            knowledge_service_pb2.GetCollectionRequest(collection_id="../etc"),
            metadata=bearer(theirs.read),
        ),
        grpc.StatusCode.NOT_FOUND,
    )
    listed = await stub.ListCollections(
        knowledge_service_pb2.ListCollectionsRequest(), metadata=bearer(theirs.read)
    )
    assert cid not in {c.collection_id for c in listed.collections}


async def test_error_detail_and_error_info_are_decoded(harness: Harness) -> None:
    keys = await harness.keys("detail-org")
    stub = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.SetNamespaceSearchConfig(
            admin_service_pb2.SetNamespaceSearchConfigRequest(
                namespace="docs",
                config=search_config_pb2.PageSearchConfig(max_parallel_workers_per_gather=2000),
            ),
            metadata=bearer(keys.admin),
        )
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    reasons = error_reasons(info.value.trailing_metadata())
    assert "type.googleapis.com/quire.v1.ErrorDetail" in reasons
    assert "type.googleapis.com/google.rpc.ErrorInfo" in reasons
    err = from_rpc_error(info.value)
    assert type(err).__name__ == "InvalidRequest"
    assert err.field_violations[0][0] == "config.max_parallel_workers_per_gather"
    assert json.loads(to_tool_error(info.value)) == {
        "schema_version": 1,
        "error": "invalid_request",
        "message": "config.max_parallel_workers_per_gather: must be 0–1024",
        "field": "config.max_parallel_workers_per_gather",
    }


@pytest.mark.parametrize(
    ("config", "bad_field"),
    [
        (
            search_config_pb2.PageSearchConfig(max_parallel_workers_per_gather=1025),
            "max_parallel_workers_per_gather",
        ),
        (
            search_config_pb2.PageSearchConfig(max_parallel_workers_per_gather=-1),
            "max_parallel_workers_per_gather",
        ),
        (
            search_config_pb2.PageSearchConfig(min_parallel_table_scan_size=2_147_483_648),
            "min_parallel_table_scan_size",
        ),
        (
            search_config_pb2.PageSearchConfig(min_parallel_table_scan_size=-1),
            "min_parallel_table_scan_size",
        ),
        (search_config_pb2.PageSearchConfig(parallel_setup_cost=math.nan), "parallel_setup_cost"),
        (search_config_pb2.PageSearchConfig(parallel_tuple_cost=math.inf), "parallel_tuple_cost"),
        (search_config_pb2.PageSearchConfig(parallel_tuple_cost=-0.5), "parallel_tuple_cost"),
        (search_config_pb2.PageSearchConfig(plan_cache_mode="sometimes"), "plan_cache_mode"),
    ],
)
async def test_page_search_config_rejects_out_of_range(
    harness: Harness, config: search_config_pb2.PageSearchConfig, bad_field: str
) -> None:
    keys = await harness.keys("config-org")
    stub = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    detail = await expect_error(
        stub.SetNamespaceSearchConfig(
            admin_service_pb2.SetNamespaceSearchConfigRequest(namespace="docs", config=config),
            metadata=bearer(keys.admin),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert [v.field for v in detail.field_violations] == [f"config.{bad_field}"]


async def test_page_search_config_accepts_its_edges(harness: Harness) -> None:
    keys = await harness.keys("edge-org")
    async with harness.pool.acquire() as conn:
        await conn.execute("INSERT INTO namespaces (org_id, name) VALUES ($1, 'docs')", keys.org_id)
    stub = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    for config in (
        search_config_pb2.PageSearchConfig(
            max_parallel_workers_per_gather=1024,
            # PostgreSQL's maximum (INT_MAX / 3), below the contract's 2,147,483,647: the
            # server's own bound decides (tests/reliability/test_search_config_edges.py).
            min_parallel_table_scan_size=715_827_882,
            parallel_setup_cost=0.0,
            parallel_tuple_cost=0.0,
            plan_cache_mode="force_generic_plan",
            enable_seqscan=False,
        ),
        search_config_pb2.PageSearchConfig(
            max_parallel_workers_per_gather=0, min_parallel_table_scan_size=0
        ),
    ):
        reply = await stub.SetNamespaceSearchConfig(
            admin_service_pb2.SetNamespaceSearchConfigRequest(namespace="docs", config=config),
            metadata=bearer(keys.admin),
        )
        assert reply.config == config
    # Valid config, unknown namespace: NOT_FOUND.
    await expect_error(
        stub.SetNamespaceSearchConfig(
            admin_service_pb2.SetNamespaceSearchConfigRequest(namespace="nope"),
            metadata=bearer(keys.admin),
        ),
        grpc.StatusCode.NOT_FOUND,
    )
    async with harness.pool.acquire() as conn:
        audited = await conn.fetchval(
            "SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = $2",
            keys.org_id,
            "set_namespace_search_config",
        )
    assert audited == 2


async def test_oversize_message_is_resource_exhausted(harness: Harness) -> None:
    keys = await harness.keys("size-org")
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    limit = harness.running.state.settings.max_message_bytes  # type: ignore[attr-defined]
    await expect_error(
        stub.CreateCollection(
            knowledge_service_pb2.CreateCollectionRequest(name="x" * (limit + 1)),
            metadata=bearer(keys.write),
        ),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )
    # Just under the limit is accepted by transport and rejected by the field's own bound.
    await expect_error(
        stub.CreateCollection(
            knowledge_service_pb2.CreateCollectionRequest(name="x" * (limit - 64)),
            metadata=bearer(keys.write),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )


async def test_collection_name_bounds(harness: Harness) -> None:
    keys = await harness.keys("name-org")
    stub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    ok = await stub.CreateCollection(
        knowledge_service_pb2.CreateCollectionRequest(name="n" * NAME_CHARS),
        metadata=bearer(keys.write),
    )
    assert len(ok.collection.name) == NAME_CHARS
    for name in ("n" * (NAME_CHARS + 1), "", "   ", "a\x00b"):
        detail = await expect_error(
            stub.CreateCollection(
                knowledge_service_pb2.CreateCollectionRequest(name=name),
                metadata=bearer(keys.write),
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        assert detail.field_violations[0].field == "name"
    await expect_error(
        stub.CreateCollection(
            knowledge_service_pb2.CreateCollectionRequest(name="n" * 200),
            metadata=bearer(keys.write),
        ),
        grpc.StatusCode.ALREADY_EXISTS,
    )


async def test_api_keys_can_be_created_and_revoked(harness: Harness) -> None:
    keys = await harness.keys("key-org")
    stub = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    made = await stub.CreateApiKey(
        admin_service_pb2.CreateApiKeyRequest(scopes=[admin_pb2.SCOPE_READ]),
        metadata=bearer(keys.admin),
    )
    secret = made.key.secret
    async with harness.pool.acquire() as conn:
        stored = await conn.fetchval(
            "SELECT secret_sha256 FROM api_keys WHERE key_id = $1", made.key.key_id
        )
    assert secret.encode() not in bytes(stored)  # only the hash is kept
    kstub = knowledge_service_pb2_grpc.KnowledgeServiceStub(harness.channel)
    await kstub.ListCollections(
        knowledge_service_pb2.ListCollectionsRequest(), metadata=bearer(secret)
    )
    await stub.RevokeApiKey(
        admin_service_pb2.RevokeApiKeyRequest(key_id=made.key.key_id), metadata=bearer(keys.admin)
    )
    await expect_error(
        kstub.ListCollections(
            knowledge_service_pb2.ListCollectionsRequest(), metadata=bearer(secret)
        ),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    # Another organisation's key id is NOT_FOUND, not PERMISSION_DENIED.
    other = await harness.keys("key-org-2")
    await expect_error(
        stub.RevokeApiKey(
            admin_service_pb2.RevokeApiKeyRequest(key_id=made.key.key_id),
            metadata=bearer(other.admin),
        ),
        grpc.StatusCode.NOT_FOUND,
    )


async def test_api_keys_are_listed_without_secrets_and_whoami_names_the_caller(
    harness: Harness,
) -> None:
    keys = await harness.keys("list-key-org")
    stub = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    made = await stub.CreateApiKey(
        admin_service_pb2.CreateApiKeyRequest(
            scopes=[admin_pb2.SCOPE_WRITE, admin_pb2.SCOPE_READ], name="ci runner"
        ),
        metadata=bearer(keys.admin),
    )
    assert made.key.name == "ci runner" and made.key.HasField("created_at")
    assert not made.key.HasField("last_used_at")
    # WhoAmI needs scope read only, and a use of the key is recorded as its last use.
    me = await stub.WhoAmI(admin_service_pb2.WhoAmIRequest(), metadata=bearer(made.key.secret))
    assert me.organisation == "list-key-org"
    assert me.key.key_id == made.key.key_id and me.key.name == "ci runner"
    assert list(me.key.scopes) == [admin_pb2.SCOPE_READ, admin_pb2.SCOPE_WRITE]
    assert me.key.secret == "" and me.key.HasField("last_used_at")
    assert me.policy.max_search_limit == 8 and me.max_concurrent_calls > 0

    listed = await stub.ListApiKeys(
        admin_service_pb2.ListApiKeysRequest(), metadata=bearer(keys.admin)
    )
    assert not listed.truncated
    assert listed.keys[0].key_id == made.key.key_id  # newest first
    assert len(listed.keys) == 6  # the harness's five and the new one
    assert all(k.secret == "" for k in listed.keys)
    secrets = [keys.read, keys.write, keys.admin, keys.tune, keys.all, made.key.secret]
    assert not any(s in str(listed) for s in secrets)
    by_id = {k.key_id: k for k in listed.keys}
    assert by_id[made.key.key_id].HasField("last_used_at")
    assert list(by_id[made.key.key_id].scopes) == [admin_pb2.SCOPE_READ, admin_pb2.SCOPE_WRITE]

    # Listing needs admin; another organisation sees none of these keys; a revoked key goes.
    await expect_error(
        stub.ListApiKeys(admin_service_pb2.ListApiKeysRequest(), metadata=bearer(keys.read)),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    other = await harness.keys("list-key-org-2")
    theirs = await stub.ListApiKeys(
        admin_service_pb2.ListApiKeysRequest(), metadata=bearer(other.admin)
    )
    assert made.key.key_id not in {k.key_id for k in theirs.keys}
    await stub.RevokeApiKey(
        admin_service_pb2.RevokeApiKeyRequest(key_id=made.key.key_id), metadata=bearer(keys.admin)
    )
    after = await stub.ListApiKeys(
        admin_service_pb2.ListApiKeysRequest(), metadata=bearer(keys.admin)
    )
    assert made.key.key_id not in {k.key_id for k in after.keys} and len(after.keys) == 5
    detail = await expect_error(
        stub.CreateApiKey(
            admin_service_pb2.CreateApiKeyRequest(
                scopes=[admin_pb2.SCOPE_READ], name="n" * (KEY_NAME_CHARS + 1)
            ),
            metadata=bearer(keys.admin),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert detail.field_violations[0].field == "name"


async def test_kill_switch_forces_legacy(harness: Harness) -> None:
    keys = await harness.keys("mode-org")
    stub = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    from quire.v1 import knowledge_pb2

    reply = await stub.SetRetrievalPolicy(
        admin_service_pb2.SetRetrievalPolicyRequest(
            mode=knowledge_pb2.RETRIEVAL_MODE_HYBRID, max_search_limit=MOST_HITS
        ),
        metadata=bearer(keys.admin),
    )
    assert reply.policy.effective_mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID
    assert reply.policy.max_search_limit == MOST_HITS
    await expect_error(
        stub.SetRetrievalPolicy(
            admin_service_pb2.SetRetrievalPolicyRequest(max_search_limit=MOST_HITS + 1),
            metadata=bearer(keys.admin),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    engaged = await stub.SetKillSwitch(
        admin_service_pb2.SetKillSwitchRequest(engaged=True), metadata=bearer(keys.admin)
    )
    assert engaged.policy.effective_mode == knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS
    assert engaged.policy.mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID
    released = await stub.SetKillSwitch(
        admin_service_pb2.SetKillSwitchRequest(engaged=False), metadata=bearer(keys.admin)
    )
    assert released.policy.effective_mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID


async def test_every_rpc_has_a_handler_of_its_own() -> None:
    """Each servicer defines every RPC of its service itself, so none falls back to the
    generated base class's bare UNIMPLEMENTED."""
    for module in (pages, knowledge, admin):
        servicer = next(
            cls
            for cls in vars(module).values()
            if isinstance(cls, type) and cls.__name__ == module.SERVICE.name
        )
        missing = [m.name for m in module.SERVICE.methods if m.name not in vars(servicer)]
        assert missing == [], f"{module.SERVICE.name} lacks {missing}"


async def test_migrations_rerun_and_concurrent_starts(database_url: str) -> None:
    conns = [await asyncpg.connect(database_url) for _ in range(3)]
    try:
        results = await asyncio.gather(*(migrations.migrate(c) for c in conns))
        assert all(r == [] for r in results)  # the harness already applied everything
        versions = await conns[0].fetch("SELECT version FROM schema_migrations ORDER BY 1")
        assert [r["version"] for r in versions] == [m.version for m in migrations.available()]
    finally:
        for c in conns:
            await c.close()


@pytest.mark.slow  # 2 s under load (`make test-fast` leaves it out)
async def test_concurrent_migrations_on_an_empty_database(postgres_url: str) -> None:
    admin_conn = await asyncpg.connect(postgres_url)
    await admin_conn.execute('CREATE DATABASE "t_concurrent_migrate"')
    try:
        from tests.conftest import _with_database

        url = _with_database(postgres_url, "t_concurrent_migrate")
        conns = [await asyncpg.connect(url) for _ in range(3)]
        try:
            results = await asyncio.gather(*(migrations.migrate(c) for c in conns))
            applied = sorted(v for r in results for v in r)
            assert applied == [m.version for m in migrations.available()]  # exactly once
        finally:
            for c in conns:
                await c.close()
    finally:
        await admin_conn.execute('DROP DATABASE "t_concurrent_migrate" WITH (FORCE)')
        await admin_conn.close()


async def test_transaction_settings_do_not_leak_into_the_pool(database_url: str) -> None:
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
    try:
        baseline = await pool.fetchval("SHOW max_parallel_workers_per_gather")
        async with transaction(
            pool, settings={"max_parallel_workers_per_gather": "7", "enable_seqscan": "off"}
        ) as conn:
            assert await conn.fetchval("SHOW max_parallel_workers_per_gather") == "7"
            assert await conn.fetchval("SHOW enable_seqscan") == "off"
        # Same (only) connection, next user: back to the database setting.
        assert await pool.fetchval("SHOW max_parallel_workers_per_gather") == baseline
        assert await pool.fetchval("SHOW enable_seqscan") == "on"
    finally:
        await pool.close()


async def test_deadline_becomes_statement_timeout(database_url: str) -> None:
    import time

    from quire.server.failures import status_for

    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
    try:
        token = request_deadline.set(time.monotonic() + 0.2)
        try:
            started = time.monotonic()
            with pytest.raises(asyncpg.QueryCanceledError) as info:
                async with transaction(pool) as conn:
                    await conn.execute("SELECT pg_sleep(5)")
            assert time.monotonic() - started < 2
            assert status_for(info.value).grpc_code == grpc.StatusCode.DEADLINE_EXCEEDED
        finally:
            request_deadline.reset(token)
        assert await pool.fetchval("SHOW statement_timeout") == "0"
    finally:
        await pool.close()

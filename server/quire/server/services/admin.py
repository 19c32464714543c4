"""AdminService: retrieval policy, kill switch, planner settings, keys. Every call is audited."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from google.protobuf import json_format
from grpc import aio

from quire.indexer import api as indexer
from quire.server import auth, models
from quire.server.auth import Scope
from quire.server.contract import SCHEMA_VERSION
from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError, invalid
from quire.server.gate import catalogue, dataset, runner
from quire.server.knowledge import search, shadow
from quire.server.knowledge.index_status import index_status
from quire.server.knowledge.policy import load_policy
from quire.server.retrieval import search_config
from quire.server.rpc import principal
from quire.server.services.base import drain_while_running
from quire.server.state import AppState
from quire.server.storage.database import transaction
from quire.server.storage.timestamps import timestamp
from quire.server.validation import clean_text, name_field, number, parse_uuid, text
from quire.v1 import admin_pb2, admin_service_pb2, admin_service_pb2_grpc, errors_pb2, knowledge_pb2

AUDIT = "INSERT INTO audit_log (org_id, key_id, action, details) VALUES ($1, $2, $3, $4)"
SET_POLICY = """
UPDATE organisations
SET retrieval_mode = CASE WHEN $4 THEN $2 ELSE coalesce($2, retrieval_mode) END,
    max_search_limit = coalesce($3, CASE WHEN $4 THEN 8 ELSE max_search_limit END)
WHERE org_id = $1
"""
SET_KILL_SWITCH = """
INSERT INTO deployment_settings (name, value) VALUES ('kill_switch', to_jsonb($1::boolean))
ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
"""
# NO KEY UPDATE: a rollback must not wait for uploads, which hold KEY SHARE on the row
# (the indexer's generations.LOCK_COLLECTION).
LOCK_COLLECTION = """
SELECT serving_generation, embedding_model FROM collections
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL FOR NO KEY UPDATE
"""
COLLECTION_NOT_FOUND = QuireError(
    errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND, "Collection not found"
)
SET_NAMESPACE_CONFIG = """
UPDATE namespaces SET search_config = $3::jsonb WHERE org_id = $1 AND name = $2 RETURNING name
"""

LIST_KEYS = """
SELECT key_id, name, scopes, created_at, last_used_at FROM api_keys
WHERE org_id = $1 AND revoked_at IS NULL
ORDER BY created_at DESC, key_id LIMIT $2
"""
LISTED_KEYS = 1000
CALLER = """
SELECT o.name AS organisation, k.key_id, k.name, k.scopes, k.created_at, k.last_used_at
FROM api_keys k JOIN organisations o USING (org_id)
WHERE k.org_id = $1 AND k.key_id = $2
"""

_SCOPE_NAMES = {
    admin_pb2.SCOPE_READ: Scope.READ,
    admin_pb2.SCOPE_WRITE: Scope.WRITE,
    admin_pb2.SCOPE_ADMIN: Scope.ADMIN,
    admin_pb2.SCOPE_TUNE: Scope.TUNE,
}


_SCOPE_VALUES = {name: value for value, name in _SCOPE_NAMES.items()}


def key_message(row: Any) -> admin_pb2.ApiKey:
    """A stored key as ApiKey, without its secret (which is never stored)."""
    key = admin_pb2.ApiKey(
        schema_version=SCHEMA_VERSION,
        key_id=row["key_id"],
        name=row["name"],
        scopes=sorted(_SCOPE_VALUES[Scope(s)] for s in row["scopes"]),
    )
    key.created_at.CopyFrom(timestamp(row["created_at"]))
    if row["last_used_at"] is not None:
        key.last_used_at.CopyFrom(timestamp(row["last_used_at"]))
    return key


class AdminService(admin_service_pb2_grpc.AdminServiceServicer):
    def __init__(self, state: AppState) -> None:
        self.state = state

    async def _audit(self, conn: Any, action: str, details: dict[str, Any]) -> None:
        who = principal()
        await conn.execute(AUDIT, who.org_id, who.key_id, action, json.dumps(details))

    async def SetRetrievalPolicy(
        self,
        request: admin_service_pb2.SetRetrievalPolicyRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.SetRetrievalPolicyResponse:
        if request.mode not in knowledge_pb2.RetrievalMode.values():
            raise invalid("mode", "unknown retrieval mode")
        bounds = contract_bounds.SetRetrievalPolicyRequest.max_search_limit
        low, high = number(bounds.min), number(bounds.max)
        if request.max_search_limit and not low <= request.max_search_limit <= high:
            raise invalid("max_search_limit", f"must be {low}–{high} (0 leaves it unchanged)")
        who = principal()
        async with transaction(self.state.pool) as conn:
            await conn.execute(
                SET_POLICY,
                who.org_id,
                request.mode or None,
                request.max_search_limit or None,
                request.reset,
            )
            await self._audit(
                conn,
                "set_retrieval_policy",
                {
                    "mode": request.mode,
                    "max_search_limit": request.max_search_limit,
                    "reset": request.reset,
                },
            )
            policy = await load_policy(conn, who.org_id, self.state)
        self.state.search_limits.forget(who.org_id)  # DescribeTools states the new bound
        return admin_service_pb2.SetRetrievalPolicyResponse(policy=policy)

    async def GetRetrievalPolicy(
        self,
        request: admin_service_pb2.GetRetrievalPolicyRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.GetRetrievalPolicyResponse:
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            policy = await load_policy(conn, principal().org_id, self.state)
        return admin_service_pb2.GetRetrievalPolicyResponse(policy=policy)

    async def SetKillSwitch(
        self,
        request: admin_service_pb2.SetKillSwitchRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.SetKillSwitchResponse:
        async with transaction(self.state.pool) as conn:
            await conn.execute(SET_KILL_SWITCH, request.engaged)
            await self._audit(conn, "set_kill_switch", {"engaged": request.engaged})
            policy = await load_policy(conn, principal().org_id, self.state)
        return admin_service_pb2.SetKillSwitchResponse(policy=policy)

    async def SetNamespaceSearchConfig(
        self,
        request: admin_service_pb2.SetNamespaceSearchConfigRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.SetNamespaceSearchConfigResponse:
        name_field("namespace", request.namespace)
        search_config.validate(request.config)
        who = principal()
        body = json_format.MessageToJson(request.config, preserving_proto_field_name=True)
        async with transaction(self.state.pool) as conn:
            # PostgreSQL's own bounds too: a value it refuses would fail every search.
            search_config.validate(request.config, limits=await search_config.server_limits(conn))
            found = await conn.fetchval(SET_NAMESPACE_CONFIG, who.org_id, request.namespace, body)
            if found is None:
                raise QuireError(errors_pb2.ERROR_CODE_NOT_FOUND, "Namespace not found")
            await self._audit(conn, "set_namespace_search_config", {"namespace": request.namespace})
        return admin_service_pb2.SetNamespaceSearchConfigResponse(
            schema_version=SCHEMA_VERSION, namespace=request.namespace, config=request.config
        )

    async def CreateApiKey(
        self,
        request: admin_service_pb2.CreateApiKeyRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.CreateApiKeyResponse:
        if not request.scopes or any(s not in _SCOPE_NAMES for s in request.scopes):
            raise invalid(
                "scopes", "one or more of SCOPE_READ, SCOPE_WRITE, SCOPE_ADMIN, SCOPE_TUNE"
            )
        scopes = frozenset(_SCOPE_NAMES[s] for s in request.scopes)
        longest = number(contract_bounds.CreateApiKeyRequest.name.max_chars)
        name = clean_text("name", request.name, max_chars=longest, allow_empty=True)
        who = principal()
        async with transaction(self.state.pool) as conn:
            key = await auth.create_key(conn, who.org_id, scopes, name)
            await self._audit(
                conn,
                "create_api_key",
                {"key_id": key.key_id, "scopes": sorted(scopes), "name": name},
            )
            row = await conn.fetchrow(CALLER, who.org_id, key.key_id)
        made = key_message(row)
        made.secret = key.secret
        return admin_service_pb2.CreateApiKeyResponse(key=made)

    async def RevokeApiKey(
        self,
        request: admin_service_pb2.RevokeApiKeyRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.RevokeApiKeyResponse:
        who = principal()
        longest = number(contract_bounds.RevokeApiKeyRequest.key_id.max_chars)
        if len(request.key_id) > longest or "\x00" in request.key_id:  # cannot exist
            raise QuireError(errors_pb2.ERROR_CODE_NOT_FOUND, "API key not found")
        async with transaction(self.state.pool) as conn:
            if not await auth.revoke_key(conn, who.org_id, request.key_id):
                raise QuireError(errors_pb2.ERROR_CODE_NOT_FOUND, "API key not found")
            await self._audit(conn, "revoke_api_key", {"key_id": request.key_id})
        self.state.verifier.forget()
        return admin_service_pb2.RevokeApiKeyResponse(
            schema_version=SCHEMA_VERSION, key_id=request.key_id
        )

    async def ListApiKeys(
        self,
        request: admin_service_pb2.ListApiKeysRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.ListApiKeysResponse:
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            rows = await conn.fetch(LIST_KEYS, principal().org_id, LISTED_KEYS + 1)
        return admin_service_pb2.ListApiKeysResponse(
            schema_version=SCHEMA_VERSION,
            keys=[key_message(r) for r in rows[:LISTED_KEYS]],
            truncated=len(rows) > LISTED_KEYS,
        )

    async def WhoAmI(
        self,
        request: admin_service_pb2.WhoAmIRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.WhoAmIResponse:
        who = principal()
        # The primary: the key was just verified there, and a replica may not have it yet.
        async with transaction(self.state.pool, readonly=True) as conn:
            row = await conn.fetchrow(CALLER, who.org_id, who.key_id)
            policy = await load_policy(conn, who.org_id, self.state)
        if row is None:  # revoked since the key was cached: as if it had been refused
            raise auth.unauthenticated()
        return admin_service_pb2.WhoAmIResponse(
            schema_version=SCHEMA_VERSION,
            organisation=row["organisation"],
            key=key_message(row),
            policy=policy,
            max_concurrent_calls=self.state.settings.org_concurrency,
        )

    # --- index generations ------------------------------------------------------------------

    async def RebuildIndex(
        self,
        request: admin_service_pb2.RebuildIndexRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.RebuildIndexResponse:
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        bounds = contract_bounds.RebuildIndexRequest
        if request.index_version:
            longest = number(bounds.index_version.max_chars)
            clean_text("index_version", request.index_version, max_chars=longest)
        longest = number(bounds.embedding_model.max_chars)
        requested = clean_text(
            "embedding_model", request.embedding_model, max_chars=longest, allow_empty=True
        ).strip()
        if requested:  # refused before anything is read or created: unknown, or not loaded
            models.choose(requested, self.state.models)
        who = principal()
        async with transaction(self.state.pool) as conn:
            row = await conn.fetchrow(LOCK_COLLECTION, who.org_id, collection_id)
            if row is None:
                raise COLLECTION_NOT_FOUND
            # Empty keeps the serving generation's model (the collection's, kept with it).
            model = requested or row["embedding_model"]
            build = await indexer.start_rebuild(
                conn,
                who.org_id,
                collection_id,
                serving_generation=row["serving_generation"],
                embedding_model=model,
                embedder_fingerprint=self.state.embeddings_for(model).fingerprint,
                index_version=request.index_version,
            )
            if requested and build.embedding_model != requested:
                raise QuireError(
                    errors_pb2.ERROR_CODE_ALREADY_EXISTS,
                    f"Generation {build.generation} is already being built with the embedding "
                    f"model {build.embedding_model}; wait until it serves (or fails), then "
                    f"rebuild with {requested}",
                )
            await self._audit(
                conn,
                "rebuild_index",
                {
                    "collection_id": str(collection_id),
                    "index_version": request.index_version,
                    "embedding_model": model,
                },
            )
            status = await index_status(conn, who.org_id, collection_id)
        return admin_service_pb2.RebuildIndexResponse(status=status)

    async def RollbackIndex(
        self,
        request: admin_service_pb2.RollbackIndexRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.RollbackIndexResponse:
        collection_id = parse_uuid(request.collection_id, COLLECTION_NOT_FOUND)
        who = principal()
        async with transaction(self.state.pool) as conn:
            row = await conn.fetchrow(LOCK_COLLECTION, who.org_id, collection_id)
            if row is None:
                raise COLLECTION_NOT_FOUND
            current = row["serving_generation"]
            target = await indexer.rollback_target(conn, who.org_id, collection_id, current)
            if target is None:
                raise QuireError(
                    errors_pb2.ERROR_CODE_NOT_FOUND, "No earlier generation to roll back to"
                )
            previous, model = target
            # Its queries would be embedded with that model: refused (nothing changed) where
            # this server has not loaded it, naming the command that does (the default model
            # is always accepted, as for CreateCollection).
            if model != models.DEFAULT_MODEL and self.state.models.get(model) is None:
                raise models.unavailable(model)
            await indexer.roll_back(conn, who.org_id, collection_id, current, previous)
            await self._audit(
                conn,
                "rollback_index",
                {"collection_id": str(collection_id), "from": current, "to": previous},
            )
            status = await index_status(conn, who.org_id, collection_id)
        return admin_service_pb2.RollbackIndexResponse(status=status)

    # --- gate and shadow --------------------------------------------------------------------

    def _fingerprint(self) -> str:
        return search.serving_fingerprint(self.state.require_embeddings().fingerprint)

    async def RunGate(
        self,
        request: admin_service_pb2.RunGateRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[admin_service_pb2.RunGateResponse]:
        root = await asyncio.to_thread(
            catalogue.locate, self.state.settings.gate_datasets, request.dataset
        )
        split_bounds = contract_bounds.RunGateRequest.split
        split = name_field("split", request.split or text(split_bounds.default), split_bounds)
        fp = self._fingerprint()
        data = await asyncio.to_thread(
            dataset.load,
            root,
            split,
            max_documents=request.max_documents,
            max_queries=request.max_queries,
            name=request.dataset,
        )
        who = principal()
        async with transaction(self.state.pool) as conn:
            await self._audit(
                conn, "run_gate", {"dataset": request.dataset, "split": split, "fingerprint": fp}
            )
        out: asyncio.Queue[admin_pb2.GateProgress] = asyncio.Queue()

        async def progress(stage: str, done: int, total: int) -> None:
            out.put_nowait(admin_pb2.GateProgress(stage=stage, done=done, total=total))

        task = asyncio.create_task(
            runner.run_gate(
                self.state.pool,
                self.state.require_embeddings(),
                data,
                fingerprint=fp,
                recorded_by=who.org_id,
                progress=progress,
            )
        )
        try:
            async for progress_message in drain_while_running(task, out):
                yield admin_service_pb2.RunGateResponse(progress=progress_message)
            yield admin_service_pb2.RunGateResponse(result=task.result().result)
        finally:
            if not task.done():
                task.cancel()

    async def GetGateStatus(
        self,
        request: admin_service_pb2.GetGateStatusRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.GetGateStatusResponse:
        fp = self._fingerprint()
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            result = await runner.latest_result(conn, fp)
        response = admin_service_pb2.GetGateStatusResponse(
            schema_version=SCHEMA_VERSION, current_fingerprint=fp
        )
        if result is not None:
            response.result.CopyFrom(result)
        return response

    async def GetShadowReport(
        self,
        request: admin_service_pb2.GetShadowReportRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.GetShadowReportResponse:
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
            row = await conn.fetchrow(shadow.REPORT, principal().org_id)
        report = admin_pb2.ShadowReport(
            schema_version=SCHEMA_VERSION,
            samples=row["samples"],
            shadow_failures=row["failures"],
            mean_overlap_at_k=row["overlap"],
            top1_agreement=row["top1"],
            legacy_p50_ms=row["legacy_p50"],
            legacy_p95_ms=row["legacy_p95"],
            hybrid_p50_ms=row["hybrid_p50"],
            hybrid_p95_ms=row["hybrid_p95"],
        )
        if row["since"] is not None:
            report.since.CopyFrom(timestamp(row["since"]))
        return admin_service_pb2.GetShadowReportResponse(report=report)


SERVICE = admin_service_pb2.DESCRIPTOR.services_by_name["AdminService"]

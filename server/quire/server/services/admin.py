"""AdminService: retrieval policy, kill switch, planner settings, keys. Every call is audited."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format
from grpc import aio

from quire.server import auth
from quire.server.auth import Scope
from quire.server.engine import search_config
from quire.server.errors import QuireError, invalid
from quire.server.knowledge.policy import load_policy
from quire.server.rpc import principal, register_scopes
from quire.server.services.base import SCHEMA_VERSION, fill_unimplemented
from quire.server.state import AppState
from quire.server.storage.database import transaction
from quire.server.validation import name_field
from quire.v1 import admin_pb2, admin_service_pb2, admin_service_pb2_grpc, errors_pb2, knowledge_pb2

AUDIT = "INSERT INTO audit_log (org_id, key_id, action, details) VALUES ($1, $2, $3, $4)"
SET_POLICY = """
UPDATE organisations SET retrieval_mode = coalesce($2, retrieval_mode),
       max_search_limit = coalesce($3, max_search_limit)
WHERE org_id = $1
"""
SET_KILL_SWITCH = """
INSERT INTO deployment_settings (name, value) VALUES ('kill_switch', to_jsonb($1::boolean))
ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
"""
SET_NAMESPACE_CONFIG = """
UPDATE namespaces SET search_config = $3::jsonb WHERE org_id = $1 AND name = $2 RETURNING name
"""

_SCOPE_NAMES = {
    admin_pb2.SCOPE_READ: Scope.READ,
    admin_pb2.SCOPE_WRITE: Scope.WRITE,
    admin_pb2.SCOPE_ADMIN: Scope.ADMIN,
    admin_pb2.SCOPE_TUNE: Scope.TUNE,
}


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
        if request.max_search_limit and not 1 <= request.max_search_limit <= 50:
            raise invalid("max_search_limit", "must be 1–50 (0 leaves it unchanged)")
        who = principal()
        async with transaction(self.state.pool) as conn:
            await conn.execute(
                SET_POLICY, who.org_id, request.mode or None, request.max_search_limit or None
            )
            await self._audit(
                conn,
                "set_retrieval_policy",
                {"mode": request.mode, "max_search_limit": request.max_search_limit},
            )
            policy = await load_policy(conn, who.org_id, self.state)
        return admin_service_pb2.SetRetrievalPolicyResponse(policy=policy)

    async def GetRetrievalPolicy(
        self,
        request: admin_service_pb2.GetRetrievalPolicyRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.GetRetrievalPolicyResponse:
        async with transaction(self.state.pool, readonly=True) as conn:
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
        who = principal()
        async with transaction(self.state.pool) as conn:
            key = await auth.create_key(conn, who.org_id, scopes)
            await self._audit(
                conn, "create_api_key", {"key_id": key.key_id, "scopes": sorted(scopes)}
            )
        return admin_service_pb2.CreateApiKeyResponse(
            key=admin_pb2.ApiKey(
                schema_version=SCHEMA_VERSION,
                key_id=key.key_id,
                scopes=sorted(request.scopes),
                secret=key.secret,
            )
        )

    async def RevokeApiKey(
        self,
        request: admin_service_pb2.RevokeApiKeyRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> admin_service_pb2.RevokeApiKeyResponse:
        who = principal()
        async with transaction(self.state.pool) as conn:
            if not await auth.revoke_key(conn, who.org_id, request.key_id):
                raise QuireError(errors_pb2.ERROR_CODE_NOT_FOUND, "API key not found")
            await self._audit(conn, "revoke_api_key", {"key_id": request.key_id})
        self.state.verifier.forget()
        return admin_service_pb2.RevokeApiKeyResponse(
            schema_version=SCHEMA_VERSION, key_id=request.key_id
        )


SERVICE = admin_service_pb2.DESCRIPTOR.services_by_name["AdminService"]
UNIMPLEMENTED = fill_unimplemented(AdminService, SERVICE)
register_scopes(SERVICE.full_name, {m.name: Scope.ADMIN for m in SERVICE.methods})

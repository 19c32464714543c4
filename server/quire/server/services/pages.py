"""PagesService (sync, search, read, list, grep and commands land with issue #4)."""

from __future__ import annotations

from typing import Any

from grpc import aio

from quire.server.auth import Scope
from quire.server.rpc import principal, register_scopes
from quire.server.services.base import SCHEMA_VERSION, fill_unimplemented
from quire.server.services.knowledge import timestamp
from quire.server.state import AppState
from quire.server.storage.database import transaction
from quire.v1 import pages_pb2, pages_service_pb2, pages_service_pb2_grpc

LIST_NAMESPACES = """
SELECT n.name, n.filesystem_version, n.source_url, n.updated_at,
       (SELECT count(*) FROM pages p WHERE p.org_id = n.org_id AND p.namespace = n.name) AS pages
FROM namespaces n WHERE n.org_id = $1 ORDER BY n.name
"""


class PagesService(pages_service_pb2_grpc.PagesServiceServicer):
    def __init__(self, state: AppState) -> None:
        self.state = state

    async def ListNamespaces(
        self,
        request: pages_service_pb2.ListNamespacesRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.ListNamespacesResponse:
        async with transaction(self.state.pool, readonly=True) as conn:
            rows = await conn.fetch(LIST_NAMESPACES, principal().org_id)
        return pages_service_pb2.ListNamespacesResponse(
            schema_version=SCHEMA_VERSION,
            namespaces=[
                pages_pb2.Namespace(
                    schema_version=SCHEMA_VERSION,
                    name=r["name"],
                    page_count=r["pages"],
                    filesystem_version=r["filesystem_version"],
                    source_url=r["source_url"],
                    updated_at=timestamp(r["updated_at"]),
                )
                for r in rows
            ],
        )


SERVICE = pages_service_pb2.DESCRIPTOR.services_by_name["PagesService"]
UNIMPLEMENTED = fill_unimplemented(PagesService, SERVICE)
register_scopes(
    SERVICE.full_name,
    {m.name: Scope.WRITE if m.name == "SyncPages" else Scope.READ for m in SERVICE.methods},
)

"""PagesService: sync, search, read, list, grep, commands and tool definitions."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from grpc import aio

from quire.indexer.pages.guard import SourcePolicy
from quire.indexer.pages.language import DEFAULT_LANGUAGE, normalise_tag
from quire.indexer.pages.sync import PageSync, SyncRefused, SyncRequest
from quire.server.auth import Scope
from quire.server.embeddings import discard
from quire.server.engine import search_config
from quire.server.errors import QuireError, invalid
from quire.server.pages import reading, search, tools
from quire.server.pages.body_cache import BodyCache
from quire.server.pages.commands import run_command
from quire.server.pages.grep import grep_pages
from quire.server.pages.pg_store import PgPageStore
from quire.server.rpc import principal, register_scopes
from quire.server.services.base import SCHEMA_VERSION, drain_while_running, fill_unimplemented
from quire.server.state import AppState
from quire.server.storage.database import transaction
from quire.server.storage.timestamps import timestamp
from quire.server.validation import bounded, clean_text, name_field
from quire.v1 import (
    errors_pb2,
    pages_pb2,
    pages_service_pb2,
    pages_service_pb2_grpc,
)

TRANSFORMS = ("none", "markdown", "mintlify", "fumadocs")
MAX_PATH_CHARS = 1024
MAX_OFFSET = 2**31 - 1
MAX_COMMAND_CHARS = 1024
GREP_DEADLINE_S = 5.0
STOP_REASONS = {
    "limit": pages_pb2.GREP_STOP_REASON_LIMIT,
    "output_limit": pages_pb2.GREP_STOP_REASON_OUTPUT_LIMIT,
    "deadline": pages_pb2.GREP_STOP_REASON_DEADLINE,
}

LIST_NAMESPACES = """
SELECT n.name, n.filesystem_version, n.source_url, n.updated_at,
       (SELECT count(*) FROM pages p WHERE p.org_id = n.org_id AND p.namespace = n.name) AS pages
FROM namespaces n WHERE n.org_id = $1 ORDER BY n.name
"""
LAST_REPORT = "SELECT last_report FROM namespaces WHERE org_id = $1 AND name = $2"


def _path_field(field: str, value: str) -> str:
    if not value.startswith("/"):
        raise invalid(field, "must start with '/'")
    return clean_text(field, value, max_chars=MAX_PATH_CHARS)


class PagesService(pages_service_pb2_grpc.PagesServiceServicer):
    def __init__(self, state: AppState) -> None:
        self.state = state
        self.bodies = BodyCache()
        state.extras["page_body_cache"] = self.bodies

    def _embeddings(self) -> Any:
        return self.state.require_embeddings()

    # --- sync -------------------------------------------------------------------------------

    async def SyncPages(
        self,
        request_iterator: AsyncIterator[pages_service_pb2.SyncPagesRequest],
        context: aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[pages_service_pb2.SyncPagesResponse]:
        first = await anext(request_iterator, None)
        if first is None or not first.HasField("start"):
            raise invalid("start", "the first message must be a SyncStart")
        start = first.start
        name_field("start.namespace", start.namespace)
        clean_text("start.url", start.url, max_chars=2048)
        transform = start.transform or "markdown"
        if transform not in TRANSFORMS:
            raise invalid("start.transform", f"one of {', '.join(TRANSFORMS)}")
        index_version = clean_text("start.index_version", start.index_version or "1", max_chars=64)
        if start.public_url:
            clean_text("start.public_url", start.public_url, max_chars=2048)
        language = normalise_tag(start.language or DEFAULT_LANGUAGE)
        if language is None or len(start.language) > 35:
            raise invalid("start.language", 'a BCP 47 language tag such as "en" or "pt-BR"')
        # Built per sync from the live settings (tests extend the allow-list at run time).
        policy = SourcePolicy(allow_origins=list(self.state.settings.allow_sources))
        try:
            await policy.check_url(start.url)
        except ValueError as exc:
            raise invalid("start.url", str(exc)) from None
        out: asyncio.Queue[pages_service_pb2.SyncPagesResponse] = asyncio.Queue()

        async def on_progress(progress: pages_pb2.PageSyncProgress) -> None:
            out.put_nowait(pages_service_pb2.SyncPagesResponse(progress=progress))

        async def on_discovery(check: pages_pb2.DiscoveryCheck) -> bool:
            out.put_nowait(pages_service_pb2.SyncPagesResponse(discovery_check=check))
            while True:
                message = await anext(request_iterator, None)
                if message is None:
                    return False
                if message.HasField("decision"):
                    return message.decision.accept

        sync = PageSync(
            pool=self.state.pool,
            embedding=self._embeddings().ingest_stage,
            policy=policy,
            org_id=principal().org_id,
            request=SyncRequest(
                namespace=start.namespace,
                url=start.url,
                public_url=start.public_url,
                transform=transform,
                index_version=index_version,
                reindex=start.reindex,
                validate_discovery=start.validate_discovery,
                language=language,
                schema_version=SCHEMA_VERSION,
            ),
            on_progress=on_progress,
            on_discovery=on_discovery,
            decision_timeout_s=self.state.settings.discovery_decision_timeout_s,
        )
        work = _typed_refusal(sync.run())
        if self.state.database is not None:
            # Without a database the sync would fetch on and fail page after page.
            work = self.state.database.run_unless_lost(work)
        task = asyncio.create_task(work)
        try:
            async for message in drain_while_running(task, out):
                yield message
            report = task.result()
            yield pages_service_pb2.SyncPagesResponse(report=report)
        except asyncio.CancelledError:
            # The client went away: stop cooperatively, let the page in flight finish its
            # transaction and the lock be released, then end.
            sync.cancel()
            with contextlib.suppress(Exception):
                await asyncio.shield(task)
            raise

    async def GetSyncReport(
        self,
        request: pages_service_pb2.GetSyncReportRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.GetSyncReportResponse:
        name_field("namespace", request.namespace)
        async with transaction(self.state.pool, readonly=True) as conn:
            raw = await conn.fetchval(LAST_REPORT, principal().org_id, request.namespace)
        if raw is None:
            raise QuireError(errors_pb2.ERROR_CODE_NOT_FOUND, "No sync report for that namespace")
        return pages_service_pb2.GetSyncReportResponse(report=pages_pb2.SyncReport.FromString(raw))

    # --- search -----------------------------------------------------------------------------

    async def SearchPages(
        self,
        request: pages_service_pb2.SearchPagesRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.SearchPagesResponse:
        name_field("namespace", request.namespace)
        query = clean_text("query", request.query, max_chars=500)
        if len(request.alternatives) > 3:
            raise invalid("alternatives", "at most 3")
        alternatives = [
            clean_text(f"alternatives[{i}]", alt, max_chars=500)
            for i, alt in enumerate(request.alternatives)
        ]
        limit = bounded("limit", request.limit, 1, 20, 10)
        budget = bounded("max_output_bytes", request.max_output_bytes, 24_000, 32_000, 24_000)
        override = None
        if request.HasField("config"):
            principal().require(Scope.TUNE)
            search_config.validate(request.config)
            override = request.config
        # search_pages starts its transaction and full-text arms while the query is embedded.
        vectors = await self._embeddings().start_queries([query, *alternatives])
        try:
            result = await search.search_pages(
                self.state.pool,
                org_id=principal().org_id,
                namespace=request.namespace,
                query=query,
                alternatives=alternatives,
                vectors=vectors,
                limit=limit,
                max_output_bytes=budget,
                override=override,
            )
        finally:
            discard(vectors)  # not awaited when the namespace does not exist
        if result is None:
            raise reading.NAMESPACE_NOT_FOUND
        return pages_service_pb2.SearchPagesResponse(result=result)

    # --- reading ----------------------------------------------------------------------------

    async def ReadPage(
        self,
        request: pages_service_pb2.ReadPageRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.ReadPageResponse:
        name_field("namespace", request.namespace)
        path = _path_field("path", request.path)
        if len(request.revision) > 128:
            raise invalid("revision", "at most 128 characters")
        if request.offset > MAX_OFFSET:
            raise invalid("offset", f"at most {MAX_OFFSET}")
        max_chars = bounded("max_chars", request.max_chars, 1, 24_000, 12_000)
        async with transaction(self.state.pool, readonly=True) as conn:
            read = await reading.read_page(
                conn,
                principal().org_id,
                request.namespace,
                path,
                revision=request.revision,
                offset=request.offset,
                max_chars=max_chars,
            )
        return pages_service_pb2.ReadPageResponse(page_read=read)

    async def ListPages(
        self,
        request: pages_service_pb2.ListPagesRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.ListPagesResponse:
        name_field("namespace", request.namespace)
        prefix = _path_field("prefix", request.prefix or "/")
        if len(request.cursor) > 4096:
            raise invalid("cursor", "not a cursor returned by ListPages")
        limit = bounded("limit", request.limit, 1, 200, 100)
        async with transaction(self.state.pool, readonly=True) as conn:
            listing = await reading.list_pages(
                conn,
                self.state.cursors,
                principal().org_id,
                request.namespace,
                prefix=prefix,
                cursor=request.cursor,
                limit=limit,
            )
        return pages_service_pb2.ListPagesResponse(page_list=listing)

    async def _namespace_exists(self, conn: Any, namespace: str) -> None:
        if await conn.fetchval(reading.NAMESPACE_VERSION, principal().org_id, namespace) is None:
            raise reading.NAMESPACE_NOT_FOUND

    async def GrepPages(
        self,
        request: pages_service_pb2.GrepPagesRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.GrepPagesResponse:
        name_field("namespace", request.namespace)
        clean_text("query", request.query, max_chars=256)
        prefix = _path_field("prefix", request.prefix or "/")
        limit = bounded("limit", request.limit, 1, 100, 20)
        remaining = context.time_remaining()
        deadline_s = GREP_DEADLINE_S if remaining is None else min(GREP_DEADLINE_S, remaining)
        async with transaction(self.state.pool, readonly=True, isolation="repeatable_read") as conn:
            await self._namespace_exists(conn, request.namespace)
            store = PgPageStore(conn, principal().org_id, request.namespace)
            outcome = await grep_pages(
                store,
                self.bodies,
                request.query,
                prefix=prefix,
                ignore_case=request.ignore_case,
                limit=limit,
                deadline_s=max(deadline_s * 0.8, 0.05),
            )
            version = await conn.fetchval(
                reading.NAMESPACE_VERSION, principal().org_id, request.namespace
            )
        listed = store.listed
        return pages_service_pb2.GrepPagesResponse(
            result=pages_pb2.GrepResult(
                schema_version=SCHEMA_VERSION,
                matches=[
                    pages_pb2.GrepMatch(
                        schema_version=SCHEMA_VERSION,
                        path=m.path,
                        line_number=m.line_number,
                        line=m.line,
                        url=listed[m.path].url if m.path in listed else "",
                        revision=listed[m.path].revision if m.path in listed else "",
                    )
                    for m in outcome.matches
                ],
                complete=outcome.complete,
                stop_reason=STOP_REASONS.get(outcome.stop_reason, 0),  # type: ignore[arg-type]
                filesystem_version=version,
            )
        )

    async def RunCommand(
        self,
        request: pages_service_pb2.RunCommandRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.RunCommandResponse:
        name_field("namespace", request.namespace)
        if len(request.command) > MAX_COMMAND_CHARS:
            raise invalid("command", f"at most {MAX_COMMAND_CHARS} characters")
        async with transaction(self.state.pool, readonly=True, isolation="repeatable_read") as conn:
            await self._namespace_exists(conn, request.namespace)
            store = PgPageStore(conn, principal().org_id, request.namespace)
            outcome = await run_command(store, self.bodies, request.command)
        return pages_service_pb2.RunCommandResponse(
            result=pages_pb2.CommandResult(
                schema_version=SCHEMA_VERSION,
                output=outcome.output,
                exit_code=outcome.exit_code,
                truncated=outcome.truncated,
                error=outcome.error,
            )
        )

    async def DescribeTools(
        self,
        request: pages_service_pb2.DescribeToolsRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.DescribeToolsResponse:
        return pages_service_pb2.DescribeToolsResponse(
            schema_version=SCHEMA_VERSION, tools=tools.tool_definitions()
        )

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


async def _typed_refusal(sync: Awaitable[pages_pb2.SyncReport]) -> pages_pb2.SyncReport:
    """The sync's report; a sync that stopped before changing anything raises the typed error
    for its reason."""
    try:
        return await sync
    except SyncRefused as exc:
        if exc.field:
            raise invalid(exc.field, exc.message) from None
        raise QuireError(exc.code, exc.message, retry_after_s=exc.retry_after_s) from None


SERVICE = pages_service_pb2.DESCRIPTOR.services_by_name["PagesService"]
UNIMPLEMENTED = fill_unimplemented(PagesService, SERVICE)
register_scopes(
    SERVICE.full_name,
    {m.name: Scope.WRITE if m.name == "SyncPages" else Scope.READ for m in SERVICE.methods},
)

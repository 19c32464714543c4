"""PagesService: sync, search, read, list, grep, commands and tool definitions."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from grpc import aio

from quire.indexer.pages.guard import SourcePolicy
from quire.indexer.pages.language import DEFAULT_LANGUAGE, normalise_tag
from quire.indexer.pages.sync import PageSync, SyncRefused, SyncRequest
from quire.server import models, shared_responses
from quire.server.auth import Scope
from quire.server.contract import SCHEMA_VERSION
from quire.server.contract import bounds as contract_bounds
from quire.server.contract.bounds import FieldBounds
from quire.server.embeddings import discard
from quire.server.failures import QuireError, invalid
from quire.server.knowledge.policy import load_policy
from quire.server.pages import reading, search, tools
from quire.server.pages.body_cache import BodyCache
from quire.server.pages.commands import run_command
from quire.server.pages.grep import grep_pages
from quire.server.pages.namespace_models import NamespaceModels, OtherModel
from quire.server.pages.pg_store import PgPageStore
from quire.server.retrieval import search_config
from quire.server.rpc import principal
from quire.server.services.base import drain_while_running
from quire.server.state import AppState
from quire.server.storage.database import remaining_ms, transaction
from quire.server.storage.timestamps import timestamp
from quire.server.validation import at_most_chars, clean_text, name_field, number, text, within
from quire.v1 import (
    errors_pb2,
    pages_pb2,
    pages_service_pb2,
    pages_service_pb2_grpc,
)

TRANSFORMS = ("none", "markdown", "mintlify", "fumadocs")
GREP_DEADLINE_S = 5.0
# A search whose namespace was reindexed onto another model since its model was remembered
# embeds its query again with that one; twice in one search is given up.
SEARCH_TRIES = 2
STOP_REASONS = {
    "limit": pages_pb2.GREP_STOP_REASON_LIMIT,
    "output_limit": pages_pb2.GREP_STOP_REASON_OUTPUT_LIMIT,
    "deadline": pages_pb2.GREP_STOP_REASON_DEADLINE,
}

LIST_NAMESPACES = """
SELECT n.name, n.filesystem_version, n.source_url, n.updated_at, n.embedding_model,
       (SELECT count(*) FROM pages p WHERE p.org_id = n.org_id AND p.namespace = n.name) AS pages
FROM namespaces n WHERE n.org_id = $1 ORDER BY n.name
"""
LAST_REPORT = "SELECT last_report FROM namespaces WHERE org_id = $1 AND name = $2"


def _path_field(field: str, value: str, bounds: FieldBounds) -> str:
    """A page path or prefix; empty means the field's default when it has one."""
    if not value and bounds.default is not None:
        value = text(bounds.default)
    if not value.startswith("/"):
        raise invalid(field, "must start with '/'", 'starts with "/"')
    return clean_text(field, value, max_chars=number(bounds.max_chars))


@functools.lru_cache(maxsize=256)
def _tools_response(caller: tools.ToolCaller) -> pages_service_pb2.DescribeToolsResponse:
    """The tool definitions for one bound and binding, built once per process (building them
    costs more than the rest of the call). The message is shared between calls: never
    changed after this."""
    return shared_responses.keep(
        pages_service_pb2.DescribeToolsResponse(
            schema_version=SCHEMA_VERSION, tools=tools.tool_definitions(caller)
        )
    )


class PagesService(pages_service_pb2_grpc.PagesServiceServicer):
    def __init__(self, state: AppState) -> None:
        self.state = state
        self.bodies = BodyCache()
        self.namespace_models = NamespaceModels()

    async def _sync_model(self, namespace: str, requested: str) -> str:
        """The model a sync embeds with: the one it names (known and loaded, or refused with
        nothing created), else the namespace's own, else the deployment default."""
        field = "start.embedding_model"
        longest = number(contract_bounds.SyncStart.embedding_model.max_chars)
        if clean_text(field, requested, max_chars=longest, allow_empty=True).strip():
            return models.choose(requested, self.state.models, field)
        own = await self.namespace_models.read(self.state.pool, principal().org_id, namespace)
        return own or models.DEFAULT_MODEL

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
        limits = contract_bounds.SyncStart
        name_field("start.namespace", start.namespace, limits.namespace)
        clean_text("start.url", start.url, max_chars=number(limits.url.max_chars))
        transform = start.transform or text(limits.transform.default)
        if transform not in TRANSFORMS:
            raise invalid("start.transform", f"one of {', '.join(TRANSFORMS)}")
        index_version = clean_text(
            "start.index_version",
            start.index_version or text(limits.index_version.default),
            max_chars=number(limits.index_version.max_chars),
        )
        if start.public_url:
            longest = number(limits.public_url.max_chars)
            clean_text("start.public_url", start.public_url, max_chars=longest)
        language = normalise_tag(start.language or DEFAULT_LANGUAGE)
        if language is None or len(start.language) > number(limits.language.max_chars):
            raise invalid("start.language", 'a BCP 47 language tag such as "en" or "pt-BR"')
        model = await self._sync_model(start.namespace, start.embedding_model)
        embeddings = self.state.embeddings_for(model)
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
            lock_pool=self.state.session_pool,
            embedding=embeddings.ingest_stage,
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
                embedding_model=model,
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
            self.namespace_models.learn(principal().org_id, start.namespace, model)
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
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
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
        limits = contract_bounds.SearchPagesRequest
        name_field("namespace", request.namespace)
        query = clean_text("query", request.query, max_chars=number(limits.query.max_chars))
        most = limits.alternatives
        if len(request.alternatives) > number(most.max_items):
            raise invalid(
                "alternatives", f"at most {most.max_items}", f"at most {most.max_items} items"
            )
        alternatives = [
            clean_text(f"alternatives[{i}]", alt, max_chars=number(most.max_chars))
            for i, alt in enumerate(request.alternatives)
        ]
        limit = within("limit", request.limit, limits.limit)
        budget = within("max_output_bytes", request.max_output_bytes, limits.max_output_bytes)
        override = None
        if request.HasField("config"):
            principal().require(Scope.TUNE)
            search_config.validate(request.config)
            override = request.config
        org_id = principal().org_id
        # The alternatives import the search transaction's exported snapshot: on the same node
        # (a hot standby exports and imports snapshots too).
        pool = await self.state.read_pool()
        # A namespace that does not exist is answered by search_pages, after an override is
        # judged (as SetNamespaceSearchConfig judges it first); its query embeds meanwhile with
        # the default model, whose absence is SEARCH_UNAVAILABLE as before models per namespace.
        model = (
            await self.namespace_models.get(pool, org_id, request.namespace) or models.DEFAULT_MODEL
        )
        for _ in range(SEARCH_TRIES):
            # search_pages starts its transaction and full-text arms while the query is
            # embedded, with the namespace's model (and its query instruction).
            texts = [query, *alternatives]
            vectors = await self.state.embeddings_for(model).start_queries(texts)
            try:
                result = await search.search_pages(
                    pool,
                    org_id=org_id,
                    namespace=request.namespace,
                    query=query,
                    alternatives=alternatives,
                    vectors=vectors,
                    limit=limit,
                    max_output_bytes=budget,
                    override=override,
                    embedding_model=model,
                )
            except OtherModel as changed:  # reindexed onto another model since remembered
                self.namespace_models.learn(org_id, request.namespace, changed.model)
                model = changed.model
                continue
            finally:
                discard(vectors)  # not awaited when the namespace does not exist
            if result is None:
                raise reading.NAMESPACE_NOT_FOUND
            return pages_service_pb2.SearchPagesResponse(result=result)
        raise QuireError(
            errors_pb2.ERROR_CODE_SEARCH_UNAVAILABLE,
            "The namespace's embedding model changed during the search; search again",
        )

    # --- reading ----------------------------------------------------------------------------

    async def ReadPage(
        self,
        request: pages_service_pb2.ReadPageRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.ReadPageResponse:
        limits = contract_bounds.ReadPageRequest
        name_field("namespace", request.namespace)
        path = _path_field("path", request.path, limits.path)
        at_most_chars("revision", request.revision, limits.revision)
        if request.offset > number(limits.offset.max):
            raise invalid("offset", f"at most {limits.offset.max}", f"0–{limits.offset.max}")
        max_chars = within("max_chars", request.max_chars, limits.max_chars)
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
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
        limits = contract_bounds.ListPagesRequest
        name_field("namespace", request.namespace)
        prefix = _path_field("prefix", request.prefix, limits.prefix)
        if len(request.cursor) > number(limits.cursor.max_chars):
            raise invalid("cursor", "not a cursor returned by ListPages")
        limit = within("limit", request.limit, limits.limit)
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
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
        limits = contract_bounds.GrepPagesRequest
        name_field("namespace", request.namespace)
        clean_text("query", request.query, max_chars=number(limits.query.max_chars))
        prefix = _path_field("prefix", request.prefix, limits.prefix)
        limit = within("limit", request.limit, limits.limit)
        remaining = context.time_remaining()
        deadline_s = GREP_DEADLINE_S if remaining is None else min(GREP_DEADLINE_S, remaining)
        async with transaction(
            await self.state.read_pool(), readonly=True, isolation="repeatable_read"
        ) as conn:
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
        limits = contract_bounds.RunCommandRequest
        name_field("namespace", request.namespace)
        at_most_chars("command", request.command, limits.command)
        async with transaction(
            await self.state.read_pool(), readonly=True, isolation="repeatable_read"
        ) as conn:
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
        limits = contract_bounds.DescribeToolsRequest
        if request.namespace:
            name_field("namespace", request.namespace)
        at_most_chars("agent_id", request.agent_id, limits.agent_id)
        # The schemas state the caller's own bound: a model told 50 would be refused above it.
        # Cached for the key cache's few seconds (knowledge/search_limits.py).
        org_id = principal().org_id

        async def load() -> int:
            # One statement, so no transaction around it (a BEGIN and a COMMIT fewer).
            remaining_ms()  # DEADLINE_EXCEEDED before the pool, as `transaction` does
            async with (await self.state.read_pool()).acquire() as conn:
                policy = await load_policy(conn, org_id, self.state)
            return policy.max_search_limit

        return _tools_response(
            tools.ToolCaller(
                search_limit=await self.state.search_limits.get(org_id, load),
                namespace=request.namespace,
                agent_id=request.agent_id,
            )
        )

    async def ListNamespaces(
        self,
        request: pages_service_pb2.ListNamespacesRequest,
        context: aio.ServicerContext[Any, Any],
    ) -> pages_service_pb2.ListNamespacesResponse:
        async with transaction(await self.state.read_pool(), readonly=True) as conn:
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
                    embedding_model=r["embedding_model"],
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

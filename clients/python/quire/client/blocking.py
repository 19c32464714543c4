# Generated from aio.py by scripts/unasync_client.py (make generate); do not edit.

"""The client for every RPC of quire.v1: `AsyncQuireClient` (asyncio) in aio.py, and its blocking
twin `QuireClient` in blocking.py, which `scripts/unasync_client.py` derives from aio.py.

Methods take keyword arguments and return the typed result messages (response wrappers are
unwrapped). Every failure raises the `QuireError` subclass of its `ErrorCode`. Streaming calls
are (async) generators. Deadlines and retries are applied by the channel's interceptors
(`_aio_interceptors` / `_blocking_interceptors`), not by the methods.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import TypeVar

import grpc

from quire.client import _channel
from quire.client._blocking_interceptors import call_policy_interceptors
from quire.client._blocking_transport import (
    Channel,
    Outbox,
    SyncDiscoveryValidator,
    UnaryStreamMultiCallable,
    UnaryUnaryMultiCallable,
    cancel,
    close_channel,
    decide,
    open_channel,
)
from quire.client._convert import ModeArg, ScopeArg, retrieval_mode, scope_values
from quire.client.exceptions import from_rpc_error
from quire.client.policy import DEFAULT_RETRY, DEFAULT_TIMEOUTS, RetryPolicy, Timeouts
from quire.client.uploads import SyncSource, metadata_message, upload_requests
from quire.v1 import (
    admin_pb2,
    admin_service_pb2,
    admin_service_pb2_grpc,
    knowledge_pb2,
    knowledge_service_pb2,
    knowledge_service_pb2_grpc,
    pages_pb2,
    pages_service_pb2,
    pages_service_pb2_grpc,
    search_config_pb2,
)

Req = TypeVar("Req")
Resp = TypeVar("Resp")

PemArg = bytes | str | os.PathLike[str] | None


class QuireClient:
    """A client; use it as a context manager (`async with` / `with`) or call `close()`.

    `api_key` defaults to $QUIRE_API_KEY. `tls=True` uses the system roots (or
    `root_certificates`); `private_key` + `certificate_chain` add a client certificate (mTLS);
    `tls` may also be ready-made `grpc.ChannelCredentials`. `default_timeouts` sets the deadline
    per call kind; `retry` the policy for idempotent reads.
    """

    def __init__(
        self,
        target: str = _channel.DEFAULT_TARGET,
        *,
        api_key: str | None = None,
        tls: bool | grpc.ChannelCredentials = False,
        root_certificates: PemArg = None,
        private_key: PemArg = None,
        certificate_chain: PemArg = None,
        default_timeouts: Timeouts = DEFAULT_TIMEOUTS,
        retry: RetryPolicy = DEFAULT_RETRY,
        options: _channel.ChannelOptions | None = None,
    ) -> None:
        conn = _channel.resolve(
            target, api_key, tls, root_certificates, private_key, certificate_chain, options
        )
        self.target = target
        self._metadata = conn.metadata
        self._channel = open_channel(conn, call_policy_interceptors(default_timeouts, retry))
        self._pages = pages_service_pb2_grpc.PagesServiceStub(self._channel)
        self._knowledge = knowledge_service_pb2_grpc.KnowledgeServiceStub(self._channel)
        self._admin = admin_service_pb2_grpc.AdminServiceStub(self._channel)

    @property
    def channel(self) -> Channel:
        """The underlying channel (e.g. for health checks)."""
        return self._channel

    def close(self) -> None:
        close_channel(self._channel)

    def __enter__(self) -> QuireClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ plumbing

    def _unary(
        self,
        method: UnaryUnaryMultiCallable[Req, Resp],
        request: Req,
        timeout: float | None,
    ) -> Resp:
        """One unary call; the interceptors apply its deadline and retries."""
        try:
            return method(request, timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from exc

    def _server_stream(
        self,
        method: UnaryStreamMultiCallable[Req, Resp],
        request: Req,
        timeout: float | None,
    ) -> Iterator[Resp]:
        call = method(request, timeout=timeout, metadata=self._metadata)
        try:
            yield from call
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from exc
        finally:
            cancel(call)

    # ------------------------------------------------------------------ PagesService

    def sync_pages(
        self,
        *,
        namespace: str,
        url: str,
        public_url: str | None = None,
        transform: str | None = None,
        index_version: str | None = None,
        reindex: bool = False,
        language: str | None = None,
        validate_discovery: SyncDiscoveryValidator | None = None,
        timeout: float | None = None,
    ) -> Iterator[pages_pb2.PageSyncProgress | pages_pb2.SyncReport]:
        """Synchronises a site; yields progress and finally the `SyncReport`.

        With `validate_discovery`, the server pauses after discovery and the callback decides
        (for `AsyncQuireClient` it may also be a coroutine function): True accepts, False aborts
        (the server then fails the call with `DiscoveryRejected`, leaving stored state
        untouched). If the callback raises, the sync is aborted and the exception propagates.
        The request side stays open until the server ends the call; closing the generator early
        (`aclose()` / `close()`, or `break` inside `contextlib.aclosing` / `closing`) cancels
        the RPC, which stops the sync cooperatively.
        `language`: the namespace's default language (BCP 47, default "en"), for pages whose
        own language cannot be told.
        """
        start = pages_service_pb2.SyncPagesRequest(
            start=pages_service_pb2.SyncStart(
                namespace=namespace,
                url=url,
                public_url=public_url or "",
                transform=transform or "",
                index_version=index_version or "",
                reindex=reindex,
                validate_discovery=validate_discovery is not None,
                language=language or "",
            )
        )
        outbox = Outbox(start)
        call = self._pages.SyncPages(outbox.messages(), timeout=timeout, metadata=self._metadata)
        try:
            for message in call:
                which = message.WhichOneof("message")
                if which == "progress":
                    yield message.progress
                elif which == "report":
                    yield message.report
                elif which == "discovery_check":
                    try:
                        accept = decide(validate_discovery, message.discovery_check)
                    except BaseException:
                        outbox.put(_decision(False))
                        raise
                    outbox.put(_decision(accept))
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from exc
        finally:
            outbox.close()
            cancel(call)

    def search_pages(
        self,
        *,
        namespace: str,
        query: str,
        alternatives: Iterable[str] = (),
        limit: int | None = None,
        max_output_bytes: int | None = None,
        config: search_config_pb2.PageSearchConfig | None = None,
        timeout: float | None = None,
    ) -> pages_pb2.SearchResult:
        """Hybrid search; `config` (planner settings) needs a key with scope `tune`."""
        request = pages_service_pb2.SearchPagesRequest(
            namespace=namespace,
            query=query,
            alternatives=list(alternatives),
            limit=limit or 0,
            max_output_bytes=max_output_bytes or 0,
            config=config,
        )
        reply = self._unary(self._pages.SearchPages, request, timeout)
        return reply.result

    def read_page(
        self,
        *,
        namespace: str,
        path: str,
        revision: str | None = None,
        offset: int = 0,
        max_chars: int | None = None,
        timeout: float | None = None,
    ) -> pages_pb2.PageRead:
        """A slice of a page; a stale pinned `revision` raises `PageChanged`."""
        request = pages_service_pb2.ReadPageRequest(
            namespace=namespace,
            path=path,
            revision=revision or "",
            offset=offset,
            max_chars=max_chars or 0,
        )
        reply = self._unary(self._pages.ReadPage, request, timeout)
        return reply.page_read

    def list_pages(
        self,
        *,
        namespace: str,
        prefix: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        timeout: float | None = None,
    ) -> pages_pb2.PageList:
        """One page of the listing; check `restart_required` when passing a cursor."""
        request = pages_service_pb2.ListPagesRequest(
            namespace=namespace, prefix=prefix or "", cursor=cursor or "", limit=limit or 0
        )
        reply = self._unary(self._pages.ListPages, request, timeout)
        return reply.page_list

    def grep_pages(
        self,
        *,
        namespace: str,
        query: str,
        prefix: str | None = None,
        ignore_case: bool = False,
        limit: int | None = None,
        timeout: float | None = None,
    ) -> pages_pb2.GrepResult:
        request = pages_service_pb2.GrepPagesRequest(
            namespace=namespace,
            query=query,
            prefix=prefix or "",
            ignore_case=ignore_case,
            limit=limit or 0,
        )
        reply = self._unary(self._pages.GrepPages, request, timeout)
        return reply.result

    def run_command(
        self, *, namespace: str, command: str, timeout: float | None = None
    ) -> pages_pb2.CommandResult:
        request = pages_service_pb2.RunCommandRequest(namespace=namespace, command=command)
        reply = self._unary(self._pages.RunCommand, request, timeout)
        return reply.result

    def describe_tools(
        self,
        *,
        namespace: str | None = None,
        agent_id: str | None = None,
        timeout: float | None = None,
    ) -> list[pages_pb2.ToolDefinition]:
        """The agent tools with this key's bounds. A `namespace` (`agent_id`) binds the pages
        (knowledge) tools to it: their schemas leave that argument out."""
        request = pages_service_pb2.DescribeToolsRequest(
            namespace=namespace or "", agent_id=agent_id or ""
        )
        reply = self._unary(self._pages.DescribeTools, request, timeout)
        return list(reply.tools)

    def get_sync_report(
        self, *, namespace: str, timeout: float | None = None
    ) -> pages_pb2.SyncReport:
        request = pages_service_pb2.GetSyncReportRequest(namespace=namespace)
        reply = self._unary(self._pages.GetSyncReport, request, timeout)
        return reply.report

    def list_namespaces(self, *, timeout: float | None = None) -> list[pages_pb2.Namespace]:
        request = pages_service_pb2.ListNamespacesRequest()
        reply = self._unary(self._pages.ListNamespaces, request, timeout)
        return list(reply.namespaces)

    # ------------------------------------------------------------------ KnowledgeService

    def create_collection(
        self, *, name: str, timeout: float | None = None
    ) -> knowledge_pb2.Collection:
        request = knowledge_service_pb2.CreateCollectionRequest(name=name)
        k = self._knowledge
        reply = self._unary(k.CreateCollection, request, timeout)
        return reply.collection

    def get_collection(
        self, *, collection_id: str, timeout: float | None = None
    ) -> knowledge_pb2.Collection:
        request = knowledge_service_pb2.GetCollectionRequest(collection_id=collection_id)
        reply = self._unary(self._knowledge.GetCollection, request, timeout)
        return reply.collection

    def list_collections(self, *, timeout: float | None = None) -> list[knowledge_pb2.Collection]:
        request = knowledge_service_pb2.ListCollectionsRequest()
        k = self._knowledge
        reply = self._unary(k.ListCollections, request, timeout)
        return list(reply.collections)

    def delete_collection(
        self, *, collection_id: str, timeout: float | None = None
    ) -> knowledge_pb2.Collection:
        request = knowledge_service_pb2.DeleteCollectionRequest(collection_id=collection_id)
        k = self._knowledge
        reply = self._unary(k.DeleteCollection, request, timeout)
        return reply.collection

    def upload_document(
        self,
        *,
        collection_id: str,
        file_name: str,
        data: SyncSource,
        mime_type: str | None = None,
        document_id: str | None = None,
        timeout: float | None = None,
    ) -> knowledge_pb2.Document:
        """Uploads a file in 1 MiB chunks (first message `metadata`); never retried.

        `data` is bytes, a path (`str` or `os.PathLike`), a binary file object, or an iterable
        of byte chunks (for `AsyncQuireClient` also an async one). `document_id` replaces that
        document's content.
        """
        first = metadata_message(collection_id, file_name, mime_type, document_id)
        try:
            reply = self._knowledge.UploadDocument(
                upload_requests(first, data), timeout=timeout, metadata=self._metadata
            )
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from exc
        return reply.document

    def get_document(
        self, *, document_id: str, timeout: float | None = None
    ) -> knowledge_pb2.Document:
        request = knowledge_service_pb2.GetDocumentRequest(document_id=document_id)
        reply = self._unary(self._knowledge.GetDocument, request, timeout)
        return reply.document

    def list_documents(
        self,
        *,
        collection_id: str,
        cursor: str | None = None,
        limit: int | None = None,
        timeout: float | None = None,
    ) -> knowledge_service_pb2.ListDocumentsResponse:
        """One page (`documents`, `next_cursor`); see `iter_documents` for all of them."""
        request = knowledge_service_pb2.ListDocumentsRequest(
            collection_id=collection_id, cursor=cursor or "", limit=limit or 0
        )
        k = self._knowledge
        return self._unary(k.ListDocuments, request, timeout)

    def iter_documents(
        self, *, collection_id: str, page_size: int | None = None, timeout: float | None = None
    ) -> Iterator[knowledge_pb2.Document]:
        """Every document of a collection, following `next_cursor`."""
        cursor: str | None = None
        while True:
            page = self.list_documents(
                collection_id=collection_id, cursor=cursor, limit=page_size, timeout=timeout
            )
            yield from page.documents
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def delete_document(
        self, *, document_id: str, timeout: float | None = None
    ) -> knowledge_pb2.Document:
        request = knowledge_service_pb2.DeleteDocumentRequest(document_id=document_id)
        k = self._knowledge
        reply = self._unary(k.DeleteDocument, request, timeout)
        return reply.document

    def watch_documents(
        self, *, collection_id: str, timeout: float | None = None
    ) -> Iterator[knowledge_pb2.Document]:
        """Yields a Document at each status change; runs until cancelled (no default deadline)."""
        request = knowledge_service_pb2.WatchDocumentsRequest(collection_id=collection_id)
        for reply in self._server_stream(self._knowledge.WatchDocuments, request, timeout):
            yield reply.document

    def upsert_agent(
        self,
        *,
        agent_id: str,
        attached_collection_ids: Iterable[str] = (),
        timeout: float | None = None,
    ) -> knowledge_pb2.Agent:
        request = knowledge_service_pb2.UpsertAgentRequest(
            agent_id=agent_id, attached_collection_ids=list(attached_collection_ids)
        )
        reply = self._unary(self._knowledge.UpsertAgent, request, timeout)
        return reply.agent

    def get_agent(self, *, agent_id: str, timeout: float | None = None) -> knowledge_pb2.Agent:
        request = knowledge_service_pb2.GetAgentRequest(agent_id=agent_id)
        reply = self._unary(self._knowledge.GetAgent, request, timeout)
        return reply.agent

    def search_knowledge(
        self,
        *,
        query: str,
        agent_id: str | None = None,
        collection_ids: Iterable[str] = (),
        limit: int | None = None,
        mode: knowledge_pb2.RetrievalMode.ValueType | None = None,
        timeout: float | None = None,
    ) -> knowledge_service_pb2.SearchKnowledgeResponse:
        """Hits (`hits`), the serving `mode` and `cached`. Give `agent_id` or `collection_ids`.
        `mode` chooses the retrieval mode for this call (default: the organisation's policy;
        the kill switch overrides both)."""
        request = knowledge_service_pb2.SearchKnowledgeRequest(
            agent_id=agent_id or "",
            collection_ids=list(collection_ids),
            query=query,
            limit=limit or 0,
            mode=mode or knowledge_pb2.RETRIEVAL_MODE_UNSPECIFIED,
        )
        k = self._knowledge
        return self._unary(k.SearchKnowledge, request, timeout)

    def read_document(
        self,
        *,
        document_id: str,
        agent_id: str | None = None,
        collection_ids: Iterable[str] = (),
        offset: int = 0,
        max_chars: int | None = None,
        timeout: float | None = None,
    ) -> knowledge_pb2.DocumentSlice:
        request = knowledge_service_pb2.ReadDocumentRequest(
            agent_id=agent_id or "",
            collection_ids=list(collection_ids),
            document_id=document_id,
            offset=offset,
            max_chars=max_chars or 0,
        )
        reply = self._unary(self._knowledge.ReadDocument, request, timeout)
        return reply.slice

    def get_index_status(
        self, *, collection_id: str, timeout: float | None = None
    ) -> knowledge_pb2.IndexStatus:
        request = knowledge_service_pb2.GetIndexStatusRequest(collection_id=collection_id)
        k = self._knowledge
        reply = self._unary(k.GetIndexStatus, request, timeout)
        return reply.status

    def watch_index_status(
        self, *, collection_id: str, timeout: float | None = None
    ) -> Iterator[knowledge_pb2.IndexStatus]:
        """Yields IndexStatus on every generation change; runs until cancelled."""
        request = knowledge_service_pb2.WatchIndexStatusRequest(collection_id=collection_id)
        for reply in self._server_stream(self._knowledge.WatchIndexStatus, request, timeout):
            yield reply.status

    # ------------------------------------------------------------------ AdminService

    def set_retrieval_policy(
        self,
        *,
        mode: ModeArg | None = None,
        max_search_limit: int | None = None,
        reset: bool = False,
        timeout: float | None = None,
    ) -> admin_pb2.RetrievalPolicy:
        """`mode` as enum value or name (`"HYBRID"`); None/0 leave a setting unchanged.
        `reset` first returns the organisation to the defaults (inherited mode, limit 8)."""
        request = admin_service_pb2.SetRetrievalPolicyRequest(
            mode=retrieval_mode(mode), max_search_limit=max_search_limit or 0, reset=reset
        )
        a = self._admin
        reply = self._unary(a.SetRetrievalPolicy, request, timeout)
        return reply.policy

    def get_retrieval_policy(self, *, timeout: float | None = None) -> admin_pb2.RetrievalPolicy:
        request = admin_service_pb2.GetRetrievalPolicyRequest()
        a = self._admin
        reply = self._unary(a.GetRetrievalPolicy, request, timeout)
        return reply.policy

    def set_kill_switch(
        self, *, engaged: bool, timeout: float | None = None
    ) -> admin_pb2.RetrievalPolicy:
        request = admin_service_pb2.SetKillSwitchRequest(engaged=engaged)
        reply = self._unary(self._admin.SetKillSwitch, request, timeout)
        return reply.policy

    def set_namespace_search_config(
        self,
        *,
        namespace: str,
        config: search_config_pb2.PageSearchConfig,
        timeout: float | None = None,
    ) -> search_config_pb2.PageSearchConfig:
        """Stores the namespace's planner overrides; returns the stored config."""
        request = admin_service_pb2.SetNamespaceSearchConfigRequest(
            namespace=namespace, config=config
        )
        a = self._admin
        reply = self._unary(a.SetNamespaceSearchConfig, request, timeout)
        return reply.config

    def rebuild_index(
        self,
        *,
        collection_id: str,
        index_version: str | None = None,
        timeout: float | None = None,
    ) -> knowledge_pb2.IndexStatus:
        request = admin_service_pb2.RebuildIndexRequest(
            collection_id=collection_id, index_version=index_version or ""
        )
        reply = self._unary(self._admin.RebuildIndex, request, timeout)
        return reply.status

    def rollback_index(
        self, *, collection_id: str, timeout: float | None = None
    ) -> knowledge_pb2.IndexStatus:
        request = admin_service_pb2.RollbackIndexRequest(collection_id=collection_id)
        reply = self._unary(self._admin.RollbackIndex, request, timeout)
        return reply.status

    def run_gate(
        self,
        *,
        dataset: str,
        split: str,
        max_documents: int | None = None,
        max_queries: int | None = None,
        timeout: float | None = None,
    ) -> Iterator[admin_pb2.GateProgress | admin_pb2.GateResult]:
        """Yields `GateProgress` messages and finally the `GateResult`."""
        request = admin_service_pb2.RunGateRequest(
            dataset=dataset,
            split=split,
            max_documents=max_documents or 0,
            max_queries=max_queries or 0,
        )
        for reply in self._server_stream(self._admin.RunGate, request, timeout):
            if reply.WhichOneof("message") == "result":
                yield reply.result
            else:
                yield reply.progress

    def get_gate_status(
        self, *, timeout: float | None = None
    ) -> admin_service_pb2.GetGateStatusResponse:
        """`result` (unset when none for the fingerprint) and `current_fingerprint`."""
        request = admin_service_pb2.GetGateStatusRequest()
        return self._unary(self._admin.GetGateStatus, request, timeout)

    def get_shadow_report(self, *, timeout: float | None = None) -> admin_pb2.ShadowReport:
        request = admin_service_pb2.GetShadowReportRequest()
        a = self._admin
        reply = self._unary(a.GetShadowReport, request, timeout)
        return reply.report

    def create_api_key(
        self, *, scopes: Iterable[ScopeArg], timeout: float | None = None
    ) -> admin_pb2.ApiKey:
        """Scopes as names (`"read"`, `"write"`, `"admin"`, `"tune"`) or enum values."""
        request = admin_service_pb2.CreateApiKeyRequest(scopes=scope_values(scopes))
        reply = self._unary(self._admin.CreateApiKey, request, timeout)
        return reply.key

    def revoke_api_key(self, *, key_id: str, timeout: float | None = None) -> None:
        request = admin_service_pb2.RevokeApiKeyRequest(key_id=key_id)
        self._unary(self._admin.RevokeApiKey, request, timeout)


def _decision(accept: bool) -> pages_service_pb2.SyncPagesRequest:
    return pages_service_pb2.SyncPagesRequest(
        decision=pages_service_pb2.DiscoveryDecision(accept=accept)
    )


__all__ = ["QuireClient", "SyncDiscoveryValidator"]

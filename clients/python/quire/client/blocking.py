# Generated from aio.py by scripts/unasync_client.py (make generate); do not edit.

"""The client for every RPC of quire.v1: `AsyncQuireClient` (asyncio) in aio.py, and its blocking
twin `QuireClient` in blocking.py, which `scripts/unasync_client.py` derives from aio.py.

Methods take keyword arguments and return the typed result messages (response wrappers are
unwrapped). Every failure raises the `QuireError` subclass of its `ErrorCode`. Streaming calls
are (async) generators. Deadlines and retries are applied by the channel's interceptors
(`_aio_interceptors` / `_blocking_interceptors`), not by the methods.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Generator, Iterable, Iterator, Sequence
from contextlib import closing
from pathlib import Path
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
    pause,
    run_all,
    trailers,
)
from quire.client._convert import ModeArg, ScopeArg, retrieval_mode, scope_values
from quire.client.batches import (
    DEFAULT_MAX_BATCH_BYTES,
    MAX_BATCH_DOCUMENTS,
    FileResult,
    FolderFile,
    ItemArg,
    KeyFunc,
    MetadataArg,
    MetadataFunc,
    UploadItem,
    as_item,
    batch_requests,
    plan_folder,
    refuse_misnamed,
    renumber,
    split_batches,
    upload_metadata,
    walk_folder,
)
from quire.client.consistency import ConsistencyTokens
from quire.client.exceptions import (
    DeadlineExceeded,
    DocumentNotFound,
    QuireError,
    Unavailable,
    from_error_detail,
    from_rpc_error,
)
from quire.client.filters import FilterArg, as_message
from quire.client.policy import DEFAULT_RETRY, DEFAULT_TIMEOUTS, RetryPolicy, Timeouts
from quire.client.structs import to_struct
from quire.client.uploads import SyncSource, upload_requests
from quire.client.waiting import DocumentOutcome, Searchable, WaitResult, finish, settled
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
    per call kind; `retry` the policy for idempotent reads. `session_consistency` (on by
    default) sends the highest consistency token seen with every read, so that against a server
    with read replicas the client reads its own writes; `client.consistency` holds it
    (`.current` to hand it to another process, `.advance(token)` to take one over).
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
        session_consistency: bool = True,
    ) -> None:
        conn = _channel.resolve(
            target, api_key, tls, root_certificates, private_key, certificate_chain, options
        )
        self.target = target
        self._metadata = conn.metadata
        self.consistency = ConsistencyTokens(enabled=session_consistency)
        self._channel = open_channel(
            conn, call_policy_interceptors(default_timeouts, retry, self.consistency)
        )
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
            self.consistency.observe(trailers(call))  # e.g. a gate run's writes
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
        embedding_model: str | None = None,
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
        own language cannot be told. `embedding_model`: a name from `list_models` that the
        server has loaded; None keeps the namespace's model (a new namespace gets the
        deployment's default). Another model than the namespace's needs `reindex=True`, which
        re-embeds every page with it; without it the sync is refused (`InvalidRequest`).
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
                embedding_model=embedding_model or "",
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
            self.consistency.observe(trailers(call))  # the sync's writes
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

    def iter_namespaces(self, *, timeout: float | None = None) -> Iterator[pages_pb2.Namespace]:
        """Every namespace (ListNamespaces is not paged: one call)."""
        yield from self.list_namespaces(timeout=timeout)

    def iter_pages(
        self,
        *,
        namespace: str,
        prefix: str | None = None,
        page_size: int | None = None,
        timeout: float | None = None,
    ) -> Iterator[pages_pb2.Page]:
        """Every page of a namespace (under `prefix`), following `next_cursor`. When the
        namespace changes mid-way (`restart_required`), `PageListingRestarted` is raised rather
        than yielding a mix of two versions."""
        cursor: str | None = None
        while True:
            listing = self.list_pages(
                namespace=namespace, prefix=prefix, cursor=cursor, limit=page_size, timeout=timeout
            )
            if listing.restart_required:
                raise PageListingRestarted(namespace)
            yield from listing.pages
            if not listing.next_cursor:
                return
            cursor = listing.next_cursor

    # ------------------------------------------------------------------ KnowledgeService

    def create_collection(
        self, *, name: str, embedding_model: str = "", timeout: float | None = None
    ) -> knowledge_pb2.Collection:
        """`embedding_model`: a name from `list_models` that the server has loaded; empty for
        the deployment's default. It changes only by `rebuild_index(embedding_model=...)`."""
        request = knowledge_service_pb2.CreateCollectionRequest(
            name=name, embedding_model=embedding_model
        )
        k = self._knowledge
        reply = self._unary(k.CreateCollection, request, timeout)
        return reply.collection

    def list_models(self, *, timeout: float | None = None) -> list[knowledge_pb2.EmbeddingModel]:
        """The embedding models the deployment knows: dimensions, prepared, loaded, default."""
        request = knowledge_service_pb2.ListModelsRequest()
        reply = self._unary(self._knowledge.ListModels, request, timeout)
        return list(reply.models)

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

    def iter_collections(
        self, *, timeout: float | None = None
    ) -> Iterator[knowledge_pb2.Collection]:
        """Every live collection (ListCollections is not paged: one call)."""
        yield from self.list_collections(timeout=timeout)

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
        external_key: str | None = None,
        metadata: MetadataArg | None = None,
        timeout: float | None = None,
    ) -> knowledge_pb2.Document:
        """Uploads a file in 1 MiB chunks (first message `metadata`); never retried.

        `data` is bytes, a path (`str` or `os.PathLike`), a binary file object, or an iterable
        of byte chunks (for `AsyncQuireClient` also an async one). `document_id` replaces that
        document's content; `external_key` names the document by your own key (the upload
        replaces the document holding it, or changes nothing when all is the same); `metadata`
        (a JSON object) replaces the document's metadata. `upload_document_with_outcome` also
        says what the upload did.
        """
        reply = self.upload_document_with_outcome(
            collection_id=collection_id,
            file_name=file_name,
            data=data,
            mime_type=mime_type,
            document_id=document_id,
            external_key=external_key,
            metadata=metadata,
            timeout=timeout,
        )
        return reply.document

    def upload_document_with_outcome(
        self,
        *,
        collection_id: str,
        file_name: str,
        data: SyncSource,
        mime_type: str | None = None,
        document_id: str | None = None,
        external_key: str | None = None,
        metadata: MetadataArg | None = None,
        timeout: float | None = None,
    ) -> knowledge_service_pb2.UploadDocumentResponse:
        """`upload_document`, answering the `UploadDocumentResponse`: the `document` and the
        `outcome` (UPLOAD_OUTCOME_CREATED, _REPLACED, _UNCHANGED or _METADATA_UPDATED)."""
        first = knowledge_service_pb2.UploadDocumentRequest(
            metadata=upload_metadata(
                collection_id,
                file_name,
                mime_type=mime_type,
                document_id=document_id,
                external_key=external_key,
                metadata=metadata,
            )
        )
        try:
            return self._knowledge.UploadDocument(
                upload_requests(first, data), timeout=timeout, metadata=self._metadata
            )
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from exc

    def upload_documents(
        self,
        *,
        collection_id: str,
        items: Iterable[ItemArg],
        max_bytes: int = DEFAULT_MAX_BATCH_BYTES,
        timeout: float | None = None,
    ) -> knowledge_service_pb2.UploadDocumentsResponse:
        """Uploads many documents over UploadDocuments: one call per 1,000 documents or
        `max_bytes` of data (set it to the server's QUIRE_MAX_UPLOAD_BYTES when that is not the
        default 64 MiB). `items` are `UploadItem`s or tuples (file_name, data[, external_key[,
        metadata[, mime_type]]]) with `data` as bytes. The results of all calls, in input order,
        `index` = position in `items`; a document the server refused has `error` set. A call
        refused as a whole (e.g. PAYLOAD_TOO_LARGE) raises; the calls before it are stored."""
        documents = [as_item(item) for item in items]
        groups = split_batches(
            [len(d.data) for d in documents], max_documents=MAX_BATCH_DOCUMENTS, max_bytes=max_bytes
        )
        results: list[knowledge_service_pb2.UploadResult] = []
        for positions in groups:
            reply = self._upload_batch(collection_id, [documents[p] for p in positions], timeout)
            results += renumber(reply.results, positions)
        return knowledge_service_pb2.UploadDocumentsResponse(schema_version=1, results=results)

    def _upload_batch(
        self, collection_id: str, documents: list[UploadItem], timeout: float | None
    ) -> knowledge_service_pb2.UploadDocumentsResponse:
        try:
            return self._knowledge.UploadDocuments(
                batch_requests(collection_id, documents),
                timeout=timeout,
                metadata=self._metadata,
            )
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from exc

    def upload_folder(
        self,
        *,
        collection_id: str,
        path: str | os.PathLike[str],
        concurrency: int = 4,
        key: KeyFunc | None = None,
        metadata: MetadataFunc | None = None,
        include: Sequence[str] | None = None,
        timeout: float | None = None,
    ) -> list[FileResult]:
        """Uploads every file under `path` (hidden files and symlinks skipped; with `include`,
        only keys matching one of the glob patterns), `concurrency` calls at a time. Each
        file's external key is its path relative to `path` with "/" (or `key(path)`), so a
        second run changes nothing (UNCHANGED) and an edited file is REPLACED. `metadata(path)`
        gives a file's metadata (None: left as it is). Files up to 1 MiB go in batches
        (UploadDocuments), larger ones in a stream of their own. One `FileResult` per file, in
        key order; a failure (refused file, failed call, a name that is not UTF-8) is reported
        there, never raised."""
        root = Path(path)
        files, refused = refuse_misnamed(walk_folder(root, include), key)
        plan = plan_folder(files)
        jobs = [
            functools.partial(self._folder_batch, collection_id, batch, key, metadata, timeout)
            for batch in plan.batches
        ] + [
            functools.partial(self._folder_single, collection_id, one, key, metadata, timeout)
            for one in plan.singles
        ]
        done = [result for results in run_all(jobs, concurrency) for result in results]
        return sorted(done + refused, key=lambda r: r.key)

    def _folder_batch(
        self,
        collection_id: str,
        batch: list[FolderFile],
        key: KeyFunc | None,
        metadata: MetadataFunc | None,
        timeout: float | None,
    ) -> list[FileResult]:
        results = [FileResult(path=f.path, key=key(f.path) if key else f.key) for f in batch]
        try:
            documents = [
                UploadItem(f.path.name, f.path.read_bytes(), r.key, metadata and metadata(f.path))
                for f, r in zip(batch, results, strict=True)
            ]
            reply = self._upload_batch(collection_id, documents, timeout)
        except (QuireError, OSError) as exc:
            error = exc if isinstance(exc, QuireError) else QuireError(str(exc))
            for result in results:
                result.error = error
            return results
        for item in reply.results:
            result = results[item.index]
            if item.HasField("error"):
                result.error = from_error_detail(item.error)
            else:
                result.outcome, result.document = item.outcome, item.document
        return results

    def _folder_single(
        self,
        collection_id: str,
        one: FolderFile,
        key: KeyFunc | None,
        metadata: MetadataFunc | None,
        timeout: float | None,
    ) -> list[FileResult]:
        result = FileResult(path=one.path, key=key(one.path) if key else one.key)
        try:
            reply = self.upload_document_with_outcome(
                collection_id=collection_id,
                file_name=one.path.name,
                data=one.path,
                external_key=result.key,
                metadata=metadata(one.path) if metadata else None,
                timeout=timeout,
            )
        except QuireError as exc:
            result.error = exc
        except OSError as exc:
            result.error = QuireError(str(exc))
        else:
            result.outcome, result.document = reply.outcome, reply.document
        return [result]

    def get_document(
        self,
        *,
        document_id: str | None = None,
        collection_id: str | None = None,
        external_key: str | None = None,
        timeout: float | None = None,
    ) -> knowledge_pb2.Document:
        """By `document_id`, or by `collection_id` + `external_key`."""
        request = knowledge_service_pb2.GetDocumentRequest()
        _name_document(request, document_id, collection_id, external_key)
        reply = self._unary(self._knowledge.GetDocument, request, timeout)
        return reply.document

    def list_documents(
        self,
        *,
        collection_id: str,
        cursor: str | None = None,
        limit: int | None = None,
        filter: FilterArg | None = None,
        timeout: float | None = None,
    ) -> knowledge_service_pb2.ListDocumentsResponse:
        """One page (`documents`, `next_cursor`); see `iter_documents` for all of them.
        `filter` (quire.client.filters) keeps the documents whose metadata matches."""
        request = knowledge_service_pb2.ListDocumentsRequest(
            collection_id=collection_id,
            cursor=cursor or "",
            limit=limit or 0,
            filter=as_message(filter),
        )
        k = self._knowledge
        return self._unary(k.ListDocuments, request, timeout)

    def iter_documents(
        self,
        *,
        collection_id: str,
        page_size: int | None = None,
        filter: FilterArg | None = None,
        timeout: float | None = None,
    ) -> Iterator[knowledge_pb2.Document]:
        """Every document of a collection (matching `filter`), following `next_cursor`."""
        cursor: str | None = None
        while True:
            page = self.list_documents(
                collection_id=collection_id,
                cursor=cursor,
                limit=page_size,
                filter=filter,
                timeout=timeout,
            )
            yield from page.documents
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def delete_document(
        self,
        *,
        document_id: str | None = None,
        collection_id: str | None = None,
        external_key: str | None = None,
        timeout: float | None = None,
    ) -> knowledge_pb2.Document:
        """By `document_id`, or by `collection_id` + `external_key`; returns it as deleted."""
        request = knowledge_service_pb2.DeleteDocumentRequest()
        _name_document(request, document_id, collection_id, external_key)
        k = self._knowledge
        reply = self._unary(k.DeleteDocument, request, timeout)
        return reply.document

    def delete_documents(
        self,
        *,
        collection_id: str,
        external_keys: Iterable[str] | None = None,
        document_ids: Iterable[str] | None = None,
        filter: FilterArg | None = None,
        timeout: float | None = None,
    ) -> knowledge_service_pb2.DeleteDocumentsResponse:
        """Deletes by exactly one of `external_keys` (1–1,000), `document_ids` (1–1,000) or
        `filter`, in one transaction: `deleted_count`, `revision`, and the `missing_keys` /
        `missing_document_ids` nothing held."""
        request = knowledge_service_pb2.DeleteDocumentsRequest(
            collection_id=collection_id,
            external_keys=list(external_keys or ()),
            document_ids=list(document_ids or ()),
            filter=as_message(filter),
        )
        k = self._knowledge
        return self._unary(k.DeleteDocuments, request, timeout)

    def update_document_metadata(
        self,
        *,
        patch: MetadataArg,
        document_id: str | None = None,
        collection_id: str | None = None,
        external_key: str | None = None,
        replace: bool = False,
        timeout: float | None = None,
    ) -> knowledge_pb2.Document:
        """Applies `patch` to the metadata as a JSON merge patch (a None value removes its
        key); `replace=True` makes `patch` the whole metadata. By `document_id`, or by
        `collection_id` + `external_key`. Returns the document (same revision when nothing
        changed)."""
        request = knowledge_service_pb2.UpdateDocumentMetadataRequest(
            patch=to_struct(patch), replace=replace
        )
        _name_document(request, document_id, collection_id, external_key)
        k = self._knowledge
        reply = self._unary(k.UpdateDocumentMetadata, request, timeout)
        return reply.document

    def watch_documents(
        self,
        *,
        collection_id: str,
        document_ids: Iterable[str] = (),
        timeout: float | None = None,
    ) -> Iterator[knowledge_pb2.Document]:
        """Yields every document's current state, then a Document at each status or
        index-state change; runs until cancelled (no default deadline). `document_ids` (at
        most 1,000) restricts it to those documents."""
        yield from self._watch(collection_id, document_ids, timeout)

    def _watch(
        self, collection_id: str, document_ids: Iterable[str], timeout: float | None
    ) -> Generator[knowledge_pb2.Document, None]:
        request = knowledge_service_pb2.WatchDocumentsRequest(
            collection_id=collection_id, document_ids=list(document_ids)
        )
        for reply in self._server_stream(self._knowledge.WatchDocuments, request, timeout):
            # The state's token: a read after it (e.g. a search once a document is INDEXED)
            # is then served by a replica only when it has replayed that state.
            self.consistency.observe_token(reply.consistency_token)
            yield reply.document

    def wait_until_searchable(
        self,
        *,
        document_ids: Iterable[str | knowledge_pb2.Document] | None = None,
        collection_id: str | None = None,
        timeout: float,
    ) -> WaitResult:
        """Waits until each document is searchable in its final form (or cannot be), at most
        `timeout` seconds. Give `document_ids` (ids or Document objects) or `collection_id`
        (its live documents now). One outcome per document: INDEXED, FAILED (`reason` is the
        extract error), NO_TEXT, DELETED (deleted or not found) or TIMED_OUT; `complete` is
        False when any timed out. A timeout never raises; bad input and auth errors do. A
        dropped watch (UNAVAILABLE) is reopened within the timeout. The first look at the
        documents (GetDocument / ListDocuments) has the usual read deadline; `timeout` bounds
        the waiting that follows."""
        if (document_ids is None) == (collection_id is None):
            raise ValueError("give exactly one of document_ids and collection_id")
        deadline = time.monotonic() + timeout
        known: dict[str, DocumentOutcome] = {}
        waiting: dict[str, list[str]] = {}  # collection id → its unsettled document ids
        if collection_id is not None:
            order: list[str] = []
            for document in self.iter_documents(collection_id=collection_id):
                order.append(document.document_id)
                _note(document, known, waiting)
            order.sort()
        else:
            order = []
            for item in document_ids or ():
                current = self._current(item)
                order.append(item.document_id if isinstance(item, knowledge_pb2.Document) else item)
                if current is None:
                    known[order[-1]] = DocumentOutcome(order[-1], Searchable.DELETED)
                else:
                    _note(current, known, waiting)
        jobs = [
            functools.partial(self._watch_until_settled, cid, ids[i : i + 1000], deadline)
            for cid, ids in waiting.items()
            for i in range(0, len(ids), 1000)
        ]
        for outcomes in run_all(jobs, len(jobs)):
            known.update(outcomes)
        return finish(order, known)

    def _current(self, item: str | knowledge_pb2.Document) -> knowledge_pb2.Document | None:
        """The document's state now (None when there is no such document). Read with the
        client's read deadline, not the wait's timeout: a document already settled is
        reported so even when the timeout is tiny."""
        if isinstance(item, knowledge_pb2.Document) and item.collection_id:
            return item
        document_id = item.document_id if isinstance(item, knowledge_pb2.Document) else item
        try:
            return self.get_document(document_id=document_id)
        except DocumentNotFound:
            return None

    def _watch_until_settled(
        self, collection_id: str, ids: list[str], deadline: float
    ) -> dict[str, DocumentOutcome]:
        """Outcomes of the documents that settle before the deadline (the rest are missing)."""
        pending = set(ids)
        found: dict[str, DocumentOutcome] = {}
        while pending and time.monotonic() < deadline:
            remaining = max(deadline - time.monotonic(), 0.001)
            watch = self._watch(collection_id, sorted(pending), remaining)
            try:
                # Leaving the loop early must cancel the watch now, not when collected.
                with closing(watch) as documents:
                    for document in documents:
                        outcome = settled(document) if document.document_id in pending else None
                        if outcome is not None:
                            found[outcome.document_id] = outcome
                            pending.discard(outcome.document_id)
                            if not pending:
                                break
            except DeadlineExceeded:
                break
            except Unavailable:
                # The watch dropped: open it again (after a short pause, so that a server that
                # is down is not called in a tight loop) for the documents still pending.
                pause(min(0.5, max(deadline - time.monotonic(), 0)))
        return found

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

    def delete_agent(self, *, agent_id: str, timeout: float | None = None) -> knowledge_pb2.Agent:
        """Deletes the agent (its collections stay); returns it as it was."""
        request = knowledge_service_pb2.DeleteAgentRequest(agent_id=agent_id)
        reply = self._unary(self._knowledge.DeleteAgent, request, timeout)
        return reply.agent

    def list_agents(
        self, *, cursor: str | None = None, limit: int | None = None, timeout: float | None = None
    ) -> knowledge_service_pb2.ListAgentsResponse:
        """One page of agents by id (`agents`, `next_cursor`); see `iter_agents`."""
        request = knowledge_service_pb2.ListAgentsRequest(cursor=cursor or "", limit=limit or 0)
        return self._unary(self._knowledge.ListAgents, request, timeout)

    def iter_agents(
        self, *, page_size: int | None = None, timeout: float | None = None
    ) -> Iterator[knowledge_pb2.Agent]:
        """Every agent of the organisation by id, following `next_cursor`."""
        cursor: str | None = None
        while True:
            page = self.list_agents(cursor=cursor, limit=page_size, timeout=timeout)
            yield from page.agents
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def search_knowledge(
        self,
        *,
        query: str,
        agent_id: str | None = None,
        collection_ids: Iterable[str] = (),
        limit: int | None = None,
        mode: knowledge_pb2.RetrievalMode.ValueType | None = None,
        filter: FilterArg | None = None,
        include_metadata: bool = False,
        timeout: float | None = None,
    ) -> knowledge_service_pb2.SearchKnowledgeResponse:
        """Hits (`hits`), the serving `mode` and `cached`. Give `agent_id` or `collection_ids`.
        `mode` chooses the retrieval mode for this call (default: the organisation's policy;
        the kill switch overrides both). `filter` (quire.client.filters) keeps the documents
        whose metadata matches, in every mode; `include_metadata` returns it on each hit."""
        request = knowledge_service_pb2.SearchKnowledgeRequest(
            agent_id=agent_id or "",
            collection_ids=list(collection_ids),
            query=query,
            limit=limit or 0,
            mode=mode or knowledge_pb2.RETRIEVAL_MODE_UNSPECIFIED,
            filter=as_message(filter),
            include_metadata=include_metadata,
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
        embedding_model: str | None = None,
        timeout: float | None = None,
    ) -> knowledge_pb2.IndexStatus:
        """Builds a new generation beside the serving one; `embedding_model` (a name of
        list_models) embeds it with another model, which serves once it is READY (None keeps
        the serving generation's)."""
        request = admin_service_pb2.RebuildIndexRequest(
            collection_id=collection_id,
            index_version=index_version or "",
            embedding_model=embedding_model or "",
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
        self, *, scopes: Iterable[ScopeArg], name: str = "", timeout: float | None = None
    ) -> admin_pb2.ApiKey:
        """Scopes as names (`"read"`, `"write"`, `"admin"`, `"tune"`) or enum values; `name`
        labels the key in `list_api_keys`."""
        request = admin_service_pb2.CreateApiKeyRequest(scopes=scope_values(scopes), name=name)
        reply = self._unary(self._admin.CreateApiKey, request, timeout)
        return reply.key

    def revoke_api_key(self, *, key_id: str, timeout: float | None = None) -> None:
        request = admin_service_pb2.RevokeApiKeyRequest(key_id=key_id)
        self._unary(self._admin.RevokeApiKey, request, timeout)

    def list_api_keys(
        self, *, timeout: float | None = None
    ) -> admin_service_pb2.ListApiKeysResponse:
        """The organisation's live keys, newest first (`keys`, `truncated`); never secrets."""
        request = admin_service_pb2.ListApiKeysRequest()
        return self._unary(self._admin.ListApiKeys, request, timeout)

    def who_am_i(self, *, timeout: float | None = None) -> admin_service_pb2.WhoAmIResponse:
        """The caller's organisation, key (no secret), retrieval policy and limits."""
        request = admin_service_pb2.WhoAmIRequest()
        return self._unary(self._admin.WhoAmI, request, timeout)


class PageListingRestarted(Exception):
    """`iter_pages`: the namespace changed during the listing; iterate again from the start."""

    def __init__(self, namespace: str) -> None:
        super().__init__(f"namespace {namespace!r} changed during the listing; start again")
        self.namespace = namespace


def _name_document(
    request: knowledge_service_pb2.GetDocumentRequest
    | knowledge_service_pb2.DeleteDocumentRequest
    | knowledge_service_pb2.UpdateDocumentMetadataRequest,
    document_id: str | None,
    collection_id: str | None,
    external_key: str | None,
) -> None:
    """Names the document by id or by key; the key is set even when empty, so that the server
    refuses an empty one instead of it reading as no key."""
    request.document_id = document_id or ""
    request.collection_id = collection_id or ""
    if external_key is not None:
        request.external_key = external_key


def _note(
    document: knowledge_pb2.Document,
    known: dict[str, DocumentOutcome],
    waiting: dict[str, list[str]],
) -> None:
    """Records a settled document's outcome, or that its collection's watch must wait for it."""
    outcome = settled(document)
    if outcome is not None:
        known[document.document_id] = outcome
    else:
        waiting.setdefault(document.collection_id, []).append(document.document_id)


def _decision(accept: bool) -> pages_service_pb2.SyncPagesRequest:
    return pages_service_pb2.SyncPagesRequest(
        decision=pages_service_pb2.DiscoveryDecision(accept=accept)
    )


__all__ = ["PageListingRestarted", "QuireClient", "SyncDiscoveryValidator"]

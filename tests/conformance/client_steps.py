"""The "client steps" of the conformance format (README §9): a step that calls a helper of the
Python client library (`QuireClient`) instead of one RPC, and the JSON its result is matched as.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from quire.client import (
    AsyncQuireClient,
    QuireClient,
    QuireError,
    ToolRunner,
    UploadItem,
    WaitResult,
)
from quire.v1 import knowledge_service_pb2, pages_service_pb2

# The RPCs each helper calls: an UNIMPLEMENTED from a helper is a skip when the scenario's
# `requires` lists one of them.
HELPER_RPCS = {
    "wait_until_searchable": {
        "KnowledgeService.GetDocument",
        "KnowledgeService.ListDocuments",
        "KnowledgeService.WatchDocuments",
    },
    "iterate": {
        "KnowledgeService.ListCollections",
        "KnowledgeService.ListDocuments",
        "KnowledgeService.ListAgents",
        "PagesService.ListNamespaces",
        "PagesService.ListPages",
    },
    "upload_documents": {"KnowledgeService.UploadDocuments"},
    "tool_call": {
        "PagesService.DescribeTools",
        "PagesService.SearchPages",
        "PagesService.ReadPage",
        "PagesService.ListPages",
        "PagesService.GrepPages",
        "PagesService.RunCommand",
        "KnowledgeService.SearchKnowledge",
        "KnowledgeService.ReadDocument",
    },
}


class BadArgs(Exception):
    """The step's `client`/`args` are not what the format allows."""


def error_json(exc: QuireError) -> dict[str, Any]:
    """A helper's typed error in the shape `expect.error` is matched against."""
    detail = json_format.MessageToDict(exc.detail)
    return {
        "grpc_code": exc.grpc_code.name if exc.grpc_code is not None else "UNKNOWN",
        "error_code": detail.get("code", "ERROR_CODE_UNSPECIFIED"),
        "detail": detail,
        "message": exc.message,
    }


def run_helper(client: QuireClient, helper: str, args: dict[str, Any]) -> Any:
    """Calls the helper; its result as the JSON of the format. QuireError propagates."""
    handlers: dict[str, Callable[[QuireClient, dict[str, Any]], Any]] = {
        "wait_until_searchable": _wait,
        "iterate": _iterate,
        "upload_documents": _upload_documents,
    }
    if helper not in handlers:
        raise BadArgs(f"unknown client helper {helper!r}")
    return handlers[helper](client, args)


def _wait(client: QuireClient, args: dict[str, Any]) -> Any:
    timeout = args.get("timeout_ms", 60_000) / 1000
    if ("document_ids" in args) == ("collection_id" in args):
        raise BadArgs("wait_until_searchable wants document_ids or collection_id")
    result: WaitResult
    if "document_ids" in args:
        result = client.wait_until_searchable(document_ids=args["document_ids"], timeout=timeout)
    else:
        result = client.wait_until_searchable(collection_id=args["collection_id"], timeout=timeout)
    outcomes = []
    for outcome in result.outcomes:
        item = {"documentId": outcome.document_id, "outcome": outcome.outcome.value}
        if outcome.reason:
            item["reason"] = outcome.reason
        outcomes.append(item)
    return {"outcomes": outcomes, "complete": result.complete}


def _request(cls: type[Message], body: dict[str, Any]) -> Any:
    try:
        return json_format.ParseDict(body, cls())
    except json_format.ParseError as exc:
        raise BadArgs(f"bad iterate request for {cls.DESCRIPTOR.name}: {exc}") from None


def _items(client: QuireClient, name: str, body: dict[str, Any], size: int | None) -> Iterator[Any]:
    if name == "collections":
        _request(knowledge_service_pb2.ListCollectionsRequest, body)
        return client.iter_collections()
    if name == "namespaces":
        _request(pages_service_pb2.ListNamespacesRequest, body)
        return client.iter_namespaces()
    if name == "documents":
        docs = _request(knowledge_service_pb2.ListDocumentsRequest, body)
        return client.iter_documents(
            collection_id=docs.collection_id,
            page_size=size,
            filter=docs.filter if docs.HasField("filter") else None,
        )
    if name == "agents":
        _request(knowledge_service_pb2.ListAgentsRequest, body)
        return client.iter_agents(page_size=size)
    if name == "pages":
        pages = _request(pages_service_pb2.ListPagesRequest, body)
        return client.iter_pages(
            namespace=pages.namespace, prefix=pages.prefix or None, page_size=size
        )
    raise BadArgs(f"iterate: unknown list {name!r}")


def _iterate(client: QuireClient, args: dict[str, Any]) -> Any:
    items = [
        json_format.MessageToDict(item)
        for item in _items(
            client, args.get("list", ""), args.get("request", {}), args.get("page_size")
        )
    ]
    return {"items": items, "count": len(items)}


def _upload_documents(client: QuireClient, args: dict[str, Any]) -> Any:
    documents = [
        UploadItem(
            file_name=d["fileName"],
            data=d.get("text", "").encode(),
            external_key=d.get("externalKey"),
            metadata=d.get("metadata"),
            mime_type=d.get("mimeType") or None,
        )
        for d in args.get("documents", [])
    ]
    reply = client.upload_documents(collection_id=args["collection_id"], items=documents)
    return json_format.MessageToDict(reply)


def run_tool_call(address: str, token: str, args: dict[str, Any]) -> Any:
    """The `tool_call` helper: the client's ToolRunner (an async one, so its own client) runs
    one tool call, bound as `args` says; the outcome as the JSON of the format."""
    tool, arguments = args.get("tool"), args.get("arguments", {})
    if not isinstance(tool, str) or not isinstance(arguments, dict):
        raise BadArgs("tool_call wants args.tool (a string) and args.arguments (an object)")

    async def call() -> Any:
        async with AsyncQuireClient(address, api_key=token) as client:
            runner = ToolRunner(
                client, namespace=args.get("namespace", ""), agent_id=args.get("agent_id", "")
            )
            outcome = await runner.call(tool, arguments)
        return {"isError": outcome.is_error, "text": outcome.text, "json": json.loads(outcome.text)}

    return asyncio.run(call())

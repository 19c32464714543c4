"""Typed Python client for Quire (design §1-§4).

    from quire.client import AsyncQuireClient, CollectionNotFound

    async with AsyncQuireClient("127.0.0.1:50051", api_key="qk_...") as client:
        collection = await client.create_collection(name="handbook")

`QuireClient` is the blocking twin (`quire.client.blocking`, generated from `aio.py`). Every
failure raises the `QuireError` subclass of its `quire.v1.ErrorCode`; `to_tool_error(exc)` turns
any exception into the agent tool JSON, `to_tool_result(message)` any result; `ToolRunner`
runs a model's tool calls (quire.client.tools).
"""

from __future__ import annotations

from quire.client.aio import AsyncQuireClient, DiscoveryValidator
from quire.client.blocking import QuireClient, SyncDiscoveryValidator
from quire.client.exceptions import (
    ERROR_CLASSES,
    AgentNotFound,
    AlreadyExists,
    CollectionNotFound,
    DeadlineExceeded,
    DiscoveryRejected,
    DocumentNotFound,
    Internal,
    InvalidRequest,
    NotFound,
    PageChanged,
    PageNotFound,
    PageSourceBusy,
    PageUnavailable,
    PayloadTooLarge,
    PermissionDenied,
    QuireError,
    ResourceExhausted,
    SearchUnavailable,
    SyncFailed,
    Unauthenticated,
    Unavailable,
    Unimplemented,
    UnsupportedMediaType,
    from_rpc_error,
    to_tool_error,
)
from quire.client.policy import CallKind, RetryPolicy, Timeouts
from quire.client.tool_result import to_tool_result
from quire.client.tools import ToolOutcome, ToolRunner
from quire.client.uploads import CHUNK_SIZE

__all__ = [
    "CHUNK_SIZE",
    "ERROR_CLASSES",
    "AgentNotFound",
    "AlreadyExists",
    "AsyncQuireClient",
    "CallKind",
    "CollectionNotFound",
    "DeadlineExceeded",
    "DiscoveryRejected",
    "DiscoveryValidator",
    "DocumentNotFound",
    "Internal",
    "InvalidRequest",
    "NotFound",
    "PageChanged",
    "PageNotFound",
    "PageSourceBusy",
    "PageUnavailable",
    "PayloadTooLarge",
    "PermissionDenied",
    "QuireClient",
    "QuireError",
    "ResourceExhausted",
    "RetryPolicy",
    "SearchUnavailable",
    "SyncDiscoveryValidator",
    "SyncFailed",
    "Timeouts",
    "ToolOutcome",
    "ToolRunner",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "UnsupportedMediaType",
    "from_rpc_error",
    "to_tool_error",
    "to_tool_result",
]

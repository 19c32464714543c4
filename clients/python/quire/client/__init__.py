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

from quire.client import filters

# The exception classes, one per ErrorCode, are generated (`_error_classes.py`): a new code's
# class is exported here without an edit.
from quire.client._error_classes import *  # noqa: F403
from quire.client._error_classes import __all__ as _error_class_names
from quire.client.aio import AsyncQuireClient, DiscoveryValidator, PageListingRestarted
from quire.client.batches import FileResult, UploadItem
from quire.client.blocking import QuireClient, SyncDiscoveryValidator
from quire.client.consistency import ConsistencyTokens
from quire.client.exceptions import QuireError, from_rpc_error, to_tool_error
from quire.client.policy import CallKind, RetryPolicy, Timeouts
from quire.client.structs import to_dict, to_struct
from quire.client.tool_result import to_tool_result
from quire.client.tools import ToolOutcome, ToolRunner
from quire.client.uploads import CHUNK_SIZE
from quire.client.waiting import DocumentOutcome, Searchable, WaitResult

__all__ = [
    "CHUNK_SIZE",
    "AsyncQuireClient",
    "CallKind",
    "ConsistencyTokens",
    "DiscoveryValidator",
    "DocumentOutcome",
    "FileResult",
    "PageListingRestarted",
    "QuireClient",
    "QuireError",
    "RetryPolicy",
    "Searchable",
    "SyncDiscoveryValidator",
    "Timeouts",
    "ToolOutcome",
    "ToolRunner",
    "UploadItem",
    "WaitResult",
    "filters",
    "from_rpc_error",
    "to_dict",
    "to_struct",
    "to_tool_error",
    "to_tool_result",
    *_error_class_names,
]

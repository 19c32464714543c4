"""The part of `grpc.aio.ServicerContext` Quire's servicers and interceptors use, over a
Connect request.

The gRPC servicers and the interceptor chain (telemetry, then auth, scope, limits, deadline
and error mapping in rpc.py) run unchanged behind the Connect listener; this adapter is what
they see as `context`. They read the request's metadata, the time left before its deadline and
the peer, and end a failed call with `abort` (rpc.py's `_Call.finish` is the only caller). Here
`abort` raises `Aborted`, which `connect_error` turns into the Connect error the client gets:
the same code and message as over gRPC, with the `google.rpc.Status` details (the
`quire.v1.ErrorDetail` and the `google.rpc.ErrorInfo`) as the Connect error's `details`.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import NamedTuple, NoReturn

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.request import RequestContext
from google.rpc import status_pb2
from protobuf.wkt import Any as ConnectAny

from quire.server.failures import STATUS_DETAILS_KEY, status_for


class Metadatum(NamedTuple):
    """One metadata entry, shaped as grpc.aio's (OpenTelemetry reads `.key` and `.value`)."""

    key: str
    value: str | bytes


Metadata = tuple[tuple[str, str | bytes], ...]

# Request headers that belong to HTTP or the Connect protocol, not to the caller's metadata:
# gRPC does not show its own protocol headers to servicers either.
_PROTOCOL_HEADERS = frozenset(
    {
        "content-type",
        "content-length",
        "content-encoding",
        "accept-encoding",
        "connect-protocol-version",
        "connect-timeout-ms",
        "connect-content-encoding",
        "connect-accept-encoding",
        "host",
        "connection",
        "transfer-encoding",
        "te",
    }
)


class Aborted(Exception):
    """A call ended by `context.abort`: the status the gRPC listener would have sent."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: Metadata) -> None:
        super().__init__(details)
        self.code = code
        self.details = details
        self.trailing_metadata = trailing_metadata


def connect_code(code: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status: the same name, but for gRPC's British CANCELLED."""
    return Code.CANCELED if code is grpc.StatusCode.CANCELLED else Code[code.name]


def connect_error(failure: Exception) -> ConnectError:
    """The Connect error for a failed call: an aborted call's code, message and status
    details; any other failure (raised outside rpc.py's mapping) classified the same way."""
    if isinstance(failure, ConnectError):
        return failure
    if isinstance(failure, Aborted):
        aborted = failure
    else:
        status = status_for(failure)
        aborted = Aborted(status.grpc_code, status.message, status.trailing_metadata)
    details: list[ErrorDetail] = []
    for key, value in aborted.trailing_metadata:
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            details.extend(
                ErrorDetail(ConnectAny(type_url=packed.type_url, value=packed.value))
                for packed in status.details
            )
    return ConnectError(connect_code(aborted.code), aborted.details, details)


class ConnectServicerContext:
    """`context` for a servicer method called over Connect (see the module docstring)."""

    def __init__(self, request: RequestContext[object, object]) -> None:
        self._request = request
        self._metadata: Metadata = tuple(
            Metadatum(key.lower(), value)
            for key, value in request.request_headers.allitems()
            if key.lower() not in _PROTOCOL_HEADERS
        )

    def invocation_metadata(self) -> Metadata:
        return self._metadata

    def time_remaining(self) -> float | None:
        """Seconds left before the `connect-timeout-ms` deadline; None without one."""
        remaining_ms = self._request.timeout_ms
        return None if remaining_ms is None else max(0.0, remaining_ms / 1000)

    def peer(self) -> str:
        """The client's address in gRPC's notation (`ipv4:host:port`), read by telemetry."""
        address = self._request.client_address
        if not address:
            return "unix:"  # unknown: OpenTelemetry then records no peer attributes
        host, _, port = address.rpartition(":")
        return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Metadata = ()
    ) -> NoReturn:
        raise Aborted(code, details, trailing_metadata)

    def set_trailing_metadata(self, trailing_metadata: Sequence[tuple[str, str | bytes]]) -> None:
        """Trailers of the Connect response (`trailer-` headers of a unary one); binary
        values (`-bin` keys) base64-encoded, as gRPC sends them over HTTP/2."""
        for key, value in trailing_metadata:
            text = base64.b64encode(value).decode() if isinstance(value, bytes) else value
            self._request.response_trailers.add(key, text)

    async def send_initial_metadata(self, initial_metadata: Sequence[tuple[str, str]]) -> None:
        for key, value in initial_metadata:
            self._request.response_headers.add(key, value)

    # The status goes out through `abort` only; OpenTelemetry's context wrapper may still
    # forward these, and there is nothing for them to record.
    def set_code(self, code: grpc.StatusCode) -> None:
        del code

    def set_details(self, details: str) -> None:
        del details

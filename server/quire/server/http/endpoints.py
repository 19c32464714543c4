"""Connect endpoints for every RPC of Quire's services, calling the gRPC servicers.

Nothing is handled twice. Each Connect endpoint takes the same `grpc.RpcMethodHandler` the
gRPC server registers for that method, runs it through the same server interceptors in the
same order (OpenTelemetry's RPC span, then rpc.py's auth, scope, organisation limits, deadline,
latency metric and error mapping), and calls the result with a `ConnectServicerContext`. The
interceptor chain is resolved per call, as grpc.aio does (whether a call is traced is decided
per call; rpc.py returns each method's wrapped handler from its cache). The endpoints are
built from the service descriptors, so an RPC added to the proto is served over Connect
without a line here.

Bidirectional streams need HTTP/2 (full duplex): over HTTP/1.x such a call is refused with
`unimplemented` before the servicer runs, as connect-go refuses it, rather than left to hang
waiting for request messages the client cannot send while it reads the response.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import Endpoint
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message_factory import GetMessageClass
from grpc import aio

from quire.server.failures import QuireError
from quire.server.http.servicer_context import ConnectServicerContext, connect_error
from quire.v1 import errors_pb2

Interceptors = Sequence[aio.ServerInterceptor]  # type: ignore[type-arg]
Handlers = Mapping[str, "grpc.RpcMethodHandler[Any, Any]"]

# The HTTP version of the request being served ("1.1", "2"), set by the ASGI router.
http_version: contextvars.ContextVar[str] = contextvars.ContextVar("http_version", default="2")

_IDEMPOTENCY = {
    descriptor_pb2.MethodOptions.IDEMPOTENCY_UNKNOWN: IdempotencyLevel.UNKNOWN,
    descriptor_pb2.MethodOptions.NO_SIDE_EFFECTS: IdempotencyLevel.NO_SIDE_EFFECTS,
    descriptor_pb2.MethodOptions.IDEMPOTENT: IdempotencyLevel.IDEMPOTENT,
}


class HandlerCollector:
    """Stands in for a grpc.aio server in the generated `add_…Servicer_to_server` functions,
    keeping each method's handler by its path (`/quire.v1.PagesService/SearchPages`)."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def add_generic_rpc_handlers(self, generic_handlers: object) -> None:
        del generic_handlers  # the same handlers arrive by name below

    def add_registered_method_handlers(
        self, service_name: str, method_handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        for name, handler in method_handlers.items():
            self.handlers[f"/{service_name}/{name}"] = handler


@dataclass(frozen=True)
class _CallDetails(grpc.HandlerCallDetails):
    """What a server interceptor reads of the call before it runs."""

    method: str
    invocation_metadata: tuple[tuple[str, str | bytes], ...]


async def _intercepted(
    path: str, handler: grpc.RpcMethodHandler[Any, Any], interceptors: Interceptors, context: Any
) -> Any:
    """`handler` wrapped by `interceptors`, the first outermost, as grpc.aio wraps it."""
    details = _CallDetails(path, context.invocation_metadata())

    async def continue_at(index: int, call: grpc.HandlerCallDetails) -> Any:
        if index == len(interceptors):
            return handler

        async def continuation(next_call: grpc.HandlerCallDetails) -> Any:
            return await continue_at(index + 1, next_call)

        return await interceptors[index].intercept_service(continuation, call)

    return await continue_at(0, details)


# The ErrorCode a servicer sees for a request message connectrpc could not read.
_UNREADABLE = {
    Code.INVALID_ARGUMENT: errors_pb2.ERROR_CODE_INVALID_REQUEST,
    Code.RESOURCE_EXHAUSTED: errors_pb2.ERROR_CODE_RESOURCE_EXHAUSTED,
}


async def _decoded(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """A client stream's messages, with connectrpc's failure to read one raised as what the
    servicer and rpc.py know: a QuireError (malformed or oversized message), or cancellation
    when the client went away mid-stream, as grpc.aio cancels the handler then."""
    try:
        async for message in requests:
            yield message
    except ConnectError as exc:
        if exc.code is Code.CANCELED:
            raise asyncio.CancelledError(exc.message) from None
        if isinstance(exc.__cause__, QuireError):  # refused by a codec (codecs.py)
            raise exc.__cause__ from None
        code = _UNREADABLE.get(exc.code, errors_pb2.ERROR_CODE_INVALID_REQUEST)
        raise QuireError(code, exc.message) from None


def _stream_type(method: MethodDescriptor) -> StreamType:
    if method.client_streaming:
        return StreamType.BIDI_STREAM if method.server_streaming else StreamType.CLIENT_STREAM
    return StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY


def _endpoint(
    method: MethodDescriptor, handler: grpc.RpcMethodHandler[Any, Any], interceptors: Interceptors
) -> Any:
    """The Connect endpoint of `method` (one of connectrpc's four endpoint kinds)."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    info: MethodInfo[Any, Any] = MethodInfo(
        name=method.name,
        service_name=method.containing_service.full_name,
        input=GetMessageClass(method.input_type),
        output=GetMessageClass(method.output_type),
        idempotency_level=_IDEMPOTENCY[method.GetOptions().idempotency_level],
        stream_type=_stream_type(method),
    )

    async def respond(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        context = ConnectServicerContext(ctx)
        if method.client_streaming:
            request = _decoded(request)
        try:
            wrapped = await _intercepted(path, handler, interceptors, context)
            behaviour: Callable[..., Awaitable[Any]] = wrapped.unary_unary or wrapped.stream_unary
            return await behaviour(request, context)
        except Exception as exc:  # an abort, or a failure outside rpc.py: typed either way
            raise connect_error(exc) from None

    async def stream(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        if method.client_streaming and http_version.get().startswith("1"):
            raise ConnectError(
                Code.UNIMPLEMENTED,
                f"{method.name} is a bidirectional stream: it needs HTTP/2 (h2c on this port, "
                "e.g. curl --http2-prior-knowledge); HTTP/1.1 cannot carry it",
            )
        context = ConnectServicerContext(ctx)
        if method.client_streaming:
            request = _decoded(request)
        try:
            wrapped = await _intercepted(path, handler, interceptors, context)
            behaviour: Callable[..., AsyncIterator[Any]] = (
                wrapped.unary_stream or wrapped.stream_stream
            )
            async for message in behaviour(request, context):
                yield message
        except Exception as exc:  # an abort, or a failure outside rpc.py: typed either way
            raise connect_error(exc) from None

    match info.stream_type:
        case StreamType.UNARY:
            return Endpoint.unary(info, respond)
        case StreamType.CLIENT_STREAM:
            return Endpoint.client_stream(info, respond)
        case StreamType.SERVER_STREAM:
            return Endpoint.server_stream(info, stream)
        case _:
            return Endpoint.bidi_stream(info, stream)


def endpoints(
    services: Sequence[ServiceDescriptor], handlers: Handlers, interceptors: Interceptors
) -> dict[str, Any]:
    """The Connect endpoint of every method of `services`, by URL path."""
    built: dict[str, Any] = {}
    for service in services:
        for method in service.methods:
            path = f"/{service.full_name}/{method.name}"
            built[path] = _endpoint(method, handlers[path], interceptors)
    return built

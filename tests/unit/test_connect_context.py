"""The servicer context of a Connect call (server/quire/server/http/servicer_context.py): what
the servicers and rpc.py read of it, and the Connect error an abort becomes."""

from __future__ import annotations

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import Headers, RequestContext

from quire.server.failures import QuireError, status_for
from quire.server.http.servicer_context import Aborted, ConnectServicerContext, connect_error
from quire.v1 import errors_pb2, pages_service_pb2


def request(timeout_ms: int | None = None, client: str | None = "127.0.0.1:5000") -> RequestContext:
    method = MethodInfo(
        name="SearchPages",
        service_name="quire.v1.PagesService",
        input=pages_service_pb2.SearchPagesRequest,
        output=pages_service_pb2.SearchPagesResponse,
        idempotency_level=IdempotencyLevel.NO_SIDE_EFFECTS,
        stream_type=StreamType.UNARY,
    )
    headers = Headers(
        [
            ("Authorization", "Bearer qk_x"),
            ("content-type", "application/json"),
            ("connect-timeout-ms", "500"),
            ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
        ]
    )
    return RequestContext(
        method=method,
        http_method="POST",
        request_headers=headers,
        timeout_ms=timeout_ms,
        client_address=client,
    )


def test_metadata_is_the_callers_headers_without_protocol_ones() -> None:
    context = ConnectServicerContext(request())
    metadata = context.invocation_metadata()
    assert [key for key, _ in metadata] == ["authorization", "traceparent"]
    assert metadata[0].key == "authorization" and metadata[0].value == "Bearer qk_x"


def test_time_remaining_follows_the_connect_timeout() -> None:
    assert ConnectServicerContext(request()).time_remaining() is None
    remaining = ConnectServicerContext(request(timeout_ms=2000)).time_remaining()
    assert remaining is not None and 1.5 < remaining <= 2.0


def test_peer_is_in_grpc_notation() -> None:
    assert ConnectServicerContext(request()).peer() == "ipv4:127.0.0.1:5000"
    assert ConnectServicerContext(request(client="::1:5000")).peer() == "ipv6:[::1]:5000"
    assert ConnectServicerContext(request(client=None)).peer() == "unix:"


async def test_an_abort_becomes_the_connect_error_with_the_status_details() -> None:
    context = ConnectServicerContext(request())
    status = status_for(
        QuireError(errors_pb2.ERROR_CODE_PAGE_CHANGED, "stale", current_revision="r2")
    )
    with pytest.raises(Aborted) as raised:
        await context.abort(status.grpc_code, status.message, status.trailing_metadata)
    error = connect_error(raised.value)
    assert error.code is Code.FAILED_PRECONDITION and error.message == "stale"
    assert [d.type_name for d in error.details] == ["quire.v1.ErrorDetail", "google.rpc.ErrorInfo"]
    detail = errors_pb2.ErrorDetail.FromString(error.details[0].message_bytes)
    assert detail.code == errors_pb2.ERROR_CODE_PAGE_CHANGED and detail.current_revision == "r2"


def test_any_other_failure_is_classified_as_over_grpc() -> None:
    error = connect_error(RuntimeError("a bug with internals in its message"))
    assert error.code is Code.INTERNAL and error.message == "Internal error"


def test_cancelled_is_spelt_the_connect_way() -> None:
    error = connect_error(Aborted(grpc.StatusCode.CANCELLED, "gone", ()))
    assert error.code is Code.CANCELED


def test_trailing_metadata_becomes_response_trailers() -> None:
    ctx = request()
    ConnectServicerContext(ctx).set_trailing_metadata([("x-note", "a"), ("x-raw-bin", b"\x00")])
    assert dict(ctx.response_trailers.allitems()) == {"x-note": "a", "x-raw-bin": "AA=="}

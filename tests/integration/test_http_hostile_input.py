"""Bytes no client library would send, at the HTTP listener: request headers that are not
UTF-8 text (spoken over a raw socket, parsed back with h11) and JSON bodies that do not fit
the request message. Each gets a typed Connect error with its quire.v1.ErrorDetail, never a
500 or a runtime's own words; the MCP endpoint on the same port refuses the same headers
without a 500 either."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import h11
import httpx
import pytest
import pytest_asyncio

from quire.v1 import errors_pb2
from tests.conftest import Harness, Keys

HTTP_LISTENER = True
SEARCH = "/quire.v1.PagesService/SearchPages"
NOT_UTF8 = b"\xe9\xe9_\xff"
# Words of Python or protobuf-python that must never reach a caller.
INTERNALS = ("Traceback", "codec", "decode", "utf-8", "Failed to parse", "Message type", "int()")

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("hostile-org")


@pytest.fixture(scope="module")
def port(harness: Harness) -> int:
    return harness.running.http.port  # type: ignore[attr-defined,no-any-return]


async def raw_post(
    port: int, path: str, headers: list[tuple[bytes, bytes]], body: bytes
) -> tuple[int, dict[bytes, bytes], bytes]:
    """One HTTP/1.1 POST written byte for byte (httpx and h11 refuse to send such headers);
    the status, headers and body of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = [
        b"POST " + path.encode() + b" HTTP/1.1",
        b"host: 127.0.0.1",
        b"connection: close",
        b"content-length: " + str(len(body)).encode(),
        *(name + b": " + value for name, value in headers),
    ]
    writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 30)
    writer.close()
    parser = h11.Connection(h11.CLIENT)
    parser.send(h11.Request(method="POST", target=path, headers=[("host", "x")]))
    parser.receive_data(answer)
    parser.receive_data(b"")
    status, response_headers, content = 0, {}, b""
    while (event := parser.next_event()) not in (h11.NEED_DATA, h11.PAUSED):
        if isinstance(event, h11.Response):
            status, response_headers = event.status_code, dict(event.headers)
        elif isinstance(event, h11.Data):
            content += event.data
        elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
            break
    return status, response_headers, content


def error_detail(error: dict[str, Any]) -> errors_pb2.ErrorDetail:
    for detail in error.get("details", ()):
        if detail["type"] == "quire.v1.ErrorDetail":
            raw = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
            return errors_pb2.ErrorDetail.FromString(raw)
    raise AssertionError(f"no ErrorDetail in {error}")


def assert_no_internals(text: str) -> None:
    for word in INTERNALS:
        assert word not in text, text


# Every header the listener or the servicers read, and one it forwards as metadata unread.
HEADER_KINDS = {
    "authorization": (b"authorization", b"Bearer qk_" + NOT_UTF8),
    "content-type": (b"content-type", b"application/json; charset=" + NOT_UTF8),
    "connect-timeout-ms": (b"connect-timeout-ms", b"10" + NOT_UTF8),
    "connect-protocol-version": (b"connect-protocol-version", b"1" + NOT_UTF8),
    "accept-encoding": (b"accept-encoding", b"gzip, " + NOT_UTF8),
    "content-encoding": (b"content-encoding", NOT_UTF8),
    "traceparent": (b"traceparent", b"00-" + NOT_UTF8 + b"-00f067aa0ba902b7-01"),
    "consistency-token": (b"quire-consistency-token", b"0/" + NOT_UTF8),
    "custom-metadata": (b"x-request-id", b"caf" + NOT_UTF8),
    "user-agent": (b"user-agent", b"agent/" + NOT_UTF8),
}


@pytest.mark.parametrize("kind", sorted(HEADER_KINDS))
async def test_a_header_that_is_not_utf8_gets_a_typed_connect_error(
    port: int, keys: Keys, kind: str
) -> None:
    name, value = HEADER_KINDS[kind]
    headers = {b"content-type": b"application/json", b"authorization": f"Bearer {keys.read}"}
    headers = {k: v.encode() if isinstance(v, str) else v for k, v in headers.items()}
    headers[name] = value
    body = json.dumps({"namespace": "hostile", "query": "q"}).encode()
    status, response_headers, content = await raw_post(port, SEARCH, list(headers.items()), body)
    assert status != 500, content
    assert response_headers[b"content-type"] == b"application/json"
    assert_no_internals(content.decode())
    error = json.loads(content)
    detail = error_detail(error)
    if kind == "authorization":
        assert (status, error["code"]) == (401, "unauthenticated")
        assert detail.code == errors_pb2.ERROR_CODE_UNAUTHENTICATED
    else:
        assert (status, error["code"]) == (400, "invalid_argument")
        assert detail.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
        assert name.decode() in error["message"]


@pytest.mark.parametrize("kind", sorted(HEADER_KINDS))
async def test_the_mcp_endpoint_refuses_the_same_headers_without_a_500(
    port: int, keys: Keys, kind: str
) -> None:
    name, value = HEADER_KINDS[kind]
    headers = {
        b"content-type": b"application/json",
        b"accept": b"application/json, text/event-stream",
        b"authorization": f"Bearer {keys.read}".encode(),
        name: value,
    }
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    status, _, content = await raw_post(
        port, "/mcp", list(headers.items()), json.dumps(request).encode()
    )
    assert status < 500, content
    assert "Traceback" not in content.decode(errors="replace")
    if kind == "authorization":
        assert status == 401, content


MALFORMED_BODIES = {
    # body: (field named, words the message holds)
    "truncated": (b'{"namespace": "x", "query": ', "", "line 1 column"),
    "unknown-field": (b'{"namespace": "x", "query": "q", "colour": "blue"}', "colour", "colour"),
    "limit-text": (b'{"namespace": "x", "query": "q", "limit": "many"}', "limit", "1–20"),
    "limit-negative": (b'{"namespace": "x", "query": "q", "limit": -1}', "limit", "1–20"),
    "limit-2^40": (b'{"namespace": "x", "query": "q", "limit": 1099511627776}', "limit", "1–20"),
    "limit-fraction": (b'{"namespace": "x", "query": "q", "limit": 1.5}', "limit", "1–20"),
    "limit-boolean": (b'{"namespace": "x", "query": "q", "limit": true}', "limit", "1–20"),
    "query-number": (b'{"namespace": "x", "query": 5}', "query", "string"),
    "query-surrogate": (b'{"namespace": "x", "query": "\\ud800"}', "query", "Unicode"),
    "alternatives-text": (
        b'{"namespace": "x", "query": "q", "alternatives": "a"}',
        "alternatives",
        "array",
    ),
    "alternatives-item": (
        b'{"namespace": "x", "query": "q", "alternatives": ["a", 7]}',
        "alternatives[1]",
        "string",
    ),
    "nested-unknown": (
        b'{"namespace": "x", "query": "q", "config": {"nope": 1}}',
        "config.nope",
        "PageSearchConfig",
    ),
    "nested-type": (
        b'{"namespace": "x", "query": "q", "config": {"parallelTupleCost": "x"}}',
        "config.parallel_tuple_cost",
        "number",
    ),
    "boolean-text": (
        b'{"namespace": "x", "query": "q", "config": {"enableSeqscan": "SOMETIMES"}}',
        "config.enable_seqscan",
        "true or false",
    ),
    "not-an-object": (b"[]", "", "JSON object"),
}


@pytest.mark.parametrize("body", sorted(MALFORMED_BODIES))
async def test_a_malformed_json_body_names_the_field_or_position(
    port: int, keys: Keys, body: str
) -> None:
    content, field, words = MALFORMED_BODIES[body]
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        response = await http.post(
            SEARCH,
            content=content,
            headers={"content-type": "application/json", "authorization": f"Bearer {keys.read}"},
        )
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["code"] == "invalid_argument"
    assert_no_internals(error["message"])
    assert len(error["message"]) < 160, error["message"]
    assert words in error["message"]
    detail = error_detail(error)
    assert detail.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
    assert detail.message == error["message"]
    assert [v.field for v in detail.field_violations] == ([field] if field else [])

"""Session consistency in the Python clients: the highest token seen, sent with every read.

The interceptors are checked on the blocking side with a fake continuation (the asyncio one
is the same code before scripts/unasync_client.py); tests/reliability/test_read_replicas.py
runs the asyncio client against a real primary and standby.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from quire.client._blocking_interceptors import (
    StreamUnaryDeadlineInterceptor,
    UnaryPolicyInterceptor,
)
from quire.client.consistency import TOKEN_KEY, ConsistencyTokens, token_position
from quire.client.policy import DEFAULT_TIMEOUTS, RetryPolicy

FAST = RetryPolicy(max_attempts=2, initial_backoff=0.001, max_backoff=0.002)


class _Details(grpc.ClientCallDetails):
    def __init__(self, method: str) -> None:
        self.method = method
        self.timeout = None
        self.metadata = (("authorization", "Bearer k"),)
        self.credentials = None
        self.wait_for_ready = None
        self.compression = None


class _Done:
    def __init__(self, trailers: tuple[tuple[str, str], ...], error: Any = None) -> None:
        self._trailers = trailers
        self._error = error

    def exception(self) -> Any:
        return self._error

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._trailers


class _Server:
    """Answers with `token` in its trailers; records the metadata of every call."""

    def __init__(self, token: str | None = None, error: Any = None) -> None:
        self.token = token
        self.error = error
        self.sent: list[dict[str, str]] = []

    def __call__(self, details: grpc.ClientCallDetails, request: Any) -> _Done:
        self.sent.append(dict(details.metadata or ()))
        trailers = ((TOKEN_KEY, self.token),) if self.token else ()
        return _Done(trailers, self.error)


class _Refused(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.INVALID_ARGUMENT

    def details(self) -> str:
        return "no"

    def trailing_metadata(self) -> tuple[()]:
        return ()


READ = "/quire.v1.KnowledgeService/GetAgent"
WRITE = "/quire.v1.KnowledgeService/UpsertAgent"
UPLOAD = "/quire.v1.KnowledgeService/UploadDocument"


def test_the_highest_token_wins() -> None:
    tokens = ConsistencyTokens()
    assert tokens.current is None and tokens.request_metadata() == ()
    tokens.advance("0/16B3748")
    tokens.advance("0/16B0000")  # older: ignored
    assert tokens.current == "0/16B3748"
    tokens.advance("1/0")  # past 0/FFFFFFFF: compared as a position, not as text
    assert tokens.current == "1/0"
    assert tokens.request_metadata() == ((TOKEN_KEY, "1/0"),)
    assert token_position("1/0") == 2**32


@pytest.mark.parametrize("bad", ["", "16B3748", "0/", "x/1", "0/123456789"])
def test_a_malformed_token_is_refused_when_handed_over(bad: str) -> None:
    with pytest.raises(ValueError, match="not a Quire consistency token"):
        ConsistencyTokens().advance(bad)


def test_a_malformed_token_in_a_response_is_ignored() -> None:
    tokens = ConsistencyTokens()
    tokens.observe(((TOKEN_KEY, "garbage"), ("other", "0/1")))
    assert tokens.current is None


def test_a_watch_message_token_is_kept_and_an_empty_one_ignored() -> None:
    tokens = ConsistencyTokens()
    tokens.observe_token("")
    tokens.observe_token("garbage")
    assert tokens.current is None
    tokens.observe_token("0/16B3748")
    tokens.observe_token("0/16B0000")
    assert tokens.current == "0/16B3748"
    off = ConsistencyTokens(enabled=False)
    off.observe_token("0/16B3748")
    assert off.current is None


def test_a_write_token_is_sent_with_the_next_read_and_not_with_writes() -> None:
    tokens = ConsistencyTokens()
    interceptor = UnaryPolicyInterceptor(DEFAULT_TIMEOUTS, FAST, tokens)
    writes = _Server(token="0/3000060")
    interceptor.intercept_unary_unary(writes, _Details(WRITE), None)
    assert TOKEN_KEY not in writes.sent[0]
    assert tokens.current == "0/3000060"
    reads = _Server()
    interceptor.intercept_unary_unary(reads, _Details(READ), None)
    assert reads.sent[0][TOKEN_KEY] == "0/3000060"
    assert reads.sent[0]["authorization"] == "Bearer k"  # the call's own metadata kept


def test_a_read_token_from_a_replica_advances_the_session() -> None:
    tokens = ConsistencyTokens()
    tokens.advance("0/100")
    interceptor = UnaryPolicyInterceptor(DEFAULT_TIMEOUTS, FAST, tokens)
    interceptor.intercept_unary_unary(_Server(token="0/200"), _Details(READ), None)
    assert tokens.current == "0/200"


def test_a_failed_call_leaves_the_token_alone() -> None:
    tokens = ConsistencyTokens()
    interceptor = UnaryPolicyInterceptor(DEFAULT_TIMEOUTS, FAST, tokens)
    interceptor.intercept_unary_unary(_Server(token="0/9", error=_Refused()), _Details(WRITE), None)
    assert tokens.current is None


def test_uploads_hand_their_token_over() -> None:
    tokens = ConsistencyTokens()
    interceptor = StreamUnaryDeadlineInterceptor(DEFAULT_TIMEOUTS, tokens)
    interceptor.intercept_stream_unary(_Server(token="0/ABC"), _Details(UPLOAD), iter(()))
    assert tokens.current == "0/ABC"


def test_session_consistency_off_sends_and_keeps_nothing() -> None:
    tokens = ConsistencyTokens(enabled=False)
    interceptor = UnaryPolicyInterceptor(DEFAULT_TIMEOUTS, FAST, tokens)
    interceptor.intercept_unary_unary(_Server(token="0/9"), _Details(WRITE), None)
    reads = _Server()
    interceptor.intercept_unary_unary(reads, _Details(READ), None)
    assert tokens.current is None and TOKEN_KEY not in reads.sent[0]


def test_a_client_exposes_its_tokens() -> None:
    from quire.client import QuireClient

    with QuireClient("127.0.0.1:1", api_key="k") as client:
        assert client.consistency.enabled and client.consistency.current is None
        client.consistency.advance("0/5")  # e.g. a token another process handed over
        assert client.consistency.current == "0/5"
    with QuireClient("127.0.0.1:1", api_key="k", session_consistency=False) as client:
        assert not client.consistency.enabled

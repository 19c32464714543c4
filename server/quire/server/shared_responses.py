"""Responses built once and shared between calls, kept with their encoding.

DescribeTools answers from definitions built once per process (services/pages.py); encoding
them (seven tools in four shapes) cost more than the rest of the call's Python. A message
passed through `keep` is encoded once, and `serializer` (installed by rpc.py on every unary
method) hands out those bytes when the handler returns that very object. Kept messages must
never be changed afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from google.protobuf.message import Message

M = TypeVar("M", bound=Message)

MAX_KEPT = 512  # the DescribeTools cache holds 256; a bound, not a working-set size
# id(message) -> (the message, held so its id cannot be reused while kept; its bytes)
_kept: dict[int, tuple[Message, bytes]] = {}


def keep(message: M) -> M:
    if len(_kept) >= MAX_KEPT:
        _kept.clear()
    _kept[id(message)] = (message, message.SerializeToString())
    return message


def serializer(serialize: Callable[[Any], bytes] | None) -> Callable[[Any], bytes] | None:
    """`serialize`, answering kept messages from their bytes."""
    if serialize is None:
        return None
    inner = serialize

    def encode(message: Any) -> bytes:
        kept = _kept.get(id(message))
        if kept is not None and kept[0] is message:
            return kept[1]
        return inner(message)

    return encode

"""The codecs of the Connect listener: canonical proto3 JSON, compact, strict on input; and
protobuf binary. Both refuse a body they cannot read as a typed error.


connectrpc's own codec for google.protobuf messages pretty-prints (two-space indents, about a
third more bytes on a 24,000-byte SearchPages result, and more to parse) and ignores JSON
fields the message does not have. Here a response is written compactly, with the field names
gRPC-JSON clients and the conformance scenarios use (lowerCamelCase, 64-bit integers as
strings, enums by name), and a request field the message lacks is an error: a misspelt `limt`
must not silently become the default limit. So is a body that is not a JSON object (protobuf
reads `[]` as `{}`).

A body that cannot be read is refused here as a typed error (body_faults.py: the field or the
position, with the ErrorDetail every error carries), which connectrpc sends as it is; from
any other exception it would send the parser's own words and no details.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from quire.client.proto_json import json_dict
from quire.server.failures import QuireError
from quire.server.http import body_faults
from quire.server.http.servicer_context import connect_error


def _read_json(data: bytes | bytearray, message_class: type[Any]) -> Any:
    """`data` as a `message_class`; QuireError naming the field or position when it is not."""
    descriptor = message_class.DESCRIPTOR
    try:
        value = json.loads(data)
    except ValueError as exc:  # JSONDecodeError, or UnicodeDecodeError for non-UTF-8 bytes
        raise body_faults.not_json(exc) from None
    except RecursionError:
        raise body_faults.too_deep() from None
    if not isinstance(value, dict):  # protobuf would take `[]` as an empty message
        raise body_faults.not_an_object(descriptor)
    message = message_class()
    try:
        json_format.ParseDict(value, message, ignore_unknown_fields=False)
    except RecursionError:
        raise body_faults.too_deep() from None
    except Exception:  # protobuf raises ParseError, but also TypeError, ValueError, ...
        raise body_faults.misfit(descriptor, value) from None
    return message


def _read_binary(data: bytes | bytearray, message_class: type[Any]) -> Any:
    try:
        return message_class.FromString(bytes(data))
    except Exception:  # DecodeError, or RecursionError for absurd nesting
        raise body_faults.not_binary(message_class.DESCRIPTOR) from None


def _decoded(read: Callable[[bytes | bytearray, type[Any]], Any]) -> Any:
    """A codec's `decode` from `read`: its typed failure as the Connect error, kept as the
    cause, so a client stream's reader (endpoints.py) raises the failure itself, field and
    all."""

    def decode(self: object, data: bytes | bytearray, message_class: type[Any]) -> Any:
        try:
            return read(data, message_class)
        except QuireError as failure:
            raise connect_error(failure) from failure

    return decode


class StrictCompactJson:
    """A connectrpc `Codec` (name, encode, decode) named `json`."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        # `json_format.MessageToJson(message, indent=None)`, byte for byte, without its
        # reflection over every field (proto_json.py).
        return json.dumps(json_dict(message)).encode()

    decode = _decoded(_read_json)


class StrictProtoBinary:
    """A connectrpc `Codec` named `proto` (protobuf binary), whose refusal of bytes that are
    not the message carries the ErrorDetail and not protobuf's words."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        return message.SerializeToString()

    decode = _decoded(_read_binary)

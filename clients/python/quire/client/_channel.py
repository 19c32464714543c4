"""Connection settings shared by the async and blocking clients."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

DEFAULT_TARGET = "127.0.0.1:50051"
API_KEY_ENV = "QUIRE_API_KEY"
USER_AGENT = "quire-client-python/0.1.0"

ChannelOptions = Sequence[tuple[str, Any]]
Metadata = tuple[tuple[str, str], ...]

# Large enough for every response the contract allows (results are bounded far below).
_BASE_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.primary_user_agent", USER_AGENT),
    ("grpc.max_receive_message_length", 16 * 1024 * 1024),
    ("grpc.max_send_message_length", 16 * 1024 * 1024),
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_permit_without_calls", 1),
)


@dataclass(frozen=True)
class Connection:
    target: str
    credentials: grpc.ChannelCredentials | None
    options: tuple[tuple[str, Any], ...]
    metadata: Metadata


def _read(value: bytes | str | os.PathLike[str] | None) -> bytes | None:
    """PEM given as bytes, or as a path to a PEM file."""
    if value is None or isinstance(value, bytes):
        return value
    with open(value, "rb") as file:
        return file.read()


def resolve(
    target: str,
    api_key: str | None,
    tls: bool | grpc.ChannelCredentials,
    root_certificates: bytes | str | os.PathLike[str] | None,
    private_key: bytes | str | os.PathLike[str] | None,
    certificate_chain: bytes | str | os.PathLike[str] | None,
    options: ChannelOptions | None,
) -> Connection:
    """Resolves the API key (argument, else $QUIRE_API_KEY) and the channel credentials.

    TLS is on when `tls` is true or credentials, or when any certificate is given. Certificates
    may be PEM bytes or paths to PEM files; `private_key` + `certificate_chain` enable mTLS.
    """
    key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
    metadata: Metadata = (("authorization", f"Bearer {key}"),) if key else ()
    credentials: grpc.ChannelCredentials | None
    if isinstance(tls, grpc.ChannelCredentials):
        credentials = tls
    elif tls or root_certificates is not None or private_key is not None:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=_read(root_certificates),
            private_key=_read(private_key),
            certificate_chain=_read(certificate_chain),
        )
    else:
        credentials = None
    merged = dict(_BASE_OPTIONS)
    merged.update(dict(options or ()))
    return Connection(target, credentials, tuple(merged.items()), metadata)

"""The flags every network command shares (server address, API key, TLS, --json) and the
client they open."""

from __future__ import annotations

import argparse
import dataclasses
import os

from quire.client import AsyncQuireClient
from quire.client.policy import DEFAULT_TIMEOUTS

# Where `quire up` and `quire serve` listen unless told otherwise (quire.server.config has the
# same default; tests/unit/test_cli_extensions.py holds them equal).
DEFAULT_ADDRESS = "127.0.0.1:50051"

# A big file over a slow link, or a large site, can outlast the client's default upload and
# sync deadlines; a person at a terminal watches the progress and stops with Ctrl-C instead.
_CLI_TIMEOUTS = dataclasses.replace(DEFAULT_TIMEOUTS, upload=None, sync=None)


class MissingKey(Exception):
    """No --api-key and no $QUIRE_API_KEY."""


def flags() -> argparse.ArgumentParser:
    """A parent parser holding the shared flags (argparse `parents=`)."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("connection")
    group.add_argument(
        "--address",
        default=os.environ.get("QUIRE_ADDRESS", DEFAULT_ADDRESS),
        help=f"the server's gRPC address (default $QUIRE_ADDRESS or {DEFAULT_ADDRESS})",
    )
    group.add_argument("--api-key", help="the API key (default $QUIRE_API_KEY)")
    group.add_argument("--tls", action="store_true", help="connect with TLS (system roots)")
    group.add_argument("--tls-ca", metavar="PEM", help="CA certificates to trust (implies --tls)")
    group.add_argument(
        "--tls-client-cert", metavar="PEM", help="client certificate chain for mutual TLS"
    )
    group.add_argument("--tls-client-key", metavar="PEM", help="client private key for mutual TLS")
    parent.add_argument(
        "--json",
        action="store_true",
        help="print the result as JSON on stdout (progress, on a terminal, goes to stderr)",
    )
    return parent


def open_client(args: argparse.Namespace) -> AsyncQuireClient:
    api_key = args.api_key or os.environ.get("QUIRE_API_KEY")
    if not api_key:
        raise MissingKey("no API key: give --api-key or set QUIRE_API_KEY")
    return AsyncQuireClient(
        args.address,
        api_key=api_key,
        tls=bool(args.tls),
        root_certificates=args.tls_ca,
        private_key=args.tls_client_key,
        certificate_chain=args.tls_client_cert,
        default_timeouts=_CLI_TIMEOUTS,
    )


__all__ = ["DEFAULT_ADDRESS", "MissingKey", "flags", "open_client"]

"""Runs a network command: opens the client, turns failures into a clear message on stderr
(and an `error` object on stdout with --json) and the exit code that names what failed."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.server.cli_commands import exit_codes
from quire.server.cli_commands.connection import MissingKey, open_client
from quire.server.cli_commands.output import Output

Command = Callable[[AsyncQuireClient, argparse.Namespace, Output], Awaitable[int]]


def explain(exc: qe.QuireError, address: str) -> str:
    """One sentence a person can act on."""
    if isinstance(exc, qe.Unauthenticated):
        return (
            f"the server at {address} refused the API key ({exc.message}); "
            "check --api-key or $QUIRE_API_KEY"
        )
    if isinstance(exc, qe.PermissionDenied):
        return f"the API key may not do this ({exc.message}); use a key with the needed scope"
    if isinstance(exc, qe.Unavailable):
        return f"could not reach the Quire server at {address} ({exc.message})"
    if isinstance(exc, qe.DeadlineExceeded):
        return f"the server at {address} did not answer in time ({exc.message})"
    return f"{exc.code_name}: {exc.message}"


def _fail(output: Output, code: str, message: str, exit_code: int) -> int:
    if output.as_json:
        sys.stdout.write(json.dumps({"error": code, "message": message}) + "\n")
    print(f"quire: {message}", file=sys.stderr, flush=True)
    return exit_code


def run(command: Command) -> Callable[[argparse.Namespace], int]:
    """An argparse `func` that runs `command` with a client on its own event loop."""

    def func(args: argparse.Namespace) -> int:
        output = Output(as_json=args.json)

        async def main() -> int:
            async with open_client(args) as client:
                return await command(client, args, output)

        try:
            return asyncio.run(main())
        except MissingKey as exc:
            return _fail(output, "unauthenticated", str(exc), exit_codes.AUTH)
        except qe.QuireError as exc:
            message = explain(exc, args.address)
            return _fail(output, exc.code_name, message, exit_codes.for_error(exc))
        except KeyboardInterrupt:
            return _fail(output, "interrupted", "interrupted", exit_codes.INTERRUPTED)

    return func


__all__ = ["Command", "explain", "run"]

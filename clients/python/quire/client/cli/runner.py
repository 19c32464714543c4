"""Runs a network command: opens the client, turns failures into a clear message on stderr
(and the error envelope on stdout with --json) and the exit code that names what failed."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from quire.client.cli import exit_codes
from quire.client.cli.connection import MissingKey, open_client
from quire.client.cli.output import Output, error_envelope, write_json

Command = Callable[[AsyncQuireClient, argparse.Namespace, Output], Awaitable[int]]


class Declined(Exception):
    """The person answered no to a confirmation."""


def confirm(question: str, yes: bool) -> None:
    """Asks `question` on the terminal; Declined unless answered yes. `--yes` skips the
    question; without a terminal to ask on, it is required."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise Declined(f"{question} Not asked: no terminal; pass --yes to confirm")
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    if answer not in {"y", "yes"}:
        raise Declined("nothing deleted")


def command_name(args: argparse.Namespace) -> str:
    """`collections ls`, `search`, …: the words that chose the command."""
    words = [args.command]
    action = getattr(args, f"{args.command}_command", None)
    if action:
        words.append(action)
    return " ".join(words)


def _quoted(value: object) -> str:
    return '"' + str(value).replace('"', '\\"') + '"'


def not_found(exc: qe.QuireError, args: argparse.Namespace) -> str | None:
    """A not-found message that names what was asked for, from the command's arguments
    (the server's own message says only which kind of object it was)."""
    namespace = getattr(args, "namespace", None)
    if isinstance(exc, qe.AgentNotFound):
        agent = getattr(args, "agent", None) or getattr(args, "agent_id", None)
        return f"agent {_quoted(agent)} not found" if agent else None
    if isinstance(exc, qe.PageNotFound):
        path = getattr(args, "path", None)
        if path and namespace:
            return f"page {_quoted(path)} not found in namespace {_quoted(namespace)}"
        return None
    if type(exc) is qe.NotFound:
        if exc.message == "Namespace not found" and namespace:
            return f"namespace {_quoted(namespace)} not found"
        if exc.message == "No sync report for that namespace" and namespace:
            return f"no sync report for namespace {_quoted(namespace)} (not found, or never synced)"
        if exc.message == "API key not found" and getattr(args, "key_id", None):
            return f"API key {_quoted(args.key_id)} not found"
    return None


def explain(exc: qe.QuireError, address: str, args: argparse.Namespace | None = None) -> str:
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
    named = not_found(exc, args) if args is not None else None
    if named is not None:
        return named
    if exc.message.startswith(('collection "', 'document "')):
        return exc.message  # the CLI's own, naming the object (collections.resolve, docs)
    return f"{exc.code_name}: {exc.message}"


def fail(output: Output, code: str, message: str, exit_code: int) -> int:
    if output.as_json:
        write_json(error_envelope(output.command, code, message, exit_code))
    print(f"quire: {message}", file=sys.stderr, flush=True)
    return exit_code


def run(command: Command) -> Callable[[argparse.Namespace], int]:
    """An argparse `func` that runs `command` with a client on its own event loop."""

    def func(args: argparse.Namespace) -> int:
        output = Output(
            as_json=args.json, command=command_name(args), plain=getattr(args, "plain", False)
        )

        async def main() -> int:
            async with open_client(args) as client:
                return await command(client, args, output)

        try:
            return asyncio.run(main())
        except MissingKey as exc:
            return fail(output, "unauthenticated", str(exc), exit_codes.AUTH)
        except qe.QuireError as exc:
            message = explain(exc, args.address, args)
            return fail(output, exc.code_name.lower(), message, exit_codes.for_error(exc))
        except Declined as exc:
            return fail(output, "declined", str(exc), exit_codes.DECLINED)
        except KeyboardInterrupt:
            return fail(output, "interrupted", "interrupted", exit_codes.INTERRUPTED)

    return func


__all__ = ["Command", "Declined", "command_name", "confirm", "explain", "fail", "not_found", "run"]

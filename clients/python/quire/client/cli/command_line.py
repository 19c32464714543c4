"""The `quire` parser: the network commands, then what installed extensions add (the server
package's `up`, `serve`, …; see `extensions`), then a placeholder for each server command
that is not installed."""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Sequence
from typing import Any

from quire.client.cli import (
    account,
    admin,
    agents,
    collections,
    docs,
    extensions,
    pages,
    search,
)
from quire.client.cli.extensions import CommandLine, Extension


class Parser(argparse.ArgumentParser):
    """argparse with "did you mean" for a mistyped command or action (sub-parsers made by
    `add_subparsers` are of this class too)."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is not None and isinstance(value, str) and value not in choices:
            names = [str(c) for c in choices]
            close = difflib.get_close_matches(value, names, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r} ({hint}choose from {', '.join(names)})"
            )
        super()._check_value(action, value)


def _network_commands(sub: extensions.Actions) -> dict[str, extensions.Actions]:
    """Registers the network commands; the command groups extensions may add actions to."""
    pages.register(sub)
    docs.register(sub)
    search.register(sub)
    collections.register(sub)
    agents.register(sub)
    account.register(sub)
    return admin.register(sub)


def build_command_line(extended: Sequence[Extension] | None = None) -> CommandLine:
    """`extended`: the extensions to apply; None finds the installed ones (entry points)."""
    parser: argparse.ArgumentParser = Parser(
        prog="quire",
        description=(
            "Quire's command line. The network commands talk to a running Quire server "
            f"(--address, --api-key); {extensions.SERVER_PACKAGE} adds the commands that run "
            "one (up, serve, worker, migrate, model, mcp, keys create, gate run)."
        ),
    )
    parser.add_argument("--log-level", default=os.environ.get("QUIRE_LOG_LEVEL", "INFO"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    command_line = CommandLine(
        parser=parser,
        commands=sub,
        groups=_network_commands(sub),
        versions=[extensions.package_version("quire-client")],
    )
    broken: list[str] = []
    if extended is None:
        extended, broken = extensions.discover()
    for extend in extended:
        extend(command_line)
    extensions.add_placeholders(command_line, broken)
    parser.add_argument(
        "--version", action="version", version=f"quire ({', '.join(command_line.versions)})"
    )
    return command_line


def build_parser(extended: Sequence[Extension] | None = None) -> argparse.ArgumentParser:
    return build_command_line(extended).parser


def main(argv: Sequence[str] | None = None, extended: Sequence[Extension] | None = None) -> int:
    command_line = build_command_line(extended)
    args = command_line.parser.parse_args(argv)
    command_line.configure_logging(args.log_level)
    result: int = args.func(args)
    return result


__all__ = ["Parser", "build_command_line", "build_parser", "main"]

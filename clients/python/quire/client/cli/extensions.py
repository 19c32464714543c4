"""How another package adds commands to `quire`, and what `quire` says when it is missing.

The server package (quire-server) declares, in its pyproject.toml,

    [project.entry-points."quire.cli"]
    server = "quire.server.cli:extend"

and `quire` calls each such `extend(command_line)` before it parses. The dependency points one
way: the client never imports the server; the server imports this module. There is one `quire`
script (this package's), whichever packages are installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

from quire.client.cli import exit_codes

ENTRY_POINT_GROUP = "quire.cli"
SERVER_PACKAGE = "quire-server"

# A string: argparse's class is generic only to type checkers.
Actions: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _basic_logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), stream=sys.stderr)


@dataclass
class CommandLine:
    """What an extension adds to."""

    parser: argparse.ArgumentParser
    commands: Actions  # the top-level commands (`quire COMMAND`)
    # Command groups an extension may add actions to: `keys` (create), `gate` (run).
    groups: dict[str, Actions]
    # `name version` of each package that makes up this `quire`, for --version.
    versions: list[str] = field(default_factory=list)
    # Applies --log-level; the server replaces it with its JSON log lines.
    configure_logging: Callable[[str], None] = _basic_logging


Extension = Callable[[CommandLine], None]

# The commands quire-server adds. Named here so that, without it, each says what to install
# rather than argparse's "invalid choice".
SERVER_COMMANDS = {
    "up": "start everything locally: embedded PostgreSQL, server and worker",
    "serve": "run the gRPC server",
    "worker": "run the indexer worker",
    "migrate": "apply pending database migrations",
    "model": "manage the embedding model",
    "mcp": "serve Quire's tools to a desktop agent over MCP on stdin/stdout",
}
SERVER_ACTIONS = {
    "keys": {"create": "create a key in the local database"},
    "gate": {"run": "run the FTS baseline gate on a judged data set"},
}


def discover() -> tuple[list[Extension], list[str]]:
    """The installed extensions, and a line for each one that is installed but fails to load
    (a broken install should say why, not look like a missing one)."""
    found: list[Extension] = []
    broken: list[str] = []
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            found.append(entry.load())
        except Exception as exc:  # any import failure of a plug-in: reported, not fatal
            broken.append(f"{entry.value}: {type(exc).__name__}: {exc}")
    return found, broken


def _needs_server(words: str, broken: list[str]) -> Callable[[argparse.Namespace], int]:
    def func(args: argparse.Namespace) -> int:
        print(
            f"quire {words}: this command needs the server package {SERVER_PACKAGE}, which is "
            f"not installed (this `quire` has only the network commands of quire-client[cli]). "
            f"Install it with `pip install {SERVER_PACKAGE}`, or from a checkout of the "
            "repository `pip install ./clients/python .`",
            file=sys.stderr,
        )
        for line in broken:
            print(f"quire: {SERVER_PACKAGE} is installed but did not load: {line}", file=sys.stderr)
        return exit_codes.USAGE

    return func


def _placeholder(actions: Actions, name: str, words: str, summary: str, broken: list[str]) -> None:
    # No option prefix: every argument (even --help) is taken as-is, and the message is shown.
    parser = actions.add_parser(
        name, help=f"{summary} (needs {SERVER_PACKAGE})", prefix_chars="\0", add_help=False
    )
    parser.add_argument("arguments", nargs="*")
    parser.set_defaults(func=_needs_server(words, broken))


def add_placeholders(command_line: CommandLine, broken: list[str]) -> None:
    """A command for each server command no extension added, saying what to install."""
    for name, summary in SERVER_COMMANDS.items():
        if name not in command_line.commands.choices:
            _placeholder(command_line.commands, name, name, summary, broken)
    for group, actions in SERVER_ACTIONS.items():
        sub = command_line.groups[group]
        for name, summary in actions.items():
            if name not in sub.choices:
                _placeholder(sub, name, f"{group} {name}", summary, broken)


def package_version(name: str) -> str:
    try:
        return f"{name} {importlib.metadata.version(name)}"
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return f"{name} (not installed)"


__all__ = [
    "ENTRY_POINT_GROUP",
    "SERVER_ACTIONS",
    "SERVER_COMMANDS",
    "SERVER_PACKAGE",
    "CommandLine",
    "Extension",
    "add_placeholders",
    "discover",
    "package_version",
]

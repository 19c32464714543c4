"""Every CLI command that prints a --json envelope has a JSON Schema in docs/cli-schemas, and
docs/cli.md names it; the commands are walked from the real parser (no server needed). The
envelopes themselves are validated against these schemas in tests/integration/test_cli.py."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import jsonschema

from quire.server.cli import build_parser

SCHEMAS = Path(__file__).parents[2] / "docs" / "cli-schemas"


def schema_of(command: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (SCHEMAS / f"{command.replace(' ', '-')}.schema.json").read_text()
    )
    return loaded


def every_json_command() -> set[str]:
    """The commands that take --json, walked from the real parser."""
    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            # `gate run --json FILE` writes a file: not the stdout envelope.
            if any("--json" in a.option_strings and a.nargs == 0 for a in parser._actions):
                found.add(" ".join(words))
            return
        for name, child in subs[0].choices.items():
            walk(child, [*words, name])

    walk(build_parser(), [])
    return found


def test_every_json_command_has_a_schema_and_docs_name_it() -> None:
    commands = every_json_command()
    assert {"search", "whoami", "agents ls", "keys ls", "collections rm"} <= commands
    files = {p.name.removesuffix(".schema.json").replace("-", " ") for p in SCHEMAS.iterdir()}
    assert files == commands
    docs = (SCHEMAS.parent / "cli.md").read_text()
    for command in commands:
        jsonschema.Draft202012Validator.check_schema(schema_of(command))
        assert f"cli-schemas/{command.replace(' ', '-')}.schema.json" in docs, command

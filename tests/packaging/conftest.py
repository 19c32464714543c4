"""Fixtures for the packaging tests: each client built the way it would be published, installed
outside the repository, and a user's program run against a real server.

Builds reuse the machine's caches: the Python wheel installs its dependencies through pip's
cache, the npm tarball installs offline from the cache the client's own `npm ci` filled (falling
back to `--prefer-offline` when a registry listing is not cached yet), Go reads the module cache.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message

from quire.client import AsyncQuireClient
from quire.v1 import admin_pb2, errors_pb2, knowledge_pb2, pages_pb2
from tests.conftest import REPO, Harness

PROGRAMS = Path(__file__).parent / "programs"
TYPESCRIPT_CLIENT = REPO / "clients" / "typescript"


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Runs a build step; a failure shows its output."""
    proc = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"{' '.join(command)}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


@dataclass(frozen=True)
class Wheel:
    path: Path
    python: Path  # the clean virtualenv's interpreter, the wheel installed


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Wheel:
    """A wheel of clients/python, installed with its dependencies into a clean virtualenv."""
    root = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools reuses an in-tree build/ and could ship stale files.
    source = root / "src"
    shutil.copytree(
        REPO / "clients" / "python",
        source,
        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"),
    )
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    # The repository's setuptools builds it: no isolated build environment to download.
    run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(root), "."], source)
    (built,) = root.glob("quire_client-*.whl")
    venv = root / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], root)
    python = venv / "bin" / "python"
    run([*pip, "--python", str(python), "install", "-q", str(built)], root)
    return Wheel(path=built, python=python)


@dataclass(frozen=True)
class TypeScriptPackage:
    tarball: Path
    project: Path  # a scratch project with the tarball installed
    node: str


def npm_install_offline(npm: str, project: Path, spec: str) -> None:
    """Installs from the npm cache; when a registry listing is not cached yet, fetches only it."""
    base = [npm, "install", "--no-audit", "--no-fund", spec]
    offline = subprocess.run([*base, "--offline"], cwd=project, capture_output=True, text=True)
    if offline.returncode != 0:
        assert "ENOTCACHED" in offline.stdout + offline.stderr, offline.stdout + offline.stderr
        run([*base, "--prefer-offline"], project)


@pytest.fixture(scope="session")
def typescript_package(tmp_path_factory: pytest.TempPathFactory) -> TypeScriptPackage:
    """`npm pack` of clients/typescript (prepack builds it), installed into a scratch project."""
    npm, node = tool("npm"), tool("node")
    if not (TYPESCRIPT_CLIENT / "node_modules").is_dir():
        run([npm, "ci", "--no-audit", "--no-fund"], TYPESCRIPT_CLIENT)
    root = tmp_path_factory.mktemp("npm")
    packed = json.loads(
        run([npm, "pack", "--json", "--pack-destination", str(root)], TYPESCRIPT_CLIENT)
    )
    tarball = root / packed[0]["filename"]
    project = root / "project"
    project.mkdir()
    (project / "package.json").write_text(
        json.dumps({"name": "scratch", "private": True, "type": "module"})
    )
    npm_install_offline(npm, project, str(tarball))
    shutil.copy(PROGRAMS / "tool_results.mjs", project)
    return TypeScriptPackage(tarball=tarball, project=project, node=node)


@dataclass(frozen=True)
class Seeded:
    """A server with one collection and one uploaded document, and how a program reaches it."""

    env: dict[str, str]
    document: knowledge_pb2.Document


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def seeded(harness: Harness) -> Seeded:
    keys = await harness.keys("packaging-org")
    async with AsyncQuireClient(harness.address, api_key=keys.write) as client:
        collection = await client.create_collection(name="packaging")
        document = await client.upload_document(
            collection_id=collection.collection_id,
            file_name="Notizen – café.txt",
            data=b"Packaged clients read this document.\n",
            mime_type="text/plain",
        )
    env = {
        "QUIRE_ADDRESS": harness.address,
        "QUIRE_API_KEY": keys.read,
        "QUIRE_DOCUMENT_ID": document.document_id,
    }
    return Seeded(env=env, document=document)


def sample_messages() -> list[Message]:
    """Messages whose JSON is easy to get wrong: 64-bit extremes, doubles Python prints in its
    own way (1.0, 1e-05, 1e+16), non-ASCII and control characters, timestamps and durations at
    every fractional precision, nested and repeated messages."""
    document = knowledge_pb2.Document(
        document_id="d1",
        size_bytes=2**64 - 1,
        revision=-(2**63),
        text_length=2**53 + 1,
        file_name='Straße 🚀 "quoted"\n\t\x01\x7f\u2028',
        status=knowledge_pb2.DOCUMENT_STATUS_READY,
    )
    document.created_at.FromNanoseconds(1_700_000_000_000_000_000)
    document.updated_at.FromNanoseconds(1_700_000_000_123_456_789)
    scores = [1.0, 0.1, 1e-05, 0.0001, 1e15, 1e16, 123456.789, -0.5, 2.5e-07, 1 / 3, 5e-324]
    result = pages_pb2.SearchResult(
        namespace="docs",
        filesystem_version=2**62,
        warnings=["ünïcode", ""],
        hits=[
            pages_pb2.SearchHit(score=score, rank=rank, heading_path=["A", "B"], title="T")
            for rank, score in enumerate(scores)
        ],
    )
    read = pages_pb2.PageRead(
        page=pages_pb2.Page(path="/a.md", filesystem_version=3),
        content="x",
        offset=0,
        next_offset=2**40,
        total_chars=2**40 + 7,
    )
    read.page.published_at.FromNanoseconds(1_700_000_000_120_000_000)
    detail = errors_pb2.ErrorDetail(
        code=errors_pb2.ERROR_CODE_INVALID_REQUEST,
        retry_after=Duration(seconds=1, nanos=500_000_000),
        field_violations=[errors_pb2.FieldViolation(field="limit", description="1-8")],
    )
    report = admin_pb2.ShadowReport(
        samples=3, mean_overlap_at_k=0.75, top1_agreement=1.0, hybrid_p95_ms=12.5
    )
    return [document, result, read, detail, report, knowledge_pb2.Collection()]


def messages_stdin(messages: Iterable[Message]) -> bytes:
    lines = [
        json.dumps(
            {
                "type": m.DESCRIPTOR.full_name,
                "binary": base64.b64encode(m.SerializeToString()).decode(),
            }
        )
        for m in messages
    ]
    return ("\n".join(lines) + "\n").encode()


async def run_program(
    command: list[str], cwd: Path, env: dict[str, str], stdin: bytes = b""
) -> str:
    """Runs a user's program without blocking the event loop the server runs in; its stdout."""
    proc = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env={**os.environ, **env},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin), 120)
    assert proc.returncode == 0, f"{command}\n{out.decode()}\n{err.decode()}"
    return out.decode()


def labelled(output: str) -> dict[str, str]:
    """The `label<TAB>json` lines of tool_results.py / tool_results.mjs, by label. Split on
    newlines only: the JSON holds raw U+2028, which str.splitlines() would also split on."""
    return dict(line.split("\t", 1) for line in output.split("\n") if line)


async def python_tool_results(wheel: Wheel, seeded: Seeded, cwd: Path) -> dict[str, str]:
    """tool_results.py under the wheel's virtualenv, from `cwd` (outside the repository, so
    only the installed wheel is importable), with the sample messages on stdin."""
    output = await run_program(
        [str(wheel.python), str(PROGRAMS / "tool_results.py")],
        cwd=cwd,
        env=seeded.env,
        stdin=messages_stdin(sample_messages()),
    )
    return labelled(output)

"""The Go client as a module: its path is one `go get` resolves once the repository is public
(a nested module: repository path + directory, tags `clients/go/vX.Y.Z`), and a user's program
in a scratch module builds against it through a `replace` and calls a real server."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.packaging.conftest import PROGRAMS, TYPESCRIPT_CLIENT, Seeded, run, run_program, tool

pytestmark = pytest.mark.packaging

GO_CLIENT = REPO / "clients" / "go"


def repository_path() -> str:
    """`github.com/owner/name`, from the repository URL the npm package declares."""
    url = json.loads((TYPESCRIPT_CLIENT / "package.json").read_text())["repository"]["url"]
    match = re.fullmatch(r"git\+https://(github\.com/[^/]+/[^/]+?)\.git", url)
    assert match, url
    return match.group(1)


def module_path() -> str:
    match = re.search(r"^module (\S+)$", (GO_CLIENT / "go.mod").read_text(), re.M)
    assert match
    return match.group(1)


def test_module_path_is_repository_path_plus_directory() -> None:
    # The go command finds a nested module by its directory in the repository.
    assert module_path() == f"{repository_path()}/{GO_CLIENT.relative_to(REPO).as_posix()}"
    # Every import of this repository's Go code goes through the module path.
    owner = repository_path() + "/"
    for source in GO_CLIENT.rglob("*.go"):
        for imported in re.findall(r'"(' + re.escape(owner) + r'[^"]*)"', source.read_text()):
            assert imported.startswith(module_path() + "/"), f"{source}: {imported}"


@pytest.mark.asyncio(loop_scope="session")
async def test_user_program_builds_against_module_with_replace(
    seeded: Seeded, tmp_path: Path
) -> None:
    go = tool("go")
    go_line = re.search(r"^go (\S+)$", (GO_CLIENT / "go.mod").read_text(), re.M)
    assert go_line
    (tmp_path / "go.mod").write_text(
        f"module example.com/quire-user\n\ngo {go_line.group(1)}\n\n"
        f"require {module_path()} v0.0.0\n\nreplace {module_path()} => {GO_CLIENT}\n"
    )
    # The user's checksums for grpc-go and protobuf-go are the client's own.
    shutil.copy(GO_CLIENT / "go.sum", tmp_path / "go.sum")
    shutil.copy(PROGRAMS / "main.go", tmp_path / "main.go")
    # -mod=mod (a flag, so the machine's GOFLAGS still apply) adds the client's requirements
    # to the user's go.mod, as `go mod tidy` would; modules come from the local module cache
    # (the proxy only for what it lacks).
    run([go, "build", "-mod=mod", "-o", "quire-user", "."], tmp_path)
    out = await run_program([str(tmp_path / "quire-user")], cwd=tmp_path, env=seeded.env)
    document = seeded.document
    assert f"size_bytes={document.size_bytes} revision={document.revision}" in out
    assert "collections 1" in out
    assert "missing_document ERROR_CODE_DOCUMENT_NOT_FOUND" in out

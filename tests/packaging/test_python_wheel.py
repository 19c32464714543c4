"""The Python client as a wheel: built from clients/python, installed into a clean virtualenv
with its dependencies, and used by a program outside the repository against a real server."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.packaging.conftest import Seeded, Wheel, python_tool_results

pytestmark = pytest.mark.packaging


def test_wheel_ships_stubs_type_information_and_licence(wheel: Wheel) -> None:
    names = set(zipfile.ZipFile(wheel.path).namelist())
    protos = ["admin", "admin_service", "errors", "knowledge", "knowledge_service", "pages"]
    for proto in protos:
        for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py"):
            assert f"quire/v1/{proto}{suffix}" in names
    assert {"quire/client/py.typed", "quire/v1/py.typed", "quire/client/tool_result.py"} <= names
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel.path).read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text
    licence = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    assert zipfile.ZipFile(wheel.path).read(licence) == (REPO / "LICENSE").read_bytes()
    # No server or test code leaks into the client's wheel.
    assert not [n for n in names if n.startswith(("quire/server", "quire/indexer", "tests/"))]


@pytest.mark.asyncio(loop_scope="session")
async def test_program_against_installed_wheel(
    wheel: Wheel, seeded: Seeded, tmp_path: Path
) -> None:
    out = await python_tool_results(wheel, seeded, cwd=tmp_path)
    document = json.loads(out["get_document"])
    assert document["document_id"] == seeded.document.document_id
    assert document["size_bytes"] == str(seeded.document.size_bytes)  # uint64 as a string
    assert document["file_name"] == "Notizen – café.txt"
    assert [c["name"] for c in json.loads(out["list_collections"])] == ["packaging"]
    assert json.loads(out["missing_document"])["error"] == "document_not_found"
    assert json.loads(out["message_0"])["size_bytes"] == str(2**64 - 1)

"""The TypeScript client as a tarball: `npm pack`, installed into a scratch project, imported by
an ESM program that calls a real server. Its tool results are byte for byte the Python client's
(the wheel's program runs on the same server with the same messages)."""

from __future__ import annotations

import json
import tarfile

import pytest

from tests.conftest import REPO
from tests.packaging.conftest import (
    Seeded,
    TypeScriptPackage,
    Wheel,
    labelled,
    messages_stdin,
    python_tool_results,
    run_program,
    sample_messages,
)

pytestmark = pytest.mark.packaging


def test_package_is_publishable(typescript_package: TypeScriptPackage) -> None:
    with tarfile.open(typescript_package.tarball) as tar:
        names = set(tar.getnames())
        manifest = json.loads(tar.extractfile("package/package.json").read())  # type: ignore[union-attr]
        licence = tar.extractfile("package/LICENSE").read()  # type: ignore[union-attr]
    assert "private" not in manifest
    assert manifest["license"] == "Apache-2.0"
    assert licence == (REPO / "LICENSE").read_bytes()  # the copy beside package.json is current
    assert manifest["types"] == "./dist/src/index.d.ts"
    assert manifest["exports"]["."] == {
        "types": "./dist/src/index.d.ts",
        "import": "./dist/src/index.js",
    }
    assert "prepack" in manifest["scripts"]
    # Users import @bufbuild/protobuf's create/toJson for the client's messages: a dependency.
    assert "@bufbuild/protobuf" in manifest["dependencies"]
    assert {"package/dist/src/index.js", "package/dist/src/index.d.ts"} <= names
    assert "package/dist/src/tool_result.js" in names
    assert not [n for n in names if n.startswith(("package/dist/test", "package/node_modules"))]


@pytest.mark.asyncio(loop_scope="session")
async def test_esm_program_tool_results_equal_python(
    typescript_package: TypeScriptPackage, wheel: Wheel, seeded: Seeded
) -> None:
    stdin = messages_stdin(sample_messages())
    typescript = labelled(
        await run_program(
            [typescript_package.node, "tool_results.mjs"],
            cwd=typescript_package.project,
            env=seeded.env,
            stdin=stdin,
        )
    )
    python = await python_tool_results(wheel, seeded, cwd=typescript_package.project)
    # Plain JSON.stringify of the converted result: 64-bit integers arrive as strings.
    document = json.loads(typescript.pop("stringify"))
    assert document["size_bytes"] == str(seeded.document.size_bytes)
    assert document["revision"] == str(seeded.document.revision)
    assert json.loads(typescript["missing_document"])["error"] == "document_not_found"
    assert len(typescript) == 3 + len(sample_messages())
    for label, text in python.items():
        assert typescript[label] == text, label
    assert typescript.keys() == python.keys()

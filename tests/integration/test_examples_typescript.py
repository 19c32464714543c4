"""The TypeScript tool-loop examples (examples/typescript) against a real server: the
stand-in model asks for 50 hits, reads the refusal's field and bound, retries with 20, reads
the best page at its revision and answers, as the Python loops do (test_mcp.py).

Needs Node >= 20 and npm: the client is built, then the examples project (`npm ci` when its
node_modules is missing).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.v1 import pages_pb2
from tests.conftest import REPO, Harness, Keys
from tests.support.site_server import SiteServer

# Node builds and runs the examples: outside `make test-fast`.
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
NS = "ts-examples"
CLIENT = REPO / "clients" / "typescript"
EXAMPLES = REPO / "examples" / "typescript"


@pytest.fixture(scope="module")
def built_examples() -> Path:
    """The client built, then the examples; returns node's path."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("node/npm not installed")
    for project, script in ((CLIENT, "build"), (EXAMPLES, "build")):
        if not (project / "node_modules").is_dir():
            install = [npm, "ci", "--no-audit", "--no-fund"]
            subprocess.run(install, cwd=project, check=True, timeout=600)
        subprocess.run([npm, "run", script], cwd=project, check=True, timeout=300)
    return Path(node)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, harness: Harness) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("ts-examples-site")
    (root / "llms.txt").write_text("# Site\n\n- [Install](/install.md)\n- [Tokens](/tokens.md)\n")
    (root / "install.md").write_text("# Install\n\nRun `pip install frobnicator` to install it.\n")
    (root / "tokens.md").write_text("# Tokens\n\nRotate your OAuth2 bearer tokens every day.\n")
    server = SiteServer(root=root)
    with server:
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness, site: SiteServer) -> Keys:
    """The organisation's keys, after its namespace is synced."""
    keys = await harness.keys("ts-examples-org")
    async with AsyncQuireClient(harness.address, api_key=keys.all) as client:
        async for message in client.sync_pages(namespace=NS, url=f"{site.url}/llms.txt"):
            if isinstance(message, pages_pb2.SyncReport):
                assert message.status == pages_pb2.SYNC_STATUS_COMPLETED, list(message.errors)
    return keys


@pytest.mark.parametrize("script", ["openai_tool_loop.js", "anthropic_tool_loop.js"])
async def test_tool_loop_examples_run_with_the_stand_in_model(
    harness: Harness, keys: Keys, built_examples: Path, script: str
) -> None:
    process = await asyncio.create_subprocess_exec(
        str(built_examples),
        str(EXAMPLES / "dist" / script),
        f"http://{harness.address}",
        NS,
        "install frobnicator",
        env={**os.environ, "QUIRE_API_KEY": keys.read},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    text = out.decode()
    assert process.returncode == 0, text
    lines = text.strip().splitlines()
    assert lines[0].startswith("search_pages(") and "error=true" in lines[0], text
    if script.startswith("openai"):
        # The refusal the model corrected itself from, as the Python runner words it.
        assert (
            '-> error=true {"schema_version":1,"error":"invalid_request",'
            '"message":"limit: must be 1–20 (0 means 10)","field":"limit"'
        ) in lines[0], text
    assert '"limit":20' in lines[1] and "error=false" in lines[1], text
    assert lines[2].startswith("read_page(") and "error=false" in lines[2], text
    assert lines[-1].startswith("From /install.md:") and "pip install frobnicator" in lines[-1]

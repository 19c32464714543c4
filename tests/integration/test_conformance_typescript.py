"""Runs the TypeScript client's conformance runner (and its integration tests) through the
harness (one real server each) and wants 0 failed: the runner once over gRPC and once over
the Connect protocol (JSON bodies, h2c) against the server's HTTP listener, with every
client's scenarios and with the tool runner's (tests/conformance/tool_scenarios).

Needs Node >= 20 and npm; `npm ci` runs once when clients/typescript/node_modules is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.runner_python import SCENARIOS, TOOL_SCENARIOS
from tests.conftest import REPO
from tests.support.conformance_summary import assert_all_passed

# A toolchain build and a run against a live server: minutes, outside `make test-fast`.
pytestmark = pytest.mark.slow

CLIENT = REPO / "clients" / "typescript"


def _npm() -> str:
    npm = shutil.which("npm")
    node = shutil.which("node")
    if npm is None or node is None:
        pytest.skip("node/npm not installed")
    return npm


@pytest.fixture(scope="module")
def built_client() -> str:
    """`npm ci` (when node_modules is missing) and `npm run build`; returns node's path."""
    npm = _npm()
    if not (CLIENT / "node_modules").is_dir():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, check=True, timeout=600)
    subprocess.run([npm, "run", "build"], cwd=CLIENT, check=True, timeout=300)
    node = shutil.which("node")
    assert node is not None
    return node


def _under_harness(
    postgres_url: str, command: list[str], protocol: str = "grpc"
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "QUIRE_DATABASE_URL": postgres_url,
        "QUIRE_CONFORMANCE_PROTOCOL": protocol,
    }
    return subprocess.run(
        [sys.executable, "-m", "tests.conformance.harness", "--", *command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.parametrize(
    "scenarios", [SCENARIOS, TOOL_SCENARIOS], ids=["scenarios", "tool_scenarios"]
)
@pytest.mark.parametrize("protocol", ["grpc", "connect"])
def test_typescript_conformance_runner_passes(
    postgres_url: str, built_client: str, protocol: str, scenarios: Path
) -> None:
    runner = str(CLIENT / "dist" / "conformance" / "runner.js")
    proc = _under_harness(
        postgres_url, [built_client, runner, "--scenarios", str(scenarios)], protocol
    )
    assert_all_passed(proc, scenarios)


def test_typescript_client_integration_tests_pass(postgres_url: str, built_client: str) -> None:
    proc = _under_harness(
        postgres_url, [built_client, "--test", str(CLIENT / "dist" / "test" / "integration")]
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert re.search(r"^# fail 0$", proc.stdout, re.M), output
    passed = re.search(r"^# pass (\d+)$", proc.stdout, re.M)
    assert passed and int(passed.group(1)) > 0, output

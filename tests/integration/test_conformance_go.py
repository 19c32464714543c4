"""Builds the Go conformance runner and runs it (and the Go client's integration tests)
through the harness (one real server each); wants 0 failed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.conformance_summary import assert_all_passed

# A toolchain build and a run against a live server: minutes, outside `make test-fast`.
pytestmark = pytest.mark.slow

GO_MODULE = REPO / "clients" / "go"


def _go() -> str:
    go = shutil.which("go")
    if go is None:
        pytest.skip("the Go toolchain is not installed (`go` is not on PATH)")
    return go


def _harness(command: list[str], postgres_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QUIRE_DATABASE_URL": postgres_url}
    return subprocess.run(
        [sys.executable, "-m", "tests.conformance.harness", "--", *command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_go_conformance_runner_passes(postgres_url: str, tmp_path: Path) -> None:
    go = _go()
    runner = tmp_path / "conformance"
    subprocess.run(
        [go, "build", "-mod=readonly", "-o", str(runner), "./cmd/conformance"],
        cwd=GO_MODULE,
        check=True,
        timeout=600,
    )
    proc = _harness([str(runner)], postgres_url)
    assert_all_passed(proc)


def test_go_client_integration_tests_pass(postgres_url: str) -> None:
    go = _go()
    proc = _harness(
        [
            go,
            "-C",
            str(GO_MODULE),
            "test",
            "-mod=readonly",
            "-count=1",
            "-run",
            "Integration",
            "-v",
            "./quire",
        ],
        postgres_url,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "--- PASS: TestIntegrationCollections" in proc.stdout, output

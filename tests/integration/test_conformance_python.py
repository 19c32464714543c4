"""Runs the Python conformance runner through the harness (one real server) and wants 0 failed:
the scenarios of every client, then the tool runner's (tests/conformance/tool_scenarios)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.runner_python import SCENARIOS, TOOL_SCENARIOS
from tests.conftest import REPO
from tests.support.conformance_summary import assert_all_passed

# The module takes 38 s (both scenario directories) under load (`make test-fast` leaves it out).
pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "scenarios", [SCENARIOS, TOOL_SCENARIOS], ids=["scenarios", "tool_scenarios"]
)
def test_python_conformance_runner_passes(postgres_url: str, scenarios: Path) -> None:
    env = {**os.environ, "QUIRE_DATABASE_URL": postgres_url}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.conformance.harness",
            "--",
            sys.executable,
            "-m",
            "tests.conformance.runner_python",
            "--scenarios",
            str(scenarios),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert_all_passed(proc, scenarios)

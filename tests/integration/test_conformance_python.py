"""Runs the Python conformance runner through the harness (one real server) and wants 0 failed."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO
from tests.support.conformance_summary import assert_all_passed


def test_python_conformance_runner_passes(postgres_url: str) -> None:
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
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert_all_passed(proc)

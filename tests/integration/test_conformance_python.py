"""Runs the Python conformance runner through the harness (one real server) and wants 0 failed."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import REPO


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
    output = proc.stdout + proc.stderr
    summary = re.search(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$", proc.stdout, re.M)
    assert summary, output
    assert int(summary.group(2)) == 0, output
    assert int(summary.group(1)) > 0, output
    assert proc.returncode == 0, output

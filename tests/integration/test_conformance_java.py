"""Builds the Java client (Maven, unit tests included) and runs its conformance runner through
the harness (one real server); wants 0 failed. Maven's cache (~/.m2) is kept between runs, so
only the first run downloads the dependencies."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO

JAVA_PROJECT = REPO / "clients" / "java"
CLASSPATH_FILE = JAVA_PROJECT / "target" / "classpath.txt"


def _tools() -> tuple[str, str]:
    java, mvn = shutil.which("java"), shutil.which("mvn")
    if java is None or mvn is None:
        pytest.skip(
            "Java 17+ and Maven are needed for the Java client (`java` or `mvn` not on PATH)"
        )
    return java, mvn


def test_java_conformance_runner_passes(postgres_url: str) -> None:
    java, mvn = _tools()
    # Compiles the client, runs its unit tests, writes the runtime classpath for the runner.
    build = subprocess.run(
        [
            mvn,
            "-B",
            "-q",
            "test",
            "dependency:build-classpath",
            f"-Dmdep.outputFile={CLASSPATH_FILE}",
        ],
        cwd=JAVA_PROJECT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    classpath = os.pathsep.join(
        [
            str(JAVA_PROJECT / "target" / "classes"),
            str(JAVA_PROJECT / "target" / "test-classes"),
            CLASSPATH_FILE.read_text().strip(),
        ]
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.conformance.harness",
            "--",
            java,
            "-cp",
            classpath,
            "dev.quire.conformance.Runner",
        ],
        cwd=REPO,
        env={**os.environ, "QUIRE_DATABASE_URL": postgres_url},
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

"""Builds the Java client (Maven, unit tests included) and runs its conformance runner through
the harness (one real server); wants 0 failed. Maven's cache (~/.m2) is kept between runs, so
only the first run downloads the dependencies."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from subprocess import CompletedProcess

import pytest

from tests.conftest import REPO
from tests.support.conformance_summary import assert_all_passed

# A toolchain build and a run against a live server: minutes, outside `make test-fast`.
pytestmark = pytest.mark.slow

JAVA_PROJECT = REPO / "clients" / "java"
CLASSPATH_FILE = JAVA_PROJECT / "target" / "classpath.txt"


def _tools() -> tuple[str, str]:
    java, mvn = shutil.which("java"), shutil.which("mvn")
    if java is None or mvn is None:
        pytest.skip(
            "Java 17+ and Maven are needed for the Java client (`java` or `mvn` not on PATH)"
        )
    return java, mvn


@pytest.fixture(scope="module")
def java_classpath() -> tuple[str, str]:
    """The java command and the classpath of the built client, its tests and its examples."""
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
    return java, classpath


def _harness(
    java_classpath: tuple[str, str], main: str, postgres_url: str
) -> CompletedProcess[str]:
    java, classpath = java_classpath
    return subprocess.run(
        [sys.executable, "-m", "tests.conformance.harness", "--", java, "-cp", classpath, main],
        cwd=REPO,
        env={**os.environ, "QUIRE_DATABASE_URL": postgres_url},
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_java_conformance_runner_passes(java_classpath: tuple[str, str], postgres_url: str) -> None:
    proc = _harness(java_classpath, "dev.quire.conformance.Runner", postgres_url)
    assert_all_passed(proc)


def test_java_guide_examples_run(java_classpath: tuple[str, str], postgres_url: str) -> None:
    """docs/clients/java.md's examples (a first call, errors, a sync with progress, uploads,
    a tool loop) against a live server; tests/unit/test_java_guide.py checks the guide
    shows them as they are."""
    proc = _harness(java_classpath, "dev.quire.examples.RunExamples", postgres_url)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "examples passed" in proc.stdout, output

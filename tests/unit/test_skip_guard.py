"""The skip guard (tests/support/skip_guard.py) in a pytest of its own: what the run without
shared data lets through, what it fails, and that it counts what it let through."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.shared_data import ABSENT, REPO

# Each test runs a pytest of its own (seconds apiece): outside `make test-fast`.
pytestmark = pytest.mark.slow

HEADER = f"""
import pytest

ABSENT = {ABSENT!r}
large = pytest.mark.large_data


def needs_shared():
    pytest.skip(ABSENT + ": /nowhere/data")
"""


PLUGINS = ["-p", "tests.support.skip_guard", "-p", "no:cacheprovider"]
STRICT = "--only-large-data-skips"


def run(tmp_path: Path, body: str, *args: str, shared: Path | None = None) -> tuple[int, str]:
    (tmp_path / "test_sample.py").write_text(HEADER + body)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n  large_data: needs shared data\n")
    root = shared if shared is not None else tmp_path / "empty-shared"
    root.mkdir(exist_ok=True)
    env = {**os.environ, "QUIRE_SHARED_ROOT": str(root), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *PLUGINS, "-q", "test_sample.py", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout + done.stderr


def test_only_large_data_skips_pass_and_are_counted(tmp_path: Path) -> None:
    code, out = run(
        tmp_path,
        "@large\ndef test_a(): needs_shared()\n@large\ndef test_b(): needs_shared()\n"
        "def test_c(): pass\n",
        STRICT,
    )
    assert code == 0, out
    assert "large_data: 2 tests skipped because the shared data is absent" in out


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("def test_a(): pytest.skip('the Go toolchain is not installed')\n", "run without"),
        ("@pytest.fixture\ndef f(): pytest.skip('no tool')\ndef test_a(f): pass\n", "run without"),
        ("@large\ndef test_a(): pytest.skip('no tool')\n", "run without"),
        ("def test_a(): needs_shared()\n", "not marked large_data"),
        ("@large\ndef test_a(): pass\n", "passed without shared data"),
        ("pytest.skip('module', allow_module_level=True)\ndef test_a(): pass\n", "collection"),
    ],
)
def test_any_other_skip_fails_the_run(tmp_path: Path, body: str, why: str) -> None:
    code, out = run(tmp_path, body, STRICT)
    assert code != 0, out
    assert "skip guard: 1 tests skipped or ran against the rules" in out and why in out, out


def test_an_unmarked_shared_data_skip_fails_even_in_a_plain_run(tmp_path: Path) -> None:
    code, out = run(
        tmp_path, "def test_a(): needs_shared()\n@large\ndef test_b(): needs_shared()\n"
    )
    assert code != 0 and "not marked large_data" in out, out
    assert "large_data: 1 tests skipped" in out, out


def test_the_strict_run_refuses_a_shared_root_with_data(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "data").mkdir(parents=True)
    code, out = run(tmp_path, "def test_a(): pass\n", STRICT, shared=shared)
    assert code == pytest.ExitCode.USAGE_ERROR and "is not empty" in out, out

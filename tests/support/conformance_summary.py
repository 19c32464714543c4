"""What every conformance runner's run must show (tests/conformance/README.md §1): its summary
line, no failure, and every scenario of the scenario files accounted for."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parents[1] / "conformance" / "scenarios"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$", re.M)


def scenario_count(directory: Path = SCENARIOS) -> int:
    return sum(
        len(json.loads(path.read_text(encoding="utf-8"))["scenarios"])
        for path in directory.glob("*.json")
    )


def assert_all_passed(proc: subprocess.CompletedProcess[str], scenarios: Path = SCENARIOS) -> None:
    """`scenarios`: the directory the runner was given (the tool runner's has its own)."""
    output = proc.stdout + proc.stderr
    summary = SUMMARY.search(proc.stdout)
    assert summary, output
    passed, failed, skipped = (int(g or 0) for g in summary.groups())
    assert failed == 0, output
    assert passed > 0, output
    assert passed + skipped == scenario_count(scenarios), output
    assert proc.returncode == 0, output

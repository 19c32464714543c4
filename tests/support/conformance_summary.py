"""What every conformance runner's run must show (tests/conformance/README.md §1): its summary
line, no failure, every scenario of the scenario files accounted for, and a skip only for a
fixture the harness does not provide: a scenario that skips because an RPC answered
UNIMPLEMENTED (`requires`, §7) fails the run, since the server these tests start serves every
RPC, so an RPC that stops working is a failure here, not a quiet skip."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parents[1] / "conformance" / "scenarios"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$", re.M)
SKIPPED = re.compile(r"^SKIP .*$", re.M)
NO_FIXTURE = "fixture(s) not provided"


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
    unserved = [line for line in SKIPPED.findall(proc.stdout) if NO_FIXTURE not in line]
    assert not unserved, "\n".join(unserved)
    assert proc.returncode == 0, output

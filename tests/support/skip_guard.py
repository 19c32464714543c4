"""Keeps "the suite passes without ../shared" true (a pytest plugin, loaded by tests/conftest.py).

Always: a test that skips because shared data is absent (`shared_or_skip`) must be marked
`large_data`; one that is not fails, so the marker stays an exact list of what ../shared adds.

With `--only-large-data-skips` (the fresh-machine run of `make test`, with QUIRE_SHARED_ROOT
pointed at an empty directory) the run must skip nothing else: any other skip, a collection
skip included, fails the run, and so does a `large_data` test that runs to the end without the
shared data (it is marked wrongly). The summary counts the large-data skips, so an empty
count is visible rather than a silent pass.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from tests.support.shared_data import ABSENT, ENV, SHARED

OPTION = "--only-large-data-skips"
MARKER = "large_data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        OPTION,
        action="store_true",
        help=f"fail on any skip but a {MARKER} test's missing shared data (the shared root "
        f"must hold no data: point {ENV} at an empty directory)",
    )


def pytest_configure(config: pytest.Config) -> None:
    strict = bool(config.getoption(OPTION))
    if strict and SHARED.is_dir() and any(SHARED.iterdir()):
        raise pytest.UsageError(
            f"{OPTION} checks a run without shared data, but {SHARED} is not empty "
            f"(set {ENV} to an empty directory)"
        )
    config.pluginmanager.register(SkipGuard(strict), "quire-skip-guard")


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


class SkipGuard:
    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.large_skipped: list[str] = []
        self.violations: list[str] = []

    def _fail(self, report: pytest.TestReport, message: str) -> None:
        self.violations.append(f"{report.nodeid}: {message}")
        report.outcome = "failed"
        report.longrepr = message

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        large = item.get_closest_marker(MARKER) is not None
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = _reason(report)
            absent = reason.startswith(ABSENT)
            if absent and not large:
                self._fail(report, f"skipped for shared data but not marked {MARKER}: {reason}")
            elif self.strict and not absent:
                self._fail(report, f"skipped in the run without shared data: {reason}")
            elif absent:
                self.large_skipped.append(report.nodeid)
        elif self.strict and large and report.when == "call" and report.passed:
            self._fail(report, f"marked {MARKER} but passed without shared data: unmark it")
        return report

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if self.strict and report.skipped:
            self.violations.append(f"{report.nodeid}: collection skipped: {_reason(report)}")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.violations and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        write = terminalreporter.write_line
        if self.strict or self.large_skipped:
            write(
                f"{MARKER}: {len(self.large_skipped)} tests skipped because the shared data is "
                f"absent under {SHARED} ({ENV})"
            )
        if self.violations:
            write(f"skip guard: {len(self.violations)} tests skipped or ran against the rules:")
            for violation in self.violations:
                write(f"  {violation}")

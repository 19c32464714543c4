"""The embedded PostgreSQL stops with the process that started it, even when an earlier user
of the same data directory died without cleaning up (SIGKILL, OOM, a crash)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

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
        _stop_if_running(pgdata)
        shutil.rmtree(home, ignore_errors=True)


def _stop_if_running(pgdata: Path) -> None:
    """After a failure: no server may outlive the test (fast shutdown of the postmaster)."""
    pid_file = pgdata / "postmaster.pid"
    with contextlib.suppress(OSError, ValueError, IndexError):
        os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)
        for _ in range(50):
            if not pid_file.exists():
                return
            time.sleep(0.1)

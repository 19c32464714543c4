"""Peak memory of `quire up` during a first sync of the FastAPI site: the server process alone,
as a user starts it. Prints JSON.

    .venv/bin/python benchmarks/up_memory.py [--pages 0] [--out FILE]

Starts `quire up` as a child process with a throw-away QUIRE_HOME (the prepared models linked
in, its own embedded PostgreSQL), the FastAPI site served on loopback by another child, and
syncs the site (`--pages`: the first N pages of llms.txt, 0 = all) with the dev key through
`AsyncQuireClient`. Samples the server's VmRSS every 0.2 s and reads its VmHWM (the kernel's
peak) at the end; PostgreSQL's processes are reported apart (their shared buffers count once
per process in RSS, so their sum overstates them). Goal (issue 31): peak RSS of `quire up`
during a first sync ≤ 400 MB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _harness as h

GOAL_MB = 400.0


def _status_mb(pid: int, key: str) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _postgres_rss_mb(home: Path) -> float:
    """The embedded PostgreSQL's processes (their command line names the home's data
    directory), by RSS, summed."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            if "postgres" not in (proc / "comm").read_text():
                continue
        except OSError:
            continue
        if str(home) in cmdline or _child_of_postgres_in(proc, home):
            total += _status_mb(int(proc.name), "VmRSS") or 0.0
    return round(total, 1)


def _child_of_postgres_in(proc: Path, home: Path) -> bool:
    """A backend's command line does not name the data directory; its postmaster's does."""
    try:
        ppid = next(
            line.split()[1]
            for line in (proc / "status").read_text().splitlines()
            if line.startswith("PPid:")
        )
        return str(home) in Path(f"/proc/{ppid}/cmdline").read_bytes().decode(errors="replace")
    except (OSError, StopIteration):
        return False


def start_up(home: Path, site_url: str) -> tuple[subprocess.Popen[str], str]:
    """`quire up` on a free port; returns the process and its address once it serves."""
    env = {k: v for k, v in os.environ.items() if k != "QUIRE_DATABASE_URL"}
    env["QUIRE_HOME"] = str(home)  # its own embedded PostgreSQL and dev key
    quire = Path(sys.executable).with_name("quire")
    command = [str(quire), "up", "--address", "127.0.0.1:0", "--http-address", ""]
    proc = subprocess.Popen(
        [*command, "--allow-source", site_url],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    address = ""
    started = time.perf_counter()
    for line in proc.stdout:
        if line.startswith("Quire is serving on "):
            address = line.removeprefix("Quire is serving on ").strip()
        if line.startswith("Stop with Ctrl-C") and address:
            return proc, address
        if time.perf_counter() - started > 300:
            break
    proc.kill()
    raise SystemExit("quire up did not start")


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.client import AsyncQuireClient
    from quire.indexer.home import quire_home

    h.setup_logging()
    h.load_model().close()  # prepared (idempotent) before it is linked into the throw-away home
    report: dict[str, Any] = {"benchmark": "up_memory", "machine_at_start": h.machine()}
    with tempfile.TemporaryDirectory(prefix="quire-up-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / "models").symlink_to(quire_home() / "models")
        site = h.copy_site(Path(tmp))
        report["pages_listed"] = len(h.limit_llms(site, args.pages))
        with h.site_process(site) as site_url:
            proc, address = start_up(home, site_url)
            try:
                idle = _status_mb(proc.pid, "VmRSS")
                report["rss_idle_mb"] = idle
                sampler = h.RssSampler(proc.pid, interval=0.2)
                token = (home / "dev-key").read_text().strip()
                with sampler:
                    async with AsyncQuireClient(address, api_key=token) as client:
                        h.note(f"syncing {report['pages_listed']} pages through quire up")
                        sync, wall_s = await h.sync_site(client, "fastapi", site_url)
                        report["first_sync"] = {"wall_s": round(wall_s, 1)}
                        report["first_sync"].update(h.report_fields(sync))
                    report["postgres_rss_mb_at_end"] = _postgres_rss_mb(home)
                peak = _status_mb(proc.pid, "VmHWM")
                report["rss_samples_max_mb"] = max((v for _, v in sampler.samples), default=None)
                report["peak_rss_mb"] = peak
                report["samples"] = len(sampler.samples)
            finally:
                proc.send_signal(2)  # SIGINT: the server's graceful stop
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
    report["goal"] = {"peak_rss_mb": GOAL_MB, "met": (report["peak_rss_mb"] or 1e9) <= GOAL_MB}
    report["machine_at_end"] = h.machine()
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=0, help="first N pages of llms.txt (0: all)")
    parser.add_argument("--out", type=Path, default=None)
    arguments = parser.parse_args()
    h.emit(h.run(main(arguments)), arguments.out)

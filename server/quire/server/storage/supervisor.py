"""Keeps the embedded PostgreSQL of `quire up` (or `quire serve` without a URL) running.

Every CHECK_EVERY_S the postmaster's pid (from postmaster.pid; a zombie counts as dead) is
checked; when it has died, it is started again: up to ATTEMPTS attempts, the first at once,
then after FIRST_BACKOFF_S, doubling (0.5, 1, 2, 4 s: about 8 s of waiting in all), each
logged at WARNING with its attempt number. When every attempt has failed, `supervise` raises
`GaveUp` and the server stops with a non-zero exit: nothing else restarts an embedded
database, so a process that kept running would only hide the fault, while an exit is seen
(and restarted by a process manager, whose fresh start retries too). Health meanwhile says
NOT_SERVING (health.py): it follows the database, not this loop.

Only a database this process started is supervised: with QUIRE_DATABASE_URL the operator's
PostgreSQL is not ours to restart.
"""

from __future__ import annotations

import asyncio
import logging
import time

from quire.server.storage.embedded import EmbeddedPostgres, start_failure
from quire.server.storage.postmaster import log_tail

log = logging.getLogger(__name__)

CHECK_EVERY_S = 0.5
ATTEMPTS = 5
FIRST_BACKOFF_S = 0.5


class GaveUp(RuntimeError):
    """The embedded PostgreSQL could not be restarted."""


async def supervise(embedded: EmbeddedPostgres) -> None:
    """Runs until cancelled, restarting the postmaster whenever it dies; raises GaveUp."""
    while True:
        await asyncio.sleep(CHECK_EVERY_S)
        if embedded.running() is None:
            await restart(embedded)


async def restart(embedded: EmbeddedPostgres) -> None:
    lost_at = time.monotonic()
    log.warning("embedded postgres is not running: restarting it", extra={"attempts": ATTEMPTS})
    delay = FIRST_BACKOFF_S
    for attempt in range(1, ATTEMPTS + 1):
        log.warning(
            "restarting embedded postgres, attempt %d of %d",
            attempt,
            ATTEMPTS,
            extra={"attempt": attempt, "attempts": ATTEMPTS},
        )
        try:
            pid = await asyncio.to_thread(embedded.restart)
        except Exception as exc:  # pg_ctl failing, timing out, or a lock still held
            log.warning(
                "embedded postgres restart attempt %d of %d failed: %s",
                attempt,
                ATTEMPTS,
                start_failure(exc),
                extra={"attempt": attempt, "server_log": log_tail(embedded.pgdata)},
            )
            if attempt == ATTEMPTS:
                log.error(
                    "embedded postgres could not be restarted after %d attempts; stopping",
                    ATTEMPTS,
                    extra={"pgdata": str(embedded.pgdata)},
                )
                raise GaveUp(
                    f"the embedded PostgreSQL did not restart: {start_failure(exc)}"
                ) from exc
            await asyncio.sleep(delay)
            delay *= 2
            continue
        log.warning(
            "embedded postgres restarted",
            extra={
                "attempt": attempt,
                "pid": pid,
                "took_s": round(time.monotonic() - lost_at, 2),
            },
        )
        return

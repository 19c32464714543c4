"""The job table: enqueue, claim with FOR UPDATE SKIP LOCKED, finish, retry, lease recovery.

Workers claim jobs in batches (one query for up to n jobs) and finish them in batches.

Jobs are at-least-once: a worker that dies mid-job leaves it `running` with a lease; after the
lease passes another worker re-queues it. Every job's effect is idempotent.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg

CHANNEL = "quire_jobs"
LEASE_SECONDS = 300
MAX_ATTEMPTS = 3

ENQUEUE = """
INSERT INTO jobs (org_id, kind, payload, run_after)
VALUES ($1, $2, $3::jsonb, now() + make_interval(secs => $4)) RETURNING job_id
"""
NOTIFY = "SELECT pg_notify($1, $2)"
CLAIM = """
UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, locked_by = $1,
       locked_at = now()
FROM (SELECT org_id, job_id FROM jobs
      WHERE state = 'queued' AND run_after <= now()
      ORDER BY run_after, job_id LIMIT $2 FOR UPDATE SKIP LOCKED) next
WHERE j.org_id = next.org_id AND j.job_id = next.job_id
RETURNING j.org_id, j.job_id, j.kind, j.payload, j.attempts
"""
FINISH = """
UPDATE jobs SET state = 'done', finished_at = now(), locked_by = NULL
WHERE org_id = $1 AND job_id = $2
"""
FINISH_MANY = """
UPDATE jobs j SET state = 'done', finished_at = now(), locked_by = NULL
FROM unnest($1::uuid[], $2::bigint[]) AS f(org_id, job_id)
WHERE j.org_id = f.org_id AND j.job_id = f.job_id
"""
RETRY = """
UPDATE jobs SET state = 'queued', locked_by = NULL, last_error = $3,
       run_after = now() + make_interval(secs => $4)
WHERE org_id = $1 AND job_id = $2
"""
FAIL = """
UPDATE jobs SET state = 'failed', finished_at = now(), locked_by = NULL, last_error = $3
WHERE org_id = $1 AND job_id = $2
"""
RECOVER = """
UPDATE jobs SET state = 'queued', locked_by = NULL,
       last_error = 'lease expired (worker stopped mid-job)'
WHERE state = 'running' AND locked_at < now() - make_interval(secs => $1)
RETURNING job_id
"""
DEPTH = "SELECT count(*) FROM jobs WHERE state = 'queued'"
RENEW = "UPDATE jobs SET locked_at = now() WHERE locked_by = $1 AND state = 'running'"


@dataclass(frozen=True)
class Job:
    org_id: uuid.UUID
    job_id: int
    kind: str
    payload: dict[str, Any]
    attempts: int


async def enqueue(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    kind: str,
    payload: dict[str, Any],
    *,
    delay_s: float = 0.0,
) -> int:
    """Adds a job and wakes workers (the notification is sent when the transaction commits)."""
    job_id: int = await conn.fetchval(ENQUEUE, org_id, kind, json.dumps(payload), delay_s)
    await conn.execute(NOTIFY, CHANNEL, kind)
    return job_id


def _job(row: asyncpg.Record) -> Job:
    payload = row["payload"]
    return Job(
        org_id=row["org_id"],
        job_id=row["job_id"],
        kind=row["kind"],
        payload=json.loads(payload) if isinstance(payload, str) else dict(payload),
        attempts=row["attempts"],
    )


async def claim(conn: asyncpg.Connection, worker_id: str) -> Job | None:
    claimed = await claim_batch(conn, worker_id, 1)
    return claimed[0] if claimed else None


async def claim_batch(conn: asyncpg.Connection, worker_id: str, limit: int) -> list[Job]:
    """Claims up to `limit` runnable jobs in one statement, oldest first; rows another worker
    holds locked are skipped, not waited for."""
    if limit < 1:
        return []
    rows = await conn.fetch(CLAIM, worker_id, limit)
    return sorted(map(_job, rows), key=lambda job: job.job_id)


async def finish(conn: asyncpg.Connection, job: Job) -> None:
    await conn.execute(FINISH, job.org_id, job.job_id)


async def finish_many(conn: asyncpg.Connection, finished: Sequence[Job]) -> None:
    if finished:
        await conn.execute(FINISH_MANY, [j.org_id for j in finished], [j.job_id for j in finished])


async def retry_or_fail(
    conn: asyncpg.Connection, job: Job, error: str, *, permanent: bool = False
) -> bool:
    """Re-queues with exponential backoff (2 s, 4 s, …) until MAX_ATTEMPTS; True if retried.
    A `permanent` error (the job's input is at fault, e.g. a corrupt file) fails at once."""
    if job.attempts < MAX_ATTEMPTS and not permanent:
        await conn.execute(RETRY, job.org_id, job.job_id, error[:2000], 2.0**job.attempts)
        return True
    await conn.execute(FAIL, job.org_id, job.job_id, error[:2000])
    return False


async def recover_expired(conn: asyncpg.Connection, lease_s: float = LEASE_SECONDS) -> int:
    return len(await conn.fetch(RECOVER, lease_s))


async def renew_leases(conn: asyncpg.Connection, worker_id: str) -> None:
    """Keeps this worker's running jobs (e.g. a long generation build) from being re-queued."""
    await conn.execute(RENEW, worker_id)


async def queue_depth(conn: asyncpg.Connection) -> int:
    depth: int = await conn.fetchval(DEPTH)
    return depth

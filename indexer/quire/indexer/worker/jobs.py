"""The job table: enqueue, fair claims with FOR UPDATE SKIP LOCKED, finish, retry, leases.

Workers claim jobs in batches (one query for up to n jobs) and finish them in batches.

Claims are fair across organisations: a claim takes every organisation's oldest runnable job
before any organisation's second one (round robin by turn), so one tenant's burst of thousands
of jobs does not queue another tenant's single upload behind it. A claim may also leave out
organisations (the worker's saturated ones) to take only other tenants' work.

Jobs are at-least-once: a running job holds a lease of LEASE_SECONDS that its worker renews
every HEARTBEAT_SECONDS while it runs (`renew_leases`, from a task of its own), so a long job is
never taken over while its worker lives; a worker that dies stops renewing, and within
LEASE_SECONDS + RECOVER_EVERY_SECONDS another worker re-queues its jobs. A worker that stops
gracefully hands back what it has not finished at once (`release`). Every job's effect is
idempotent.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg

CHANNEL = "quire_jobs"
# A dead worker's jobs are taken over within LEASE_SECONDS + RECOVER_EVERY_SECONDS (≤ 30 s).
LEASE_SECONDS = 20.0
HEARTBEAT_SECONDS = 5.0
RECOVER_EVERY_SECONDS = 5.0
MAX_ATTEMPTS = 3
# The model of collections created before models were chosen (migration 0016's default).
DEFAULT_MODEL = "all-minilm-l6-v2"

ENQUEUE = """
INSERT INTO jobs (org_id, kind, payload, run_after)
VALUES ($1, $2, $3::jsonb, now() + make_interval(secs => $4)) RETURNING job_id
"""
NOTIFY = "SELECT pg_notify($1, $2)"
# Each worker embeds with one model ($4) and claims only the jobs for it: those that name it
# (a generation build, a change for another model's live generations: payload `model`), and the
# others of collections it serves (collections.embedding_model, the serving generation's; a job
# whose collection is gone goes to the default model's worker, $5). So a generation's vectors
# all come from its own model (docs/embedding.md, "Models per corpus").
# Organisations with queued work by a skip scan (jobs_queued_by_org), each one's oldest runnable
# jobs numbered by turn, then turn 1 of every organisation before any turn 2: round robin.
# Each organisation offers twice the limit, so rows other workers hold locked (skipped) leave
# enough to fill the claim. `turns` is MATERIALIZED so it runs once per claim: planned with
# statistics from before a bulk load (every job done, none queued), an inlined `turns` sat
# inside a nested loop over the queued jobs and read the queue again for each one (7 s for
# 5,000 jobs, past the pool's 60 s command timeout under load).
CLAIM = """
WITH RECURSIVE orgs AS (
    (SELECT org_id FROM jobs WHERE state = 'queued' ORDER BY org_id LIMIT 1)
    UNION ALL
    SELECT (SELECT j.org_id FROM jobs j
            WHERE j.state = 'queued' AND j.org_id > orgs.org_id ORDER BY j.org_id LIMIT 1)
    FROM orgs WHERE orgs.org_id IS NOT NULL
), turns AS MATERIALIZED (
    SELECT c.org_id, c.job_id, c.run_after, c.turn FROM orgs
    CROSS JOIN LATERAL (
        SELECT q.org_id, q.job_id, q.run_after,
               row_number() OVER (ORDER BY q.run_after, q.job_id) AS turn
        FROM jobs q
        WHERE q.org_id = orgs.org_id AND q.state = 'queued' AND q.run_after <= now()
          AND coalesce(q.payload->>'model', (
              SELECT c.embedding_model FROM collections c
              WHERE c.org_id = q.org_id AND c.collection_id = coalesce(
                  (q.payload->>'collection_id')::uuid,
                  (SELECT d.collection_id FROM documents d
                   WHERE d.org_id = q.org_id AND d.document_id = (q.payload->>'document_id')::uuid))
          ), $5) = $4
        ORDER BY q.run_after, q.job_id LIMIT 2 * $2
    ) c
    WHERE orgs.org_id IS NOT NULL AND orgs.org_id <> ALL($3::uuid[])
), next AS (
    SELECT j.org_id, j.job_id FROM jobs j
    JOIN turns t ON j.org_id = t.org_id AND j.job_id = t.job_id
    WHERE j.state = 'queued'
    ORDER BY t.turn, t.run_after, t.job_id
    LIMIT $2
    FOR UPDATE OF j SKIP LOCKED
)
UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, locked_by = $1,
       locked_at = now()
FROM next
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
# A graceful stop hands back unfinished jobs without counting the attempt against them.
RELEASE = """
UPDATE jobs SET state = 'queued', locked_by = NULL, attempts = greatest(attempts - 1, 0),
       last_error = 'released by a stopping worker'
WHERE locked_by = $1 AND state = 'running'
RETURNING job_id
"""
DEPTH = "SELECT count(*) FROM jobs WHERE state = 'queued'"
RENEW = "UPDATE jobs SET locked_at = now() WHERE locked_by = $1 AND state = 'running'"
# A worker's sign of life and the model it indexes (migrations 0015, 0019), read by the server
# (quire/server/workers.py).
BEAT = """
INSERT INTO worker_heartbeats (worker_id, embedding_model) VALUES ($1, $2)
ON CONFLICT (worker_id) DO UPDATE SET seen_at = now(), embedding_model = EXCLUDED.embedding_model
"""
FORGET_WORKERS = "DELETE FROM worker_heartbeats WHERE seen_at < now() - interval '7 days'"


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


async def claim_batch(
    conn: asyncpg.Connection,
    worker_id: str,
    limit: int,
    *,
    skip_orgs: Sequence[uuid.UUID] = (),
    model: str = DEFAULT_MODEL,
) -> list[Job]:
    """Claims up to `limit` runnable jobs in one statement, round robin across organisations
    (each one's oldest first), leaving out `skip_orgs` and the jobs for another embedding
    model than `model`; rows another worker holds locked are skipped, not waited for."""
    if limit < 1:
        return []
    rows = await conn.fetch(CLAIM, worker_id, limit, list(skip_orgs), model, DEFAULT_MODEL)
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


async def recover_expired(conn: asyncpg.Connection, lease_s: float | None = None) -> int:
    """Re-queues running jobs whose lease (default LEASE_SECONDS) was not renewed in time."""
    return len(await conn.fetch(RECOVER, LEASE_SECONDS if lease_s is None else lease_s))


async def renew_leases(conn: asyncpg.Connection, worker_id: str) -> None:
    """Keeps this worker's running jobs (e.g. a long generation build) from being re-queued."""
    await conn.execute(RENEW, worker_id)


async def beat(conn: asyncpg.Connection, worker_id: str, model: str) -> None:
    """Records that this worker, indexing `model`'s collections, is alive (at start and every
    HEARTBEAT_SECONDS), so servers can say when no worker runs for a model."""
    await conn.execute(BEAT, worker_id, model)


async def forget_old_workers(conn: asyncpg.Connection) -> None:
    """Drops the heartbeats of workers gone for a week (each process has a fresh id)."""
    await conn.execute(FORGET_WORKERS)


async def release(conn: asyncpg.Connection, worker_id: str) -> int:
    """Re-queues every job this worker still runs (a graceful stop); returns how many."""
    return len(await conn.fetch(RELEASE, worker_id))


async def queue_depth(conn: asyncpg.Connection) -> int:
    depth: int = await conn.fetchval(DEPTH)
    return depth

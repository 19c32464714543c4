-- Each indexer worker's last sign of life, written when it starts and at every lease renewal
-- (indexer/quire/indexer/worker/jobs.py, `beat`), so a server can tell a deployment without a
-- running worker (uploads stay PENDING): the start-up warning of `quire serve` and
-- IndexStatus.worker_last_seen. Deployment-wide, like the jobs queue; rows of workers gone for
-- a week are deleted by the workers' maintenance.
CREATE TABLE worker_heartbeats (
    worker_id text PRIMARY KEY,
    seen_at timestamptz NOT NULL DEFAULT now()
);

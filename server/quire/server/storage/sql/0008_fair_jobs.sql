-- Fair claims (indexer/worker/jobs.py CLAIM): each organisation's oldest runnable jobs are
-- found by a skip scan over this index, so a claim costs one index probe per organisation
-- with queued work, however deep any one organisation's queue is.
CREATE INDEX jobs_queued_by_org ON jobs (org_id, run_after, job_id) WHERE state = 'queued';
-- Lease heartbeats and take-overs look only at running jobs (a few per worker).
CREATE INDEX jobs_running ON jobs (locked_by, locked_at) WHERE state = 'running';

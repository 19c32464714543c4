-- Each worker indexes the collections of one embedding model (one worker per model), so a
-- heartbeat names its model: a deployment whose workers serve only the default model leaves a
-- bge collection's uploads PENDING while heartbeats keep arriving. The server's start-up
-- warning and IndexStatus.worker_last_seen read the heartbeats of the model concerned
-- (quire/server/workers.py). Rows written before this migration were all the default model's
-- workers (per-model workers came with migration 0016).
ALTER TABLE worker_heartbeats ADD COLUMN embedding_model text NOT NULL DEFAULT 'all-minilm-l6-v2';
ALTER TABLE worker_heartbeats ALTER COLUMN embedding_model DROP DEFAULT;

-- Content-addressed vectors (indexer/quire/indexer/ingest/vector_store.py): the vector of one
-- exact embedding text under one model, kept per organisation, so page re-syncs, re-uploads,
-- index rebuilds and gate runs embed nothing that organisation already embedded. Never shared
-- across organisations: a hit's speed would tell one tenant that another holds a text.
-- `model` is the sha256 of the embedder's fingerprint (model files, tokenizer, pooling,
-- precision), so a row of another model is never read. Bounded per organisation, least
-- recently used first out (`used_at`, refreshed at most hourly on hits).
CREATE TABLE vector_store (
    org_id uuid NOT NULL,
    model bytea NOT NULL,
    text_sha256 bytea NOT NULL,
    embedding vector NOT NULL,
    used_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, model, text_sha256)
);
CREATE INDEX vector_store_lru ON vector_store (org_id, used_at);

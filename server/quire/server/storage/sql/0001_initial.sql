-- Quire schema, version 1. Every table's primary key leads with org_id so the schema can be
-- distributed and co-located by organisation (docs/scaling.md). deployment_settings and
-- schema_migrations are global reference tables.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE organisations (
    org_id uuid PRIMARY KEY,
    name text NOT NULL UNIQUE,
    retrieval_mode smallint,            -- NULL: deployment default
    max_search_limit integer NOT NULL DEFAULT 8 CHECK (max_search_limit BETWEEN 1 AND 50),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE deployment_settings (
    name text PRIMARY KEY,
    value jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    org_id uuid NOT NULL REFERENCES organisations ON DELETE CASCADE,
    key_id text NOT NULL,
    secret_sha256 bytea NOT NULL,
    scopes text[] NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    PRIMARY KEY (org_id, key_id)
);
CREATE UNIQUE INDEX api_keys_key_id ON api_keys (key_id);

CREATE TABLE audit_log (
    org_id uuid NOT NULL,
    audit_id bigint GENERATED ALWAYS AS IDENTITY,
    key_id text NOT NULL,
    action text NOT NULL,
    details jsonb NOT NULL DEFAULT '{}',
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, audit_id)
);

-- Published pages -------------------------------------------------------------------------

CREATE TABLE namespaces (
    org_id uuid NOT NULL REFERENCES organisations ON DELETE CASCADE,
    name text NOT NULL,
    filesystem_version bigint NOT NULL DEFAULT 0,
    source_url text NOT NULL DEFAULT '',
    public_url text NOT NULL DEFAULT '',
    transform text NOT NULL DEFAULT 'markdown',
    index_version text NOT NULL DEFAULT '1',
    search_config jsonb NOT NULL DEFAULT '{}',
    last_report bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, name)
);

CREATE TABLE pages (
    org_id uuid NOT NULL,
    namespace text NOT NULL,
    path text COLLATE "C" NOT NULL,
    content_id uuid NOT NULL,
    url text NOT NULL,
    title text NOT NULL,
    body text NOT NULL,
    total_chars integer NOT NULL,
    digest text NOT NULL,
    index_fingerprint text NOT NULL,
    revision text NOT NULL,
    filesystem_version bigint NOT NULL,
    expected_chunk_count integer NOT NULL,
    published_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, namespace, path),
    FOREIGN KEY (org_id, namespace) REFERENCES namespaces ON DELETE CASCADE
);

CREATE TABLE page_chunks (
    org_id uuid NOT NULL,
    namespace text NOT NULL,
    path text COLLATE "C" NOT NULL,
    chunk_ordinal integer NOT NULL,
    revision text NOT NULL,
    chunk_id text NOT NULL,
    content text NOT NULL,
    heading_path text[] NOT NULL DEFAULT '{}',
    tsv tsvector NOT NULL,
    embedding vector(384) NOT NULL,
    PRIMARY KEY (org_id, namespace, path, chunk_ordinal),
    FOREIGN KEY (org_id, namespace, path) REFERENCES pages ON DELETE CASCADE
);
CREATE INDEX page_chunks_tsv ON page_chunks USING gin (tsv);
CREATE INDEX page_chunks_embedding ON page_chunks USING hnsw (embedding vector_cosine_ops);

-- Knowledge collections -------------------------------------------------------------------

CREATE TABLE collections (
    org_id uuid NOT NULL REFERENCES organisations ON DELETE CASCADE,
    collection_id uuid NOT NULL,
    name text NOT NULL,
    revision bigint NOT NULL DEFAULT 0,
    serving_generation bigint NOT NULL DEFAULT 0,
    deleted_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, collection_id)
);
CREATE UNIQUE INDEX collections_live_name ON collections (org_id, name) WHERE deleted_at IS NULL;

CREATE TABLE documents (
    org_id uuid NOT NULL,
    document_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    file_name text NOT NULL,
    mime_type text NOT NULL,
    size_bytes bigint NOT NULL,
    sha256 text NOT NULL,
    status smallint NOT NULL,           -- quire.v1.DocumentStatus
    extract_error text NOT NULL DEFAULT '',
    extracted_text text NOT NULL DEFAULT '',
    text_tsv tsvector NOT NULL DEFAULT ''::tsvector,
    attempts integer NOT NULL DEFAULT 0,
    revision bigint NOT NULL,
    deleted_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, document_id),
    FOREIGN KEY (org_id, collection_id) REFERENCES collections
);
CREATE INDEX documents_collection ON documents (org_id, collection_id) WHERE deleted_at IS NULL;
CREATE INDEX documents_text_tsv ON documents USING gin (text_tsv);
CREATE INDEX documents_file_name ON documents USING gin (lower(file_name) gin_trgm_ops);

CREATE TABLE document_originals (
    org_id uuid NOT NULL,
    document_id uuid NOT NULL,
    content bytea NOT NULL,
    PRIMARY KEY (org_id, document_id),
    FOREIGN KEY (org_id, document_id) REFERENCES documents ON DELETE CASCADE
);

CREATE TABLE agents (
    org_id uuid NOT NULL REFERENCES organisations ON DELETE CASCADE,
    agent_id text NOT NULL,
    attached_collection_ids uuid[] NOT NULL DEFAULT '{}',
    config_version bigint NOT NULL DEFAULT 1,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, agent_id)
);

CREATE TABLE index_generations (
    org_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    generation bigint NOT NULL,
    state smallint NOT NULL,            -- quire.v1.GenerationState
    fingerprint text NOT NULL,
    index_version text NOT NULL DEFAULT '1',
    documents_indexed integer NOT NULL DEFAULT 0,
    documents_total integer NOT NULL DEFAULT 0,
    error text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    ready_at timestamptz,
    PRIMARY KEY (org_id, collection_id, generation),
    FOREIGN KEY (org_id, collection_id) REFERENCES collections
);

CREATE TABLE knowledge_chunks (
    org_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    generation bigint NOT NULL,
    document_id uuid NOT NULL,
    chunk_ordinal integer NOT NULL,
    chunk_id text NOT NULL,
    content text NOT NULL,
    heading_path text[] NOT NULL DEFAULT '{}',
    tsv tsvector NOT NULL,
    embedding vector(384) NOT NULL,
    PRIMARY KEY (org_id, collection_id, generation, document_id, chunk_ordinal),
    FOREIGN KEY (org_id, collection_id, generation) REFERENCES index_generations ON DELETE CASCADE
);
CREATE INDEX knowledge_chunks_tsv ON knowledge_chunks USING gin (tsv);
CREATE INDEX knowledge_chunks_embedding ON knowledge_chunks USING hnsw (embedding vector_cosine_ops);

-- Work, cache, evaluation -----------------------------------------------------------------

CREATE TABLE jobs (
    org_id uuid NOT NULL,
    job_id bigint GENERATED ALWAYS AS IDENTITY,
    kind text NOT NULL,
    payload jsonb NOT NULL,
    state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    run_after timestamptz NOT NULL DEFAULT now(),
    locked_by text,
    locked_at timestamptz,
    last_error text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    PRIMARY KEY (org_id, job_id)
);
CREATE INDEX jobs_ready ON jobs (run_after) WHERE state = 'queued';

CREATE TABLE search_cache (
    org_id uuid NOT NULL,
    cache_key bytea NOT NULL,
    result bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, cache_key)
);

CREATE TABLE gate_results (
    org_id uuid NOT NULL,
    gate_id bigint GENERATED ALWAYS AS IDENTITY,
    fingerprint text NOT NULL,
    dataset text NOT NULL,
    split text NOT NULL,
    passed boolean NOT NULL,
    result bytea NOT NULL,              -- serialised quire.v1.GateResult
    measured_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, gate_id)
);
CREATE INDEX gate_results_fingerprint ON gate_results (fingerprint, measured_at DESC);

CREATE TABLE shadow_samples (
    org_id uuid NOT NULL,
    sample_id bigint GENERATED ALWAYS AS IDENTITY,
    overlap_at_k double precision,
    top1_agree boolean,
    legacy_ms double precision NOT NULL,
    hybrid_ms double precision,
    failed boolean NOT NULL DEFAULT false,
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, sample_id)
);

-- Language-aware full-text search of published pages (docs/retrieval-quality.md, "Pages").
--
-- Every chunk has two tsvectors: `tsv`, unstemmed (`simple`, plus whole code identifiers and
-- CJK bigrams), for exact tokens; and `stem_tsv`, in the page language's Snowball
-- configuration (`english`, `german`, …; `simple` for a language without one). Both weight
-- the page title A, the chunk's heading path B, the page's front matter description and
-- keywords C and the chunk text D. Pages synced before this migration keep an empty
-- `stem_tsv` until their next sync re-indexes them (the index fingerprint changed).

ALTER TABLE namespaces
    -- The language of pages whose own language cannot be told (BCP 47, lower case).
    ADD COLUMN language text NOT NULL DEFAULT 'en',
    -- The languages the namespace's pages are in, refreshed by each sync.
    ADD COLUMN languages text[] NOT NULL DEFAULT '{}';

ALTER TABLE pages
    ADD COLUMN language text NOT NULL DEFAULT 'en',
    ADD COLUMN description text NOT NULL DEFAULT '',
    ADD COLUMN keywords text[] NOT NULL DEFAULT '{}';

ALTER TABLE page_chunks
    ADD COLUMN language text NOT NULL DEFAULT 'en',
    ADD COLUMN stem_tsv tsvector NOT NULL DEFAULT ''::tsvector,
    DROP COLUMN heading_tsv;

-- The weighted fields (title, headings, description) of each tsvector, kept apart so ranking
-- tests a lexeme's field without detoasting the whole tsvector.
ALTER TABLE page_chunks
    ADD COLUMN tsv_fields tsvector GENERATED ALWAYS AS (ts_filter(tsv, '{a,b,c}')) STORED,
    ADD COLUMN stem_lexemes integer GENERATED ALWAYS AS (length(stem_tsv)) STORED,
    ADD COLUMN stem_fields tsvector GENERATED ALWAYS AS (ts_filter(stem_tsv, '{a,b,c}')) STORED;
CREATE INDEX page_chunks_stem_tsv ON page_chunks USING gin (stem_tsv);

-- Vectors inline, not in TOAST: an exact scan of a namespace's vectors (search.EXACT_VECTOR)
-- then reads ~1,000 heap pages for 3,916 chunks instead of ~13,000 TOAST pages (2.6 ms
-- against 10.6 ms). Rows written from now on; every page is re-embedded at its next sync
-- anyway (the index fingerprint changed).
ALTER TABLE page_chunks ALTER COLUMN embedding SET STORAGE MAIN;

-- Statistics per analysis: 'e' (exact, `tsv`) and 's' (stemmed, `stem_tsv`).
ALTER TABLE page_lexeme_stats
    ADD COLUMN analysis "char" NOT NULL DEFAULT 'e',
    DROP CONSTRAINT page_lexeme_stats_pkey,
    ADD PRIMARY KEY (org_id, namespace, analysis, lexeme);

ALTER TABLE page_term_totals
    ADD COLUMN stem_avg_length double precision NOT NULL DEFAULT 0;

-- A chunk's weighted tsvector in one configuration: title A, headings B, description and
-- keywords C, text D. The texts arrive already prepared (CJK runs as bigrams).
CREATE FUNCTION quire_page_tsv(config regconfig, title text, headings text, summary text,
                               body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector(config, title), 'A')
        || setweight(to_tsvector(config, headings), 'B')
        || setweight(to_tsvector(config, summary), 'C')
        || setweight(to_tsvector(config, body), 'D')
$$;

-- A built-in text search configuration by name; simple when this server has none by that
-- name (older servers lack some of the Snowball languages).
CREATE FUNCTION quire_text_config(name text) RETURNS regconfig
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(
        (SELECT c.oid::regconfig FROM pg_ts_config c
         JOIN pg_namespace n ON n.oid = c.cfgnamespace
         WHERE n.nspname = 'pg_catalog' AND c.cfgname = name),
        'simple'::regconfig)
$$;

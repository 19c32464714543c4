-- Term statistics per page namespace, for BM25 ranking of the pages full-text arm (the same
-- ranking the knowledge chunk arm uses; docs/retrieval-quality.md). A namespace is written
-- only by its sync, under the namespace lock, so the sync refreshes them whole when it has
-- changed chunks (and during a long first sync), and they are exact between syncs.

-- Distinct lexemes per chunk, and the title and heading lexemes (weight A), stored so ranking
-- never detoasts the tsvector.
ALTER TABLE page_chunks
    ADD COLUMN lexemes integer GENERATED ALWAYS AS (length(tsv)) STORED,
    ADD COLUMN heading_tsv tsvector GENERATED ALWAYS AS (strip(ts_filter(tsv, '{a}'))) STORED;

CREATE TABLE page_lexeme_stats (
    org_id uuid NOT NULL,
    namespace text NOT NULL,
    lexeme text COLLATE "C" NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (org_id, namespace, lexeme),
    FOREIGN KEY (org_id, namespace) REFERENCES namespaces ON DELETE CASCADE
);

CREATE TABLE page_term_totals (
    org_id uuid NOT NULL,
    namespace text NOT NULL,
    chunks integer NOT NULL,
    avg_length double precision NOT NULL,
    refreshed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, namespace),
    FOREIGN KEY (org_id, namespace) REFERENCES namespaces ON DELETE CASCADE
);

INSERT INTO page_lexeme_stats (org_id, namespace, lexeme, df)
SELECT n.org_id, n.name, s.word, s.ndoc
FROM namespaces n
CROSS JOIN LATERAL ts_stat(format(
    'SELECT tsv FROM page_chunks WHERE org_id = %L AND namespace = %L', n.org_id, n.name)) s;

INSERT INTO page_term_totals (org_id, namespace, chunks, avg_length)
SELECT org_id, namespace, count(*), avg(lexemes) FROM page_chunks GROUP BY org_id, namespace;

-- Term statistics per index generation, for BM25 ranking of the full-text arm: document
-- frequency per lexeme, and the chunk count and mean chunk length (in distinct lexemes).
-- Refreshed by the worker when a generation flips and when it drifts by more than 10%.
CREATE TABLE lexeme_stats (
    org_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    generation bigint NOT NULL,
    lexeme text COLLATE "C" NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (org_id, collection_id, generation, lexeme),
    FOREIGN KEY (org_id, collection_id, generation) REFERENCES index_generations ON DELETE CASCADE
);

CREATE TABLE generation_stats (
    org_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    generation bigint NOT NULL,
    chunks integer NOT NULL,
    avg_length double precision NOT NULL,
    refreshed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, collection_id, generation),
    FOREIGN KEY (org_id, collection_id, generation) REFERENCES index_generations ON DELETE CASCADE
);

-- The text analysis of a generation's lexical arm (docs/retrieval-quality.md, "Stemmed
-- lexemes"): 'simple' (every word as written, lower-cased) or 'english' (Snowball stems,
-- English stop words dropped). Generations built before this migration keep 'simple'; new
-- ones get the indexer's KNOWLEDGE_TEXT_CONFIG, so a collection moves to stems by a rebuild
-- and back by a rollback, never a mix within one generation. The chunk writer analyses with
-- it and searches analyse the query with the config of each generation they read.
ALTER TABLE index_generations ADD COLUMN text_config text NOT NULL DEFAULT 'simple'
    CHECK (text_config IN ('simple', 'english'));
ALTER TABLE index_generations ALTER COLUMN text_config DROP DEFAULT;

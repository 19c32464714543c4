-- The embedding model each collection and namespace was created with (docs/embedding.md,
-- "Models per corpus"). Fixed for the corpus's life: every generation of a collection is built
-- by the worker of its model, so vectors of two models are never mixed. Rows from before this
-- migration were embedded with the only model there was.
ALTER TABLE collections ADD COLUMN embedding_model text NOT NULL DEFAULT 'all-minilm-l6-v2';
ALTER TABLE namespaces ADD COLUMN embedding_model text NOT NULL DEFAULT 'all-minilm-l6-v2';

-- The embedding model belongs to each index generation (docs/embedding.md, "Models per
-- corpus"): a rebuild may build generation g+1 with another model while g serves, and a
-- rollback serves g again with its own model. Every chunk of a generation is embedded with its
-- model alone. `collections.embedding_model` now follows the serving generation's (set with
-- serving_generation in the flip's or rollback's transaction); before any generation serves it
-- is the model the collection was created with. Existing generations were all built with their
-- collection's model.
ALTER TABLE index_generations ADD COLUMN embedding_model text;
UPDATE index_generations g SET embedding_model = c.embedding_model
FROM collections c WHERE c.org_id = g.org_id AND c.collection_id = g.collection_id;
UPDATE index_generations SET embedding_model = 'all-minilm-l6-v2' WHERE embedding_model IS NULL;
ALTER TABLE index_generations ALTER COLUMN embedding_model SET NOT NULL;

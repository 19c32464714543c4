-- Indexing never hides a document (docs/knowledge.md, "Documents not yet indexed").

-- The text version each chunk was cut from: its document's updated_at when that text was
-- stored. A constant default adds the column without rewriting the table; chunks written
-- before this migration read '-infinity' (unknown version).
ALTER TABLE knowledge_chunks ADD COLUMN text_as_of timestamptz NOT NULL DEFAULT '-infinity';

-- Documents whose current text the collection's serving generation may not hold yet, with
-- that text's version. A superset: a search checks each row against the chunks it reads.
-- Written with the text (worker), removed by the chunk write that indexes it into the
-- serving generation, re-derived at every flip and rollback, cleaned when the collection
-- settles. Empty for a collection whose index has caught up, so the common search reads
-- one index entry to learn there is nothing pending.
CREATE TABLE index_backlog (
    org_id uuid NOT NULL,
    collection_id uuid NOT NULL,
    document_id uuid NOT NULL,
    text_as_of timestamptz NOT NULL,
    PRIMARY KEY (org_id, collection_id, document_id)
);

-- READY documents with text and no chunk in their collection's serving generation.
INSERT INTO index_backlog (org_id, collection_id, document_id, text_as_of)
SELECT d.org_id, d.collection_id, d.document_id, d.updated_at
FROM documents d
JOIN collections c ON c.org_id = d.org_id AND c.collection_id = d.collection_id
WHERE d.deleted_at IS NULL AND c.deleted_at IS NULL AND c.serving_generation > 0
  AND d.status = 3 AND d.extract_error = ''
  AND NOT EXISTS (SELECT 1 FROM knowledge_chunks k
                  WHERE k.org_id = d.org_id AND k.collection_id = d.collection_id
                    AND k.generation = c.serving_generation AND k.document_id = d.document_id);

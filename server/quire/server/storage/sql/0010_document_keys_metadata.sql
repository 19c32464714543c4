-- The knowledge API for applications (docs/knowledge.md): a caller-chosen key per document,
-- unique among a collection's live documents, and the caller's metadata as a JSON object.
ALTER TABLE documents ADD COLUMN external_key text;
ALTER TABLE documents ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb;
-- Upload by key finds (and locks) the document through this index; deleted documents keep
-- their key without blocking its reuse.
CREATE UNIQUE INDEX documents_external_key ON documents (org_id, collection_id, external_key)
    WHERE deleted_at IS NULL AND external_key IS NOT NULL;
-- Equality, `in` and `exists` filters are containment / jsonpath-existence tests this index
-- serves; range filters read the candidate rows.
CREATE INDEX documents_metadata ON documents USING gin (metadata jsonb_path_ops)
    WHERE deleted_at IS NULL;

-- The pages full-text arm (pages/search.py, LEXICAL) tests `tsv @@ lexeme` and
-- `stem_tsv @@ lexeme` for one organisation and namespace. As with knowledge chunks (0011),
-- a GIN index of the tsvector alone read a common lexeme's postings from every namespace of
-- every organisation and checked each row's tenant in the heap; leading with the tenant's
-- key (btree_gin), the scan reads only the namespace's own postings (docs/scaling.md §6).
-- Same names, so tooling that sizes them keeps working.
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX page_chunks_tsv;
CREATE INDEX page_chunks_tsv ON page_chunks USING gin (org_id, namespace, tsv);
DROP INDEX page_chunks_stem_tsv;
CREATE INDEX page_chunks_stem_tsv ON page_chunks USING gin (org_id, namespace, stem_tsv);

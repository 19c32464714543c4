-- Knowledge search: the same data and query give the same ranking whatever else the database
-- holds or held (docs/retrieval-quality.md, "Determinism").

-- Exact vector scans read every scoped chunk's vector: keep vectors in the heap row instead
-- of TOAST (a TOAST fetch per chunk made the scan three times slower). A chunk row (≤ 900
-- characters, its tsvector, a 1,544-byte vector) stays under 8,160 bytes, so nothing is
-- compressed or moved out of line; a larger row moves its text first, the vector last.
-- Rows written before this migration keep their layout until rewritten (a rebuild).
ALTER TABLE knowledge_chunks SET (toast_tuple_target = 8160);
ALTER TABLE knowledge_chunks ALTER COLUMN embedding SET STORAGE MAIN;

-- A collection is settled at its revision once the worker found nothing pending for it and
-- made its term statistics exact (indexer/worker/settle.py); only then are results cached.
ALTER TABLE collections ADD COLUMN settled_revision bigint NOT NULL DEFAULT 0;
CREATE INDEX collections_unsettled ON collections (org_id, collection_id)
    WHERE settled_revision < revision AND deleted_at IS NULL;
-- Each refresh bumps `version` (part of the search cache key); `settled_revision` is the
-- collection revision the statistics are exact for (NULL: refreshed while work was pending).
ALTER TABLE generation_stats ADD COLUMN version bigint NOT NULL DEFAULT 0,
    ADD COLUMN settled_revision bigint;
-- "Has this collection pending work?" looks at an organisation's queued and running jobs.
CREATE INDEX jobs_pending ON jobs (org_id) WHERE state IN ('queued', 'running');

-- Deleted data leaves the shared indexes: chunks and statistics of soft-deleted collections
-- (from now on purged by a job queued with the delete) and any chunk of a deleted document.
DELETE FROM knowledge_chunks k USING collections c
WHERE c.org_id = k.org_id AND c.collection_id = k.collection_id AND c.deleted_at IS NOT NULL;
DELETE FROM knowledge_chunks k USING documents d
WHERE d.org_id = k.org_id AND d.document_id = k.document_id AND d.deleted_at IS NOT NULL;
DELETE FROM lexeme_stats l USING collections c
WHERE c.org_id = l.org_id AND c.collection_id = l.collection_id AND c.deleted_at IS NOT NULL;
DELETE FROM generation_stats g USING collections c
WHERE c.org_id = g.org_id AND c.collection_id = g.collection_id AND c.deleted_at IS NOT NULL;

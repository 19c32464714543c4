"""Document.index_state: whether a document's current text is in its collection's serving
index generation (docs/knowledge.md, "Waiting until searchable").

One SQL expression over a `documents d` row, so every query that returns documents reports it
without a second round trip. It costs a primary-key lookup of the collection and one of the
index backlog (almost always empty for an indexed document); only a backlog row leads to a
third, the chunk-0 lookup that tells whether the serving generation already holds that row's
text version (the backlog is a superset, indexer/worker/backlog.py, so a row alone does not
mean the text is missing: this keeps a stale row from showing PENDING until settling cleans
it, a change nobody would be notified of).
"""

from __future__ import annotations

from quire.indexer.extraction import NO_TEXT_MARKER
from quire.v1 import knowledge_pb2

_PENDING = knowledge_pb2.DOCUMENT_INDEX_STATE_PENDING
_INDEXED = knowledge_pb2.DOCUMENT_INDEX_STATE_INDEXED

# The serving generation holds the current text unless a backlog row names a text version
# that generation has no chunk of; no serving generation yet: nothing is indexed.
_SERVING = f"""
(SELECT CASE
          WHEN c.serving_generation = 0 THEN {_PENDING}
          WHEN EXISTS (
              SELECT 1 FROM index_backlog b
              WHERE b.org_id = d.org_id AND b.collection_id = d.collection_id
                AND b.document_id = d.document_id
                AND NOT EXISTS (SELECT 1 FROM knowledge_chunks k
                                WHERE k.org_id = d.org_id AND k.collection_id = d.collection_id
                                  AND k.generation = c.serving_generation
                                  AND k.document_id = d.document_id AND k.chunk_ordinal = 0
                                  AND k.text_as_of = b.text_as_of)) THEN {_PENDING}
          ELSE {_INDEXED}
        END
 FROM collections c WHERE c.org_id = d.org_id AND c.collection_id = d.collection_id)
"""

# FAILED wins over an earlier indexed text (the upload the caller waits for did not make it);
# a deleted document has no index state (WatchDocuments reports it DELETED).
INDEX_STATE = f"""
CASE
  WHEN d.deleted_at IS NOT NULL THEN {knowledge_pb2.DOCUMENT_INDEX_STATE_UNSPECIFIED}
  WHEN d.status = {knowledge_pb2.DOCUMENT_STATUS_FAILED}
    THEN {knowledge_pb2.DOCUMENT_INDEX_STATE_FAILED}
  WHEN d.status <> {knowledge_pb2.DOCUMENT_STATUS_READY} THEN {_PENDING}
  WHEN d.extract_error = '{NO_TEXT_MARKER}' THEN {knowledge_pb2.DOCUMENT_INDEX_STATE_NO_TEXT}
  ELSE {_SERVING}
END
"""

"""Documents a HYBRID search finds at document level because its serving generation does not
hold their current text yet (design §11: indexing never hides a document).

Which ones: the rows of the collection's index backlog (indexer/worker/backlog.py, a small
superset kept by the worker) whose document is READY and has no chunk of its current text
(`knowledge_chunks.text_as_of = documents.updated_at`) in the generation the search reads.
Checked in the search's own snapshot against that generation, so the answer is exact
whatever the backlog holds; a collection with an empty backlog is not queried at all.

How they rank: on the chunk full-text arm's scale. A pending document scores the sum of the
BM25 idf (from the serving generation's term statistics, df 0 for words no chunk has) of the
query terms its text contains: what one chunk of average length holding each of those terms
once would score. It joins the full-text arm's candidates, and, having no vectors, its
normalised full-text score also stands in for the vector arm (search.fuse). Its chunks in
the serving generation, if any, are of an older text and are left out of every chunk arm.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence

import asyncpg

from quire.server.knowledge import bm25
from quire.server.knowledge.filters import compile_filter
from quire.server.retrieval.lexical import headline, or_query
from quire.v1 import knowledge_pb2

_READY = knowledge_pb2.DOCUMENT_STATUS_READY

# A primary-key lookup per backlog row (LIMIT 1 keeps the planner from flattening it into a
# join that, when its estimates lag a bulk load, reads every document of the collection).
PENDING = f"""
SELECT b.document_id
FROM unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
JOIN index_backlog b ON b.org_id = $1 AND b.collection_id = s.collection_id
CROSS JOIN LATERAL (
    SELECT d.updated_at FROM documents d
    WHERE d.org_id = $1 AND d.document_id = b.document_id AND d.deleted_at IS NULL
      AND d.status = {_READY}
    LIMIT 1
) d
WHERE NOT EXISTS (SELECT 1 FROM knowledge_chunks k
                  WHERE k.org_id = $1 AND k.collection_id = s.collection_id
                    AND k.generation = s.generation AND k.document_id = b.document_id
                    AND k.chunk_ordinal = 0 AND k.text_as_of = d.updated_at)
ORDER BY b.document_id
"""
# Documents holding none of the terms ($7: their OR) are dropped first; the others' lexemes
# are read once (materialised: inlined, the array would be rebuilt, and the text's tsvector
# read again, for every term).
RANK = """
WITH docs AS MATERIALIZED (
    SELECT d.document_id, d.collection_id, tsvector_to_array(d.text_tsv) AS lexemes
    FROM documents d
    WHERE d.org_id = $1 AND d.document_id = ANY($2::uuid[]) AND d.extract_error = ''
      AND d.text_tsv @@ $7::tsquery /*filter*/
)
SELECT docs.document_id, sum(t.idf::numeric)::float8 AS score
FROM docs
JOIN unnest($3::uuid[], $4::text[], $5::float8[]) AS t(collection_id, lexeme, idf)
  ON t.collection_id = docs.collection_id AND t.lexeme = ANY(docs.lexemes)
GROUP BY docs.document_id
ORDER BY score DESC, docs.document_id
LIMIT $6
"""
SNIPPETS = f"""
WITH q AS (SELECT {or_query("$3")} AS q)
SELECT d.document_id, {headline("d.extracted_text", "q.q")} AS snippet
FROM documents d, q
WHERE d.org_id = $1 AND d.document_id = ANY($2::uuid[]) AND d.extract_error = ''
"""


async def documents(
    conn: asyncpg.Connection, org_id: uuid.UUID, ids: Sequence[uuid.UUID], gens: Sequence[int]
) -> frozenset[uuid.UUID]:
    """The READY documents of collections `ids` whose current text generations `gens` (one
    per collection) do not hold."""
    rows = await conn.fetch(PENDING, org_id, list(ids), list(gens))
    return frozenset(r["document_id"] for r in rows)


async def rank(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    ids: Sequence[uuid.UUID],
    gens: Sequence[int],
    query: str,
    pending: Collection[uuid.UUID],
    depth: int,
    *,
    max_df_ratio: float,
    where: knowledge_pb2.MetadataFilter | None = None,
) -> list[tuple[uuid.UUID, float]]:
    """The pending documents matching the query, best first, with their score (module
    docstring); the terms are chosen as the chunk arm chooses them."""
    rows = await conn.fetch(bm25.TERMS_WITH_UNSEEN, org_id, list(ids), list(gens), query)
    terms = bm25.select_terms(rows, max_df_ratio)
    if not terms:
        return []
    document_filter = compile_filter(where, first_param=8)
    sql = RANK.replace("/*filter*/", f"AND {document_filter.sql}")
    ranked = await conn.fetch(
        sql,
        org_id,
        list(pending),
        [t.collection_id for t in terms],
        [t.lexeme for t in terms],
        [t.idf for t in terms],
        depth + bm25.TIE_MARGIN,
        " | ".join(bm25.quote(lexeme) for lexeme in dict.fromkeys(t.lexeme for t in terms)),
        *document_filter.args,
    )
    kept = bm25.cut_with_ties(ranked, depth, "score")
    return [(r["document_id"], float(r["score"])) for r in kept]


async def snippets(
    conn: asyncpg.Connection, org_id: uuid.UUID, document_ids: Sequence[uuid.UUID], query: str
) -> dict[uuid.UUID, str]:
    """ts_headline snippets of the documents' current text (documents with text only)."""
    if not document_ids:
        return {}
    rows = await conn.fetch(SNIPPETS, org_id, list(document_ids), query)
    return {r["document_id"]: r["snippet"] for r in rows}

"""BM25 ranking of the chunk full-text arm, from per-generation term statistics (the formula
and the term cut: retrieval/bm25.py, which also says why pages builds its own statement).

Two statements: the query's lexemes with their document frequencies (primary-key lookups in
`lexeme_stats`), then one branch per kept lexeme, each `tsv @@ '<lexeme>'::tsquery` with its
idf weight, summed per chunk. Each branch gets the lexeme as its own parameter, so under
`plan_cache_mode = force_custom_plan` (the deployment default) the planner sees the actual
lexeme and uses the GIN index for it, whatever the table statistics say. tf is counted once
(chunks are short); length is the chunk's number of distinct lexemes.

Deterministic: terms are chosen in a fixed order, and the per-chunk sum is taken in numeric
(exact), so it does not depend on the order the plan delivers the branches' rows in.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from quire.server.knowledge.filters import NO_FILTER, SqlFilter, compile_filter
from quire.server.retrieval import bm25 as formula
from quire.v1 import knowledge_pb2

MAX_TERMS = 48
# Rows fetched beyond an arm's depth, so candidates tied with its last one are kept too.
TIE_MARGIN = 64


def _terms_sql(lexemes: str, join: str, looked_up: str, where: str = "") -> str:
    """The query's terms (`lexemes`: the select of the lateral `qt`) with their chunk frequency
    in each generation, whose text analysis (index_generations.text_config, migration 0020:
    'simple', or 'english' stems) is `ig.text_config`: the query is analysed as the
    generation's chunks were. `JOIN` keeps the terms some chunk holds, `LEFT JOIN` every term
    (df 0 where no chunk has it); `looked_up` is the lexeme whose df is read."""
    return f"""
SELECT st.collection_id, st.generation, st.chunks, greatest(st.avg_length, 1) AS avgdl,
       qt.lexeme, coalesce(ls.df, 0) AS df
FROM unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
JOIN generation_stats st ON st.org_id = $1 AND st.collection_id = s.collection_id
                        AND st.generation = s.generation
JOIN index_generations ig ON ig.org_id = $1 AND ig.collection_id = s.collection_id
                         AND ig.generation = s.generation
CROSS JOIN LATERAL (
{lexemes}
) qt
{join} LATERAL (
    SELECT l.df FROM lexeme_stats l
    WHERE l.org_id = $1 AND l.collection_id = st.collection_id AND l.generation = st.generation
      AND l.lexeme = {looked_up}
) ls ON true
{where}ORDER BY qt.lexeme COLLATE "C", st.collection_id, st.generation
"""


TERMS = _terms_sql(
    """    SELECT DISTINCT lexeme
    FROM unnest(tsvector_to_array(to_tsvector(ig.text_config::regconfig, $4))) AS t(lexeme)""",
    "JOIN",
    "qt.lexeme",
)
# For documents not in the generation yet (knowledge/pending.py): their words may be in none
# of its chunks (df 0), and they are matched on their own `simple` tsvector, so each term is
# the query's word as written (`lexeme`) with the document frequency of its analysis in the
# generation (`analysed`: itself under 'simple', its stem under 'english'). A word whose
# analysis is empty (an English stop word) takes no part, as in the chunk arm.
TERMS_WITH_UNSEEN = _terms_sql(
    """    SELECT DISTINCT t.lexeme,
           CASE WHEN ig.text_config = 'simple' THEN t.lexeme
                ELSE (tsvector_to_array(to_tsvector(ig.text_config::regconfig, t.lexeme)))[1]
           END AS analysed
    FROM unnest(tsvector_to_array(to_tsvector('simple', $4))) AS t(lexeme)""",
    "LEFT JOIN",
    "qt.analysed",
    "WHERE qt.analysed IS NOT NULL\n",
)
# How many of the generations have statistics, and their chunks together (the vector arm's
# exact-or-HNSW choice).
STATS = """
SELECT count(*) AS generations, coalesce(sum(g.chunks), 0)::bigint AS chunks
FROM generation_stats g
JOIN unnest($2::uuid[], $3::bigint[]) AS s(collection_id, generation)
  ON g.collection_id = s.collection_id AND g.generation = s.generation
WHERE g.org_id = $1
"""


@dataclass(frozen=True)
class Term:
    collection_id: uuid.UUID
    generation: int
    lexeme: str
    idf: float
    avgdl: float


def _branch(i: int) -> str:
    base = 3 + i * 5  # $1 org, $2 k1, $3 b; five parameters per term
    c, g, q, w, a = (f"${base + n}" for n in range(1, 6))
    score = formula.saturation("$2::float8", "$3::float8", "length(tsv)", f"{a}::float8")
    return (
        f"SELECT document_id, chunk_ordinal, {w}::float8 * {score} AS s "
        f"FROM knowledge_chunks WHERE org_id = $1 AND collection_id = {c}::uuid "
        f"AND generation = {g}::bigint AND tsv @@ {q}::tsquery"
    )


def ranking_sql(terms: int, document_filter: SqlFilter = NO_FILTER) -> str:
    """One branch per term, summed per chunk. With a metadata filter (compiled with its first
    parameter after the limit's, plus one for the reachable collections' ids), every branch keeps
    the chunks of the matching documents, found once."""
    branches = [_branch(i) for i in range(terms)]
    limit = 4 + terms * 5
    allowed = ""
    if document_filter.active:
        collections = limit + 1
        allowed = (
            "WITH allowed AS MATERIALIZED (SELECT d.document_id FROM documents d "
            f"WHERE d.org_id = $1 AND d.collection_id = ANY(${collections}::uuid[]) "
            f"AND d.deleted_at IS NULL AND {document_filter.sql})\n"
        )
        branches = [f"{b} AND document_id IN (SELECT document_id FROM allowed)" for b in branches]
    union = "\nUNION ALL\n".join(branches)
    return (
        f"{allowed}SELECT document_id, chunk_ordinal, sum(s::numeric)::float8 AS score\n"
        f"FROM (\n{union}\n) b\n"
        "GROUP BY document_id, chunk_ordinal\n"
        f"ORDER BY score DESC, document_id, chunk_ordinal LIMIT ${limit}"
    )


def cut_with_ties(rows: Sequence[asyncpg.Record], depth: int, column: str) -> list[asyncpg.Record]:
    """The first `depth` rows and the following ones whose `column` equals the last of them
    (queries fetch `depth + TIE_MARGIN` rows): which of equal-scoring candidates make the cut
    must not depend on their (random) document ids. A tie block longer than the margin is
    still cut by document id."""
    kept = list(rows[:depth])
    if kept:
        last = kept[-1][column]
        kept += [r for r in rows[depth:] if r[column] == last]
    return kept


def select_terms(rows: Sequence[asyncpg.Record], max_df_ratio: float) -> list[Term]:
    """Keeps lexemes in at most `max_df_ratio` of their generation's chunks (formula.kept),
    strongest idf first, at most MAX_TERMS."""
    terms = []
    for r in rows:
        n, df = r["chunks"], r["df"]
        if not formula.kept(n, df, max_df_ratio):
            continue
        idf = formula.idf(n, df)
        terms.append(Term(r["collection_id"], r["generation"], r["lexeme"], idf, r["avgdl"]))
    # Ties in idf (equal df) are common: the lexeme decides which are kept.
    terms.sort(key=lambda t: (-t.idf, t.lexeme, str(t.collection_id), t.generation))
    return terms[:MAX_TERMS]


def quote(lexeme: str) -> str:
    """A tsquery holding exactly this lexeme (no parsing): quoted, quotes and backslashes
    escaped."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


async def rank_chunks(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_ids: list[uuid.UUID],
    generations: list[int],
    query: str,
    depth: int,
    *,
    k1: float,
    b: float,
    max_df_ratio: float,
    where: knowledge_pb2.MetadataFilter | None = None,
) -> list[asyncpg.Record]:
    rows = await conn.fetch(TERMS, org_id, collection_ids, generations, query)
    terms = select_terms(rows, max_df_ratio)
    if not terms:
        return []
    args: list[object] = [org_id, k1, b]
    for t in terms:
        args += [t.collection_id, t.generation, quote(t.lexeme), t.idf, t.avgdl]
    args.append(depth + TIE_MARGIN)
    # Parameters after the limit: the reachable collections, then the filter's.
    document_filter = compile_filter(where, first_param=len(args) + 2)
    if document_filter.active:
        args += [collection_ids, *document_filter.args]
    sql = ranking_sql(len(terms), document_filter)
    return cut_with_ties(await conn.fetch(sql, *args), depth, "score")

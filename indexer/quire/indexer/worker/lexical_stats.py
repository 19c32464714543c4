"""Per-generation term statistics (document frequency, chunk count, mean length) for BM25.

They are recomputed whole with `ts_stat`: before a generation flips, when the number of chunks
drifts more than 10% from the last refresh (during a bulk load), and when the collection
settles (settle.py: nothing pending, so they become exact for its revision). Each refresh
bumps the row's `version`, which is part of the search cache key; `settled_revision` says for
which collection revision they are exact (NULL: a drift refresh).
"""

from __future__ import annotations

import uuid

import asyncpg

from quire.v1 import knowledge_pb2

DRIFT = 0.10
LOCK = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
ANALYZE = "ANALYZE knowledge_chunks, lexeme_stats, generation_stats"

# KEY SHARE: a collection delete waits for a refresh under way; one after it writes nothing, so
# no statistics row outlives the purge (cancel.py).
LIVE = """
SELECT 1 FROM collections
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL FOR KEY SHARE
"""
DELETE_LEXEMES = """
DELETE FROM lexeme_stats WHERE org_id = $1 AND collection_id = $2 AND generation = $3
"""
INSERT_LEXEMES = """
INSERT INTO lexeme_stats (org_id, collection_id, generation, lexeme, df)
SELECT $1, $2, $3, word, ndoc FROM ts_stat(format(
    'SELECT tsv FROM knowledge_chunks WHERE org_id = %L AND collection_id = %L AND generation = %s',
    $1::uuid, $2::uuid, $3::bigint))
"""
# avg(length) in numeric: the mean of the same lengths whatever order the rows come in.
UPSERT_TOTALS = """
INSERT INTO generation_stats (org_id, collection_id, generation, chunks, avg_length, version,
                              settled_revision)
SELECT $1, $2, $3, count(*), coalesce(avg(length(tsv)::numeric), 0)::float8, 1, $4
FROM knowledge_chunks WHERE org_id = $1 AND collection_id = $2 AND generation = $3
ON CONFLICT (org_id, collection_id, generation) DO UPDATE SET chunks = EXCLUDED.chunks,
    avg_length = EXCLUDED.avg_length, refreshed_at = now(),
    version = generation_stats.version + 1, settled_revision = EXCLUDED.settled_revision
"""


async def refresh(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    generation: int,
    *,
    analyze: bool = True,
    settled: int | None = None,
) -> None:
    """Re-derives the generation's statistics; `settled`: the collection revision they are
    exact for (settle.py), None for a refresh while changes are pending."""
    async with conn.transaction():
        # Two refreshes of one generation (a drift check and a settle) must not interleave
        # their delete and insert.
        await conn.execute(LOCK, f"stats:{org_id}:{collection_id}:{generation}")
        if await conn.fetchval(LIVE, org_id, collection_id) is None:
            return  # deleted: its purge removes what statistics it had
        await conn.execute(DELETE_LEXEMES, org_id, collection_id, generation)
        await conn.execute(INSERT_LEXEMES, org_id, collection_id, generation)
        await conn.execute(UPSERT_TOTALS, org_id, collection_id, generation, settled)
    if analyze:  # a bulk build leaves the planner's statistics behind
        await conn.execute(ANALYZE)


DRIFTED_IN_COLLECTION = f"""
SELECT g.generation
FROM index_generations g
LEFT JOIN generation_stats s USING (org_id, collection_id, generation)
WHERE g.org_id = $1 AND g.collection_id = $2 AND g.state = {knowledge_pb2.GENERATION_STATE_READY}
  -- Small generations refresh eagerly (cheap); large ones at most every 30 s, since a
  -- refresh rewrites every lexeme row (the periodic sweep catches up in between).
  AND (s.chunks IS NULL OR s.chunks < 500 OR s.refreshed_at < now() - interval '30 seconds')
  AND (s.chunks IS NULL OR abs(
        (SELECT count(*) FROM knowledge_chunks c WHERE c.org_id = g.org_id
           AND c.collection_id = g.collection_id AND c.generation = g.generation) - s.chunks
      ) > s.chunks * $3)
"""


async def refresh_if_drifted(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> None:
    """After a document change: re-derive the serving generation's statistics when its chunk
    count moved more than DRIFT since the last refresh (building ones get theirs at flip)."""
    for row in await conn.fetch(DRIFTED_IN_COLLECTION, org_id, collection_id, DRIFT):
        await refresh(conn, org_id, collection_id, row["generation"], analyze=False)

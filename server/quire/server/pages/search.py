"""SearchPages: hybrid retrieval per phrasing, fused across phrasings, one snapshot for all.

Each phrasing runs a full-text arm and a vector arm, fused by a convex combination of their
normalised scores (docs/retrieval-quality.md, "Pages", has the measurements behind every
default):

- Full-text: BM25 (tf counted once, k1, b) over two analyses of every chunk, each with its
  namespace term statistics (indexer term_stats): the query stemmed in its own language against
  `stem_tsv` (the page language's Snowball configuration), and the query's exact tokens and
  code identifiers against `tsv`. Each matched lexeme adds its idf, plus a bonus × idf for each
  field it is in: the page title (A), the chunk's headings (B), the page's front matter
  description and keywords (C). Lexemes in more than `max_df_ratio` of the chunks are dropped.
  One GIN lookup per lexeme; it needs only the text, so it runs while the query is embedded.
  The formula, shared with knowledge search: retrieval/bm25.py.
- Vector: HNSW cosine with iterative scans, so the namespace filter cannot starve it.

A query's language is told from its script, among the namespace's languages (see
`quire.indexer.pages.language`); chunks of pages in another language have their fused score
multiplied by `language_penalty`, so an English question does not land on the Japanese copy
of the page it wants, and a Japanese one does not land on the English original.

Alternatives run in parallel on their own connections that import the primary transaction's
exported snapshot, with zero parallel workers; the phrasings' rankings are fused by a convex
combination of their min-max normalised scores (RRF is the alternative, `phrasing_fusion`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import asyncpg
import numpy as np
import numpy.typing as npt

from quire.indexer.lexical_text import cjk_bigrams, identifiers
from quire.indexer.pages.language import query_language, text_search_config
from quire.server import canonical_json, telemetry
from quire.server.contract import SCHEMA_VERSION
from quire.server.pages.namespace_models import OtherModel
from quire.server.retrieval import bm25, search_config
from quire.server.retrieval.fusion import fuse
from quire.server.retrieval.lexical import lexeme_query
from quire.server.retrieval.tuning import HybridTuning
from quire.server.storage.database import apply_settings, remaining_ms
from quire.server.storage.snapshots import EXPORT, NoSecondConnection, beside, on_snapshot
from quire.v1 import pages_pb2, search_config_pb2

log = logging.getLogger(__name__)

MAX_HITS_PER_PAGE = 3
ALTERNATIVE_TIMEOUT_S = 5.0


@dataclass(frozen=True, kw_only=True)
class PageTuning(HybridTuning):
    """Pages' values of the hybrid knobs (retrieval/tuning.py says what each means) and the
    knobs only pages have (docs/retrieval-quality.md, "Pages")."""

    depth: int = 40
    fusion: str = "convex"
    normalisation: str = "zscore"
    pad_sparse_arms: bool = True
    rrf_k: float = 60
    fts_weight: float = 1.0
    vector_weight: float = 1.2
    k1: float = 1.2
    b: float = 0.75
    max_df_ratio: float = 0.15
    # Namespaces of at most this many chunks are searched exactly in the vector arm. The
    # exact scan costs 0.6–0.9 ms per 1,000 chunks, all on the search's critical path; this
    # bound keeps it within the 10 ms p50 budget (docs/retrieval-quality.md, "Determinism").
    exact_vector_max_chunks: int = 2_000
    # Phrasings (a query and its alternatives) are fused with RRF at `phrasing_k` ("rrf"), or
    # as a convex combination of their min-max normalised scores ("convex"), the
    # alternatives weighing `alternative_weight` each against the query's 1.
    phrasing_fusion: str = "convex"
    phrasing_k: float = 60
    alternative_weight: float = 0.5
    # At most this many of the query's lexemes, strongest idf first.
    max_terms: int = 16
    # Added (× idf) when the lexeme is in the page title, the chunk's headings, or the page's
    # description and keywords (weights A, B, C): docs sites name a page's topic there. One
    # test for the three fields; weighed apart they were best all at 1, and one test costs a
    # third of three.
    field_weight: float = 1.0
    # Fused score multiplier for chunks of pages in another language than the query's.
    language_penalty: float = 0.5
    # The embedding model (all-MiniLM-L6-v2) was trained on English: for a query in another
    # language its vector arm is mostly noise and weighs `foreign_vector_weight` instead.
    model_languages: tuple[str, ...] = ("en",)
    foreign_vector_weight: float = 0.1
    # Chunks holding the query's rare identifiers (`key_tokens` in at most this share of the
    # chunks) rank before those that do not: a developer who types one wants where it is.
    key_tokens_first: bool = True
    key_token_max_df: float = 0.02


@dataclass(frozen=True)
class QueryLanguage:
    """The language a phrasing is taken to be in, and its stemming configuration."""

    language: str
    config: str

    @classmethod
    def of(cls, query: str, *, present: Collection[str], default: str) -> QueryLanguage:
        language = query_language(query, present=present, default=default)
        return cls(language, text_search_config(language))


Key = tuple[str, int]
Ranked = list[tuple[Key, float]]


@dataclass(frozen=True)
class SearchedNamespace:
    """What one search reads: a namespace of an organisation, and whether its vector arm is
    exact (`PageTuning.exact_vector_max_chunks`)."""

    org_id: uuid.UUID
    namespace: str
    exact_vectors: bool = False


@dataclass(frozen=True)
class Candidate:
    key: Key
    score: float
    language: str
    # How many of the query's key tokens (identifiers, `key_tokens`) the chunk holds.
    key_tokens: int = 0


# The query's lexemes drive every lookup (LIMIT 1 keeps each statistics lookup a primary-key
# probe whatever the table statistics say), so the plan holds on a never-analysed namespace.
# Each analysis' branch is its own GIN lookup per lexeme.
# Ordering and limiting the groups before numbering them keeps it a top-N sort over matches.
_SATURATION = bm25.saturation("$8::float8", "$9::float8", "c.lexemes", "tm.avgdl")
_FIELDS = """
           + $10::float8 * (c.fields @@ tm.in_fields)::int"""
LEXICAL = f"""
WITH totals AS MATERIALIZED (
    SELECT chunks, greatest(avg_length, 1::float8) AS avgdl,
           greatest(stem_avg_length, 1::float8) AS stem_avgdl
    FROM page_term_totals WHERE org_id = $1 AND namespace = $2
),
-- Exact lexemes: the query's identifiers (whole, as the parser would split them) and, for a
-- query in a language without a stemmer, every word: looked up in `tsv`, which every page
-- has in the same analysis whatever its language.
exact AS (
    SELECT DISTINCT lexeme
    FROM unnest(CASE WHEN $5 = 'simple' THEN tsvector_to_array(to_tsvector('simple', $3))
                     ELSE '{{}}'::text[] END || $4::text[] || $11::text[]) AS q(lexeme)
),
stemmed AS (
    SELECT DISTINCT lexeme
    FROM unnest(tsvector_to_array(to_tsvector(quire_text_config($5), $3))) AS q(lexeme)
    WHERE $5 <> 'simple'
),
-- A lexeme in both (an identifier that is also its own stem) is looked up once, stemmed.
query_lexemes AS (
    SELECT CASE WHEN s.lexeme IS NULL THEN 'e' ELSE 's' END::"char" AS analysis,
           coalesce(s.lexeme, e.lexeme) AS lexeme
    FROM exact e FULL JOIN stemmed s ON s.lexeme = e.lexeme
),
terms AS MATERIALIZED (
    SELECT ql.analysis, ls.lexeme, {lexeme_query("ls.lexeme")} AS query,
           {lexeme_query("ls.lexeme", "ABC")} AS in_fields,
           {bm25.idf_sql("t.chunks", "ls.df")} AS idf,
           CASE WHEN ql.analysis = 'e' THEN t.avgdl ELSE t.stem_avgdl END AS avgdl,
           -- One of the query's rare identifiers (search.key_tokens).
           ls.lexeme = ANY($11::text[]) AND $12::float8 >= 0
               AND ls.df <= greatest(t.chunks * $12::float8, 3)
               AS is_key
    FROM totals t
    CROSS JOIN query_lexemes ql
    CROSS JOIN LATERAL (
        SELECT l.lexeme, l.df FROM page_lexeme_stats l
        WHERE l.org_id = $1 AND l.namespace = $2 AND l.analysis = ql.analysis
          AND l.lexeme = ql.lexeme LIMIT 1
    ) ls
    WHERE {bm25.kept_sql("t.chunks", "ls.df", "$7::float8")}
    ORDER BY idf DESC, ql.analysis, ls.lexeme LIMIT $6
),
matches AS (
    SELECT c.path, c.chunk_ordinal, c.language, tm.is_key,
           tm.idf * ({_SATURATION}{_FIELDS}) AS score
    FROM terms tm
    JOIN LATERAL (
        SELECT c.path, c.chunk_ordinal, c.language, c.lexemes, c.tsv_fields AS fields
        FROM page_chunks c
        WHERE tm.analysis = 'e' AND c.org_id = $1 AND c.namespace = $2 AND c.tsv @@ tm.query
    ) c ON true
    UNION ALL
    SELECT c.path, c.chunk_ordinal, c.language, tm.is_key,
           tm.idf * ({_SATURATION}{_FIELDS}) AS score
    FROM terms tm
    JOIN LATERAL (
        SELECT c.path, c.chunk_ordinal, c.language, c.stem_lexemes AS lexemes,
               c.stem_fields AS fields
        FROM page_chunks c
        WHERE tm.analysis = 's' AND c.org_id = $1 AND c.namespace = $2
          AND c.stem_tsv @@ tm.query
    ) c ON true
)
SELECT path, chunk_ordinal, min(language) AS language, sum(score) AS score,
       count(*) FILTER (WHERE is_key) AS key_tokens
FROM matches
GROUP BY path, chunk_ordinal
ORDER BY score DESC, path, chunk_ordinal LIMIT $13
"""
VECTOR = """
SELECT c.path, c.chunk_ordinal, c.language, 1 - (c.embedding <=> $3) AS score
FROM page_chunks c
WHERE c.org_id = $1 AND c.namespace = $2
ORDER BY c.embedding <=> $3, c.path, c.chunk_ordinal LIMIT $4
"""
# Every chunk of the namespace, compared exactly. Embeddings are unit vectors, so the inner
# product is the cosine similarity, at a third of the arithmetic (2.2 ms against 3.0 for the
# FastAPI site's 3,916 chunks, the same rankings); the HNSW index serves only `<=>`, so the
# result cannot depend on the graph that every namespace shares.
EXACT_VECTOR = """
SELECT c.path, c.chunk_ordinal, c.language, -(c.embedding <#> $3) AS score
FROM page_chunks c
WHERE c.org_id = $1 AND c.namespace = $2
ORDER BY c.embedding <#> $3, c.path, c.chunk_ordinal LIMIT $4
"""
DETAILS = """
SELECT c.path, c.chunk_ordinal, c.chunk_id, c.content, c.heading_path, p.url, p.title, p.revision
FROM unnest($3::text[], $4::int[]) AS k(path, ordinal)
JOIN page_chunks c ON c.org_id = $1 AND c.namespace = $2 AND c.path = k.path
                  AND c.chunk_ordinal = k.ordinal
JOIN pages p ON p.org_id = c.org_id AND p.namespace = c.namespace AND p.path = c.path
"""
VERSION = """
SELECT n.filesystem_version, n.search_config, n.language, n.languages, n.embedding_model,
       coalesce(t.chunks, 0) AS chunks
FROM namespaces n
LEFT JOIN page_term_totals t ON t.org_id = n.org_id AND t.namespace = n.name
WHERE n.org_id = $1 AND n.name = $2
"""


# Tokens a developer types to find one thing: snake_case and dotted names, CamelCase names
# (`UploadFile`, `HTTPException`, `OAuth2PasswordBearer`) and command-line flags
# (`--forwarded-allow-ips`), as the `simple` configuration lexes them.
_CAMEL = re.compile(
    r"(?<![\w-])(?=\w*[a-z]\w*)(?=\w*[A-Z]\w*[A-Z]|[a-z]+[A-Z])[A-Za-z][A-Za-z0-9]+"
)
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")


def key_tokens(query: str) -> list[str]:
    """The query's identifier-shaped tokens, lower case, in order, without repeats."""
    found = [*identifiers(query)]
    found += [m.group(0).lower() for m in _CAMEL.finditer(query)]
    found += [m.group(1) for m in _FLAG.finditer(query)]
    return list(dict.fromkeys(found))


def _arm_settings(depth: int) -> dict[str, str]:
    return {
        # The vector arm returns `depth` candidates only if the scan looks at that many.
        "hnsw.ef_search": str(max(depth, 40)),
        "hnsw.iterative_scan": "relaxed_order",
    }


async def _lexical(
    conn: asyncpg.Connection,
    searched: SearchedNamespace,
    query: str,
    language: QueryLanguage,
    tuning: PageTuning,
) -> list[Candidate]:
    with telemetry.tracer.start_as_current_span("search.fts"):
        rows = await conn.fetch(
            LEXICAL,
            searched.org_id,
            searched.namespace,
            cjk_bigrams(query),
            identifiers(query),
            language.config,
            tuning.max_terms,
            tuning.max_df_ratio,
            tuning.k1,
            tuning.b,
            tuning.field_weight,
            key_tokens(query),
            tuning.key_token_max_df if tuning.key_tokens_first else -1.0,
            tuning.depth,
        )
    return [
        Candidate(
            (r["path"], r["chunk_ordinal"]),
            r["score"],
            r["language"],
            r["key_tokens"],
        )
        for r in rows
    ]


async def _vector(
    conn: asyncpg.Connection,
    searched: SearchedNamespace,
    vector: npt.NDArray[np.float32],
    tuning: PageTuning,
) -> list[Candidate]:
    exact = searched.exact_vectors
    with telemetry.tracer.start_as_current_span("search.vector", attributes={"exact": exact}):
        statement = EXACT_VECTOR if exact else VECTOR
        rows = await conn.fetch(
            statement, searched.org_id, searched.namespace, vector, tuning.depth
        )
    return [Candidate((r["path"], r["chunk_ordinal"]), r["score"], r["language"]) for r in rows]


def fuse_arms(
    lexical: Sequence[Candidate],
    vector: Sequence[Candidate],
    language: str,
    tuning: PageTuning,
) -> list[tuple[Key, float]]:
    """One phrasing's ranking: the arms fused, chunks in another language demoted."""
    understood = language.split("-", 1)[0] in tuning.model_languages
    weights = [
        tuning.fts_weight,
        tuning.vector_weight if understood else tuning.foreign_vector_weight,
    ]
    arms = [[(c.key, c.score) for c in arm] for arm in (lexical, vector)]
    # Full-text scores are 0 for every chunk the arm did not return (see normalise).
    fused = tuning.fuse(arms, weights, sparse=[True, False])
    languages = {c.key: c.language for arm in (lexical, vector) for c in arm}
    if tuning.language_penalty != 1.0:
        fused = [
            (key, score * (1.0 if languages[key] == language else tuning.language_penalty))
            for key, score in fused
        ]
        fused.sort(key=lambda item: -item[1])
    tokens = {c.key: c.key_tokens for c in lexical if c.key_tokens}
    if tokens:
        # Chunks holding more of the query's identifiers first; the fused score within.
        fused.sort(key=lambda item: -tokens.get(item[0], 0))
    return fused


def fuse_phrasings(
    rankings: Sequence[Sequence[tuple[Key, float]]], tuning: PageTuning
) -> list[tuple[Key, float]]:
    """The query's ranking and its alternatives' (each fused already), fused."""
    if len(rankings) == 1:
        return list(rankings[0])
    weights = [1.0] + [tuning.alternative_weight] * (len(rankings) - 1)
    return fuse(
        rankings,
        method=tuning.phrasing_fusion,
        weights=weights,
        rrf_k=tuning.phrasing_k,
        normalisation="minmax",
        what="phrasing fusion",
    )


async def arm_candidates(
    conn: asyncpg.Connection,
    searched: SearchedNamespace,
    query: str,
    vector: npt.NDArray[np.float32],
    tuning: PageTuning,
    which: str,
) -> list[Key]:
    """One arm alone ("fts" or "vector"), for the quality benchmark's per-arm figures."""
    if which == "fts":
        row = await conn.fetchrow(VERSION, searched.org_id, searched.namespace)
        language = QueryLanguage.of(query, present=row["languages"], default=row["language"])
        found = await _lexical(conn, searched, query, language, tuning)
    else:
        found = await _vector(conn, searched, vector, tuning)
    return [c.key for c in found]


async def _arms(
    conn: asyncpg.Connection,
    searched: SearchedNamespace,
    query: str,
    language: QueryLanguage,
    vectors: asyncio.Future[npt.NDArray[np.float32]],
    index: int,
    tuning: PageTuning,
) -> list[tuple[Key, float]]:
    """One phrasing: the full-text arm first (it needs no vector, so it overlaps the query
    embedding), then the vector arm on row `index` of `vectors`, fused."""
    fts = await _lexical(conn, searched, query, language, tuning)
    # Shielded: an alternative that times out must not cancel the embedding others await.
    vector = (await asyncio.shield(vectors))[index]
    vec = await _vector(conn, searched, vector, tuning)
    return fuse_arms(fts, vec, language.language, tuning)


@dataclass
class Rankings:
    """Each phrasing's fused ranking (the query's first), and what went wrong with the
    alternatives."""

    phrasings: list[list[tuple[Key, float]]]
    warnings: list[str]
    partial: bool


async def rank_phrasings(
    pool: asyncpg.Pool,
    conn: asyncpg.Connection,
    settings: Mapping[str, str],
    searched: SearchedNamespace,
    phrasings: Sequence[tuple[str, QueryLanguage]],
    vectors: asyncio.Future[npt.NDArray[np.float32]],
    tuning: PageTuning,
) -> Rankings:
    """Ranks the query (`phrasings[0]`) and its alternatives inside the search transaction
    of `conn` (REPEATABLE READ, `settings` applied). Each alternative runs on a connection of
    its own importing the transaction's snapshot, so every phrasing reads the same data. The
    query's arms run on `conn`, one after the other, except when the vector arm is an exact
    scan: then it runs beside the full-text arm on another snapshot connection (the scan
    costs as much as the full-text arm; an HNSW lookup is cheaper than the extra
    connection's five statements), or after it on `conn` when the pool has no connection to
    spare (storage/snapshots.beside). An alternative that fails or takes more than
    ALTERNATIVE_TIMEOUT_S is left out with a warning; the query's failure is the call's."""
    (query, language), alternatives = phrasings[0], phrasings[1:]
    parallel = searched.exact_vectors
    snapshot = await conn.fetchval(EXPORT) if alternatives or parallel else ""

    async def query_vector(other: asyncpg.Connection) -> list[Candidate]:
        # Shielded: an alternative that times out must not cancel the embedding others await.
        vector = (await asyncio.shield(vectors))[0]
        return await _vector(other, searched, vector, tuning)

    async def alternative(index: int, text: str, lang: QueryLanguage) -> Ranked:
        return await on_snapshot(
            pool,
            snapshot,
            settings,
            lambda other: _arms(other, searched, text, lang, vectors, index, tuning),
        )

    tasks: list[asyncio.Task[Ranked]] = [
        asyncio.create_task(alternative(i, text, lang))
        for i, (text, lang) in enumerate(alternatives, start=1)
    ]
    vector_task = (
        asyncio.create_task(beside(pool, snapshot, settings, query_vector)) if parallel else None
    )
    try:
        fts = await _lexical(conn, searched, query, language, tuning)
        vec: list[Candidate] | None = None
        if vector_task is not None:
            with contextlib.suppress(NoSecondConnection):
                vec = await vector_task
        if vec is None:  # no second connection to spare: the arms in turn
            vec = await query_vector(conn)
        primary = fuse_arms(fts, vec, language.language, tuning)
    except BaseException:
        for task in (vector_task, *tasks):
            if task is not None:
                task.cancel()
        raise
    out = Rankings([primary], [], False)
    if tasks:
        _done, pending = await asyncio.wait(tasks, timeout=ALTERNATIVE_TIMEOUT_S)
        for task in pending:
            task.cancel()
        for i, task in enumerate(tasks):
            if task in pending:
                out.partial = True
                out.warnings.append(f"alternative {i + 1} ran out of time")
                log.warning(
                    "timeout",
                    extra={
                        "cause": "alternative ran out of time",
                        "alternative": i + 1,
                        "limit_s": ALTERNATIVE_TIMEOUT_S,
                    },
                )
            elif task.exception() is not None:
                out.partial = True
                out.warnings.append(f"alternative {i + 1} failed")
                log.warning("alternative failed", exc_info=task.exception())
            else:
                out.phrasings.append(task.result())
    return out


def _cap_per_page(fused: Sequence[tuple[Key, float]], limit: int) -> list[tuple[Key, float]]:
    per_page: dict[str, int] = {}
    out: list[tuple[Key, float]] = []
    for key, score in fused:
        if per_page.get(key[0], 0) >= MAX_HITS_PER_PAGE:
            continue
        per_page[key[0]] = per_page.get(key[0], 0) + 1
        out.append((key, score))
        if len(out) == limit:
            break
    return out


def fit_budget(result: pages_pb2.SearchResult, max_bytes: int) -> pages_pb2.SearchResult:
    """Drops hits from the tail until the canonical JSON of the whole result fits.

    Each hit is converted once, not the whole result once per hit dropped: the JSON of the
    result with `keep` hits is that of the result without hits (`"hits":[]`, `truncated`
    false, `omitted_count` 0), plus the hits' own JSON and the commas between them, `true`
    one byte shorter than `false`, and the count's digits beyond the one of `0`."""
    hits = list(result.hits)
    total = len(hits)
    del result.hits[:]
    result.truncated = False
    result.omitted_count = 0
    frame = canonical_json.size(result)
    sizes = [canonical_json.size(hit) for hit in hits]

    def size(keep: int) -> int:
        dropped = total - keep
        hits_json = sum(sizes[:keep]) + max(keep - 1, 0)
        return frame + hits_json + (len(str(dropped)) - 1) - (1 if dropped else 0)

    keep = total
    while keep > 0 and size(keep) > max_bytes:
        keep -= 1
    result.hits.extend(hits[:keep])
    result.truncated = keep < total
    result.omitted_count = total - keep
    return result


@functools.lru_cache(maxsize=1024)  # once per namespace and field, not on every search
def _log_ignored(org_id: uuid.UUID, namespace: str, field: str, reason: str) -> None:
    log.warning(
        "stored search config field ignored",
        extra={"org_id": str(org_id), "namespace": namespace, "field": field, "reason": reason},
    )


async def search_pages(
    pool: asyncpg.Pool,
    *,
    org_id: uuid.UUID,
    namespace: str,
    query: str,
    alternatives: Sequence[str],
    vectors: asyncio.Future[npt.NDArray[np.float32]],
    limit: int,
    max_output_bytes: int,
    override: search_config_pb2.PageSearchConfig | None = None,
    tuning: PageTuning = PageTuning(),
    embedding_model: str | None = None,
) -> pages_pb2.SearchResult | None:
    """None when the namespace does not exist. `vectors`: the embeddings of the query and the
    alternatives, in that order, possibly still being computed (`start_queries`): the
    transaction, the settings and the full-text arms run meanwhile; the caller `discard`s it
    afterwards. Planner settings: the deployment default, the namespace's stored
    PageSearchConfig, then `override`, read in the search transaction and checked against
    PostgreSQL's own limits: a bad override is INVALID_REQUEST, a stored field that would
    fail is left out and logged (search_config.layered_settings). `embedding_model`: the
    model `vectors` come from; OtherModel when the namespace's is another (namespace_models)."""
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        row = await conn.fetchrow(VERSION, org_id, namespace)
        # Before the namespace's existence, as SetNamespaceSearchConfig checks.
        settings, ignored = search_config.layered_settings(
            row and row["search_config"], override, await search_config.server_limits(conn)
        )
        if row is None:
            return None
        if embedding_model is not None and row["embedding_model"] != embedding_model:
            raise OtherModel(row["embedding_model"])
        for each in ignored:
            _log_ignored(org_id, namespace, each.field, each.reason)
        version = row["filesystem_version"]
        local = {**settings, **_arm_settings(tuning.depth)}
        left = remaining_ms()
        if left is not None:
            local["statement_timeout"] = str(left)
        await apply_settings(conn, local)
        languages = [
            QueryLanguage.of(text, present=row["languages"], default=row["language"])
            for text in (query, *alternatives)
        ]
        searched = SearchedNamespace(
            org_id, namespace, row["chunks"] <= tuning.exact_vector_max_chunks
        )
        ranked = await rank_phrasings(
            pool,
            conn,
            local,
            searched,
            list(zip((query, *alternatives), languages, strict=True)),
            vectors,
            tuning,
        )
        warnings, partial = ranked.warnings, ranked.partial
        with telemetry.tracer.start_as_current_span("search.fusion"):
            fused = fuse_phrasings(ranked.phrasings, tuning)
            chosen = _cap_per_page(fused, limit)
        rows = await conn.fetch(
            DETAILS,
            org_id,
            namespace,
            [k[0] for k, _ in chosen],
            [k[1] for k, _ in chosen],
        )
    by_key = {(r["path"], r["chunk_ordinal"]): r for r in rows}
    hits = []
    for rank, (key, score) in enumerate(chosen, start=1):
        row = by_key.get(key)
        if row is None:
            continue
        hits.append(
            pages_pb2.SearchHit(
                schema_version=SCHEMA_VERSION,
                path=row["path"],
                url=row["url"],
                title=row["title"],
                revision=row["revision"],
                chunk_id=row["chunk_id"],
                content=row["content"],
                score=score,
                rank=rank,
                heading_path=row["heading_path"],
            )
        )
    result = pages_pb2.SearchResult(
        schema_version=SCHEMA_VERSION,
        namespace=namespace,
        query=query,
        hits=hits,
        partial=partial,
        warnings=warnings,
        filesystem_version=version,
    )
    telemetry.search_hits.record(len(hits), {"kind": "pages"})
    return fit_budget(result, max_output_bytes)

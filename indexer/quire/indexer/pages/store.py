"""SQL for published pages: namespaces, page rows, chunks. Callers own the transaction."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg
import numpy as np
import numpy.typing as npt

from quire.indexer.lexical_text import cjk_bigrams, identifiers, lexeme_literal
from quire.indexer.pages.language import text_search_config

GET_NAMESPACE = """
SELECT name, filesystem_version, source_url, public_url, transform, index_version,
       search_config, last_report, updated_at, language, languages, embedding_model
FROM namespaces WHERE org_id = $1 AND name = $2
"""
# The model changes only when the sync checked it may (a reindex, PageSync._check_model).
ENSURE_NAMESPACE = """
INSERT INTO namespaces (org_id, name, source_url, public_url, transform, index_version, language,
                        embedding_model)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (org_id, name) DO UPDATE SET source_url = EXCLUDED.source_url,
    public_url = EXCLUDED.public_url, transform = EXCLUDED.transform,
    index_version = EXCLUDED.index_version, language = EXCLUDED.language,
    embedding_model = EXCLUDED.embedding_model, updated_at = now()
"""
# A reindex onto another model: every chunk goes (vectors of two models are never searched
# together); the pages stay readable and are searchable again as the sync republishes them.
DROP_CHUNKS = "DELETE FROM page_chunks WHERE org_id = $1 AND namespace = $2"
# The languages the namespace's pages are in, for choosing a query's language.
REFRESH_LANGUAGES = """
UPDATE namespaces n SET languages = coalesce(
    (SELECT array_agg(DISTINCT p.language ORDER BY p.language) FROM pages p
     WHERE p.org_id = n.org_id AND p.namespace = n.name), '{}')
WHERE n.org_id = $1 AND n.name = $2
"""
BUMP_VERSION = """
UPDATE namespaces SET filesystem_version = filesystem_version + 1, updated_at = now()
WHERE org_id = $1 AND name = $2 RETURNING filesystem_version
"""
PAGE_STATES = """
SELECT p.path, p.digest, p.index_fingerprint, p.title, p.url, p.revision,
       p.expected_chunk_count,
       (SELECT count(*) FROM page_chunks c WHERE c.org_id = p.org_id
          AND c.namespace = p.namespace AND c.path = p.path AND c.revision = p.revision)
         AS chunk_count
FROM pages p WHERE p.org_id = $1 AND p.namespace = $2
"""
UPSERT_PAGE = """
INSERT INTO pages (org_id, namespace, path, content_id, url, title, body, total_chars, digest,
                   index_fingerprint, revision, filesystem_version, expected_chunk_count,
                   language, description, keywords)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
ON CONFLICT (org_id, namespace, path) DO UPDATE SET content_id = EXCLUDED.content_id,
    url = EXCLUDED.url, title = EXCLUDED.title, body = EXCLUDED.body,
    total_chars = EXCLUDED.total_chars, digest = EXCLUDED.digest,
    index_fingerprint = EXCLUDED.index_fingerprint, revision = EXCLUDED.revision,
    filesystem_version = EXCLUDED.filesystem_version,
    expected_chunk_count = EXCLUDED.expected_chunk_count, language = EXCLUDED.language,
    description = EXCLUDED.description, keywords = EXCLUDED.keywords, published_at = now()
"""
DELETE_CHUNKS = "DELETE FROM page_chunks WHERE org_id = $1 AND namespace = $2 AND path = $3"
# $8-$11: title, headings, summary and text prepared for the parser (ChunkLexicalText);
# $12: the identifiers as a tsvector literal; $13: the stemming configuration's name (one
# this server lacks stems nothing rather than failing).
INSERT_CHUNK = """
INSERT INTO page_chunks (org_id, namespace, path, chunk_ordinal, revision, chunk_id, content,
                         heading_path, tsv, stem_tsv, language, embedding)
VALUES ($1, $2, $3, $4::int, $5::text, $5::text || ':' || $4::int, $6::text, $7::text[],
        quire_page_tsv('simple', $8, $9, $10, $11) || $12::tsvector,
        quire_page_tsv(quire_text_config($13), $8, $9, $10, $11),
        $14, $15)
"""
UPDATE_METADATA = """
UPDATE pages SET title = $4, url = $5, filesystem_version = $6, published_at = now()
WHERE org_id = $1 AND namespace = $2 AND path = $3
"""
CHUNK_TEXTS = """
SELECT c.chunk_ordinal, c.content, c.heading_path, p.description, p.keywords, p.language
FROM page_chunks c JOIN pages p USING (org_id, namespace, path)
WHERE c.org_id = $1 AND c.namespace = $2 AND c.path = $3
"""
# The title is in every chunk's tsvectors: a new title re-weighs them (vectors stay).
UPDATE_CHUNK_LEXEMES = """
UPDATE page_chunks c SET
    tsv = quire_page_tsv('simple', t.title, t.headings, t.summary, t.body) || t.extra::tsvector,
    stem_tsv = quire_page_tsv(quire_text_config(t.config), t.title, t.headings,
                              t.summary, t.body)
FROM unnest($4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
     AS t(ordinal, title, headings, summary, body, extra, config)
WHERE c.org_id = $1 AND c.namespace = $2 AND c.path = $3 AND c.chunk_ordinal = t.ordinal
"""
DELETE_PAGES = "DELETE FROM pages WHERE org_id = $1 AND namespace = $2 AND path = ANY($3)"
STORE_REPORT = """
UPDATE namespaces SET last_report = $3, updated_at = now() WHERE org_id = $1 AND name = $2
"""


@dataclass(frozen=True)
class PageState:
    path: str
    digest: str
    index_fingerprint: str
    title: str
    url: str
    revision: str
    expected_chunk_count: int
    chunk_count: int

    @property
    def vectors_valid(self) -> bool:
        return self.chunk_count == self.expected_chunk_count


@dataclass(frozen=True)
class NewPage:
    path: str
    url: str
    title: str
    body: str
    digest: str
    index_fingerprint: str
    revision: str
    language: str = "en"
    # From the page's front matter: its one-line summary and keywords (searchable, weight C).
    description: str = ""
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class NewChunk:
    content: str
    heading_path: tuple[str, ...]


@dataclass(frozen=True)
class ChunkLexicalText:
    """A chunk's fields as the text parser gets them (CJK runs as bigrams), the identifiers
    the parser would split (`quire.indexer.lexical_text`), and the stemming configuration."""

    title: str
    headings: str
    summary: str
    body: str
    identifiers: str  # a tsvector literal
    config: str

    @classmethod
    def of(
        cls, *, title: str, headings: Sequence[str], summary: str, body: str, language: str
    ) -> ChunkLexicalText:
        heading_text = " ".join(headings)
        extra = " ".join(
            literal
            for text, weight in ((title, "A"), (heading_text, "B"), (summary, "C"), (body, "D"))
            if (literal := lexeme_literal(identifiers(text), weight))
        )
        return cls(
            title=cjk_bigrams(title),
            headings=cjk_bigrams(heading_text),
            summary=cjk_bigrams(summary),
            body=cjk_bigrams(body),
            identifiers=extra,
            config=text_search_config(language),
        )


def summary_text(description: str, keywords: Sequence[str]) -> str:
    return " ".join([description, *keywords]).strip()


async def get_namespace(
    conn: asyncpg.Connection, org_id: uuid.UUID, name: str
) -> asyncpg.Record | None:
    row: asyncpg.Record | None = await conn.fetchrow(GET_NAMESPACE, org_id, name)
    return row


async def ensure_namespace(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    name: str,
    *,
    source_url: str,
    public_url: str,
    transform: str,
    index_version: str,
    language: str,
    embedding_model: str,
) -> None:
    await conn.execute(
        ENSURE_NAMESPACE,
        org_id,
        name,
        source_url,
        public_url,
        transform,
        index_version,
        language,
        embedding_model,
    )


async def drop_chunks(conn: asyncpg.Connection, org_id: uuid.UUID, namespace: str) -> int:
    """Removes every chunk of the namespace (its model changes) and bumps its version; the
    caller's transaction also sets the new model."""
    version = await bump_version(conn, org_id, namespace)
    await conn.execute(DROP_CHUNKS, org_id, namespace)
    return version


async def refresh_languages(conn: asyncpg.Connection, org_id: uuid.UUID, namespace: str) -> None:
    await conn.execute(REFRESH_LANGUAGES, org_id, namespace)


async def page_states(
    conn: asyncpg.Connection, org_id: uuid.UUID, namespace: str
) -> dict[str, PageState]:
    rows = await conn.fetch(PAGE_STATES, org_id, namespace)
    return {r["path"]: PageState(**dict(r)) for r in rows}


async def bump_version(conn: asyncpg.Connection, org_id: uuid.UUID, namespace: str) -> int:
    version: int = await conn.fetchval(BUMP_VERSION, org_id, namespace)
    return version


async def publish_page(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    namespace: str,
    page: NewPage,
    chunks: Sequence[NewChunk],
    vectors: npt.NDArray[np.float32],
) -> int:
    """Text, chunks, vectors, catalogue row and namespace version: one transaction."""
    summary = summary_text(page.description, page.keywords)
    lexical = [
        ChunkLexicalText.of(
            title=page.title,
            headings=chunk.heading_path,
            summary=summary,
            body=chunk.content,
            language=page.language,
        )
        for chunk in chunks
    ]
    async with conn.transaction():
        version = await bump_version(conn, org_id, namespace)
        await conn.execute(
            UPSERT_PAGE,
            org_id,
            namespace,
            page.path,
            uuid.uuid4(),
            page.url,
            page.title,
            page.body,
            len(page.body),
            page.digest,
            page.index_fingerprint,
            page.revision,
            version,
            len(chunks),
            page.language,
            page.description,
            list(page.keywords),
        )
        await conn.execute(DELETE_CHUNKS, org_id, namespace, page.path)
        await conn.executemany(
            INSERT_CHUNK,
            [
                (
                    org_id,
                    namespace,
                    page.path,
                    ordinal,
                    page.revision,
                    chunk.content,
                    list(chunk.heading_path),
                    lex.title,
                    lex.headings,
                    lex.summary,
                    lex.body,
                    lex.identifiers,
                    lex.config,
                    page.language,
                    vectors[ordinal],
                )
                for ordinal, (chunk, lex) in enumerate(zip(chunks, lexical, strict=True))
            ],
        )
    return version


async def publish_metadata(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    namespace: str,
    path: str,
    *,
    title: str,
    url: str,
) -> int:
    """A title/URL-only change: no re-embedding, but a new filesystem version."""
    async with conn.transaction():
        version = await bump_version(conn, org_id, namespace)
        await conn.execute(UPDATE_METADATA, org_id, namespace, path, title, url, version)
        rows = await conn.fetch(CHUNK_TEXTS, org_id, namespace, path)
        lexical = [
            ChunkLexicalText.of(
                title=title,
                headings=r["heading_path"],
                summary=summary_text(r["description"], r["keywords"]),
                body=r["content"],
                language=r["language"],
            )
            for r in rows
        ]
        await conn.execute(
            UPDATE_CHUNK_LEXEMES,
            org_id,
            namespace,
            path,
            [r["chunk_ordinal"] for r in rows],
            [x.title for x in lexical],
            [x.headings for x in lexical],
            [x.summary for x in lexical],
            [x.body for x in lexical],
            [x.identifiers for x in lexical],
            [x.config for x in lexical],
        )
    return version


async def delete_pages(
    conn: asyncpg.Connection, org_id: uuid.UUID, namespace: str, paths: Sequence[str]
) -> int:
    async with conn.transaction():
        version = await bump_version(conn, org_id, namespace)
        await conn.execute(DELETE_PAGES, org_id, namespace, list(paths))
    return version


async def store_report(
    conn: asyncpg.Connection, org_id: uuid.UUID, namespace: str, report: bytes
) -> None:
    await conn.execute(STORE_REPORT, org_id, namespace, report)

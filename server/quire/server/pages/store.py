"""SQL for published pages: namespaces, page rows, chunks. Callers own the transaction."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg
import numpy as np
import numpy.typing as npt

GET_NAMESPACE = """
SELECT name, filesystem_version, source_url, public_url, transform, index_version,
       search_config, last_report, updated_at
FROM namespaces WHERE org_id = $1 AND name = $2
"""
ENSURE_NAMESPACE = """
INSERT INTO namespaces (org_id, name, source_url, public_url, transform, index_version)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (org_id, name) DO UPDATE SET source_url = EXCLUDED.source_url,
    public_url = EXCLUDED.public_url, transform = EXCLUDED.transform,
    index_version = EXCLUDED.index_version, updated_at = now()
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
                   index_fingerprint, revision, filesystem_version, expected_chunk_count)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (org_id, namespace, path) DO UPDATE SET content_id = EXCLUDED.content_id,
    url = EXCLUDED.url, title = EXCLUDED.title, body = EXCLUDED.body,
    total_chars = EXCLUDED.total_chars, digest = EXCLUDED.digest,
    index_fingerprint = EXCLUDED.index_fingerprint, revision = EXCLUDED.revision,
    filesystem_version = EXCLUDED.filesystem_version,
    expected_chunk_count = EXCLUDED.expected_chunk_count, published_at = now()
"""
DELETE_CHUNKS = "DELETE FROM page_chunks WHERE org_id = $1 AND namespace = $2 AND path = $3"
INSERT_CHUNK = """
INSERT INTO page_chunks (org_id, namespace, path, chunk_ordinal, revision, chunk_id, content,
                         heading_path, tsv, embedding)
VALUES ($1, $2, $3, $4::int, $5::text, $5::text || ':' || $4::int, $6::text, $7::text[],
        setweight(to_tsvector('simple', $8::text || ' ' || array_to_string($7::text[], ' ')), 'A')
          || setweight(to_tsvector('simple', $6::text), 'D'),
        $9)
"""
UPDATE_METADATA = """
UPDATE pages SET title = $4, url = $5, filesystem_version = $6, published_at = now()
WHERE org_id = $1 AND namespace = $2 AND path = $3
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


@dataclass(frozen=True)
class NewChunk:
    content: str
    heading_path: tuple[str, ...]


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
) -> None:
    await conn.execute(
        ENSURE_NAMESPACE, org_id, name, source_url, public_url, transform, index_version
    )


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
                    page.title,
                    vectors[ordinal],
                )
                for ordinal, chunk in enumerate(chunks)
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

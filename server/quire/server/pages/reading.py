"""ReadPage and ListPages: code-point slices within a JSON budget, revision-bound cursors."""

from __future__ import annotations

import functools
import json
import uuid
from dataclasses import dataclass
from typing import ClassVar

import asyncpg

from quire.server import canonical_json
from quire.server.contract import SCHEMA_VERSION
from quire.server.cursors import CursorCodec, refusal
from quire.server.failures import QuireError, invalid
from quire.server.storage.timestamps import timestamp
from quire.v1 import errors_pb2, pages_pb2

READ_RESULT_MAX_BYTES = 24_000

PAGE_COLUMNS = """
p.content_id, p.namespace, p.path, p.url, p.title, p.revision, p.digest, p.index_fingerprint,
p.filesystem_version, p.expected_chunk_count, p.total_chars, p.published_at, p.language,
p.description
"""
READ = f"""
SELECT {PAGE_COLUMNS}, substr(p.body, $4::int + 1, $5::int) AS slice
FROM pages p WHERE p.org_id = $1 AND p.namespace = $2 AND p.path = $3
"""
NAMESPACE_VERSION = "SELECT filesystem_version FROM namespaces WHERE org_id = $1 AND name = $2"
LIST = f"""
SELECT {PAGE_COLUMNS} FROM pages p
WHERE p.org_id = $1 AND p.namespace = $2 AND starts_with(p.path, $3) AND p.path > $4
ORDER BY p.path LIMIT $5
"""

NAMESPACE_NOT_FOUND = QuireError(errors_pb2.ERROR_CODE_NOT_FOUND, "Namespace not found")


def page_message(row: asyncpg.Record) -> pages_pb2.Page:
    return pages_pb2.Page(
        schema_version=SCHEMA_VERSION,
        content_id=str(row["content_id"]),
        namespace=row["namespace"],
        path=row["path"],
        url=row["url"],
        title=row["title"],
        revision=row["revision"],
        digest=row["digest"],
        index_fingerprint=row["index_fingerprint"],
        filesystem_version=row["filesystem_version"],
        expected_chunk_count=row["expected_chunk_count"],
        total_chars=row["total_chars"],
        published_at=timestamp(row["published_at"]),
        language=row["language"],
        description=row["description"],
    )


def _json_cost(ch: str) -> int:
    if " " <= ch <= "~" and ch not in '"\\':
        return 1
    return len(json.dumps(ch, ensure_ascii=False).encode()) - 2


@functools.lru_cache(maxsize=1024)
def _frame_size(frame: bytes) -> int:
    """The canonical JSON size of a serialized PageRead holding only its schema version and
    page: the same for every slice of one page revision, so each is converted once."""
    return canonical_json.size(pages_pb2.PageRead.FromString(frame))


def json_size(read: pages_pb2.PageRead) -> int:
    """`canonical_json.size(read)`, exactly, without converting the whole message per call:
    the frame (schema version and page) is sized once per page revision, and the rest is
    added by hand. Every field is printed (zeros too), so against the frame the content
    replaces `""`, each number `"0"` (uint64: a JSON string) and `truncated` `false`."""
    frame = pages_pb2.PageRead(schema_version=read.schema_version, page=read.page)
    size = _frame_size(frame.SerializeToString(deterministic=True))
    size += len(json.encoder.encode_basestring(read.content).encode()) - 2
    for number in (read.offset, read.next_offset, read.total_chars):
        size += len(str(number)) - 1
    return size - 1 if read.truncated else size


def fit_text(read: pages_pb2.PageRead, max_bytes: int) -> None:
    """Shortens `content` (never below one code point of progress) so the JSON fits."""
    if json_size(read) <= max_bytes:
        return
    content = read.content
    read.content = ""
    room = max_bytes - json_size(read)
    used = 0
    cut = 0
    for ch in content:
        cost = _json_cost(ch)
        if used + cost > room:
            break
        used += cost
        cut += 1
    read.content = content[: max(cut, 1)]


async def read_page(
    conn: asyncpg.Connection,
    org_id: uuid.UUID,
    namespace: str,
    path: str,
    *,
    revision: str,
    offset: int,
    max_chars: int,
) -> pages_pb2.PageRead:
    # `$4::int + 1` in SQL: clamp so the largest accepted offset (2**31 - 1) cannot overflow.
    row = await conn.fetchrow(READ, org_id, namespace, path, min(offset, 2**31 - 2), max_chars)
    if row is None:
        if await conn.fetchval(NAMESPACE_VERSION, org_id, namespace) is None:
            raise NAMESPACE_NOT_FOUND
        raise QuireError(errors_pb2.ERROR_CODE_PAGE_NOT_FOUND, f"No page at {path}")
    if revision and revision != row["revision"]:
        raise QuireError(
            errors_pb2.ERROR_CODE_PAGE_CHANGED,
            "The page changed since that revision",
            current_revision=row["revision"],
        )
    total = row["total_chars"]
    start = min(offset, total)
    # Fit with the longest encodings of the fields set afterwards (the largest next_offset,
    # "false" rather than "true"), so the final JSON can only be smaller.
    read = pages_pb2.PageRead(
        schema_version=SCHEMA_VERSION,
        page=page_message(row),
        content=row["slice"],
        offset=start,
        total_chars=total,
        next_offset=start + len(row["slice"]),
        truncated=False,
    )
    fit_text(read, READ_RESULT_MAX_BYTES)
    read.next_offset = start + len(read.content)
    read.truncated = read.next_offset < total
    return read


@dataclass(frozen=True)
class Cursor:
    """Where a ListPages page ended, sealed by the shared cursor codec (quire.server.cursors)
    and bound to the organisation and namespace; the prefix and namespace version ride inside."""

    version: int
    after: str
    prefix: str

    SHAPE: ClassVar[dict[str, type]] = {"v": int, "a": str, "p": str}

    @staticmethod
    def listing(org_id: uuid.UUID, namespace: str) -> tuple[str, ...]:
        return ("ListPages", str(org_id), namespace)

    def encode(self, codec: CursorCodec, listing: tuple[str, ...]) -> str:
        return codec.seal(listing, {"v": self.version, "a": self.after, "p": self.prefix})

    @classmethod
    def decode(cls, codec: CursorCodec, token: str, listing: tuple[str, ...]) -> Cursor:
        body = codec.open(token, listing, cls.SHAPE)
        if "\x00" in body["a"]:  # we never issue one; PostgreSQL text cannot hold it
            raise refusal(listing)
        return cls(body["v"], body["a"], body["p"])


async def list_pages(
    conn: asyncpg.Connection,
    codec: CursorCodec,
    org_id: uuid.UUID,
    namespace: str,
    *,
    prefix: str,
    cursor: str,
    limit: int,
) -> pages_pb2.PageList:
    listing = Cursor.listing(org_id, namespace)
    # Opened before any query: a cursor not issued for this listing never reaches SQL.
    decoded = Cursor.decode(codec, cursor, listing) if cursor else None
    if decoded is not None and decoded.prefix != prefix:
        raise invalid("cursor", "was issued for another prefix")
    version = await conn.fetchval(NAMESPACE_VERSION, org_id, namespace)
    if version is None:
        raise NAMESPACE_NOT_FOUND
    after = ""
    if decoded is not None:
        if decoded.version != version:
            return pages_pb2.PageList(
                schema_version=SCHEMA_VERSION, restart_required=True, filesystem_version=version
            )
        after = decoded.after
    rows = await conn.fetch(LIST, org_id, namespace, prefix, after, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    result = pages_pb2.PageList(
        schema_version=SCHEMA_VERSION,
        pages=[page_message(r) for r in rows],
        filesystem_version=version,
    )
    if more:
        result.next_cursor = Cursor(version, rows[-1]["path"], prefix).encode(codec, listing)
    return result

"""The content-addressed vector store: a text's vector, looked up before it is embedded.

A vector is a function of (model, exact embedding text) alone (quire.indexer.embedding), so the
vector of a text embedded once can be reused: page re-syncs, re-uploads of the same file into
another collection, index rebuilds and gate runs embed only what their organisation has not
embedded before. Rows live in PostgreSQL (`vector_store`, migration 0014), so they survive
restarts and are shared by every worker of the deployment.

- **Per organisation.** Keyed by (organisation, model, sha256 of the text), never shared: a
  hit is faster than an embedding, which would tell one tenant that another holds a text.
  An organisation with `vectors_filed_under` set (migration 0017) files its rows under that
  one instead: the gate indexes public data sets into a new scratch organisation each run and
  keeps their vectors under the organisation that runs it, so its next run embeds nothing.
- **Never mixes models.** `model` is the sha256 of the embedder's fingerprint (model files,
  tokenizer, pooling, precision); a row of another model is never read.
- **Bounded.** At most `max_rows` rows per organisation (DEFAULT_MAX_ROWS, about 0.6 KiB each
  at 384 dimensions plus keys); past it the least recently used rows are deleted, checked every
  tenth of the bound of new rows, so a full store evicts and never refuses. Hits refresh
  `used_at` at most hourly, so reading stays read-only in the common case.
- **Atomic rows.** Each row is written whole with its vector (`ON CONFLICT DO NOTHING`), so a
  worker killed mid-batch leaves no half-written vector, only fewer rows.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Sequence

import asyncpg
import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

Vectors = npt.NDArray[np.float32]
DEFAULT_MAX_ROWS = 250_000

LOOKUP = """
SELECT text_sha256, embedding FROM vector_store
WHERE org_id = $1 AND model = $2 AND text_sha256 = ANY($3::bytea[])
"""
TOUCH = """
UPDATE vector_store SET used_at = now()
WHERE org_id = $1 AND model = $2 AND text_sha256 = ANY($3::bytea[])
  AND used_at < now() - interval '1 hour'
"""
# One row per execution (executemany pipelines them): pgvector's codec takes no vector[].
REMEMBER = """
INSERT INTO vector_store (org_id, model, text_sha256, embedding) VALUES ($1, $2, $3, $4)
ON CONFLICT DO NOTHING
"""
FILED_UNDER = """
SELECT coalesce(vectors_filed_under, org_id) FROM organisations WHERE org_id = $1
"""
# Organisations whose filing is remembered (it never changes): past this, forgotten at once.
FILING_CACHE = 10_000
# Keeps the organisation's `$2` most recently used rows (any model).
EVICT = """
DELETE FROM vector_store v
USING (SELECT model, text_sha256 FROM vector_store WHERE org_id = $1
       ORDER BY used_at DESC OFFSET $2) AS old
WHERE v.org_id = $1 AND v.model = old.model AND v.text_sha256 = old.text_sha256
"""


def text_key(text: str) -> bytes:
    """sha256 of the exact text (lone surrogates kept as they are)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def model_key(fingerprint: str) -> bytes:
    return hashlib.sha256(fingerprint.encode()).digest()


class VectorStore:
    def __init__(self, pool: asyncpg.Pool, max_rows: int = DEFAULT_MAX_ROWS) -> None:
        if max_rows < 1:
            raise ValueError("max_rows must be at least 1")
        self._pool = pool
        self.max_rows = max_rows
        self._filing: dict[uuid.UUID, uuid.UUID] = {}
        # New rows per organisation since its last eviction check (None: never checked).
        self._added: dict[uuid.UUID, int] = {}

    async def lookup(
        self, org_id: uuid.UUID, fingerprint: str, texts: Sequence[str]
    ) -> dict[int, Vectors]:
        """The stored vectors of `texts`, by index into `texts`."""
        keys = [text_key(t) for t in texts]
        model = model_key(fingerprint)
        async with self._pool.acquire() as conn:
            org_id = await self._filed_under(conn, org_id)
            rows = await conn.fetch(LOOKUP, org_id, model, list(set(keys)))
            if rows:
                await conn.execute(TOUCH, org_id, model, [bytes(r["text_sha256"]) for r in rows])
        found = {bytes(r["text_sha256"]): r["embedding"].to_numpy() for r in rows}
        return {i: found[k] for i, k in enumerate(keys) if k in found}

    async def remember(
        self, org_id: uuid.UUID, fingerprint: str, texts: Sequence[str], vectors: Vectors
    ) -> None:
        """Stores the vectors of `texts` (rows already there are kept), then evicts when the
        organisation may be past its bound."""
        if not texts:
            return
        unique: dict[bytes, Vectors] = {}
        for text, vector in zip(texts, vectors, strict=True):
            unique.setdefault(text_key(text), vector)
        async with self._pool.acquire() as conn:
            org_id = await self._filed_under(conn, org_id)
            model = model_key(fingerprint)
            await conn.executemany(
                REMEMBER, [(org_id, model, key, vector) for key, vector in unique.items()]
            )
            added = self._added.get(org_id)
            added = len(unique) if added is None else added + len(unique)
            if added >= max(1, self.max_rows // 10) or org_id not in self._added:
                status = await conn.execute(EVICT, org_id, self.max_rows)
                evicted = int(status.split()[-1])
                if evicted:
                    log.info(
                        "vector store evicted rows", extra={"org_id": str(org_id), "rows": evicted}
                    )
                added = 0
            self._added[org_id] = added

    async def _filed_under(self, conn: asyncpg.Connection, org_id: uuid.UUID) -> uuid.UUID:
        """The organisation `org_id`'s rows are filed under (itself, unless set otherwise)."""
        filed = self._filing.get(org_id)
        if filed is None:
            filed = await conn.fetchval(FILED_UNDER, org_id) or org_id
            if len(self._filing) >= FILING_CACHE:
                self._filing.clear()
            self._filing[org_id] = filed
        return filed

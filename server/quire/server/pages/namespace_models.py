"""Which embedding model a namespace's vectors come from, so its queries are embedded with it.

A search starts embedding its query before its transaction reads the namespace (the two
overlap, services/pages.py), so the model is known beforehand: remembered per namespace after
one lookup. A namespace changes model only by a reindex (PageSync._check_model); the search
checks the model in its own snapshot (search.search_pages raises OtherModel), so a stale entry
costs one more embedding, never a query compared with another model's vectors.
"""

from __future__ import annotations

import uuid

import asyncpg

from quire.server.storage.database import remaining_ms

MODEL = "SELECT embedding_model FROM namespaces WHERE org_id = $1 AND name = $2"
# Namespaces remembered; past it the memory starts over (one lookup per namespace again).
MAX_REMEMBERED = 10_000


class OtherModel(Exception):
    """The namespace's vectors are of `model`, not of the model the query was embedded with."""

    def __init__(self, model: str) -> None:
        super().__init__(model)
        self.model = model


class NamespaceModels:
    def __init__(self) -> None:
        self._known: dict[tuple[uuid.UUID, str], str] = {}

    async def get(self, pool: asyncpg.Pool, org_id: uuid.UUID, namespace: str) -> str | None:
        """The namespace's model; None when the namespace does not exist."""
        known = self._known.get((org_id, namespace))
        if known is not None:
            return known
        return await self.read(pool, org_id, namespace)

    async def read(self, pool: asyncpg.Pool, org_id: uuid.UUID, namespace: str) -> str | None:
        """The namespace's model as stored now (remembered for `get`)."""
        remaining_ms()  # DEADLINE_EXCEEDED before the pool, as `transaction` does
        model: str | None = await pool.fetchval(MODEL, org_id, namespace)
        if model is not None:
            self.learn(org_id, namespace, model)
        return model

    def learn(self, org_id: uuid.UUID, namespace: str, model: str) -> None:
        if len(self._known) >= MAX_REMEMBERED:
            self._known.clear()
        self._known[(org_id, namespace)] = model

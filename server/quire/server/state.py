"""What every service shares for the life of the process."""

from __future__ import annotations

from dataclasses import dataclass, field

import asyncpg

from quire.server import models
from quire.server.auth import KeyVerifier
from quire.server.config import Settings
from quire.server.cursors import CursorCodec
from quire.server.embeddings import EmbeddingService
from quire.server.failures import QuireError
from quire.server.health import DatabaseHealth
from quire.server.knowledge.search_limits import SearchLimits
from quire.server.storage.notifications import Notifications
from quire.server.storage.replicas import ReplicaSet
from quire.v1 import errors_pb2


@dataclass
class AppState:
    settings: Settings
    pool: asyncpg.Pool
    verifier: KeyVerifier
    # Seals and opens list cursors under the database's secret (loaded at start).
    cursors: CursorCodec
    # Connections that keep one PostgreSQL session (the page sync's advisory lock): `pool`
    # itself, unless `pool` goes through a transaction pooler (then direct connections).
    session_pool: asyncpg.Pool
    # Loaded at start when the model is prepared; None means searches that need vectors fail
    # with SEARCH_UNAVAILABLE naming `quire model prepare`.
    embeddings: EmbeddingService | None = None
    # Whether the database answers (None in tests that build a state without a server).
    database: DatabaseHealth | None = None
    # The database's LISTEN channels, shared by the watch streams (None in tests that build a
    # state without a server).
    notifications: Notifications | None = None
    # The read replicas (QUIRE_DATABASE_REPLICA_URLS); None: every read goes to `pool`.
    replicas: ReplicaSet | None = None
    # Each organisation's search bound, for DescribeTools (a few seconds; SetRetrievalPolicy
    # forgets its organisation's entry).
    search_limits: SearchLimits = field(default_factory=SearchLimits)
    # The models loaded beside the default (`--models`), by name: collections created with
    # one of them embed and search with it.
    extra_models: dict[str, EmbeddingService] = field(default_factory=dict)

    async def read_pool(self) -> asyncpg.Pool:
        """Where a read-only transaction of the current call goes: a healthy replica for the
        read-only RPCs (storage/replicas.py), `pool` for everything else."""
        if self.replicas is None:
            return self.pool
        return await self.replicas.read_pool()

    def require_notifications(self) -> Notifications:
        if self.notifications is None:
            raise RuntimeError("AppState has no Notifications: only a started server has one")
        return self.notifications

    def require_embeddings(self) -> EmbeddingService:
        """The loaded model, or SEARCH_UNAVAILABLE saying how to get one."""
        if self.embeddings is None:
            raise QuireError(
                errors_pb2.ERROR_CODE_SEARCH_UNAVAILABLE,
                "The embedding model is not loaded; run `quire model prepare` and restart",
            )
        return self.embeddings

    @property
    def models(self) -> dict[str, EmbeddingService | None]:
        """Every model of this server by name, the default first (None when it is not loaded)."""
        return {models.DEFAULT_MODEL: self.embeddings, **self.extra_models}

    def embeddings_for(self, name: str) -> EmbeddingService:
        """The loaded model `name`, or SEARCH_UNAVAILABLE naming the command that prepares it."""
        if name == models.DEFAULT_MODEL:
            return self.require_embeddings()
        found = self.extra_models.get(name)
        if found is None:
            raise models.unavailable(name)
        return found

"""API keys: random, shown once, stored as sha256, scoped to one organisation.

A key reads `qk_<key_id>_<secret>`. The secret has 256 bits of entropy, so a fast hash is
enough (no password stretching needed); comparison is constant-time. Verified keys are cached
for `CACHE_TTL_S` seconds (keyed by the key's sha256, at most `CACHE_MAX_KEYS`, the least
recently used dropped first) so the hot path does not pay a query per call. A key revoked
through RevokeApiKey is refused at once by the process that served the revocation, and by
every other server process within `CACHE_TTL_S` (docs/operations.md, "API keys").
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from enum import StrEnum

import asyncpg

from quire.server.failures import QuireError
from quire.v1 import errors_pb2


class Scope(StrEnum):
    READ = "read"
    WRITE = "write"
    ADMIN = "admin"
    TUNE = "tune"


ALL_SCOPES = frozenset(Scope)
KEY_PREFIX = "qk_"
CACHE_TTL_S = 5.0  # how long a verified key is trusted without asking the database again
CACHE_MAX_KEYS = 10_000


@dataclass(frozen=True)
class Principal:
    org_id: uuid.UUID
    key_id: str
    scopes: frozenset[Scope]

    def require(self, scope: Scope) -> None:
        if scope not in self.scopes:
            raise QuireError(
                errors_pb2.ERROR_CODE_PERMISSION_DENIED, f"This call needs a key with scope {scope}"
            )


@dataclass(frozen=True)
class NewKey:
    key_id: str
    secret: str  # the full bearer token, shown once


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def parse_scopes(names: list[str] | tuple[str, ...]) -> frozenset[Scope]:
    try:
        return frozenset(Scope(n) for n in names)
    except ValueError as exc:
        raise QuireError(errors_pb2.ERROR_CODE_INVALID_REQUEST, f"unknown scope: {exc}") from None


INSERT_KEY = """
INSERT INTO api_keys (org_id, key_id, secret_sha256, scopes, name) VALUES ($1, $2, $3, $4, $5)
"""
SELECT_KEY = """
SELECT k.org_id, k.secret_sha256, k.scopes FROM api_keys k
WHERE k.key_id = $1 AND k.revoked_at IS NULL
"""
# ListApiKeys shows when a key last worked; written at most once a minute per key and process.
TOUCH_KEY = """
UPDATE api_keys SET last_used_at = now()
WHERE key_id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
"""
TOUCH_EVERY_S = 60.0
REVOKE_KEY = """
UPDATE api_keys SET revoked_at = now() WHERE org_id = $1 AND key_id = $2 AND revoked_at IS NULL
RETURNING key_id
"""
UPSERT_ORG = """
INSERT INTO organisations (org_id, name) VALUES ($1, $2)
ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING org_id
"""


async def ensure_organisation(conn: asyncpg.Connection, name: str) -> uuid.UUID:
    org_id: uuid.UUID = await conn.fetchval(UPSERT_ORG, uuid.uuid4(), name)
    return org_id


async def create_key(
    conn: asyncpg.Connection, org_id: uuid.UUID, scopes: frozenset[Scope], name: str = ""
) -> NewKey:
    key_id = secrets.token_hex(8)
    token = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
    await conn.execute(
        INSERT_KEY, org_id, key_id, _hash(token), sorted(s.value for s in scopes), name
    )
    return NewKey(key_id=key_id, secret=token)


async def revoke_key(conn: asyncpg.Connection, org_id: uuid.UUID, key_id: str) -> bool:
    return await conn.fetchval(REVOKE_KEY, org_id, key_id) is not None


class KeyVerifier:
    """Resolves a bearer token to a Principal, with a short-lived, bounded cache of verified
    keys (see the module docstring)."""

    def __init__(self, pool: asyncpg.Pool, max_keys: int = CACHE_MAX_KEYS) -> None:
        self._pool = pool
        self._max_keys = max_keys
        # sha256 of the token -> (monotonic expiry, principal), least recently used first.
        self._cache: OrderedDict[bytes, tuple[float, Principal]] = OrderedDict()
        self._touched: dict[str, float] = {}  # key id -> when last_used_at was last written

    async def verify(self, token: str | None) -> Principal:
        if not token or not token.startswith(KEY_PREFIX) or len(token) > 256:
            raise unauthenticated()
        digest = _hash(token)
        now = time.monotonic()
        hit = self._cache.get(digest)
        if hit is not None and hit[0] > now:
            self._cache.move_to_end(digest)
            return hit[1]
        key_id = token[len(KEY_PREFIX) :].split("_", 1)[0]
        row = await self._pool.fetchrow(SELECT_KEY, key_id)
        if row is None or not hmac.compare_digest(bytes(row["secret_sha256"]), digest):
            self._cache.pop(digest, None)
            raise unauthenticated()
        principal = Principal(row["org_id"], key_id, parse_scopes(row["scopes"]))
        if self._touched.get(key_id, -TOUCH_EVERY_S) + TOUCH_EVERY_S <= now:
            if len(self._touched) > self._max_keys:
                self._touched.clear()
            self._touched[key_id] = now
            await self._pool.execute(TOUCH_KEY, key_id)
        self._cache[digest] = (now + CACHE_TTL_S, principal)
        self._cache.move_to_end(digest)
        while len(self._cache) > self._max_keys:
            self._cache.popitem(last=False)
        return principal

    def cached(self, token: str) -> bool:
        """Whether `token` would be answered from the cache now (for tests and benchmarks)."""
        hit = self._cache.get(_hash(token))
        return hit is not None and hit[0] > time.monotonic()

    def forget(self) -> None:
        self._cache.clear()


def unauthenticated() -> QuireError:
    return QuireError(
        errors_pb2.ERROR_CODE_UNAUTHENTICATED,
        "Missing or invalid API key (send 'authorization: Bearer <key>')",
    )


def bearer_token(metadata: tuple[tuple[str, str | bytes], ...] | None) -> str | None:
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str):
            scheme, _, token = value.partition(" ")
            if scheme.lower() == "bearer":
                return token.strip()
    return None

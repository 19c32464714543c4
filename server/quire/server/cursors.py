"""Opaque, authenticated list cursors, shared by every RPC that pages.

A cursor is base64url (no padding) of a format byte, a 128-bit HMAC-SHA-256 tag and the JSON
payload. The tag covers the listing the cursor pages — the RPC and the organisation, namespace
or collection it was issued for — and the payload, under a secret generated once and kept in the
database (`server_secrets`), so every server process on one database agrees and cursors survive
restarts. Anything the server did not issue for this very listing is INVALID_REQUEST naming the
field, decided before a cursor's value can reach SQL. The standard library's `hmac` is the whole
of the cryptography; a token library would add a dependency for the framing alone.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import asyncpg

from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError, invalid
from quire.server.validation import number

SECRET_NAME = "cursor"
# Concurrent first starts race on the insert; the loser keeps the winner's secret.
ENSURE_SECRET = """
INSERT INTO server_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING
"""
GET_SECRET = "SELECT secret FROM server_secrets WHERE name = $1"

FORMAT = 1  # the first byte; a new layout gets a new number and old cursors are refused
TAG_BYTES = 16
# No request takes a longer cursor.
MAX_TOKEN_CHARS = max(
    number(contract_bounds.ListPagesRequest.cursor.max_chars),
    number(contract_bounds.ListDocumentsRequest.cursor.max_chars),
    number(contract_bounds.ListAgentsRequest.cursor.max_chars),
)
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


def refusal(listing: Sequence[str], field: str = "cursor") -> QuireError:
    """The one answer to any cursor not issued for `listing`: which check failed is not said."""
    return invalid(field, f"not a cursor returned by {listing[0]} for this request")


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


class CursorCodec:
    def __init__(self, secret: bytes) -> None:
        if len(secret) < 32:
            raise ValueError("the cursor secret must be at least 32 bytes")
        self._secret = secret

    def _tag(self, listing: Sequence[str], payload: bytes) -> bytes:
        # The listing as a JSON list (no raw newline inside), then the payload: unambiguous.
        message = json.dumps(["quire-cursor", FORMAT, *listing]).encode() + b"\n" + payload
        return hmac.new(self._secret, message, hashlib.sha256).digest()[:TAG_BYTES]

    def seal(self, listing: Sequence[str], payload: Mapping[str, str | int]) -> str:
        """The cursor for `payload` within `listing` (e.g. ("ListPages", org, namespace))."""
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        return _b64(bytes([FORMAT]) + self._tag(listing, body) + body)

    def open(
        self,
        token: str,
        listing: Sequence[str],
        shape: Mapping[str, type],
        *,
        field: str = "cursor",
    ) -> dict[str, Any]:
        """The payload of a cursor this server issued for `listing`, with exactly the keys and
        value types of `shape`; anything else is INVALID_REQUEST naming `field`."""
        refused = refusal(listing, field)
        if len(token) > MAX_TOKEN_CHARS or not _BASE64URL.fullmatch(token):
            raise refused
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise refused from None
        # Only the one spelling the server issues: no padding, no stray low bits.
        if _b64(raw) != token or len(raw) <= 1 + TAG_BYTES or raw[0] != FORMAT:
            raise refused
        tag, body = raw[1 : 1 + TAG_BYTES], raw[1 + TAG_BYTES :]
        if not hmac.compare_digest(tag, self._tag(listing, body)):
            raise refused
        # Authentic, so these hold unless the secret leaked; checked anyway (defence in depth).
        try:
            payload = json.loads(body)
        except (UnicodeDecodeError, ValueError):
            raise refused from None
        if not isinstance(payload, dict) or payload.keys() != shape.keys():
            raise refused
        if any(type(payload[key]) is not kind for key, kind in shape.items()):
            raise refused
        return payload


async def load(pool: asyncpg.Pool) -> CursorCodec:
    """The codec under the database's cursor secret, made on first start."""
    async with pool.acquire() as conn:
        await conn.execute(ENSURE_SECRET, SECRET_NAME, secrets.token_bytes(32))
        secret = await conn.fetchval(GET_SECRET, SECRET_NAME)
    return CursorCodec(bytes(secret))

"""Field checks shared by services; each failure names the field (INVALID_REQUEST)."""

from __future__ import annotations

import re
import uuid

from quire.server.errors import QuireError, invalid

_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")


def clean_text(field: str, value: str, *, max_chars: int, allow_empty: bool = False) -> str:
    if not allow_empty and not value.strip():
        raise invalid(field, "must not be empty")
    if len(value) > max_chars:
        raise invalid(field, f"at most {max_chars} characters (got {len(value)})")
    if "\x00" in value:
        raise invalid(field, "must not contain NUL")
    return value


def name_field(field: str, value: str) -> str:
    if not _NAME.fullmatch(value):
        raise invalid(field, "1–128 characters of [A-Za-z0-9._-]")
    return value


def bounded(field: str, value: int, low: int, high: int, default: int) -> int:
    """0 means the default; otherwise low..high inclusive."""
    if value == 0:
        return default
    if not low <= value <= high:
        raise invalid(field, f"must be {low}–{high} (0 means {default})")
    return value


def parse_uuid(value: str, not_found: QuireError) -> uuid.UUID:
    """Malformed ids are simply not found (no distinction an attacker could probe)."""
    try:
        return uuid.UUID(value)
    except (ValueError, AttributeError):
        raise not_found from None

"""Field checks shared by services; each failure names the field (INVALID_REQUEST).

The numbers and patterns come from the contract (`quire.server.contract.bounds`, generated
from the proto's `(quire.v1.bounds)`); the checks and their messages live here.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Sequence
from typing import Protocol

from quire.server.contract import bounds as contract_bounds
from quire.server.contract.bounds import FieldBounds
from quire.server.failures import QuireError, invalid


class PagedRequest(Protocol):
    """The bounds class of a request that pages (contract.bounds.ListDocumentsRequest, …)."""

    cursor: FieldBounds
    limit: FieldBounds


# Every request's `namespace` has these bounds (tests/unit/test_contract_bounds.py checks).
NAMESPACE = contract_bounds.SearchPagesRequest.namespace


def number(value: int | str | None) -> int:
    """A bound or default the contract must set as a number (a generator error otherwise)."""
    if not isinstance(value, int):
        raise TypeError(f"the contract sets no number here (got {value!r})")
    return value


def text(value: int | str | None) -> str:
    """A default the contract must set as a string (a generator error otherwise)."""
    if not isinstance(value, str):
        raise TypeError(f"the contract sets no string here (got {value!r})")
    return value


@functools.cache
def whole_match(bounds: FieldBounds) -> re.Pattern[str]:
    """The field's pattern and length bounds as one expression, for `fullmatch`."""
    lengths = f"(?=.{{{number(bounds.min_chars)},{number(bounds.max_chars)}}}\\Z)"
    return re.compile(f"{lengths}(?:{bounds.pattern})", re.DOTALL)


def _alphabet(bounds: FieldBounds) -> str:
    """The character class of a `^[...]+$` pattern, as error messages quote it."""
    return bounds.pattern.removeprefix("^").removesuffix("+$")


def clean_text(field: str, value: str, *, max_chars: int, allow_empty: bool = False) -> str:
    if not allow_empty and not value.strip():
        raise invalid(field, "must not be empty", "at least one character that is not a space")
    if len(value) > max_chars:
        longest = f"at most {max_chars} characters"
        raise invalid(field, f"{longest} (got {len(value)})", longest)
    if "\x00" in value:
        raise invalid(field, "must not contain NUL")
    return value


def at_most_chars(field: str, value: str, bounds: FieldBounds) -> str:
    """A string within the field's contract length, its only bound."""
    if len(value) > number(bounds.max_chars):
        longest = f"at most {bounds.max_chars} characters"
        raise invalid(field, longest, longest)
    return value


def name_field(field: str, value: str, bounds: FieldBounds = NAMESPACE) -> str:
    """A name such as a namespace: the field's length bounds, characters from its pattern."""
    if not whole_match(bounds).fullmatch(value):
        allowed = f"{bounds.min_chars}–{bounds.max_chars} characters of {_alphabet(bounds)}"
        raise invalid(field, allowed, allowed)
    return value


def bounded(field: str, value: int, low: int, high: int, default: int) -> int:
    """0 means the default; otherwise low..high inclusive."""
    if value == 0:
        return default
    if not low <= value <= high:
        raise invalid(field, f"must be {low}–{high} (0 means {default})", f"{low}–{high}")
    return value


def within(field: str, value: int, bounds: FieldBounds) -> int:
    """`bounded` with the field's contract range and default."""
    return bounded(field, value, number(bounds.min), number(bounds.max), number(bounds.default))


def page_limit(rpc: str, limit: int, cursor: str, limits: PagedRequest) -> int:
    """A paged request's `limit` within its contract range (0: the default); a `cursor`
    longer than the contract allows is refused before anything opens it."""
    if len(cursor) > number(limits.cursor.max_chars):
        raise invalid("cursor", f"not a cursor returned by {rpc}")
    return within("limit", limit, limits.limit)


def uuid_items(field: str, values: Sequence[str], what: str) -> list[uuid.UUID]:
    """A list of ids, each a UUID; a malformed one is INVALID_REQUEST naming `field[i]`."""
    ids = []
    for i, value in enumerate(values):
        try:
            ids.append(uuid.UUID(value))
        except ValueError:
            raise invalid(f"{field}[{i}]", f"not {what} (a UUID)") from None
    return ids


def parse_uuid(value: str, not_found: QuireError) -> uuid.UUID:
    """Malformed ids are simply not found (no distinction an attacker could probe)."""
    try:
        return uuid.UUID(value)
    except (ValueError, AttributeError):
        raise not_found from None

"""What PostgreSQL itself accepts for a setting, read from `pg_settings` (its type, bounds and
enum values) once per server version, so a value can be refused before it reaches
`set_config` (which would fail the whole transaction).

The check is on the text `set_config` receives, parsed as PostgreSQL parses it:
- integer: a whole number within min_val–max_val;
- real: PostgreSQL parses with strtod and refuses any result strtod reports as out of range,
  which includes every denormal number (5e-324 and the like), then checks min_val–max_val.
  pg_settings prints real bounds with six significant digits ("1.79769e+308" for DBL_MAX), so
  the printed bound is narrowed by that rounding: Quire may refuse a value a hair inside the
  true bound, never accept one outside it;
- enum: one of enumvals, exactly (PostgreSQL also accepts other letter cases; Quire does not);
- bool: on/off.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import asyncpg

READ_LIMITS = """
SELECT name, vartype, min_val, max_val, enumvals
FROM pg_settings
WHERE name = ANY($1::text[])
"""

# %g keeps six significant digits: the printed bound is within half a unit of the sixth.
_G_ROUNDING = 5e-6


@dataclass(frozen=True)
class SettingLimit:
    name: str
    vartype: str  # bool, integer, real, string, enum
    min_val: str | None = None
    max_val: str | None = None
    enumvals: tuple[str, ...] = ()

    def bound(self) -> str:
        """The accepted values, as a FieldViolation bound ("0–715827882")."""
        if self.vartype == "enum":
            return ", ".join(self.enumvals)
        if self.min_val is not None and self.max_val is not None:
            return f"{self.min_val}–{self.max_val}"
        return ""

    def refusal(self, text: str) -> str | None:
        """Why PostgreSQL would refuse `text` for this setting; None when it accepts it."""
        if self.vartype == "integer":
            return self._integer(text)
        if self.vartype == "real":
            return self._real(text)
        if self.vartype == "enum":
            return None if text in self.enumvals else f"must be one of {', '.join(self.enumvals)}"
        if self.vartype == "bool":
            return None if text in ("on", "off") else "must be a boolean"
        return None

    def _integer(self, text: str) -> str | None:
        try:
            value = int(text)
        except ValueError:
            return "must be a whole number"
        low = int(self.min_val) if self.min_val is not None else None
        high = int(self.max_val) if self.max_val is not None else None
        if (low is not None and value < low) or (high is not None and value > high):
            return f"must be {self.bound()} (PostgreSQL's range for {self.name})"
        return None

    def _real(self, text: str) -> str | None:
        try:
            value = float(text)
        except ValueError:
            return "must be a number"
        if math.isnan(value):
            return "must be a number, not NaN"
        if value != 0 and abs(value) < sys.float_info.min:
            return (
                f"must be 0 or at least {sys.float_info.min!r} in magnitude "
                "(PostgreSQL refuses denormal numbers)"
            )
        # Each printed bound narrowed by the printing's rounding; a bound of 0 prints exactly.
        low = float(self.min_val) if self.min_val is not None else None
        high = float(self.max_val) if self.max_val is not None else None
        if (low is not None and value < low + abs(low) * _G_ROUNDING) or (
            high is not None and value > high - abs(high) * _G_ROUNDING
        ):
            return f"must be {self.bound()} (PostgreSQL's range for {self.name})"
        if math.isinf(value):
            return "must be finite"
        return None


@dataclass(frozen=True)
class SettingLimits:
    """The limits of the settings asked for, by name; a setting this server does not know
    is absent (and any value for it refused)."""

    by_name: Mapping[str, SettingLimit]

    def refusal(self, name: str, text: str) -> str | None:
        limit = self.by_name.get(name)
        if limit is None:
            return f"{name} is not a setting of this PostgreSQL server"
        return limit.refusal(text)

    def bound(self, name: str) -> str:
        limit = self.by_name.get(name)
        return limit.bound() if limit is not None else ""


# Bounds are compiled into PostgreSQL: one read per server version serves every connection
# to a server of that version, primary or replica.
_CACHE: dict[tuple[tuple[object, ...], frozenset[str]], SettingLimits] = {}


async def read(conn: asyncpg.Connection, names: Iterable[str]) -> SettingLimits:
    """The limits of `names` on `conn`'s server, from pg_settings the first time."""
    wanted = frozenset(names)
    key = (tuple(conn.get_server_version()), wanted)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    rows = await conn.fetch(READ_LIMITS, sorted(wanted))
    limits = SettingLimits(
        {
            r["name"]: SettingLimit(
                r["name"], r["vartype"], r["min_val"], r["max_val"], tuple(r["enumvals"] or ())
            )
            for r in rows
        }
    )
    _CACHE[key] = limits
    return limits

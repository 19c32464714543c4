"""MetadataFilter → one SQL boolean expression over a documents row's metadata (jsonb).

Every test is one the `documents_metadata` GIN index (jsonb_path_ops) can serve or a jsonpath
predicate on the rows it is given:

- equals v: containment of {path: v} or {path: [v]} (a list holding v matches too), one
  `@> ANY(array)` so a bitmap scan ORs the two index probes;
- in [v, ...]: the same containments for every value;
- exists: `@?` of the path (present with any value, null included);
- number_range / time_range: `jsonb_path_exists` with the bounds as jsonpath variables. Lax
  mode unwraps lists, so a list with one element in range matches; a value of another type
  compares as unknown, so it never matches. Times go through jsonpath `.datetime()`, which
  reads RFC 3339 with an offset or "Z", and dates (compared in the session time zone, UTC:
  storage/database.py).

Values reach SQL only as parameters; paths are built from keys checked against SEGMENT, which
admits nothing jsonpath would read as syntax.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

from google.protobuf import struct_pb2, timestamp_pb2

from quire.server.failures import invalid
from quire.v1 import knowledge_pb2

MAX_DEPTH = 8
MAX_CONDITIONS = 64
MAX_MEMBERS = 64
MAX_IN_VALUES = 100
# Metadata is at most 4 levels deep (knowledge/metadata.py), so a path has at most 4 keys.
MAX_PATH_KEYS = 4
SEGMENT = re.compile(r"[A-Za-z0-9_-]{1,64}")
KEY_BOUND = "1–4 keys of 1–64 characters of [A-Za-z0-9_-], not starting with _, joined by ."
# Timestamp's own range (0001-01-01 to 9999-12-31).
_MIN_SECONDS = -62135596800
_MAX_SECONDS = 253402300799
_TIME_BOUND = "0001-01-01 to 9999-12-31"


@dataclass(frozen=True)
class SqlFilter:
    """A boolean SQL expression and its parameters, numbered from the `first_param` it was
    compiled with. "TRUE" with no parameters when there is no filter."""

    sql: str
    args: tuple[object, ...] = ()

    @property
    def active(self) -> bool:
        return self.sql != "TRUE"


NO_FILTER = SqlFilter("TRUE")


def compile_filter(
    f: knowledge_pb2.MetadataFilter | None,
    *,
    first_param: int,
    column: str = "d.metadata",
    field: str = "filter",
) -> SqlFilter:
    """The filter as SQL over `column`; None is no filter. Raises INVALID_REQUEST naming the
    offending part (e.g. "filter.all.filters[2].field.in") and its bound."""
    if f is None:
        return NO_FILTER
    compiler = _Compiler(first_param, column)
    sql = compiler.node(f, field, depth=1)
    if compiler.conditions > MAX_CONDITIONS:
        raise invalid(field, f"at most {MAX_CONDITIONS} conditions", f"{MAX_CONDITIONS} conditions")
    return SqlFilter(sql, tuple(compiler.args))


def canonical(f: knowledge_pb2.MetadataFilter | None) -> str:
    """A stable text of the filter, for cache keys (deterministic serialisation)."""
    if f is None:
        return ""
    return f.SerializeToString(deterministic=True).hex()


@dataclass
class _Compiler:
    next_param: int
    column: str
    args: list[object] = field(default_factory=list)
    conditions: int = 0

    def param(self, value: object, cast: str) -> str:
        self.args.append(value)
        name = f"${self.next_param}::{cast}"
        self.next_param += 1
        return name

    def node(self, f: knowledge_pb2.MetadataFilter, where: str, depth: int) -> str:
        if depth > MAX_DEPTH:
            raise invalid(where, f"filters nest at most {MAX_DEPTH} levels", f"{MAX_DEPTH} levels")
        kind = f.WhichOneof("filter")
        if kind == "field":
            self.conditions += 1
            return self.condition(f.field, f"{where}.field")
        if kind in ("all", "any"):
            members = getattr(f, kind).filters
            inner = f"{where}.{kind}.filters"
            if not 1 <= len(members) <= MAX_MEMBERS:
                raise invalid(inner, f"1–{MAX_MEMBERS} filters", f"1–{MAX_MEMBERS} filters")
            parts = [self.node(m, f"{inner}[{i}]", depth + 1) for i, m in enumerate(members)]
            joiner = " AND " if kind == "all" else " OR "
            return "(" + joiner.join(parts) + ")"
        if kind == "not":
            return f"(NOT {self.node(getattr(f, 'not'), f'{where}.not', depth + 1)})"
        raise invalid(where, "set one of field, all, any, not")

    def condition(self, c: knowledge_pb2.FieldCondition, where: str) -> str:
        keys = _path(c.field, f"{where}.field")
        kind = c.WhichOneof("condition")
        if kind == "equals":
            value = _scalar(c.equals, f"{where}.equals")
            return f"{self.column} @> ANY({self.param(_containments(keys, [value]), 'jsonb[]')})"
        if kind == "in":
            values = _one_type(c, f"{where}.in")
            return f"{self.column} @> ANY({self.param(_containments(keys, values), 'jsonb[]')})"
        if kind == "exists":
            test = f"{self.column} @? {self.param(_jsonpath(keys), 'jsonpath')}"
            return test if c.exists else f"(NOT {test})"
        if kind == "number_range":
            bounds = _number_bounds(c.number_range, f"{where}.number_range")
            return self.range_test(keys, bounds, "@", "jsonb_path_exists")
        if kind == "time_range":
            times = _time_bounds(c.time_range, f"{where}.time_range")
            return self.range_test(keys, times, "@.datetime()", "jsonb_path_exists_tz")
        raise invalid(where, "set one of equals, in, number_range, time_range, exists")

    def range_test(
        self, keys: list[str], bounds: dict[str, object], item: str, function: str
    ) -> str:
        value = "${name}" if item == "@" else "${name}.datetime()"
        tests = [f"{item} {_OPERATORS[name]} {value.format(name=name)}" for name in bounds]
        path = f"{_jsonpath(keys)} ? ({' && '.join(tests)})"
        path_param = self.param(path, "jsonpath")
        variables = self.param(json.dumps(bounds), "jsonb")
        # silent: a string that is not a time is a non-match, not an error.
        return f"{function}({self.column}, {path_param}, {variables}, true)"


_OPERATORS = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def _path(text: str, where: str) -> list[str]:
    keys = text.split(".")
    if len(keys) > MAX_PATH_KEYS or not all(
        SEGMENT.fullmatch(k) and not k.startswith("_") for k in keys
    ):
        raise invalid(where, "not a metadata field path", KEY_BOUND)
    return keys


def _jsonpath(keys: list[str]) -> str:
    return "$" + "".join(f'."{k}"' for k in keys)


def _nest(keys: list[str], value: object) -> object:
    for key in reversed(keys):
        value = {key: value}
    return value


def _containments(keys: list[str], values: list[object]) -> list[str]:
    out = []
    for v in values:
        out += [json.dumps(_nest(keys, v)), json.dumps(_nest(keys, [v]))]
    return out


def _scalar(value: struct_pb2.Value, where: str) -> object:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "number_value":
        if not math.isfinite(value.number_value):
            raise invalid(where, "numbers must be finite", "a finite number")
        number = value.number_value
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    raise invalid(where, "must be a string, number or boolean", "a string, number or boolean")


def _one_type(c: knowledge_pb2.FieldCondition, where: str) -> list[object]:
    items = getattr(c, "in").values
    if not 1 <= len(items) <= MAX_IN_VALUES:
        raise invalid(where, f"1–{MAX_IN_VALUES} values", f"1–{MAX_IN_VALUES} values")
    values = [_scalar(v, f"{where}[{i}]") for i, v in enumerate(items)]
    kinds = {v.WhichOneof("kind") for v in items}
    if len(kinds) > 1:
        raise invalid(where, "values must all be strings, all numbers or all booleans", "one type")
    return values


def _check_order(bounds: dict[str, object], where: str) -> None:
    if "gt" in bounds and "gte" in bounds:
        raise invalid(where, "give at most one of gt and gte", "one lower bound")
    if "lt" in bounds and "lte" in bounds:
        raise invalid(where, "give at most one of lt and lte", "one upper bound")
    if not bounds:
        raise invalid(where, "give at least one of gt, gte, lt, lte", "at least one bound")


def _number_bounds(r: knowledge_pb2.NumberRange, where: str) -> dict[str, object]:
    bounds: dict[str, object] = {}
    for name in ("gt", "gte", "lt", "lte"):
        if r.HasField(name):
            value = getattr(r, name)
            if not math.isfinite(value):
                raise invalid(f"{where}.{name}", "must be a finite number", "a finite number")
            bounds[name] = value
    _check_order(bounds, where)
    low = bounds.get("gt", bounds.get("gte"))
    high = bounds.get("lt", bounds.get("lte"))
    _check_span(low, high, "gte" in bounds and "lte" in bounds, where)
    return bounds


def _time_bounds(r: knowledge_pb2.TimeRange, where: str) -> dict[str, object]:
    seconds: dict[str, float] = {}
    for name in ("gt", "gte", "lt", "lte"):
        if r.HasField(name):
            stamp: timestamp_pb2.Timestamp = getattr(r, name)
            if not _MIN_SECONDS <= stamp.seconds <= _MAX_SECONDS or not 0 <= stamp.nanos < 10**9:
                raise invalid(f"{where}.{name}", "not a valid timestamp", _TIME_BOUND)
            seconds[name] = stamp.seconds + stamp.nanos / 1e9
    _check_order(dict(seconds), where)
    low = seconds.get("gt", seconds.get("gte"))
    high = seconds.get("lt", seconds.get("lte"))
    _check_span(low, high, "gte" in seconds and "lte" in seconds, where)
    return {name: _rfc3339(getattr(r, name)) for name in seconds}


def _check_span(low: object, high: object, closed: bool, where: str) -> None:
    if not isinstance(low, float | int) or not isinstance(high, float | int):
        return
    if low > high or (low == high and not closed):
        raise invalid(where, "the lower bound is above the upper one", "lower ≤ upper")


def _rfc3339(stamp: timestamp_pb2.Timestamp) -> str:
    # Microseconds: what PostgreSQL's timestamptz holds.
    moment = stamp.ToDatetime().replace(microsecond=stamp.nanos // 1000)
    return moment.isoformat(timespec="microseconds") + "Z"

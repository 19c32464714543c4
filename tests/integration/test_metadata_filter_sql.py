"""What a compiled MetadataFilter selects in PostgreSQL equals what a plain Python reading of
its documented meaning selects (docs/knowledge.md, "Filters"), for random filters over random
metadata. Runs on the real database with the documents table's own GIN index."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import pytest_asyncio
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.server.knowledge import filters
from quire.v1 import knowledge_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")

KEYS = ["a", "b", "c"]
STRINGS = ["x", "y", "1", ""]
TIMES = [
    "2026-03-01T12:00:00Z",
    "2026-03-01T14:00:00+02:00",  # the same instant as the one above
    "2026-03-01",
    "2025-12-31T23:59:59-01:00",
    "not a time",
]
MISSING = object()


def random_scalar(rng: random.Random) -> Any:
    return rng.choice(
        [
            rng.choice(STRINGS),
            rng.choice(TIMES),
            rng.randint(-2, 2),
            rng.choice([0.5, 1.0, -1.5]),
            rng.choice([True, False]),
            None,
        ]
    )


def random_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.2:
        return {k: random_value(rng, depth + 1) for k in rng.sample(KEYS, rng.randint(0, 3))}
    if roll < 0.35:
        # Lists hold scalars: field paths do not reach into lists (docs/knowledge.md).
        return [random_scalar(rng) for _ in range(rng.randint(0, 3))]
    return random_scalar(rng)


def random_documents(n: int) -> list[dict[str, Any]]:
    rng = random.Random(20)
    return [
        {k: random_value(rng, 1) for k in rng.sample(KEYS, rng.randint(0, 3))} for _ in range(n)
    ]


DOCUMENTS = random_documents(80)


# --- the reference ----------------------------------------------------------------------------


def lookup(doc: dict[str, Any], path: str) -> Any:
    value: Any = doc
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return MISSING
        value = value[key]
    return value


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    return isinstance(a, str) and isinstance(b, str) and a == b


def items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def instant(text: Any) -> dt.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        if len(text) == 10:
            return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


def in_range(v: Any, bounds: dict[str, Any]) -> bool:
    return all(
        (op == "gt" and v > b)
        or (op == "gte" and v >= b)
        or (op == "lt" and v < b)
        or (op == "lte" and v <= b)
        for op, b in bounds.items()
    )


def holds(f: dict[str, Any], doc: dict[str, Any]) -> bool:
    if "all" in f:
        return all(holds(m, doc) for m in f["all"]["filters"])
    if "any" in f:
        return any(holds(m, doc) for m in f["any"]["filters"])
    if "not" in f:
        return not holds(f["not"], doc)
    c = f["field"]
    value = lookup(doc, c["field"])
    if "exists" in c:
        return (value is not MISSING) == c["exists"]
    if value is MISSING:
        return False
    if "equals" in c:
        return any(same(v, c["equals"]) for v in items(value))
    if "in" in c:
        return any(same(v, w) for v in items(value) for w in c["in"])
    if "numberRange" in c:
        return any(is_number(v) and in_range(v, c["numberRange"]) for v in items(value))
    bounds = {op: instant(t) for op, t in c["timeRange"].items()}
    return any(
        (moment := instant(v)) is not None and in_range(moment, bounds) for v in items(value)
    )


# --- random filters ---------------------------------------------------------------------------

paths = st.sampled_from(["a", "b", "c", "a.b", "b.c.a", "a.a"])
scalars = st.one_of(
    st.sampled_from(STRINGS), st.integers(-2, 2), st.sampled_from([0.5, -1.5]), st.booleans()
)


@st.composite
def number_ranges(draw: st.DrawFn) -> dict[str, float]:
    low, high = sorted(
        draw(st.lists(st.sampled_from([-2, -1, 0, 0.5, 1, 2]), min_size=2, max_size=2))
    )
    out: dict[str, float] = {}
    if draw(st.booleans()):
        out[draw(st.sampled_from(["gt", "gte"]))] = low
    if draw(st.booleans()) or not out:
        out[draw(st.sampled_from(["lt", "lte"]))] = high
    if low == high and ("gt" in out or "lt" in out) and len(out) == 2:
        out = {"gte": low, "lte": high}
    return out


@st.composite
def time_ranges(draw: st.DrawFn) -> dict[str, str]:
    moments = ["2026-03-01T12:00:00Z", "2026-03-01T00:00:00Z", "2026-01-01T00:00:00Z"]
    low, high = sorted(draw(st.lists(st.sampled_from(moments), min_size=2, max_size=2)))
    out = {draw(st.sampled_from(["gte", "gt"])): low}
    if draw(st.booleans()):
        out[draw(st.sampled_from(["lte", "lt"]))] = high
    if low == high and len(out) == 2:
        out = {"gte": low, "lte": high}
    return out


conditions = st.one_of(
    st.builds(lambda p, v: {"field": {"field": p, "equals": v}}, paths, scalars),
    st.builds(
        lambda p, vs: {"field": {"field": p, "in": vs}},
        paths,
        st.one_of(
            st.lists(st.sampled_from(STRINGS), min_size=1, max_size=3),
            st.lists(st.integers(-2, 2), min_size=1, max_size=3),
            st.lists(st.booleans(), min_size=1, max_size=2),
        ),
    ),
    st.builds(lambda p, e: {"field": {"field": p, "exists": e}}, paths, st.booleans()),
    st.builds(lambda p, r: {"field": {"field": p, "numberRange": r}}, paths, number_ranges()),
    st.builds(lambda p, r: {"field": {"field": p, "timeRange": r}}, paths, time_ranges()),
)
trees = st.recursive(
    conditions,
    lambda inner: st.one_of(
        st.builds(lambda fs: {"all": {"filters": fs}}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda fs: {"any": {"filters": fs}}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda f: {"not": f}, inner),
    ),
    max_leaves=6,
)


# --- the database -----------------------------------------------------------------------------


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def conn(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(database_url, server_settings={"TimeZone": "UTC"})
    await connection.execute(
        "CREATE TABLE docs (i int PRIMARY KEY, metadata jsonb NOT NULL);"
        "CREATE INDEX docs_metadata ON docs USING gin (metadata jsonb_path_ops)"
    )
    await connection.executemany(
        "INSERT INTO docs VALUES ($1, $2::jsonb)",
        [(i, json.dumps(d)) for i, d in enumerate(DOCUMENTS)],
    )
    yield connection
    await connection.close()


async def selected(conn: asyncpg.Connection, f: dict[str, Any]) -> set[int]:
    message = json_format.ParseDict(f, knowledge_pb2.MetadataFilter())
    compiled = filters.compile_filter(message, first_param=1, column="metadata")
    rows = await conn.fetch(f"SELECT i FROM docs WHERE {compiled.sql}", *compiled.args)
    return {r["i"] for r in rows}


async def test_documents_are_varied_enough() -> None:
    kinds = {type(lookup(d, "a")).__name__ for d in DOCUMENTS}
    assert {"str", "int", "float", "bool", "list", "dict", "NoneType", "object"} <= kinds


@pytest.mark.parametrize(
    ("f", "expected"),
    [
        ({"field": {"field": "t", "equals": 1}}, {"int", "float", "list"}),
        ({"field": {"field": "t", "in": ["1"]}}, {"str"}),
        (
            {"field": {"field": "t", "exists": True}},
            {"int", "float", "str", "bool", "list", "null", "zulu", "offset", "date"},
        ),
        ({"field": {"field": "t", "numberRange": {"gte": 1, "lte": 1}}}, {"int", "float", "list"}),
        (
            {"field": {"field": "t", "timeRange": {"gte": "2026-03-01T12:00:00Z"}}},
            {"offset", "zulu"},
        ),
        ({"field": {"field": "t", "timeRange": {"lt": "2026-03-01T00:00:01Z"}}}, {"date"}),
    ],
)
async def test_types_are_told_apart(
    conn: asyncpg.Connection, f: dict[str, Any], expected: set[str]
) -> None:
    samples = {
        "int": 1,
        "float": 1.0,
        "str": "1",
        "bool": True,
        "list": [0, 1],
        "null": None,
        "zulu": "2026-03-01T12:00:00Z",
        "offset": "2026-03-01T14:00:00+02:00",
        "date": "2026-03-01",
    }
    await conn.execute("CREATE TEMP TABLE IF NOT EXISTS kinds (name text, metadata jsonb)")
    await conn.execute("TRUNCATE kinds")
    await conn.executemany(
        "INSERT INTO kinds VALUES ($1, $2::jsonb)",
        [(k, json.dumps({"t": v})) for k, v in samples.items()] + [("absent", "{}")],
    )
    message = json_format.ParseDict(f, knowledge_pb2.MetadataFilter())
    compiled = filters.compile_filter(message, first_param=1, column="metadata")
    rows = await conn.fetch(f"SELECT name FROM kinds WHERE {compiled.sql}", *compiled.args)
    assert {r["name"] for r in rows} == expected
    assert all(holds(f, {"t": samples[name]}) for name in expected)


@pytest.mark.slow  # 300 examples, over 10 s under load (`make test-fast` leaves it out)
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(f=trees)
async def test_sql_selects_what_the_reference_selects(
    conn: asyncpg.Connection, f: dict[str, Any]
) -> None:
    expected = {i for i, d in enumerate(DOCUMENTS) if holds(f, d)}
    assert await selected(conn, f) == expected, json.dumps(f)


async def test_the_index_serves_equality_and_existence(conn: asyncpg.Connection) -> None:
    await conn.execute("SET enable_seqscan = off")
    try:
        for f in (
            {"field": {"field": "a", "equals": "x"}},
            {"field": {"field": "a", "in": ["x", "y"]}},
            {"field": {"field": "a.b", "exists": True}},
        ):
            message = json_format.ParseDict(f, knowledge_pb2.MetadataFilter())
            compiled = filters.compile_filter(message, first_param=1, column="metadata")
            rows = await conn.fetch(
                f"EXPLAIN SELECT i FROM docs WHERE {compiled.sql}", *compiled.args
            )
            plan = "\n".join(r[0] for r in rows)
            assert "docs_metadata" in plan, plan
    finally:
        await conn.execute("RESET enable_seqscan")

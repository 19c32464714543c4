"""Every PageSearchConfig field at and past its edges, through the real RPCs, with PostgreSQL
itself as the judge.

For each value: SetNamespaceSearchConfig (admin key), then a plain SearchPages of that
namespace, then SearchPages with the value as a per-request override (tune key). The answers
must be: never INTERNAL; a refusal is INVALID_REQUEST naming exactly `config.<field>`; the set
and the override agree; a plain search always succeeds (a stored configuration never fails a
search); and Quire accepts a value only if PostgreSQL's `set_config` accepts the same text,
while refusing everything PostgreSQL refuses. The only values Quire refuses that PostgreSQL
would take are the documented narrowings (storage/setting_limits.py): reals within the
six-digit rounding of pg_settings' printed maximum, and plan_cache_mode in other letter cases.

Values: fixed edges per field (zero, negative zero, denormals, the smallest normal double,
DBL_MAX and its printed form, ±inf, NaN, integer bounds and one past, int32/int64 extremes,
enum spellings with case, spaces, NUL and semicolons) and Hypothesis draws over each field's
whole wire range. Counted into `.quire-test/fuzz-counts.json` (suite `test_search_config_edges`).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import uuid
from typing import Any

import asyncpg
import grpc
import pytest
import pytest_asyncio
from grpc import aio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.server.retrieval.search_config import to_settings
from quire.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    errors_pb2,
    pages_service_pb2,
    pages_service_pb2_grpc,
    search_config_pb2,
)
from tests.conftest import Harness, Keys, bearer
from tests.reliability._support import InputCounts, seed_pages, typed_detail

pytestmark = pytest.mark.asyncio(loop_scope="session")

NEEDS_MODEL = True  # SearchPages embeds its query
NAMESPACE = "edges"
EXAMPLES = int(os.environ.get("QUIRE_FUZZ_EXAMPLES", "25"))
DBL_MAX = sys.float_info.max
DBL_MIN = sys.float_info.min  # the smallest normal double

REALS = [
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    1e-310,
    2.225073858507201e-308,  # the largest denormal
    DBL_MIN,
    -DBL_MIN,
    1e-300,
    0.1,
    1.0,
    -1.0,
    1e308,
    1.79768e308,
    1.79769e308,  # how pg_settings prints DBL_MAX
    DBL_MAX,
    math.inf,
    -math.inf,
    math.nan,
]
INTS = [-(2**31), -1, 0, 1, 1023, 1024, 1025, 715_827_881, 715_827_882, 715_827_883, 2**31 - 1]
INT64S = [*INTS, 2**31, 2**32, 2**62, 2**63 - 1, -(2**63)]
MODES = [
    "auto",
    "force_custom_plan",
    "force_generic_plan",
    "AUTO",
    "Force_Custom_Plan",
    "",
    " auto",
    "auto ",
    "auto\x00",
    "auto; SET role postgres",
    "force_custom_plan,auto",
    "a" * 10_000,
    "aütö",
]

FIELDS: dict[str, tuple[list[Any], st.SearchStrategy[Any]]] = {
    "plan_cache_mode": (
        MODES,
        st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40),
    ),
    "enable_seqscan": ([True, False], st.booleans()),
    "parallel_setup_cost": (REALS, st.floats()),
    "parallel_tuple_cost": (REALS, st.floats()),
    "max_parallel_workers_per_gather": (INTS, st.integers(-(2**31), 2**31 - 1)),
    "min_parallel_table_scan_size": (INT64S, st.integers(-(2**63), 2**63 - 1)),
}
EDGE_CASES = [(name, value) for name, (edges, _) in FIELDS.items() for value in edges]


def _narrowing(name: str, value: Any) -> bool:
    """Values PostgreSQL takes and Quire documents refusing."""
    if name in ("parallel_setup_cost", "parallel_tuple_cost"):
        return isinstance(value, float) and value > 1.79769e308 * (1 - 5e-6)
    if name == "plan_cache_mode":
        return value.lower() in ("auto", "force_custom_plan", "force_generic_plan")
    return False


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    keys = await harness.keys("config-edges-org")
    await seed_pages(
        harness.pool,
        keys.org_id,
        NAMESPACE,
        {"/a.md": "# A\n\nplanner settings for a search\n", "/b.md": "# B\n\nanother page\n"},
    )
    return keys


async def _postgres_accepts(pool: asyncpg.Pool, name: str, text: str) -> bool:
    """The judge: whether PostgreSQL's set_config takes `text` for `name`."""
    async with pool.acquire() as conn:
        try:
            async with conn.transaction():
                await conn.execute("SELECT set_config($1, $2, true)", name, text)
        except (asyncpg.PostgresError, asyncpg.DataError, ValueError):
            return False
    return True


async def _answer(call: Any) -> errors_pb2.ErrorDetail | None:
    """None on success; the ErrorDetail of a typed refusal (never INTERNAL)."""
    try:
        await call
    except aio.AioRpcError as exc:
        detail = typed_detail(exc)
        assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT, (exc.code(), exc.details())
        return detail
    return None


async def _try(harness: Harness, keys: Keys, name: str, value: Any) -> None:
    config = search_config_pb2.PageSearchConfig(**{name: value})
    admin = admin_service_pb2_grpc.AdminServiceStub(harness.channel)
    pages = pages_service_pb2_grpc.PagesServiceStub(harness.channel)
    set_refused = await _answer(
        admin.SetNamespaceSearchConfig(
            admin_service_pb2.SetNamespaceSearchConfigRequest(namespace=NAMESPACE, config=config),
            metadata=bearer(keys.admin),
            timeout=20,
        )
    )
    # Whatever is stored, a plain search of the namespace works.
    plain = await pages.SearchPages(
        pages_service_pb2.SearchPagesRequest(namespace=NAMESPACE, query="planner settings"),
        metadata=bearer(keys.read),
        timeout=20,
    )
    assert plain.result.hits
    override_refused = await _answer(
        pages.SearchPages(
            pages_service_pb2.SearchPagesRequest(
                namespace=NAMESPACE, query="planner settings", config=config
            ),
            metadata=bearer(keys.tune),
            timeout=20,
        )
    )
    assert (set_refused is None) == (override_refused is None), (name, value)
    for detail in (set_refused, override_refused):
        if detail is not None:
            assert detail.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
            assert [v.field for v in detail.field_violations] == [f"config.{name}"], detail
    text = to_settings(config)[name]
    judged = await _postgres_accepts(harness.pool, name, text)
    if set_refused is None:
        # Accepted: PostgreSQL takes it (the override search above set it, too).
        assert judged, f"Quire accepted {name}={text!r}, PostgreSQL refuses it"
    elif judged:
        assert _narrowing(name, value), f"Quire refused {name}={text!r}, PostgreSQL takes it"


@pytest.mark.parametrize(("name", "value"), EDGE_CASES, ids=[f"{n}={v!r}" for n, v in EDGE_CASES])
async def test_each_field_at_and_past_its_edges(
    harness: Harness, keys: Keys, input_counts: InputCounts, name: str, value: Any
) -> None:
    input_counts.add(f"PageSearchConfig.{name}")
    await _try(harness, keys, name, value)


@pytest.mark.parametrize("name", list(FIELDS))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
async def test_drawn_values_of_each_field(
    harness: Harness, keys: Keys, input_counts: InputCounts, name: str, data: st.DataObject
) -> None:
    value = data.draw(FIELDS[name][1], label=name)
    input_counts.add(f"PageSearchConfig.{name}")
    await _try(harness, keys, name, value)


async def test_a_stored_value_postgres_refuses_never_fails_a_search(
    harness: Harness, keys: Keys, caplog: pytest.LogCaptureFixture
) -> None:
    """A value stored before Quire read PostgreSQL's bounds (or valid on another server) is
    left out of the search with a logged warning; the rest of the stored config applies."""
    caplog.set_level(logging.WARNING, logger="quire.server.pages.search")
    namespace = f"stored-{uuid.uuid4().hex[:6]}"
    await seed_pages(harness.pool, keys.org_id, namespace, {"/a.md": "# A\n\nstored poison\n"})
    async with harness.pool.acquire() as conn:
        await conn.execute(
            "UPDATE namespaces SET search_config = $3 WHERE org_id = $1 AND name = $2",
            keys.org_id,
            namespace,
            '{"parallel_tuple_cost": 5e-324, "min_parallel_table_scan_size": "2147483647",'
            ' "enable_seqscan": true}',
        )
    pages = pages_service_pb2_grpc.PagesServiceStub(harness.channel)
    reply = await pages.SearchPages(
        pages_service_pb2.SearchPagesRequest(namespace=namespace, query="stored poison"),
        metadata=bearer(keys.read),
        timeout=20,
    )
    assert reply.result.hits
    ignored = {
        getattr(r, "field", None)
        for r in caplog.records
        if r.getMessage() == "stored search config field ignored"
        and getattr(r, "namespace", None) == namespace
    }
    assert ignored == {"parallel_tuple_cost", "min_parallel_table_scan_size"}


async def test_a_refused_override_is_invalid_before_the_namespace_is_looked_up(
    harness: Harness, keys: Keys
) -> None:
    """As SetNamespaceSearchConfig: the value is judged first, whatever the namespace."""
    pages = pages_service_pb2_grpc.PagesServiceStub(harness.channel)
    detail = await _answer(
        pages.SearchPages(
            pages_service_pb2.SearchPagesRequest(
                namespace="no-such-namespace",
                query="x",
                config=search_config_pb2.PageSearchConfig(parallel_tuple_cost=5e-324),
            ),
            metadata=bearer(keys.tune),
            timeout=20,
        )
    )
    assert detail is not None
    assert [v.field for v in detail.field_violations] == ["config.parallel_tuple_cost"]

"""MetadataFilter validation: every bound at its edge, each refusal naming the part and the
bound (knowledge/filters.py). What the SQL selects is checked against a reference evaluator
in tests/integration/test_metadata_filter_sql.py."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from quire.server.failures import QuireError
from quire.server.knowledge import filters
from quire.v1 import errors_pb2, knowledge_pb2


def parse(f: dict[str, Any]) -> knowledge_pb2.MetadataFilter:
    return json_format.ParseDict(f, knowledge_pb2.MetadataFilter())


def refused(f: dict[str, Any] | knowledge_pb2.MetadataFilter) -> tuple[str, str]:
    message = f if isinstance(f, knowledge_pb2.MetadataFilter) else parse(f)
    with pytest.raises(QuireError) as caught:
        filters.compile_filter(message, first_param=1)
    assert caught.value.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
    (violation,) = caught.value.violations
    return violation.field, violation.bound


def eq(field: str, value: Any = "x") -> dict[str, Any]:
    return {"field": {"field": field, "equals": value}}


def nested(depth: int) -> dict[str, Any]:
    f = eq("a")
    for _ in range(depth - 1):
        f = {"not": f}
    return f


def test_no_filter_is_true_without_parameters() -> None:
    assert filters.compile_filter(None, first_param=4) == filters.NO_FILTER
    assert not filters.NO_FILTER.active


def test_parameters_are_numbered_from_first_param() -> None:
    f = parse({"all": {"filters": [eq("a"), {"field": {"field": "n", "numberRange": {"gt": 1}}}]}})
    compiled = filters.compile_filter(f, first_param=7)
    assert "$7::jsonb[]" in compiled.sql and "$8::jsonpath" in compiled.sql
    assert "$9::jsonb" in compiled.sql and "$10" not in compiled.sql
    assert len(compiled.args) == 3


def test_values_never_reach_the_sql_text() -> None:
    f = parse(eq("a", "x'); DROP TABLE documents; --"))
    compiled = filters.compile_filter(f, first_param=1)
    assert "DROP" not in compiled.sql
    assert any("DROP" in str(a) for a in compiled.args)


def test_nesting_is_bounded_at_eight_levels() -> None:
    filters.compile_filter(parse(nested(8)), first_param=1)
    assert refused(nested(9)) == ("filter" + ".not" * 8, "8 levels")


def test_conditions_are_bounded_at_sixty_four() -> None:
    members = [eq(f"k{i}") for i in range(32)]
    two = {"all": {"filters": [{"any": {"filters": members}}, {"any": {"filters": members}}]}}
    filters.compile_filter(parse(two), first_param=1)
    three = {"all": {"filters": [*two["all"]["filters"], eq("one_more")]}}
    assert refused(three) == ("filter", "64 conditions")


@pytest.mark.parametrize("kind", ["all", "any"])
def test_lists_hold_one_to_sixty_four_filters(kind: str) -> None:
    filters.compile_filter(parse({kind: {"filters": [eq("a")] * 64}}), first_param=1)
    assert refused({kind: {"filters": [eq("a")] * 65}}) == (
        f"filter.{kind}.filters",
        "1–64 filters",
    )
    assert refused({kind: {"filters": []}}) == (f"filter.{kind}.filters", "1–64 filters")


def test_an_empty_filter_or_condition_is_refused() -> None:
    assert refused(knowledge_pb2.MetadataFilter())[0] == "filter"
    assert refused({"field": {"field": "a"}})[0] == "filter.field"
    assert refused({"not": {}})[0] == "filter.not"


@pytest.mark.parametrize(
    "path",
    ["a", "a.b.c.d", "A-b_9", "x" * 64, "k0.k1"],
)
def test_field_paths_accepted(path: str) -> None:
    filters.compile_filter(parse(eq(path)), first_param=1)


@pytest.mark.parametrize(
    "path",
    ["", "a.b.c.d.e", "x" * 65, "_reserved", "a._b", "a..b", "a b", 'a"b', "a.$", "é"],
)
def test_field_paths_refused(path: str) -> None:
    assert refused(eq(path)) == ("filter.field.field", filters.KEY_BOUND)


@pytest.mark.parametrize("value", [None, {"a": 1}, [1], float("nan"), float("inf")])
def test_equals_takes_a_finite_scalar(value: Any) -> None:
    message = parse(eq("a"))
    if value is None:
        message.field.equals.null_value = 0
    elif isinstance(value, float):
        message.field.equals.number_value = value
    elif isinstance(value, dict):
        message.field.equals.struct_value.update(value)
    else:
        message.field.equals.list_value.extend(value)
    assert refused(message)[0] == "filter.field.equals"


def test_in_takes_one_to_a_hundred_values_of_one_type() -> None:
    filters.compile_filter(parse({"field": {"field": "a", "in": list(range(100))}}), first_param=1)
    where = "filter.field.in"
    assert refused({"field": {"field": "a", "in": list(range(101))}}) == (where, "1–100 values")
    assert refused({"field": {"field": "a", "in": []}}) == (where, "1–100 values")
    assert refused({"field": {"field": "a", "in": [1, "1"]}}) == (where, "one type")
    assert refused({"field": {"field": "a", "in": [True, 1]}}) == (where, "one type")
    assert refused({"field": {"field": "a", "in": ["x", None]}})[0] == "filter.field.in[1]"


@pytest.mark.parametrize(
    ("bounds", "bound"),
    [
        ({}, "at least one bound"),
        ({"gt": 1, "gte": 1}, "one lower bound"),
        ({"lt": 1, "lte": 1}, "one upper bound"),
        ({"gte": 2, "lte": 1}, "lower ≤ upper"),
        ({"gt": 1, "lt": 1}, "lower ≤ upper"),
        ({"gte": 1, "lt": 1}, "lower ≤ upper"),
    ],
)
def test_number_ranges_refused(bounds: dict[str, float], bound: str) -> None:
    assert refused({"field": {"field": "n", "numberRange": bounds}}) == (
        "filter.field.number_range",
        bound,
    )


def test_number_ranges_accepted_at_their_edges() -> None:
    for bounds in ({"gte": 1, "lte": 1}, {"gt": -1e300}, {"lte": 0}, {"gt": 0, "lt": 1e-9}):
        filters.compile_filter(
            parse({"field": {"field": "n", "numberRange": bounds}}), first_param=1
        )


def test_number_range_bounds_must_be_finite() -> None:
    message = parse({"field": {"field": "n", "numberRange": {"gt": 1}}})
    message.field.number_range.lt = float("inf")
    assert refused(message) == ("filter.field.number_range.lt", "a finite number")


def test_time_ranges() -> None:
    ok = {"gte": "2026-01-01T00:00:00Z", "lte": "2026-01-01T00:00:00Z"}
    compiled = filters.compile_filter(
        parse({"field": {"field": "t", "timeRange": ok}}), first_param=1
    )
    assert '"2026-01-01T00:00:00.000000Z"' in str(compiled.args)
    backwards = {"gt": "2026-01-02T00:00:00Z", "lt": "2026-01-01T00:00:00Z"}
    assert refused({"field": {"field": "t", "timeRange": backwards}}) == (
        "filter.field.time_range",
        "lower ≤ upper",
    )
    assert refused({"field": {"field": "t", "timeRange": {}}})[1] == "at least one bound"
    message = parse({"field": {"field": "t", "timeRange": {"gt": "2026-01-01T00:00:00Z"}}})
    message.field.time_range.gt.seconds = 253402300800  # 10000-01-01
    assert refused(message) == ("filter.field.time_range.gt", "0001-01-01 to 9999-12-31")


def test_canonical_text_is_stable_and_tells_filters_apart() -> None:
    a = parse({"all": {"filters": [eq("a"), eq("b")]}})
    b = parse({"all": {"filters": [eq("a"), eq("b")]}})
    c = parse({"all": {"filters": [eq("b"), eq("a")]}})
    assert filters.canonical(a) == filters.canonical(b) != filters.canonical(c)
    assert filters.canonical(None) == ""

"""quire.client.filters and quire.client.structs: the messages the builders make (no server)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from google.protobuf import json_format

from quire.client import filters as f
from quire.client.structs import to_dict, to_struct
from quire.v1 import knowledge_pb2


def as_json(value: f.Filter) -> object:
    return json_format.MessageToDict(value.message)


def test_field_conditions() -> None:
    assert as_json(f.eq("customer", "acme")) == {"field": {"field": "customer", "equals": "acme"}}
    assert as_json(f.eq("version", 3)) == {"field": {"field": "version", "equals": 3.0}}
    assert as_json(f.eq("public", True)) == {"field": {"field": "public", "equals": True}}
    assert as_json(f.any_of("tier", ["gold", "silver"])) == {
        "field": {"field": "tier", "in": ["gold", "silver"]}
    }
    assert as_json(f.range_("n", gte=2, lt=10)) == {
        "field": {"field": "n", "numberRange": {"gte": 2.0, "lt": 10.0}}
    }
    assert as_json(f.exists("archived")) == {"field": {"field": "archived", "exists": True}}
    # exists=False is the default value of the oneof member, but the oneof still records it.
    absent = f.exists("archived", present=False).message
    assert absent.field.WhichOneof("condition") == "exists" and not absent.field.exists


def test_time_range_accepts_datetimes_dates_and_strings() -> None:
    paris = timezone(timedelta(hours=2))
    built = f.time_range(
        "published",
        gte=date(2026, 3, 1),
        lt=datetime(2026, 4, 1, 2, 0, tzinfo=paris),
        gt="2026-02-28T23:00:00Z",
        lte=datetime(2026, 3, 31, 12, 0),  # naive: UTC
    ).message.field.time_range
    assert built.gte.ToDatetime(tzinfo=UTC) == datetime(2026, 3, 1, tzinfo=UTC)
    assert built.lt.ToDatetime(tzinfo=UTC) == datetime(2026, 4, 1, tzinfo=UTC)
    assert built.gt.ToDatetime(tzinfo=UTC) == datetime(2026, 2, 28, 23, tzinfo=UTC)
    assert built.lte.ToDatetime(tzinfo=UTC) == datetime(2026, 3, 31, 12, tzinfo=UTC)


def test_ranges_need_a_bound() -> None:
    with pytest.raises(ValueError, match="at least one"):
        f.range_("n")
    with pytest.raises(ValueError, match="at least one"):
        f.time_range("t")


def test_values_must_be_scalars() -> None:
    with pytest.raises(TypeError):
        f.eq("a", {"b": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        f.any_of("a", [["x"]])  # type: ignore[list-item]


def test_operators_flatten_and_negate() -> None:
    a, b, c = f.eq("a", 1), f.eq("b", 2), f.eq("c", 3)
    both = a & b & c
    assert both.message.WhichOneof("filter") == "all"
    assert len(both.message.all.filters) == 3  # one `all`, not nested pairs
    either = a | b | c
    assert either.message.WhichOneof("filter") == "any"
    assert len(either.message.any.filters) == 3
    mixed = (a & b) | c
    assert [m.WhichOneof("filter") for m in mixed.message.any.filters] == ["all", "field"]
    negated = ~a
    assert negated.message.WhichOneof("filter") == "not"
    assert ~negated == a  # double negation is the filter itself
    assert f.all_(a, b).message == (a & b).message
    assert f.any_(a, b.message).message == (a | b).message  # a ready MetadataFilter is accepted
    assert f.not_(a).message == negated.message


def test_as_message() -> None:
    ready = knowledge_pb2.MetadataFilter(field=knowledge_pb2.FieldCondition(field="x", exists=True))
    assert f.as_message(None) is None
    assert f.as_message(ready) is ready
    assert f.as_message(f.exists("x")) == ready


def test_struct_round_trip() -> None:
    metadata = {
        "customer": {"name": "acme", "tier": "gold"},
        "tags": ["a", "b"],
        "version": 3,
        "score": 0.5,
        "public": True,
        "note": None,
    }
    struct = to_struct(metadata)
    assert json_format.MessageToDict(struct) == {**metadata, "version": 3.0}
    assert to_dict(struct) == metadata
    assert isinstance(to_dict(struct)["version"], int)
    big = to_dict(to_struct({"n": float(2**60)}))["n"]
    assert isinstance(big, float)  # beyond 2**53 a whole number is not trusted as an int

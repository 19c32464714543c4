"""Builders for `quire.v1.MetadataFilter`, the metadata condition of SearchKnowledge,
ListDocuments and DeleteDocuments (docs/knowledge.md, "Filters").

    from quire.client import filters as f

    wanted = f.eq("customer", "acme") & f.range_("version", gte=2) & ~f.exists("archived")
    await client.search_knowledge(collection_ids=[cid], query="refunds", filter=wanted)

Every builder returns a `Filter`; `&` is `all_`, `|` is `any_`, `~` is `not_`. `.message` is
the `MetadataFilter`. The client methods accept a `Filter` or a ready `MetadataFilter`. The
server checks the bounds (1–100 `any_of` values of one type, at most 8 levels and 64
conditions); the builders only refuse what cannot be expressed at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TypeVar

from google.protobuf import timestamp_pb2

from quire.client.structs import to_value
from quire.v1 import knowledge_pb2

Scalar = str | int | float | bool
TimeArg = datetime | date | str
_T = TypeVar("_T")


@dataclass(frozen=True)
class Filter:
    """One MetadataFilter; combine with `&`, `|` and `~`."""

    message: knowledge_pb2.MetadataFilter

    def __and__(self, other: Filter) -> Filter:
        return all_(*_members(self, "all"), *_members(other, "all"))

    def __or__(self, other: Filter) -> Filter:
        return any_(*_members(self, "any"), *_members(other, "any"))

    def __invert__(self) -> Filter:
        if self.message.WhichOneof("filter") == "not":
            return Filter(getattr(self.message, "not"))
        return not_(self)


FilterArg = Filter | knowledge_pb2.MetadataFilter


def as_message(value: FilterArg | None) -> knowledge_pb2.MetadataFilter | None:
    """The MetadataFilter of a client argument (None stays None)."""
    if value is None or isinstance(value, knowledge_pb2.MetadataFilter):
        return value
    return value.message


def eq(field: str, value: Scalar) -> Filter:
    """`field` equals `value`, or is a list containing it."""
    _check_scalar(value)
    condition = knowledge_pb2.FieldCondition(field=field, equals=to_value(value))
    return _field(condition)


def any_of(field: str, values: Iterable[Scalar]) -> Filter:
    """`field` equals one of `values` (the proto's `in`; 1–100 values of one type)."""
    items = list(values)
    for value in items:
        _check_scalar(value)
    condition = knowledge_pb2.FieldCondition(field=field)
    getattr(condition, "in").extend(items)
    return _field(condition)


def range_(
    field: str,
    *,
    gt: float | None = None,
    gte: float | None = None,
    lt: float | None = None,
    lte: float | None = None,
) -> Filter:
    """`field` is a number within the bounds given (at least one)."""
    bounds = _given(gt=gt, gte=gte, lt=lt, lte=lte)
    if not bounds:
        raise ValueError("range_ needs at least one of gt, gte, lt, lte")
    number_range = knowledge_pb2.NumberRange(**{k: float(v) for k, v in bounds.items()})
    return _field(knowledge_pb2.FieldCondition(field=field, number_range=number_range))


def time_range(
    field: str,
    *,
    gt: TimeArg | None = None,
    gte: TimeArg | None = None,
    lt: TimeArg | None = None,
    lte: TimeArg | None = None,
) -> Filter:
    """`field` is an RFC 3339 timestamp string within the bounds given (at least one).

    Bounds are `datetime` (a naive one is taken as UTC), `date` (its midnight UTC) or an
    RFC 3339 string.
    """
    bounds: dict[str, TimeArg] = _given(gt=gt, gte=gte, lt=lt, lte=lte)
    if not bounds:
        raise ValueError("time_range needs at least one of gt, gte, lt, lte")
    stamps = {k: _timestamp(v) for k, v in bounds.items()}
    condition = knowledge_pb2.FieldCondition(
        field=field, time_range=knowledge_pb2.TimeRange(**stamps)
    )
    return _field(condition)


def exists(field: str, present: bool = True) -> Filter:
    """`field` is present (any value, null included); `present=False`: it is absent."""
    return _field(knowledge_pb2.FieldCondition(field=field, exists=present))


def all_(*filters: FilterArg) -> Filter:
    """Every filter holds."""
    return Filter(knowledge_pb2.MetadataFilter(all=_list(filters)))


def any_(*filters: FilterArg) -> Filter:
    """At least one filter holds."""
    return Filter(knowledge_pb2.MetadataFilter(any=_list(filters)))


def not_(inner: FilterArg) -> Filter:
    """The filter does not hold."""
    message = knowledge_pb2.MetadataFilter()
    getattr(message, "not").CopyFrom(_message(inner))
    return Filter(message)


def _message(value: FilterArg) -> knowledge_pb2.MetadataFilter:
    return value if isinstance(value, knowledge_pb2.MetadataFilter) else value.message


def _given(**bounds: _T | None) -> dict[str, _T]:
    return {name: value for name, value in bounds.items() if value is not None}


def _field(condition: knowledge_pb2.FieldCondition) -> Filter:
    return Filter(knowledge_pb2.MetadataFilter(field=condition))


def _list(filters: Iterable[FilterArg]) -> knowledge_pb2.FilterList:
    return knowledge_pb2.FilterList(filters=[_message(f) for f in filters])


def _members(value: Filter, kind: str) -> list[knowledge_pb2.MetadataFilter]:
    """Flattens `a & b & c` into one `all` (and `|` into one `any`) instead of nesting."""
    if value.message.WhichOneof("filter") == kind:
        return list(getattr(value.message, kind).filters)
    return [value.message]


def _check_scalar(value: object) -> None:
    if not isinstance(value, str | int | float | bool):
        raise TypeError(f"a filter value is a string, number or bool, not {type(value).__name__}")


def _timestamp(value: TimeArg) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    if isinstance(value, str):
        stamp.FromJsonString(value)
    elif isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        stamp.FromDatetime(aware.astimezone(UTC))
    else:
        stamp.FromDatetime(datetime(value.year, value.month, value.day, tzinfo=UTC))
    return stamp


__all__ = [
    "Filter",
    "FilterArg",
    "all_",
    "any_",
    "any_of",
    "as_message",
    "eq",
    "exists",
    "not_",
    "range_",
    "time_range",
]

"""Document metadata (quire.server.knowledge.metadata): every bound at its edge, the path a
refusal names, the canonical JSON and RFC 7396 merge patches."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import struct_pb2

from quire.server.failures import QuireError
from quire.server.knowledge import metadata


def struct(value: dict[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(value)
    return s


def refusal(value: dict[str, Any] | struct_pb2.Struct) -> tuple[str, str]:
    """(field, bound) of the INVALID_REQUEST the value gets."""
    with pytest.raises(QuireError) as caught:
        metadata.from_struct(value if isinstance(value, struct_pb2.Struct) else struct(value))
    (violation,) = caught.value.violations
    return violation.field, violation.bound


def nested(levels: int) -> dict[str, Any]:
    """An object `levels` deep (the top object is level 1)."""
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def test_canonical_json_sorts_keys_and_writes_integers_as_integers() -> None:
    checked = metadata.from_struct(struct({"b": 2, "a": [1.5, "é", None, True]}))
    assert checked.json == '{"a":[1.5,"é",null,true],"b":2}'
    assert checked.value == {"a": [1.5, "é", None, True], "b": 2}


def test_size_bound_counts_compact_utf8_bytes() -> None:
    overhead = len(',"k":""')  # one more member of the object
    at_bound = {f"k{i}": "x" * 4000 for i in range(4)}
    fill = metadata.MAX_BYTES - len(metadata.canonical_json(at_bound)) - overhead
    at_bound["k"] = "x" * fill
    assert len(metadata.from_struct(struct(at_bound)).json.encode()) == 16384
    at_bound["k"] += "x"
    assert refusal(at_bound) == ("metadata", "16384 bytes")
    # Multi-byte characters count by their UTF-8 bytes.
    at_bound["k"] = "é" * (fill // 2) + "x" * (fill % 2)
    assert len(metadata.from_struct(struct(at_bound)).json.encode()) == 16384


def test_depth_four_accepted_five_refused() -> None:
    assert metadata.from_struct(struct(nested(4)))
    assert metadata.from_struct(struct({"a": {"b": {"c": [1, 2]}}}))
    assert refusal(nested(5)) == ("metadata.a.a.a.a", "4 levels")
    assert refusal({"a": {"b": {"c": [[1]]}}}) == ("metadata.a.b.c[0]", "4 levels")


def test_keys_per_object() -> None:
    assert metadata.from_struct(struct({f"k{i}": i for i in range(128)}))
    assert refusal({f"k{i}": i for i in range(129)}) == ("metadata", "128 keys")
    assert refusal({"inner": {f"k{i}": i for i in range(129)}}) == ("metadata.inner", "128 keys")


@pytest.mark.parametrize("key", ["a", "A-z_0", "x" * 64, "a_"])
def test_key_names_accepted(key: str) -> None:
    assert metadata.from_struct(struct({key: 1})).value == {key: 1}


@pytest.mark.parametrize("key", ["", "x" * 65, "_reserved", "a.b", "a b", "é", "a\n"])
def test_key_names_refused(key: str) -> None:
    field, bound = refusal({"outer": {key: 1}})
    assert field == f"metadata.outer.{key}"
    assert bound == metadata.KEY_BOUND


def test_strings_and_lists_at_their_bounds() -> None:
    assert metadata.from_struct(struct({"s": "x" * 4096, "l": list(range(256))}))
    assert refusal({"s": "x" * 4097}) == ("metadata.s", "4096 characters")
    assert refusal({"l": list(range(257))}) == ("metadata.l", "256 items")
    assert refusal({"tags": ["a", "b", "c", "x" * 4097]}) == ("metadata.tags[3]", "4096 characters")


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_numbers_must_be_finite(number: float) -> None:
    assert refusal({"n": number}) == ("metadata.n", "finite numbers")
    assert refusal({"l": [1, number]}) == ("metadata.l[1]", "finite numbers")


def test_nul_in_a_string_is_refused() -> None:
    assert refusal({"s": "a\x00b"})[0] == "metadata.s"


def test_large_integers_stay_doubles_beyond_two_to_the_53() -> None:
    assert metadata.from_struct(struct({"n": 2**53})).json == '{"n":9007199254740992}'
    assert metadata.from_struct(struct({"n": 2.0**60})).json == '{"n":1.152921504606847e+18}'


def test_checked_names_the_field_it_is_given() -> None:
    with pytest.raises(QuireError) as caught:
        metadata.checked({"_x": 1}, "patch")
    assert caught.value.violations[0].field == "patch._x"


def test_merge_patch_follows_rfc_7396() -> None:
    target = {"a": "b", "c": {"d": "e", "f": "g"}, "tags": [1, 2]}
    patch = {"a": "z", "c": {"f": None, "h": 1}, "tags": [3], "new": {"x": None}}
    assert metadata.merge_patch(target, patch) == {
        "a": "z",
        "c": {"d": "e", "h": 1},
        "tags": [3],
        "new": {},
    }
    assert metadata.merge_patch(target, {}) == target
    assert metadata.merge_patch({"a": 1}, {"a": None}) == {}
    assert metadata.merge_patch({"a": 1}, {"a": {"b": 2}}) == {"a": {"b": 2}}
    assert target["c"] == {"d": "e", "f": "g"}, "the target is not modified"


def test_stored_text_round_trips_to_a_struct() -> None:
    value = metadata.parse_stored('{"a": [1, "x"], "b": {"c": null}}')
    assert metadata.to_struct(value) == struct({"a": [1, "x"], "b": {"c": None}})
    assert metadata.parse_stored(None) == {}

"""`canonical_json.size` sizes most messages from their field values without encoding them
(every search sizes each hit for its budget): it must equal the encoded length, byte for byte,
for every message of the contract, empty and filled field by field (escapes, multi-byte text,
negative zero, NaN and infinities, 64-bit integers, unset messages with presence)."""

from __future__ import annotations

import pytest
from google.protobuf.message import Message

from quire.server import canonical_json
from quire.v1 import pages_pb2
from tests.unit.test_proto_json import CLASSES, fill


def encoded_size(message: Message) -> int:
    return len(canonical_json.dumps(canonical_json.as_dict(message)))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.DESCRIPTOR.full_name)
def test_size_equals_the_encoded_length(cls: type[Message]) -> None:
    for seed in range(8):
        message = cls()
        if seed:
            fill(message, seed)
        assert canonical_json.size(message) == encoded_size(message), (seed, message)


def test_search_results_are_sized_without_encoding() -> None:
    # The messages every search sizes take the field-by-field path (a plan exists), not the
    # encoding fallback; the fallback itself is covered above for the types without a plan.
    for cls in (pages_pb2.SearchHit, pages_pb2.SearchResult):
        assert canonical_json._plan(cls.DESCRIPTOR) is not None, cls.DESCRIPTOR.full_name
    hit = pages_pb2.SearchHit(content="x" * 10_000 + 'é\n"', score=-0.0, heading_path=["a"])
    assert canonical_json.size(hit) == encoded_size(hit)

"""`to_tool_result`: the canonical JSON of a call's result (what output budgets count)."""

from __future__ import annotations

import json

from quire.client import to_tool_result
from quire.v1 import knowledge_pb2, pages_pb2


def test_every_field_present_keys_sorted_int64_as_strings() -> None:
    text = to_tool_result(knowledge_pb2.Document(document_id="d", size_bytes=2**64 - 1))
    body = json.loads(text)
    assert list(body) == sorted(body)
    assert body["size_bytes"] == str(2**64 - 1) and body["revision"] == "0"
    assert body["extract_error"] == "" and body["status"] == "DOCUMENT_STATUS_UNSPECIFIED"
    assert "created_at" not in body  # a message field that is not set stays out
    assert ", " not in text and ": " not in text


def test_lists_raw_utf8_and_doubles() -> None:
    hit = pages_pb2.SearchHit(title="café — 🚀", score=1.0)
    text = to_tool_result([pages_pb2.SearchResult(hits=[hit]), pages_pb2.SearchResult()])
    assert text.startswith("[{") and '"title":"café — 🚀"' in text and '"score":1.0' in text
    assert json.loads(text)[1]["hits"] == []

"""The bounds table generated from the proto: what the server's checks assume of it, and that
the checks built from it accept and refuse what the hand-written ones did."""

from __future__ import annotations

import re

import pytest

from quire.indexer.pages.language import DEFAULT_LANGUAGE
from quire.server.contract import bounds as contract_bounds
from quire.server.contract.bounds import BOUNDS, FieldBounds
from quire.server.failures import QuireError
from quire.server.services.pages import TRANSFORMS
from quire.server.validation import NAMESPACE, bounded, name_field, whole_match, within


def _fields(name: str) -> dict[str, FieldBounds]:
    return {message: fields[name] for message, fields in BOUNDS.items() if name in fields}


def test_every_request_namespace_has_the_bounds_name_field_checks_by_default() -> None:
    namespaces = _fields("namespace")
    assert len(namespaces) == 9  # DescribeTools' binding is a namespace too
    assert set(namespaces.values()) == {NAMESPACE}


def test_collection_lists_and_agent_ids_are_bounded_alike_everywhere() -> None:
    lists = {*_fields("collection_ids").values(), *_fields("attached_collection_ids").values()}
    assert {b.max_items for b in lists} == {100}
    assert {b.max_chars for b in _fields("agent_id").values()} == {128}


def test_defaults_agree_with_the_code_that_applies_them() -> None:
    assert contract_bounds.SyncStart.language.default == DEFAULT_LANGUAGE
    assert contract_bounds.SyncStart.transform.default in TRANSFORMS


# The expressions the server used before its numbers came from the contract.
HAND_WRITTEN = {
    "namespace": (re.compile(r"[A-Za-z0-9._-]{1,128}"), NAMESPACE),
    "agent_id": (
        re.compile(r"[A-Za-z0-9._:-]{1,128}"),
        contract_bounds.UpsertAgentRequest.agent_id,
    ),
    "dataset": (
        re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"),
        contract_bounds.RunGateRequest.dataset,
    ),
}
EDGES = [
    "", "a", ".", "..", ".a", "_a", "-a", "a.", "a\n", "\na", "a b", "a/b", "é", "a:b", "a\x00",
    *("x" * n for n in (63, 64, 65, 127, 128, 129)),
    *("." + "x" * n for n in (62, 63, 64)),
]  # fmt: skip


@pytest.mark.parametrize("field", list(HAND_WRITTEN))
def test_patterns_built_from_the_contract_match_what_the_hand_written_ones_did(
    field: str,
) -> None:
    old, bounds = HAND_WRITTEN[field]
    new = whole_match(bounds)
    for value in EDGES:
        assert bool(new.fullmatch(value)) == bool(old.fullmatch(value)), (field, value)


def test_name_field_message_names_the_contract_bounds() -> None:
    with pytest.raises(QuireError) as refused:
        name_field("agent_id", "a b", contract_bounds.UpsertAgentRequest.agent_id)
    assert "1–128 characters of [A-Za-z0-9._:-]" in str(refused.value)


@pytest.mark.parametrize(
    ("bounds", "old"),
    [
        (contract_bounds.SearchPagesRequest.limit, (1, 20, 10)),
        (contract_bounds.SearchPagesRequest.max_output_bytes, (24_000, 32_000, 24_000)),
        (contract_bounds.ReadPageRequest.max_chars, (1, 24_000, 12_000)),
        (contract_bounds.ListPagesRequest.limit, (1, 200, 100)),
        (contract_bounds.GrepPagesRequest.limit, (1, 100, 20)),
        (contract_bounds.ListDocumentsRequest.limit, (1, 500, 100)),
        (contract_bounds.ReadDocumentRequest.max_chars, (1, 4000, 4000)),
    ],
)
def test_numeric_ranges_are_the_hand_written_ones(
    bounds: FieldBounds, old: tuple[int, int, int]
) -> None:
    low, high, default = old
    for value in (0, 1, low - 1, low, high, high + 1, 2**32 - 1):
        try:
            expected: int | str = bounded("f", value, low, high, default)
        except QuireError as exc:
            expected = str(exc)
        try:
            got: int | str = within("f", value, bounds)
        except QuireError as exc:
            got = str(exc)
        assert got == expected, value


def test_string_bounds_are_the_hand_written_ones() -> None:
    c = contract_bounds
    assert (c.SearchPagesRequest.query.max_chars, c.SearchPagesRequest.alternatives.max_items) == (
        500,
        3,
    )
    assert c.ReadPageRequest.path.max_chars == c.ListPagesRequest.prefix.max_chars == 1024
    assert c.ReadPageRequest.revision.max_chars == 128
    assert c.ReadPageRequest.offset.max == c.ReadDocumentRequest.offset.max == 2**31 - 1
    assert c.ListPagesRequest.cursor.max_chars == 4096
    assert c.ListDocumentsRequest.cursor.max_chars == 1024
    assert c.GrepPagesRequest.query.max_chars == 256
    assert c.RunCommandRequest.command.max_chars == 1024
    assert c.SyncStart.url.max_chars == c.SyncStart.public_url.max_chars == 2048
    assert c.SyncStart.index_version.max_chars == c.RebuildIndexRequest.index_version.max_chars
    assert c.SyncStart.language.max_chars == 35
    assert c.CreateCollectionRequest.name.max_chars == 200
    assert c.UploadMetadata.file_name.max_chars == c.UploadMetadata.mime_type.max_chars == 255
    assert c.SearchKnowledgeRequest.query.max_chars == 500
    assert c.SetRetrievalPolicyRequest.max_search_limit.max == 50
    assert c.RevokeApiKeyRequest.key_id.max_chars == 64
    assert c.PageSearchConfig.max_parallel_workers_per_gather.max == 1024
    assert c.PageSearchConfig.min_parallel_table_scan_size.max == 715_827_882

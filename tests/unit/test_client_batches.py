"""How the batch helpers split documents into UploadDocuments calls, walk and plan a folder,
and turn watched documents into outcomes (no server)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quire.client import batches as b
from quire.client.exceptions import InvalidRequest
from quire.client.waiting import DocumentOutcome, Searchable, finish, settled
from quire.v1 import knowledge_pb2, knowledge_service_pb2


def test_split_at_the_document_bound() -> None:
    assert b.split_batches([1] * 1000) == [list(range(1000))]
    split = b.split_batches([1] * 1001)
    assert [len(batch) for batch in split] == [1000, 1]
    assert split[1] == [1000]
    assert b.split_batches([1] * 5, max_documents=2) == [[0, 1], [2, 3], [4]]


def test_split_at_the_byte_bound() -> None:
    assert b.split_batches([40, 60], max_bytes=100) == [[0, 1]]  # exactly at the bound
    assert b.split_batches([40, 61], max_bytes=100) == [[0], [1]]  # one byte past it
    # A document larger than the bound goes alone (the server refuses that call by itself).
    assert b.split_batches([10, 500, 10], max_bytes=100) == [[0], [1], [2]]
    assert b.split_batches([]) == []
    assert b.DEFAULT_MAX_BATCH_BYTES == 64 * 1024 * 1024


def test_batch_requests_start_each_document_with_metadata() -> None:
    items = [
        b.UploadItem("a.txt", b"x" * 5, external_key="k/a", metadata={"n": 1}),
        b.as_item(("b.txt", b"")),
        b.as_item(("c.bin", b"y" * 5, None, None, "text/plain")),
    ]
    messages = list(b.batch_requests("cid", items, size=2))
    kinds = [m.WhichOneof("message") for m in messages]
    data3 = ["data"] * 3
    assert kinds == ["metadata", *data3, "metadata", "metadata", *data3]
    first = messages[0].metadata
    assert first.collection_id == "cid" and first.external_key == "k/a"
    assert first.metadata.fields["n"].number_value == 1
    second = messages[4].metadata
    assert not second.HasField("external_key") and not second.HasField("metadata")
    assert messages[5].metadata.mime_type == "text/plain"
    assert b"".join(m.data for m in messages[1:4]) == b"x" * 5


def test_upload_metadata_keeps_an_empty_key_present() -> None:
    # An explicitly empty key must reach the server (which refuses it), not vanish.
    assert b.upload_metadata("c", "f", external_key="").HasField("external_key")
    assert not b.upload_metadata("c", "f").HasField("external_key")


def test_renumber_maps_call_positions_to_input_positions() -> None:
    results = [
        knowledge_service_pb2.UploadResult(index=0, outcome=knowledge_pb2.UPLOAD_OUTCOME_CREATED),
        knowledge_service_pb2.UploadResult(index=1, outcome=knowledge_pb2.UPLOAD_OUTCOME_UNCHANGED),
    ]
    out = b.renumber(results, [1000, 1001])
    assert [r.index for r in out] == [1000, 1001]
    assert [r.outcome for r in out] == [r.outcome for r in results]
    assert results[0].index == 0  # the call's own results are left alone


def test_walk_folder_keys_and_filters(tmp_path: Path) -> None:
    (tmp_path / "docs" / "deep").mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "docs" / "b.md").write_text("bb")
    (tmp_path / "docs" / "deep" / "c.md").write_text("ccc")
    (tmp_path / ".hidden.txt").write_text("h")
    (tmp_path / ".git" / "config").write_text("g")
    (tmp_path / "link.txt").symlink_to(tmp_path / "a.txt")
    found = b.walk_folder(tmp_path)
    assert [(f.key, f.size) for f in found] == [
        ("a.txt", 1),
        ("docs/b.md", 2),
        ("docs/deep/c.md", 3),
    ]
    only_md = b.walk_folder(tmp_path, include=["*.md"])
    assert [f.key for f in only_md] == ["docs/b.md", "docs/deep/c.md"]
    assert [f.key for f in b.walk_folder(tmp_path, include=["docs/deep/*"])] == ["docs/deep/c.md"]


def test_a_name_that_is_not_utf8_is_refused_alone(tmp_path: Path) -> None:
    (tmp_path / "good.txt").write_text("ok")
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.txt"), "wb") as file:
        file.write(b"x")
    kept, refused = b.refuse_misnamed(b.walk_folder(tmp_path))
    assert [f.key for f in kept] == ["good.txt"]
    [result] = refused
    assert isinstance(result.error, InvalidRequest)
    assert result.error.message == "file_name is not valid UTF-8: caf\\xe9.txt (rename the file)"
    # Sent on its own, the name is a typed error before any call, not a UnicodeEncodeError.
    with pytest.raises(InvalidRequest, match="not valid UTF-8"):
        b.upload_metadata("c", os.fsdecode(b"caf\xe9.txt"))
    assert b.shown_name(os.fsdecode(b"caf\xe9.txt")) == "caf\\xe9.txt"
    assert b.shown_name("caf\u00e9.txt") == "caf\u00e9.txt"


def test_plan_folder_streams_large_files_alone() -> None:
    mib = 1024 * 1024
    files = [
        b.FolderFile(Path(f"f{i}"), f"f{i}", size)
        for i, size in enumerate([mib, mib + 1, 10, 20, 30])
    ]
    plan = b.plan_folder(files, batch_documents=2)
    assert [f.key for f in plan.singles] == ["f1"]  # 1 MiB + 1 byte
    assert [[f.key for f in batch] for batch in plan.batches] == [["f0", "f2"], ["f3", "f4"]]
    by_bytes = b.plan_folder(files, batch_bytes=mib + 10)
    assert [[f.key for f in batch] for batch in by_bytes.batches] == [["f0", "f2"], ["f3", "f4"]]


def _doc(status: int, index_state: int, error: str = "") -> knowledge_pb2.Document:
    return knowledge_pb2.Document(
        document_id="d",
        status=status,
        index_state=index_state,
        extract_error=error,  # type: ignore[arg-type]
    )


def test_settled_outcomes() -> None:
    s, i = knowledge_pb2, knowledge_pb2
    assert settled(_doc(s.DOCUMENT_STATUS_READY, i.DOCUMENT_INDEX_STATE_PENDING)) is None
    assert settled(_doc(s.DOCUMENT_STATUS_PENDING, i.DOCUMENT_INDEX_STATE_PENDING)) is None
    ready = settled(_doc(s.DOCUMENT_STATUS_READY, i.DOCUMENT_INDEX_STATE_INDEXED))
    assert ready == DocumentOutcome("d", Searchable.INDEXED)
    empty = settled(_doc(s.DOCUMENT_STATUS_READY, i.DOCUMENT_INDEX_STATE_NO_TEXT))
    assert empty == DocumentOutcome("d", Searchable.NO_TEXT)
    failed = settled(_doc(s.DOCUMENT_STATUS_FAILED, i.DOCUMENT_INDEX_STATE_FAILED, "bad pdf"))
    assert failed == DocumentOutcome("d", Searchable.FAILED, "bad pdf")
    gone = settled(_doc(s.DOCUMENT_STATUS_DELETED, i.DOCUMENT_INDEX_STATE_UNSPECIFIED))
    assert gone == DocumentOutcome("d", Searchable.DELETED)


def test_finish_orders_and_times_out_the_rest() -> None:
    known = {"b": DocumentOutcome("b", Searchable.INDEXED)}
    result = finish(["a", "b"], known)
    assert [(o.document_id, o.outcome) for o in result.outcomes] == [
        ("a", Searchable.TIMED_OUT),
        ("b", Searchable.INDEXED),
    ]
    assert not result.complete
    assert finish(["b"], known).complete
    assert result.by_id()["b"].outcome is Searchable.INDEXED

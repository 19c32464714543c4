"""wait_until_searchable's watch loop: a dropped watch (UNAVAILABLE) is reopened for the
documents still pending, and the deadline ends it without raising (no server: the client's
watch and GetDocument are replaced by scripted ones)."""

# ruff: noqa: ASYNC109  (`_watch` keeps the signature of the method it replaces)

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterable

import quire.client as qc
from quire.client import AsyncQuireClient, Searchable
from quire.v1 import knowledge_pb2

PENDING = knowledge_pb2.DOCUMENT_INDEX_STATE_PENDING
INDEXED = knowledge_pb2.DOCUMENT_INDEX_STATE_INDEXED
READY = knowledge_pb2.DOCUMENT_STATUS_READY


def doc(document_id: str, state: int) -> knowledge_pb2.Document:
    return knowledge_pb2.Document(
        document_id=document_id,
        collection_id="c",
        status=READY,
        index_state=state,  # type: ignore[arg-type]
    )


class Scripted(AsyncQuireClient):
    """Each watch opened plays the next script; a script ending in None drops (UNAVAILABLE)."""

    def __init__(self, scripts: list[list[knowledge_pb2.Document | None]]) -> None:
        super().__init__("127.0.0.1:1", api_key="qk_test")
        self.scripts = scripts
        self.opened: list[list[str]] = []

    async def get_document(self, **kwargs: object) -> knowledge_pb2.Document:
        return doc(str(kwargs["document_id"]), PENDING)

    async def _watch(
        self, collection_id: str, document_ids: Iterable[str], timeout: float | None
    ) -> AsyncGenerator[knowledge_pb2.Document, None]:
        self.opened.append(list(document_ids))
        script = self.scripts.pop(0) if self.scripts else []
        for item in script:
            if item is None:
                raise qc.Unavailable("dropped")
            yield item
        await asyncio.sleep(timeout or 0)
        raise qc.DeadlineExceeded("deadline")


async def test_a_dropped_watch_is_reopened_for_what_is_pending() -> None:
    client = Scripted([[doc("a", PENDING), doc("a", INDEXED), None], [doc("b", INDEXED)]])
    try:
        result = await client.wait_until_searchable(document_ids=["a", "b"], timeout=10)
    finally:
        await client.close()
    assert result.complete
    assert [o.outcome for o in result.outcomes] == [Searchable.INDEXED, Searchable.INDEXED]
    assert client.opened == [["a", "b"], ["b"]]


async def test_the_deadline_times_out_the_rest_without_raising() -> None:
    client = Scripted([[doc("a", INDEXED)]])
    try:
        result = await client.wait_until_searchable(document_ids=["a", "b"], timeout=0.2)
    finally:
        await client.close()
    assert not result.complete
    assert [(o.document_id, o.outcome) for o in result.outcomes] == [
        ("a", Searchable.INDEXED),
        ("b", Searchable.TIMED_OUT),
    ]

"""The worker's count of documents in flight (worker/in_flight.py): what enters leaves once,
per organisation, a huge text counts only its capped charge, and `drained` follows the count.
No database: documents without a job never reach one."""

from __future__ import annotations

import uuid

from quire.indexer.worker.in_flight import DOC_CHARS_CHARGE, Document, InFlight
from tests.support.worker_documents import a_document

ORG_A, ORG_B = uuid.UUID(int=1), uuid.UUID(int=2)


def document(org: uuid.UUID, text: str) -> Document:
    return a_document(org_id=org, text=text)


async def test_documents_are_counted_per_organisation_and_leave_once() -> None:
    in_flight = InFlight(pool=None)  # type: ignore[arg-type]  # no job: no statement
    small, other = document(ORG_A, "x" * 10), document(ORG_B, "z")
    huge = document(ORG_A, "y" * (DOC_CHARS_CHARGE + 5))
    for each in (small, huge, other):
        in_flight.enter(each)
    assert (in_flight.docs, in_flight.chars) == (3, 10 + DOC_CHARS_CHARGE + 1)
    assert in_flight.org_docs == {ORG_A: 2, ORG_B: 1}
    assert in_flight.org_chars[ORG_A] == 10 + DOC_CHARS_CHARGE, "a huge text counts its cap"
    assert not in_flight.drained.is_set()

    await in_flight.complete(huge, True)
    await in_flight.complete(huge, False)  # a second end of the same document changes nothing
    assert huge.outcome.result() is True
    assert (in_flight.docs, in_flight.org_docs) == (2, {ORG_A: 1, ORG_B: 1})
    assert in_flight.progress.is_set(), "a document leaving gives the claims room"

    in_flight.abandon([small, other])
    assert small.outcome.cancelled() and other.outcome.cancelled()
    assert (in_flight.docs, in_flight.chars) == (0, 0)
    assert in_flight.org_docs == {} and in_flight.org_chars == {} and in_flight.active == {}
    assert in_flight.drained.is_set()


async def test_a_newer_pass_of_the_same_document_stays_active() -> None:
    in_flight = InFlight(pool=None)  # type: ignore[arg-type]
    first = document(ORG_A, "old")
    second = document(ORG_A, "new")
    second.document_id = first.document_id
    in_flight.enter(first)
    in_flight.enter(second)
    await in_flight.complete(first, True)
    assert in_flight.active == {(ORG_A, first.document_id): second}

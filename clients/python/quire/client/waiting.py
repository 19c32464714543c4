"""What `wait_until_searchable` returns, and how a Document's state maps to an outcome."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from quire.v1 import knowledge_pb2


class Searchable(enum.StrEnum):
    """A document's outcome of `wait_until_searchable`."""

    INDEXED = "INDEXED"  # the serving index holds its current text
    FAILED = "FAILED"  # extraction failed for good; `reason` is the extract_error
    NO_TEXT = "NO_TEXT"  # extracted, but there is no text to index
    DELETED = "DELETED"  # deleted, or no such document
    TIMED_OUT = "TIMED_OUT"  # the timeout came first


@dataclass(frozen=True)
class DocumentOutcome:
    document_id: str
    outcome: Searchable
    reason: str = ""


@dataclass
class WaitResult:
    """One outcome per document, in the order asked for (collection form: by document id)."""

    outcomes: list[DocumentOutcome] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when no document timed out."""
        return all(o.outcome is not Searchable.TIMED_OUT for o in self.outcomes)

    def by_id(self) -> dict[str, DocumentOutcome]:
        return {o.document_id: o for o in self.outcomes}


def settled(document: knowledge_pb2.Document) -> DocumentOutcome | None:
    """The document's final outcome, or None while it is still on its way to the index."""
    doc_id = document.document_id
    if document.status == knowledge_pb2.DOCUMENT_STATUS_DELETED:
        return DocumentOutcome(doc_id, Searchable.DELETED)
    state = document.index_state
    if state == knowledge_pb2.DOCUMENT_INDEX_STATE_INDEXED:
        return DocumentOutcome(doc_id, Searchable.INDEXED)
    if state == knowledge_pb2.DOCUMENT_INDEX_STATE_NO_TEXT:
        return DocumentOutcome(doc_id, Searchable.NO_TEXT)
    if (
        state == knowledge_pb2.DOCUMENT_INDEX_STATE_FAILED
        or document.status == knowledge_pb2.DOCUMENT_STATUS_FAILED
    ):
        return DocumentOutcome(doc_id, Searchable.FAILED, document.extract_error)
    return None


def finish(order: list[str], known: dict[str, DocumentOutcome]) -> WaitResult:
    """Outcomes in `order`; a document without one timed out."""
    return WaitResult(
        [known.get(doc_id) or DocumentOutcome(doc_id, Searchable.TIMED_OUT) for doc_id in order]
    )


__all__ = ["DocumentOutcome", "Searchable", "WaitResult", "finish", "settled"]

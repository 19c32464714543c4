"""Documents as the worker's stages hold them (worker/in_flight.py), for unit tests of a stage
on its own: no database row behind them, no job (so no stage reaches the database for them)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from quire.indexer.worker.in_flight import Document

ORG = uuid.UUID(int=1)


def a_document(
    *,
    org_id: uuid.UUID = ORG,
    text: str = "t",
    chunks: int = 0,
    outcome: asyncio.Future[bool] | None = None,
) -> Document:
    """A new document of `org_id` with `text` and, when `chunks`, that many chunk texts
    (already chunked). `outcome`: a future of another loop than the running one's, if any."""
    made = Document(
        org_id=org_id,
        collection_id=uuid.UUID(int=100),
        document_id=uuid.uuid4(),
        file_name="pumps.md",
        text=text,
        text_as_of=datetime.now(UTC),
        generations=[1],
        job=None,
        **({"outcome": outcome} if outcome is not None else {}),
    )
    made.texts = ["t"] * chunks
    return made

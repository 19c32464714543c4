"""How much the claim stage may claim (worker/claims.py): the batch size within the pipeline's
bound, nothing while the embedder has enough queued, and, when full, a fair claim for the
organisations with little in the pipeline. No database: only the room is asked."""

from __future__ import annotations

import asyncio
import uuid

import numpy as np

from quire.indexer.ingest.embed_stage import DIMENSION, EmbedEntry, EmbedStage, Vectors
from quire.indexer.worker import claims
from quire.indexer.worker.in_flight import MAX_IN_FLIGHT_DOCS, InFlight
from tests.support.worker_documents import a_document

BULK, SMALL = uuid.UUID(int=1), uuid.UUID(int=2)


class ZeroEmbedder:
    fingerprint = "test"

    async def embed_bulk(self, texts: list[str]) -> Vectors:
        return np.zeros((len(texts), DIMENSION), dtype=np.float32)


def stage(in_flight: InFlight, embedding: EmbedStage, extracting: int = 0) -> claims.Claims:
    async def handle(_: object) -> None:
        raise AssertionError("room is asked, nothing claimed")

    return claims.Claims(
        None,  # type: ignore[arg-type]  # never queried here
        in_flight,
        embedding,
        owner="worker",
        worker_id="w:1",
        model="m",
        handle=handle,
        extracting=lambda: extracting,
        busy=lambda: False,
    )


def fill(in_flight: InFlight, org: uuid.UUID, documents: int) -> None:
    for _ in range(documents):
        in_flight.enter(a_document(org_id=org))


async def test_an_empty_pipeline_claims_a_full_batch() -> None:
    in_flight = InFlight(None)  # type: ignore[arg-type]
    assert stage(in_flight, EmbedStage(ZeroEmbedder())).room() == claims.CLAIM_BATCH


async def test_the_room_shrinks_with_documents_and_extractions_held() -> None:
    in_flight = InFlight(None)  # type: ignore[arg-type]
    fill(in_flight, BULK, MAX_IN_FLIGHT_DOCS - 10)
    assert stage(in_flight, EmbedStage(ZeroEmbedder()), extracting=4).room() == 6
    fill(in_flight, BULK, 10)
    assert stage(in_flight, EmbedStage(ZeroEmbedder())).room() == 0


async def test_no_claim_while_the_embedder_has_enough_queued() -> None:
    in_flight = InFlight(None)  # type: ignore[arg-type]
    embedding = EmbedStage(ZeroEmbedder())

    async def ignore(_: object) -> None:
        return None

    for _ in range(claims.QUEUE_AHEAD_DOCS):
        embedding.put(EmbedEntry(BULK, "lane", "worker", ["t"], ignore))
    assert stage(in_flight, embedding).room() == 0
    assert embedding.clear("worker"), "the entries waited in the schedule"
    await asyncio.sleep(0)  # the stage's loop finds nothing left and ends


async def test_a_full_pipeline_still_claims_a_little_for_organisations_under_their_share() -> None:
    in_flight = InFlight(None)  # type: ignore[arg-type]
    fill(in_flight, BULK, MAX_IN_FLIGHT_DOCS)
    fill(in_flight, SMALL, claims.FAIR_SHARE_DOCS - 1)
    claim = stage(in_flight, EmbedStage(ZeroEmbedder()))
    assert claim.room() == 0
    assert claim.fair_claim() == (claims.FAIR_CLAIM, [BULK]), "only the bulk tenant left out"
    fill(in_flight, SMALL, 1)
    assert claim.fair_claim() == (claims.FAIR_CLAIM, [BULK, SMALL])
    fill(in_flight, uuid.UUID(int=3), claims.FAIR_SLACK_DOCS - claims.FAIR_SHARE_DOCS)
    assert claim.fair_claim() == (0, []), "the overdraft is bounded"

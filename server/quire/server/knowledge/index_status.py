"""IndexStatus of a collection: its generations and their progress."""

from __future__ import annotations

import uuid

import asyncpg

from quire.server import workers
from quire.server.failures import QuireError
from quire.server.storage.timestamps import timestamp
from quire.v1 import errors_pb2, knowledge_pb2

COLLECTION = """
SELECT serving_generation, embedding_model FROM collections
WHERE org_id = $1 AND collection_id = $2 AND deleted_at IS NULL
"""
GENERATIONS = f"""
SELECT g.generation, g.state, g.fingerprint, g.index_version, g.error, g.created_at, g.ready_at,
       g.text_config,
       g.embedding_model,
       (SELECT count(DISTINCT c.document_id) FROM knowledge_chunks c
        WHERE c.org_id = g.org_id AND c.collection_id = g.collection_id
          AND c.generation = g.generation) AS indexed,
       (SELECT count(*) FROM documents d
        WHERE d.org_id = g.org_id AND d.collection_id = g.collection_id
          AND d.deleted_at IS NULL AND d.status = {knowledge_pb2.DOCUMENT_STATUS_READY}
          AND d.extract_error = '') AS total
FROM index_generations g WHERE g.org_id = $1 AND g.collection_id = $2
ORDER BY g.generation DESC
"""


async def index_status(
    conn: asyncpg.Connection, org_id: uuid.UUID, collection_id: uuid.UUID
) -> knowledge_pb2.IndexStatus:
    collection = await conn.fetchrow(COLLECTION, org_id, collection_id)
    if collection is None:
        raise QuireError(errors_pb2.ERROR_CODE_COLLECTION_NOT_FOUND, "Collection not found")
    rows = await conn.fetch(GENERATIONS, org_id, collection_id)
    building = next(
        (r for r in rows if r["state"] == knowledge_pb2.GENERATION_STATE_BUILDING), None
    )
    # The workers this collection needs: its model's, and a rebuild's onto another model.
    needed = [collection["embedding_model"]] + ([building["embedding_model"]] if building else [])
    seen = await workers.last_seen_all(conn, needed)
    return knowledge_pb2.IndexStatus(
        schema_version=1,
        collection_id=str(collection_id),
        serving_generation=collection["serving_generation"],
        embedding_model=collection["embedding_model"],
        building_generation=building["generation"] if building else 0,
        worker_last_seen=timestamp(seen) if seen else None,
        generations=[
            knowledge_pb2.IndexGeneration(
                generation=r["generation"],
                state=r["state"],
                fingerprint=r["fingerprint"],
                index_version=r["index_version"],
                documents_indexed=r["indexed"],
                documents_total=r["total"],
                created_at=timestamp(r["created_at"]),
                ready_at=timestamp(r["ready_at"]) if r["ready_at"] else None,
                error=r["error"],
                embedding_model=r["embedding_model"],
                text_analysis=r["text_config"],
            )
            for r in rows
        ],
    )

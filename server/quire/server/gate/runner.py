"""Runs the FTS baseline gate: ingest a judged data set into a scratch organisation through
the real upload and indexing path, answer every query through the real LEGACY_FTS and HYBRID
code (plus vector-only, for diagnosis), score, and record the result with the fingerprint."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import asyncpg

from quire.indexer.api import TITLE_MODE, Worker
from quire.indexer.extraction import ExtractionPool
from quire.indexer.ingest.embed_stage import EmbedStage
from quire.indexer.ingest.vector_store import VectorStore
from quire.server.embeddings import EmbeddingService
from quire.server.gate.dataset import Dataset
from quire.server.gate.metrics import Scores, evaluate
from quire.server.knowledge import document_writes, search
from quire.server.knowledge.reachable import ReachableCollection, resolve
from quire.server.storage.database import apply_settings
from quire.v1 import admin_pb2, knowledge_pb2

log = logging.getLogger(__name__)

DEPTH = 100
Progress = Callable[[str, int, int], Awaitable[None]]
T = TypeVar("T")

CREATE_ORG = "INSERT INTO organisations (org_id, name, vectors_filed_under) VALUES ($1, $2, $3)"
CREATE_COLLECTION = "INSERT INTO collections (org_id, collection_id, name) VALUES ($1, $2, $3)"
PENDING_JOBS = """
SELECT count(*) FROM jobs WHERE org_id = $1 AND state IN ('queued', 'running')
"""
# Settled: the worker found nothing pending and made the term statistics exact
# (indexer/worker/settle.py); the queries then see what any later search would.
UNSETTLED = """
SELECT count(*) FROM collections
WHERE org_id = $1 AND settled_revision <> revision AND deleted_at IS NULL
"""
FILE_NAMES = "SELECT document_id, file_name FROM documents WHERE org_id = $1"
RECORD = """
INSERT INTO gate_results (org_id, fingerprint, dataset, split, passed, result)
VALUES ($1, $2, $3, $4, $5, $6)
"""
LATEST = """
SELECT result FROM gate_results WHERE fingerprint = $1 ORDER BY measured_at DESC LIMIT 1
"""
# A scratch organisation is removed table by table (children first).
PURGE = [
    "DELETE FROM knowledge_chunks WHERE org_id = $1",
    "DELETE FROM index_backlog WHERE org_id = $1",
    "DELETE FROM index_generations WHERE org_id = $1",
    "DELETE FROM document_originals WHERE org_id = $1",
    "DELETE FROM documents WHERE org_id = $1",
    "DELETE FROM agents WHERE org_id = $1",
    "DELETE FROM collections WHERE org_id = $1",
    "DELETE FROM jobs WHERE org_id = $1",
    "DELETE FROM search_cache WHERE org_id = $1",
    "DELETE FROM shadow_samples WHERE org_id = $1",
    "DELETE FROM organisations WHERE org_id = $1",
]


@dataclass
class GateRun:
    """Everything a run measured; `result` is what the gate records."""

    result: admin_pb2.GateResult
    scores: dict[str, Scores]
    rankings: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    ingest_seconds: float = 0.0
    query_seconds: float = 0.0
    documents_per_second: float = 0.0


def passed(legacy: Scores, hybrid: Scores) -> bool:
    """Hybrid no worse than the lexical baseline on nDCG@10 and Recall@100."""
    return hybrid.ndcg_at_10 >= legacy.ndcg_at_10 and hybrid.recall_at_100 >= legacy.recall_at_100


async def latest_result(conn: asyncpg.Connection, fingerprint: str) -> admin_pb2.GateResult | None:
    raw = await conn.fetchval(LATEST, fingerprint)
    return None if raw is None else admin_pb2.GateResult.FromString(raw)


async def _noop(stage: str, done: int, total: int) -> None:
    return None


async def purge_organisation(conn: asyncpg.Connection, org_id: uuid.UUID) -> None:
    async with conn.transaction():
        for statement in PURGE:
            await conn.execute(statement, org_id)


async def store_texts(
    pool: asyncpg.Pool,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    items: Sequence[tuple[str, str]],
    uploaded: Callable[[int], Awaitable[None]] | None = None,
) -> None:
    """Stores (document id, text) pairs as `<id>.txt` uploads through the UploadDocument
    storage path, 250 per transaction; `uploaded` hears how many are stored so far."""
    async with pool.acquire() as conn:
        for i in range(0, len(items), 250):
            async with conn.transaction():
                for doc_id, text in items[i : i + 250]:
                    data = text.encode()
                    await document_writes.store_upload(
                        conn,
                        org_id,
                        document_writes.Upload(
                            collection_id=collection_id,
                            file_name=f"{doc_id}.txt",
                            mime_type="text/plain",
                            content=data,
                            sha256=hashlib.sha256(data).hexdigest(),
                            replaces=None,
                        ),
                    )
            if uploaded is not None:
                await uploaded(min(i + 250, len(items)))


async def ingest(
    pool: asyncpg.Pool,
    embeddings: EmbeddingService,
    dataset: Dataset,
    org_id: uuid.UUID,
    collection_id: uuid.UUID,
    progress: Progress,
    title_mode: str = TITLE_MODE,
    embed_stage: EmbedStage | None = None,
) -> float:
    """Uploads every document through the UploadDocument storage path, then runs the worker
    until every job is done; returns the elapsed seconds. `embed_stage`: where the worker
    embeds (default: a stage of its own, its vectors stored for `org_id`)."""
    started = time.perf_counter()
    items = list(dataset.corpus.items())

    async def uploaded(done: int) -> None:
        await progress("uploading", done, len(items))

    await store_texts(pool, org_id, collection_id, items, uploaded)
    await progress("indexing", 0, len(items))
    async with ExtractionPool() as extraction:
        worker = Worker(
            pool, embeddings, extraction, title_mode=title_mode, embed_stage=embed_stage
        )
        await worker.run_until_idle()
    await wait_settled(pool, org_id)
    await progress("indexing", len(items), len(items))
    return time.perf_counter() - started


async def wait_settled(pool: asyncpg.Pool, org_id: uuid.UUID) -> None:
    """Until no job of the organisation is pending and its collections are settled. Another
    worker (e.g. `quire up`'s) may have claimed some of the jobs: this waits for it too."""
    while True:
        async with pool.acquire() as conn:
            if not await conn.fetchval(PENDING_JOBS, org_id) and not await conn.fetchval(
                UNSETTLED, org_id
            ):
                return
        await asyncio.sleep(0.2)


@dataclass(frozen=True)
class ScratchIndex:
    """A data set indexed into its own organisation (purge it when done)."""

    org_id: uuid.UUID
    collection_id: uuid.UUID
    collections: list[ReachableCollection]
    corpus_id: dict[str, str]  # Quire document id → data set document id
    ingest_seconds: float
    texts_embedded: int = 0  # by the model; the others came from the vector store
    texts_reused: int = 0


async def build_index(
    pool: asyncpg.Pool,
    embeddings: EmbeddingService,
    dataset: Dataset,
    progress: Progress = _noop,
    title_mode: str = TITLE_MODE,
    vectors_of: uuid.UUID | None = None,
) -> ScratchIndex:
    """The data set indexed into a new scratch organisation. `vectors_of`: the organisation
    its vectors are filed under (vector_store.py), so they outlive the scratch organisation
    and the next run reuses them; None: they go with it."""
    org_id = uuid.uuid4()
    collection_id = uuid.uuid4()
    async with pool.acquire() as conn:
        await conn.execute(CREATE_ORG, org_id, f"gate-scratch-{org_id.hex[:12]}", vectors_of)
        await conn.execute(CREATE_COLLECTION, org_id, collection_id, dataset.name)
    try:
        stage = EmbedStage(embeddings, VectorStore(pool))
        ingest_s = await ingest(
            pool, embeddings, dataset, org_id, collection_id, progress, title_mode, stage
        )
        async with pool.acquire() as conn:
            reached = await resolve(conn, org_id, "", [str(collection_id)])
            names = {r["document_id"]: r["file_name"] for r in await conn.fetch(FILE_NAMES, org_id)}
    except BaseException:
        async with pool.acquire() as conn:
            await purge_organisation(conn, org_id)
        raise
    return ScratchIndex(
        org_id=org_id,
        collection_id=collection_id,
        collections=reached,
        corpus_id={str(k): v.removesuffix(".txt") for k, v in names.items()},
        ingest_seconds=ingest_s,
        texts_embedded=stage.texts_embedded,
        texts_reused=stage.texts_reused,
    )


async def rank_queries(
    pool: asyncpg.Pool,
    embeddings: EmbeddingService,
    index: ScratchIndex,
    dataset: Dataset,
    tuning: search.KnowledgeTuning = search.DEFAULT_TUNING,
    progress: Progress = _noop,
) -> dict[str, dict[str, list[str]]]:
    """Every query through the real LEGACY_FTS and HYBRID code, plus vector only."""

    async def hybrid(conn: asyncpg.Connection, text: str, vector: search.QueryVector) -> list[str]:
        hits = await search.hybrid(
            conn, index.org_id, index.collections, text, vector, DEPTH, tuning
        )
        return [index.corpus_id[h.document_id] for h in hits]

    answers = await _each_query(pool, embeddings, index, dataset, tuning, hybrid, progress, 25)
    return {
        "legacy": {q: legacy for q, (legacy, _, _) in answers.items()},
        "hybrid": {q: ranked for q, (_, ranked, _) in answers.items()},
        "vector": {q: vector for q, (_, _, vector) in answers.items()},
    }


@dataclass
class QueryArms:
    """One query's legacy and vector-only rankings and its hybrid arms (before fusion)."""

    legacy: list[str]
    vector: list[str]
    arms: search.Arms


async def gather_queries(
    pool: asyncpg.Pool,
    embeddings: EmbeddingService,
    index: ScratchIndex,
    dataset: Dataset,
    tuning: search.KnowledgeTuning = search.DEFAULT_TUNING,
    progress: Progress = _noop,
) -> dict[str, QueryArms]:
    """Runs every arm once per query so fusion variants can be scored without re-querying."""

    async def arms(conn: asyncpg.Connection, text: str, vector: search.QueryVector) -> search.Arms:
        return await search.gather_arms(conn, index.org_id, index.collections, text, vector, tuning)

    answers = await _each_query(pool, embeddings, index, dataset, tuning, arms, progress, 50)
    return {
        q: QueryArms(legacy=legacy, vector=vector, arms=found)
        for q, (legacy, found, vector) in answers.items()
    }


# What a pass over the queries runs between the legacy and the vector-only search: the hybrid
# ranking, or its arms before fusion.
Hybrid = Callable[[asyncpg.Connection, str, search.QueryVector], Awaitable[T]]


async def _each_query(
    pool: asyncpg.Pool,
    embeddings: EmbeddingService,
    index: ScratchIndex,
    dataset: Dataset,
    tuning: search.KnowledgeTuning,
    hybrid: Hybrid[T],
    progress: Progress,
    progress_every: int,
) -> dict[str, tuple[list[str], T, list[str]]]:
    """Every query's legacy ranking, `hybrid`'s answer and its vector-only ranking, each query
    in one repeatable-read transaction under `tuning`'s settings; rankings are corpus ids."""
    out: dict[str, tuple[list[str], T, list[str]]] = {}
    ids = index.corpus_id
    total = len(dataset.queries)
    for n, (query_id, text) in enumerate(dataset.queries.items(), start=1):
        vector = (await embeddings.embed_queries([text]))[0]
        async with (
            pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            await apply_settings(conn, tuning.settings())
            legacy = await search.legacy(conn, index.org_id, [index.collection_id], text, DEPTH)
            answer = await hybrid(conn, text, vector)
            vector_ids = await search.vector_only(
                conn, index.org_id, index.collections, vector, DEPTH, tuning
            )
        out[query_id] = (
            [ids[h.document_id] for h in legacy],
            answer,
            [ids[str(d)] for d in vector_ids],
        )
        if n % progress_every == 0 or n == total:
            await progress("querying", n, total)
    return out


async def run_gate(
    pool: asyncpg.Pool,
    embeddings: EmbeddingService,
    dataset: Dataset,
    *,
    fingerprint: str,
    recorded_by: uuid.UUID | None,
    tuning: search.KnowledgeTuning = search.DEFAULT_TUNING,
    progress: Progress = _noop,
    keep_rankings: bool = False,
) -> GateRun:
    # Data sets are public: the runner's organisation keeps their vectors for its next run.
    index = await build_index(pool, embeddings, dataset, progress, vectors_of=recorded_by)
    try:
        started = time.perf_counter()
        rankings = await rank_queries(pool, embeddings, index, dataset, tuning, progress)
        query_s = time.perf_counter() - started
    finally:
        async with pool.acquire() as conn:
            await purge_organisation(conn, index.org_id)
    scores = {mode: evaluate(r, dataset.qrels) for mode, r in rankings.items()}
    result = gate_result(fingerprint, dataset, scores)
    if recorded_by is not None:
        async with pool.acquire() as conn:
            await conn.execute(
                RECORD,
                recorded_by,
                fingerprint,
                dataset.name,
                dataset.split,
                result.passed,
                result.SerializeToString(),
            )
    await progress("done", 1, 1)
    return GateRun(
        result=result,
        scores=scores,
        rankings=rankings if keep_rankings else {},
        ingest_seconds=index.ingest_seconds,
        query_seconds=query_s,
        documents_per_second=len(dataset.corpus) / index.ingest_seconds
        if index.ingest_seconds
        else 0.0,
    )


def gate_result(
    fingerprint: str, dataset: Dataset, scores: dict[str, Scores]
) -> admin_pb2.GateResult:
    result = admin_pb2.GateResult(
        schema_version=1,
        fingerprint=fingerprint,
        dataset=dataset.name,
        split=dataset.split,
        metrics=[
            _metrics(knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS, "legacy_fts", scores["legacy"]),
            _metrics(knowledge_pb2.RETRIEVAL_MODE_HYBRID, "hybrid", scores["hybrid"]),
            _metrics(knowledge_pb2.RETRIEVAL_MODE_UNSPECIFIED, "vector_only", scores["vector"]),
        ],
        passed=passed(scores["legacy"], scores["hybrid"]),
        queries=len(dataset.queries),
        documents=len(dataset.corpus),
    )
    result.measured_at.GetCurrentTime()
    return result


def _metrics(mode: int, label: str, scores: Scores) -> admin_pb2.ModeMetrics:
    return admin_pb2.ModeMetrics(
        mode=knowledge_pb2.RetrievalMode.ValueType(mode),
        label=label,
        ndcg_at_10=scores.ndcg_at_10,
        recall_at_10=scores.recall_at_10,
        recall_at_100=scores.recall_at_100,
        mrr_at_10=scores.mrr_at_10,
    )

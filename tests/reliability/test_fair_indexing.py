"""One tenant's bulk load must not stall another's indexing.

Organisation "bulk" uploads a 64 MiB text file (the upload limit) and then a burst of 5,000
small documents; while the worker is busy with them, organisation "small" uploads one small
document, which must be indexed (its chunks in a serving generation, found by a HYBRID search)
within 5 s. The same upload is timed first on the idle worker, in the same run.

Three uploads are timed under the load; their median must be within 5 s and none beyond 15 s.
A lapse in fairness costs minutes (below), while the rest of the suite sharing the 2 cores has
cost one lone sample 5.2 s in CI (found by search only after 3.0 s). The strict "every sample
within 5 s" is held by benchmarks/fair_indexing.py on a quiet machine (docs/benchmarks.md).

Before fair scheduling the worker embedded the big file to its end first (one group) and
claimed jobs oldest first, so the small upload waited behind all of it (382 s for 15 MiB).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.indexer.extraction import ExtractionPool
from quire.indexer.worker.pipeline import Worker
from quire.v1 import knowledge_pb2
from tests.conftest import Harness
from tests.support.tenant_load import big_text, time_to_indexed, upload_burst

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True

BIG_FILE_BYTES = 64 * 1024 * 1024
BURST_DOCUMENTS = 5_000
TARGET_S = 5.0
# A sample beyond this is not noise from the rest of the suite.
CEILING_S = 3 * TARGET_S
LOADED_SAMPLES = 3

BUSY_WITH = """
SELECT count(*) FILTER (WHERE state = 'running') AS running,
       count(*) FILTER (WHERE state = 'queued') AS queued,
       count(*) FILTER (WHERE state = 'done' AND kind = 'extract') AS done
FROM jobs WHERE org_id = $1
"""


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def clients(harness: Harness) -> AsyncIterator[dict[str, Any]]:
    bulk = await harness.keys("fair-bulk-org")
    small = await harness.keys("fair-small-org")
    async with (
        AsyncQuireClient(harness.address, api_key=bulk.all) as bulk_client,
        AsyncQuireClient(harness.address, api_key=small.all) as small_client,
    ):
        await small_client.set_retrieval_policy(mode="HYBRID")
        yield {
            "bulk": bulk_client,
            "bulk_org": bulk.org_id,
            "small": small_client,
            "small_org": small.org_id,
        }


async def test_a_small_upload_is_indexed_within_5_s_while_another_org_bulk_loads(
    harness: Harness, clients: dict[str, Any], embeddings: object
) -> None:
    bulk: AsyncQuireClient = clients["bulk"]
    small: AsyncQuireClient = clients["small"]
    small_org: uuid.UUID = clients["small_org"]
    policy = await small.get_retrieval_policy()
    assert policy.effective_mode == knowledge_pb2.RETRIEVAL_MODE_HYBRID

    stop = asyncio.Event()
    async with ExtractionPool() as extraction:
        worker = Worker(harness.pool, embeddings, extraction)  # type: ignore[arg-type]
        running = asyncio.create_task(worker.run(stop))
        try:
            alone = await time_to_indexed(harness.pool, small, small_org, "alone", "aardvark")

            big = (await bulk.create_collection(name="big-file")).collection_id
            await bulk.upload_document(
                collection_id=big, file_name="big.txt", data=big_text(BIG_FILE_BYTES)
            )
            burst = (await bulk.create_collection(name="burst")).collection_id
            await upload_burst(bulk, burst, BURST_DOCUMENTS)
            async with harness.pool.acquire() as conn:
                busy = await conn.fetchrow(BUSY_WITH, clients["bulk_org"])
            assert busy["running"] + busy["queued"] > 100, f"the bulk load is not under way: {busy}"

            loaded = [
                await time_to_indexed(harness.pool, small, small_org, f"loaded-{i}", "wombat")
                for i in range(LOADED_SAMPLES)
            ]

            async with harness.pool.acquire() as conn:
                still = await conn.fetchrow(BUSY_WITH, clients["bulk_org"])
        finally:
            stop.set()
            stop_started = time.monotonic()
            await asyncio.wait({running}, timeout=120)
            stopped_in = time.monotonic() - stop_started
    assert running.done(), "the worker did not stop"
    print(
        f"\nsmall upload alone: found {alone[0]:.2f} s, indexed {alone[1]:.2f} s; "
        f"under the bulk load: found {[round(f, 2) for f, _ in loaded]} s, "
        f"indexed {[round(i, 2) for _, i in loaded]} s; "
        f"bulk jobs still running/queued {still['running']}/{still['queued']}, "
        f"{still['done']} documents of the burst indexed; "
        f"worker stopped in {stopped_in:.1f} s"
    )
    assert still["running"] + still["queued"] > 0, "the bulk load ended first: nothing measured"
    indexed = sorted(i for _, i in loaded)
    assert indexed[len(indexed) // 2] <= TARGET_S, f"indexed in {indexed} s under another's load"
    assert indexed[-1] <= CEILING_S, f"indexed in {indexed} s under another org's load"
    # The bulk tenant's own burst goes on beside its big file (collections take turns).
    assert still["done"] > 0, "the burst waited for the big file"
    assert stopped_in < 40, "a stopping worker hands back unfinished work instead of finishing it"

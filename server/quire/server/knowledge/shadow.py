"""HYBRID_SHADOW: the hybrid query runs off the response path and is compared with legacy.

Comparisons (overlap@k, top-1 agreement, both latencies) go to metrics and to
`shadow_samples`; a failing or slow shadow run is recorded as a failure and never touches
the served call.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence

import asyncpg

from quire.server import telemetry

log = logging.getLogger(__name__)

SHADOW_TIMEOUT_S = 10.0
MAX_IN_FLIGHT = 8

agreement = telemetry.meter.create_histogram(
    "quire.shadow.overlap", description="overlap@k between legacy and hybrid top-k"
)
top1 = telemetry.meter.create_counter(
    "quire.shadow.top1", description="shadow comparisons by top-1 agreement"
)

RECORD = """
INSERT INTO shadow_samples (org_id, overlap_at_k, top1_agree, legacy_ms, hybrid_ms, failed)
VALUES ($1, $2, $3, $4, $5, $6)
"""
REPORT = """
SELECT count(*) FILTER (WHERE NOT failed) AS samples,
       count(*) FILTER (WHERE failed) AS failures,
       coalesce(avg(overlap_at_k) FILTER (WHERE NOT failed), 0) AS overlap,
       coalesce(avg(top1_agree::int) FILTER (WHERE NOT failed), 0) AS top1,
       coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY legacy_ms), 0) AS legacy_p50,
       coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY legacy_ms), 0) AS legacy_p95,
       coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY hybrid_ms), 0) AS hybrid_p50,
       coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY hybrid_ms), 0) AS hybrid_p95,
       min(at) AS since
FROM shadow_samples WHERE org_id = $1
"""


def compare(legacy: Sequence[str], hybrid: Sequence[str], k: int) -> tuple[float, bool]:
    """overlap@k = |legacy top-k ∩ hybrid top-k| / k; top-1 agreement (both empty agrees)."""
    if k <= 0:
        return 1.0, True
    overlap = len(set(legacy[:k]) & set(hybrid[:k])) / k
    agree = legacy[:1] == hybrid[:1]
    return overlap, agree


class ShadowRunner:
    """Runs shadow comparisons as background tasks, bounded in number and time."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self._tasks: set[asyncio.Task[None]] = set()

    def submit(
        self,
        org_id: uuid.UUID,
        legacy_ids: list[str],
        legacy_ms: float,
        k: int,
        run_hybrid: Callable[[], Awaitable[tuple[list[str], float]]],
    ) -> None:
        if len(self._tasks) >= MAX_IN_FLIGHT:
            log.warning("shadow run skipped: too many in flight")
            return

        async def compare_and_record() -> None:
            try:
                hybrid_ids, hybrid_ms = await asyncio.wait_for(run_hybrid(), SHADOW_TIMEOUT_S)
            except Exception as exc:  # a failing shadow never reaches the caller
                log.warning("shadow run failed", extra={"error": type(exc).__name__})
                await self._record(org_id, None, None, legacy_ms, None, True)
                return
            overlap, agree = compare(legacy_ids, hybrid_ids, k)
            agreement.record(overlap)
            top1.add(1, {"agree": agree})
            await self._record(org_id, overlap, agree, legacy_ms, hybrid_ms, False)

        task = asyncio.create_task(compare_and_record())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _record(
        self,
        org_id: uuid.UUID,
        overlap: float | None,
        agree: bool | None,
        legacy_ms: float,
        hybrid_ms: float | None,
        failed: bool,
    ) -> None:
        try:
            async with self.pool.acquire() as conn:
                await conn.execute(RECORD, org_id, overlap, agree, legacy_ms, hybrid_ms, failed)
        except Exception as exc:
            log.warning("shadow sample not recorded", extra={"error": type(exc).__name__})

    async def drain(self) -> None:
        """Waits for in-flight shadow runs (tests and shutdown)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

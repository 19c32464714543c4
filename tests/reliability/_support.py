"""Helpers shared by the reliability suite: typed-error checks, health, seeding."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
import time
import uuid
from collections import Counter
from pathlib import Path

import grpc
import numpy as np
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from quire.client import AsyncQuireClient
from quire.client.codes import GRPC_STATUS_BY_CODE
from quire.client.rich_status import error_detail
from quire.v1 import errors_pb2, pages_pb2

# Codes a server bug shows up as; a hostile request must never produce them.
NEVER = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS)


def typed_detail(exc: aio.AioRpcError) -> errors_pb2.ErrorDetail:
    """Asserts the failure is a typed Quire error (ErrorDetail present and consistent)."""
    assert exc.code() not in NEVER, f"{exc.code()}: {exc.details()}"
    detail = error_detail(exc.trailing_metadata())
    assert detail is not None, f"{exc.code()} without ErrorDetail: {exc.details()}"
    assert detail.code != errors_pb2.ERROR_CODE_UNSPECIFIED
    assert GRPC_STATUS_BY_CODE[detail.code] == exc.code(), (detail.code, exc.code())
    return detail


class InputCounts:
    """How many bad inputs a suite tried per RPC, for the reliability report: merged into
    `.quire-test/fuzz-counts.json` under the suite's name and printed (visible with -s)."""

    def __init__(self, suite: str, home: Path) -> None:
        self.suite = suite
        self.path = home / "fuzz-counts.json"
        self.counts: Counter[str] = Counter()

    def add(self, rpc: str, n: int = 1) -> None:
        self.counts[rpc] += n

    def write(self) -> None:
        if not self.counts:
            return
        self.path.parent.mkdir(exist_ok=True)
        try:
            report = json.loads(self.path.read_text())
        except (OSError, ValueError):
            report = {}
        report[self.suite] = dict(sorted(self.counts.items()))
        self.path.write_text(json.dumps(report, indent=2) + "\n")
        rows = ", ".join(f"{rpc} {n}" for rpc, n in sorted(self.counts.items()))
        print(f"\n{self.suite}: bad inputs tried per RPC: {rows} (total {self.counts.total()})")


async def assert_serving(channel: aio.Channel) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def health_status(channel: aio.Channel, service: str = "") -> str:
    """SERVING, NOT_SERVING, ... or the gRPC code when the check itself fails."""
    try:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=service), timeout=1.0
        )
    except aio.AioRpcError as exc:
        return str(exc.code().name)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


async def wait_for_health(channel: aio.Channel, status: str, since: float, within: float) -> float:
    """Seconds from `since` (monotonic) until health reports `status`, polled every 50 ms;
    fails after `within` seconds."""
    while True:
        if await health_status(channel) == status:
            return time.monotonic() - since
        assert time.monotonic() - since < within, f"health not {status} within {within} s"
        await asyncio.sleep(0.05)


def fake_vectors(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


async def seed_pages(pool, org_id: uuid.UUID, namespace: str, pages: dict[str, str]) -> None:
    """Publishes pages directly through the store (no model, no fetch): fixtures for reads."""
    from quire.indexer.pages import store

    async with pool.acquire() as conn:
        await store.ensure_namespace(
            conn,
            org_id,
            namespace,
            source_url="http://127.0.0.1:9/llms.txt",
            public_url="",
            transform="markdown",
            index_version="1",
            language="en",
            embedding_model="all-minilm-l6-v2",
        )
        for i, (path, body) in enumerate(pages.items()):
            digest = hashlib.sha256(body.encode()).hexdigest()
            lines = [line for line in body.split("\n\n") if line.strip()] or [body]
            chunks = [store.NewChunk(text, ("Seed",)) for text in lines]
            await store.publish_page(
                conn,
                org_id,
                namespace,
                store.NewPage(
                    path=path,
                    url=f"https://example.invalid{path}",
                    title=path.rsplit("/", 1)[-1],
                    body=body,
                    digest=digest,
                    index_fingerprint="seed",
                    revision=digest[:16],
                ),
                chunks,
                fake_vectors(len(chunks), seed=i),
            )


def stop_postmaster(pgdata: Path) -> None:
    """After a failure: no server may outlive the test (fast shutdown of the postmaster)."""
    pid_file = pgdata / "postmaster.pid"
    with contextlib.suppress(OSError, ValueError, IndexError):
        os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)
        for _ in range(50):
            if not pid_file.exists():
                return
            time.sleep(0.1)


async def sync_report(client: AsyncQuireClient, namespace: str, url: str) -> pages_pb2.SyncReport:
    """One SyncPages call, its progress ignored, to its report."""
    report = None
    async for message in client.sync_pages(namespace=namespace, url=url):
        if isinstance(message, pages_pb2.SyncReport):
            report = message
    assert report is not None
    return report

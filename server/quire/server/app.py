"""Assembles and runs the gRPC server: services, health, reflection, limits, shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import grpc
from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from quire.indexer.embedding import ModelTamperedError
from quire.indexer.ingest.vector_store import VectorStore
from quire.indexer.pages.guard import SourcePolicy
from quire.server import cursors, models, telemetry, workers
from quire.server.auth import KeyVerifier
from quire.server.background import cancel
from quire.server.config import Settings
from quire.server.console.static import ConsoleApp
from quire.server.embeddings import EmbeddingService, load_default
from quire.server.gate import catalogue
from quire.server.health import DatabaseHealth
from quire.server.http.asgi import ASGIApp
from quire.server.http.endpoints import HandlerCollector
from quire.server.http.listener import HttpListener, start_listener
from quire.server.http.metrics import METRICS_PATH, MetricsApp, metrics_off
from quire.server.mcp.http import MCP_PATH, McpHttpApp, McpListener, start_mcp_listener
from quire.server.rpc import QuireInterceptor
from quire.server.services.admin import AdminService
from quire.server.services.knowledge import KnowledgeService
from quire.server.services.pages import PagesService
from quire.server.state import AppState
from quire.server.storage import migrations
from quire.server.storage.database import check_pgvector, create_pool
from quire.server.storage.embedded import EmbeddedPostgres, resolve_database_url
from quire.server.storage.notifications import Notifications
from quire.server.storage.replicas import LagBounds, ReplicaSet
from quire.server.storage.supervisor import GaveUp, supervise
from quire.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    knowledge_service_pb2,
    knowledge_service_pb2_grpc,
    pages_service_pb2,
    pages_service_pb2_grpc,
)

log = logging.getLogger(__name__)

SERVICE_NAMES = ("quire.v1.PagesService", "quire.v1.KnowledgeService", "quire.v1.AdminService")
# The same three services, as descriptors: what the Connect listener serves.
SERVICES = (
    pages_service_pb2.DESCRIPTOR.services_by_name["PagesService"],
    knowledge_service_pb2.DESCRIPTOR.services_by_name["KnowledgeService"],
    admin_service_pb2.DESCRIPTOR.services_by_name["AdminService"],
)


@dataclass(frozen=True)
class Servicers:
    """The three services' handlers of one process."""

    pages: PagesService
    knowledge: KnowledgeService
    admin: AdminService


@dataclass
class Running:
    server: aio.Server
    port: int
    state: AppState
    health: Any
    services: Servicers
    # The Connect listener (MCP at /mcp on it too), when `settings.http_address` is set.
    http: HttpListener | None = None
    # The stand-alone streamable-HTTP MCP endpoint, when `settings.mcp_address` is set.
    mcp: McpListener | None = None

    async def stop(self, grace: float | None = None) -> None:
        """Refuses new calls, lets in-flight calls finish within `grace`, then closes the pool."""
        await self.health.enter_graceful_shutdown()
        if self.mcp is not None:
            await self.mcp.stop()  # its calls go through gRPC: stopped before it
        stopping = [self.server.stop(self.state.settings.grace_seconds if grace is None else grace)]
        if self.http is not None:
            stopping.append(self.http.stop())
        await asyncio.gather(*stopping)
        if self.state.database is not None:
            await self.state.database.stop()
        if self.state.replicas is not None:
            await self.state.replicas.stop()
        await self.services.knowledge.knowledge_search.shadow.drain()
        await self.state.require_notifications().stop()
        for pool in {self.state.pool, self.state.session_pool}:
            try:
                await asyncio.wait_for(pool.close(), 10)
            except TimeoutError:  # a connection stuck mid-statement must not hang shutdown
                pool.terminate()


async def prepare_database(dsn: str, settings: Settings) -> asyncpg.Pool:
    """Checks the pooler set-up and pgvector, applies migrations (on PostgreSQL itself, past
    any pooler) and opens the pool on `dsn`."""
    settings.check_pooler()
    settings.check_replicas()
    conn = await asyncpg.connect(settings.database_direct_url or dsn)
    try:
        await check_pgvector(conn)
        await migrations.migrate(conn)
    finally:
        await conn.close()
    return await create_pool(
        dsn,
        min_size=settings.pool_min,
        max_size=settings.pool_max,
        behind_pooler=settings.behind_pooler,
    )


async def open_session_pool(settings: Settings, pool: asyncpg.Pool) -> asyncpg.Pool:
    """Connections that keep one PostgreSQL session (the page sync's advisory lock): `pool`
    itself unless a transaction pooler is in front, then a pool of direct connections."""
    if not settings.behind_pooler:
        return pool
    return await create_pool(settings.session_database_url, min_size=0, max_size=settings.pool_max)


async def open_replicas(settings: Settings, pool: asyncpg.Pool) -> ReplicaSet | None:
    """The read replicas, checked once so the healthy ones serve from the first call."""
    if not settings.database_replica_urls:
        return None
    replicas = await ReplicaSet.open(
        pool,
        settings.session_database_url,
        settings.database_replica_urls,
        LagBounds(
            max_bytes=settings.replica_max_lag_bytes,
            max_s=settings.replica_max_lag_s,
            wait_s=settings.replica_wait_ms / 1000,
        ),
        pool_max=settings.pool_max,
        behind_pooler=settings.behind_pooler,
    )
    await replicas.start()
    log.info(
        "read replicas",
        extra={"replicas": {r.name: r.healthy or r.why_not for r in replicas.replicas}},
    )
    return replicas


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """TLS from PEM files (mutual TLS when a client CA is given); None means plaintext."""
    if not settings.tls_cert_file:
        return None
    if not settings.tls_key_file:
        raise RuntimeError("QUIRE_TLS_CERT is set but QUIRE_TLS_KEY is not")
    key = Path(settings.tls_key_file).read_bytes()
    chain = Path(settings.tls_cert_file).read_bytes()
    client_ca = (
        Path(settings.tls_client_ca_file).read_bytes() if settings.tls_client_ca_file else None
    )
    return grpc.ssl_server_credentials(
        [(key, chain)],
        root_certificates=client_ca,
        require_client_auth=client_ca is not None,
    )


def load_embeddings() -> EmbeddingService | None:
    """The prepared model, or None (with a warning) when none is prepared, so the server still
    serves everything else. A model whose files no longer match its manifest is refused
    (`ModelTamperedError`): serving it would mix its vectors with the stored ones."""
    try:
        return load_default()
    except ModelTamperedError:
        raise
    except Exception as exc:  # missing or incomplete model: say what to run
        log.warning("embedding model unavailable: %s", exc)
        return None


async def start(
    settings: Settings,
    pool: asyncpg.Pool,
    embeddings: EmbeddingService | None = None,
    http_mounts: Sequence[tuple[str, ASGIApp]] = (),
    extra_models: dict[str, EmbeddingService] | None = None,
) -> Running:
    """Starts the gRPC server and, with `settings.http_address`, the Connect listener; other
    ASGI apps join the listener as `http_mounts`, (path prefix, app) pairs. `extra_models`: the
    models loaded beside the default (models.load_extra), by name."""
    telemetry.configure()
    SourcePolicy(settings.allow_sources)  # a malformed --allow-source fails at start, not per call
    catalogue.check_directory(settings.gate_datasets)
    health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
    database = DatabaseHealth(
        settings.database_url,
        pool,
        health_servicer,
        ("", *SERVICE_NAMES),
        behind_pooler=settings.behind_pooler,
    )
    state = AppState(
        settings=settings,
        pool=pool,
        session_pool=await open_session_pool(settings, pool),
        verifier=KeyVerifier(pool),
        cursors=await cursors.load(pool),
        embeddings=embeddings,
        database=database,
        extra_models=dict(extra_models or {}),
    )
    state.replicas = await open_replicas(settings, pool)
    for service in state.models.values():
        if service is not None:
            # Page syncs and (under `quire up`) the workers look vectors up before embedding.
            service.ingest_stage.store = VectorStore(pool)
    notifications = Notifications(settings.session_database_url)
    notifications.start()
    state.notifications = notifications
    # One chain for both listeners: a call over Connect is authenticated, limited (one
    # organisation limiter for both), timed and traced exactly as one over gRPC.
    interceptors = [
        telemetry.rpc_interceptor(),  # first, so the span covers auth and errors too
        QuireInterceptor(
            state.verifier,
            settings.org_concurrency,
            settings.org_running_limit,
            database,
            state.replicas,
        ),
    ]
    server = aio.server(
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", settings.max_message_bytes),
            ("grpc.max_send_message_length", settings.max_message_bytes),
            ("grpc.so_reuseport", 1 if settings.reuse_port else 0),
            ("grpc.keepalive_permit_without_calls", 1),
            # Clients ping idle channels every 60 s; accept pings down to 10 s apart.
            ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
            ("grpc.http2.max_ping_strikes", 0),
        ],
    )
    pages, knowledge, admin = PagesService(state), KnowledgeService(state), AdminService(state)
    collected = HandlerCollector()
    targets: tuple[Any, ...] = (server, collected)  # the collector stands in for a server
    for target in targets:
        pages_service_pb2_grpc.add_PagesServiceServicer_to_server(pages, target)
        knowledge_service_pb2_grpc.add_KnowledgeServiceServicer_to_server(knowledge, target)
        admin_service_pb2_grpc.add_AdminServiceServicer_to_server(admin, target)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (
            *SERVICE_NAMES,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    credentials = server_credentials(settings)
    if credentials is None:
        port = server.add_insecure_port(settings.address)
    else:
        port = server.add_secure_port(settings.address, credentials)
    if port == 0:
        raise RuntimeError(f"cannot listen on {settings.address}")
    await server.start()
    http = None
    if http_mounts and not settings.http_address:
        log.warning("HTTP mounts given but the HTTP listener is off (no http_address)")
    if settings.metrics and not settings.http_address:
        log.warning("metrics asked for but the HTTP listener is off: /metrics is not served")
    if settings.http_address:
        mounts = list(http_mounts)
        if not settings.tls_cert_file:  # mcp_app needs plaintext gRPC for its loopback calls
            mounts.append((MCP_PATH, mcp_app(settings, port, state)))
        if settings.metrics:
            telemetry.enable_prometheus()
            mounts.append((METRICS_PATH, MetricsApp(state.verifier)))
        else:
            mounts.append((METRICS_PATH, metrics_off))
        if settings.console:
            mounts.append(("/", ConsoleApp()))
        try:
            http = await start_listener(
                settings, SERVICES, collected.handlers, interceptors, mounts
            )
        except BaseException:  # e.g. the HTTP port is taken: nothing left running behind
            await server.stop(None)
            await notifications.stop()
            raise
    await database.start()  # SERVING for "" and every service, then follows the database
    log.info("serving", extra={"address": settings.address, "port": port})
    running = Running(
        server, port, state, health_servicer, Servicers(pages, knowledge, admin), http
    )
    if settings.mcp_address:
        running.mcp = await start_mcp_listener(mcp_app(settings, port, state), settings.mcp_address)
    return running


def mcp_app(settings: Settings, grpc_port: int, state: AppState) -> McpHttpApp:
    """The MCP endpoint of this process: its tool calls come back to the gRPC port over
    loopback, with the caller's key. The HTTP listener mounts one at /mcp."""
    if settings.tls_cert_file:
        raise RuntimeError("the MCP endpoint needs a plaintext gRPC listener (no TLS) for now")
    host = settings.address.rsplit(":", 1)[0].strip("[]")
    loopback = "127.0.0.1" if host in ("", "0.0.0.0", "::", "localhost") else host
    return McpHttpApp(f"{loopback}:{grpc_port}", state.verifier.verify)


async def serve(
    settings: Settings,
    on_ready: Callable[[Running], Awaitable[None]] | None = None,
    *,
    with_worker: bool = False,
    http_mounts: Sequence[tuple[str, ASGIApp]] = (),
) -> None:
    """Runs until SIGINT/SIGTERM, then shuts down gracefully (the worker too, if started).
    `http_mounts` are served on the HTTP listener beside Connect (see `start`).

    An embedded PostgreSQL started here is supervised (storage/supervisor.py); when it cannot
    be restarted, the server shuts down the same way and `GaveUp` is raised."""
    embedded: EmbeddedPostgres | None = None
    if not settings.database_url:
        settings.database_url, embedded = await asyncio.to_thread(resolve_database_url)
    supervisor: asyncio.Task[None] | None = None
    try:
        pool = await prepare_database(settings.database_url, settings)
        embeddings = await asyncio.to_thread(load_embeddings)
        extra = await asyncio.to_thread(models.load_extra, settings.models)
        if not with_worker:  # `quire serve`: the workers are other processes, if any
            await workers.warn_if_absent(pool, [models.DEFAULT_MODEL, *extra])
        running = await start(settings, pool, embeddings, http_mounts, extra)
        stop = asyncio.Event()
        worker_task = None
        if with_worker and embeddings is not None:
            # One worker per model: each indexes the collections of its own model only.
            worker_task = asyncio.ensure_future(
                asyncio.gather(
                    run_worker(settings, embeddings, stop),
                    *(run_worker(settings, e, stop, model=n) for n, e in extra.items()),
                )
            )
        if embedded is not None:
            supervisor = asyncio.create_task(supervise(embedded))
        if on_ready is not None:
            await on_ready(running)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        # A signal, or the supervisor giving up on the embedded database.
        stopping = asyncio.create_task(stop.wait())
        ends = {stopping} if supervisor is None else {stopping, supervisor}
        await asyncio.wait(ends, return_when=asyncio.FIRST_COMPLETED)
        stop.set()  # the worker stops too
        log.info("shutting down", extra={"grace_seconds": settings.grace_seconds})
        await running.stop()
        if worker_task is not None:
            await worker_task
        if supervisor is not None and supervisor.done():
            supervisor.result()  # raises GaveUp
    finally:
        # Before the embedded server stops: a stopped server is not a dead one.
        with contextlib.suppress(GaveUp):
            await cancel(supervisor)
        if embedded is not None:
            embedded.stop()


async def run_worker(
    settings: Settings,
    embeddings: EmbeddingService,
    stop: asyncio.Event,
    model: str = models.DEFAULT_MODEL,
) -> None:
    """The indexer worker of `model` (the collections created with it) on its own pool, until
    `stop` is set."""
    from quire.indexer.api import Worker
    from quire.indexer.extraction import ExtractionPool

    settings.check_pooler()
    pool = await create_pool(
        settings.database_url, min_size=1, max_size=6, behind_pooler=settings.behind_pooler
    )
    # The worker's own connection LISTENs for jobs: past any transaction pooler.
    session_pool = (
        await create_pool(settings.session_database_url, min_size=0, max_size=1)
        if settings.behind_pooler
        else pool
    )
    if embeddings.ingest_stage.store is None:  # `quire worker` alone: no server attached one
        embeddings.ingest_stage.store = VectorStore(pool)
    try:
        async with ExtractionPool() as extraction:
            # The server's embedding stage: page syncs and documents take turns at the embedder.
            await Worker(
                pool,
                embeddings,
                extraction,
                embed_stage=embeddings.ingest_stage,
                session_pool=session_pool,
                embedding_model=model,
            ).run(stop)
    finally:
        for each in {pool, session_pool}:
            try:
                await asyncio.wait_for(each.close(), 10)
            except TimeoutError:
                each.terminate()


__all__ = ["Running", "prepare_database", "serve", "start"]

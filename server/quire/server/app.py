"""Assembles and runs the gRPC server: services, health, reflection, limits, shutdown."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import asyncpg
from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from quire.server import telemetry
from quire.server.auth import KeyVerifier
from quire.server.config import Settings
from quire.server.rpc import QuireInterceptor
from quire.server.services.admin import AdminService
from quire.server.services.knowledge import KnowledgeService
from quire.server.services.pages import PagesService
from quire.server.state import AppState
from quire.server.storage import migrations
from quire.server.storage.database import check_pgvector, create_pool
from quire.server.storage.embedded import EmbeddedPostgres, resolve_database_url
from quire.v1 import admin_service_pb2_grpc, knowledge_service_pb2_grpc, pages_service_pb2_grpc

log = logging.getLogger(__name__)

SERVICE_NAMES = ("quire.v1.PagesService", "quire.v1.KnowledgeService", "quire.v1.AdminService")


@dataclass
class Running:
    server: aio.Server
    port: int
    state: AppState
    health: Any

    async def stop(self, grace: float | None = None) -> None:
        """Refuses new calls, lets in-flight calls finish within `grace`, then closes the pool."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(self.state.settings.grace_seconds if grace is None else grace)
        await self.state.pool.close()


async def prepare_database(dsn: str, settings: Settings) -> asyncpg.Pool:
    """Checks pgvector, applies migrations and opens the pool."""
    conn = await asyncpg.connect(dsn)
    try:
        await check_pgvector(conn)
        await migrations.migrate(conn)
    finally:
        await conn.close()
    return await create_pool(dsn, min_size=settings.pool_min, max_size=settings.pool_max)


async def start(settings: Settings, pool: asyncpg.Pool) -> Running:
    telemetry.configure()
    state = AppState(settings=settings, pool=pool, verifier=KeyVerifier(pool))
    server = aio.server(
        interceptors=[QuireInterceptor(state.verifier)],
        options=[
            ("grpc.max_receive_message_length", settings.max_message_bytes),
            ("grpc.max_send_message_length", settings.max_message_bytes),
            ("grpc.so_reuseport", 0),
            ("grpc.keepalive_permit_without_calls", 1),
        ],
    )
    # The servicers are completed at import time by fill_unimplemented, which mypy cannot see.
    services: Any = (PagesService, KnowledgeService, AdminService)
    pages, knowledge, admin = (cls(state) for cls in services)
    pages_service_pb2_grpc.add_PagesServiceServicer_to_server(pages, server)
    knowledge_service_pb2_grpc.add_KnowledgeServiceServicer_to_server(knowledge, server)
    admin_service_pb2_grpc.add_AdminServiceServicer_to_server(admin, server)
    health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (
            *SERVICE_NAMES,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    port = server.add_insecure_port(settings.address)
    if port == 0:
        raise RuntimeError(f"cannot listen on {settings.address}")
    await server.start()
    for name in ("", *SERVICE_NAMES):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("serving", extra={"address": settings.address, "port": port})
    return Running(server, port, state, health_servicer)


async def serve(
    settings: Settings,
    on_ready: Callable[[Running], Awaitable[None]] | None = None,
) -> None:
    """Runs until SIGINT/SIGTERM, then shuts down gracefully."""
    embedded: EmbeddedPostgres | None = None
    dsn = settings.database_url
    if not dsn:
        dsn, embedded = await asyncio.to_thread(resolve_database_url)
    try:
        pool = await prepare_database(dsn, settings)
        running = await start(settings, pool)
        if on_ready is not None:
            await on_ready(running)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        log.info("shutting down", extra={"grace_seconds": settings.grace_seconds})
        await running.stop()
    finally:
        if embedded is not None:
            embedded.stop()


__all__ = ["Running", "prepare_database", "serve", "start"]

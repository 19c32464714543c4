"""Deployment settings, read once from the environment (and CLI flags)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

DEFAULT_ADDRESS = "127.0.0.1:50051"
# Where `quire up` / `quire serve` serve Connect (HTTP/1.1 and h2c) unless told otherwise.
DEFAULT_HTTP_ADDRESS = "127.0.0.1:8080"
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
POOLER_TRANSACTION = "transaction"
POOLER_MODES = ("", POOLER_TRANSACTION)
# A read waiting longer than this for a replica would be better served by the primary.
MAX_REPLICA_WAIT_MS = 10_000


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw else default


@dataclass
class Settings:
    address: str = DEFAULT_ADDRESS
    # The HTTP listener (Connect for every RPC, and mounted apps); empty: none. Empty here so
    # an embedded server (tests, benchmarks) opens no second port unless asked; the CLI's
    # default is DEFAULT_HTTP_ADDRESS.
    http_address: str = ""
    database_url: str = ""
    # Behind a transaction-mode pooler (QUIRE_DATABASE_POOLER=transaction), `database_url` is
    # the pooler and this is PostgreSQL itself, for what needs one session: LISTEN, the sync's
    # advisory lock, migrations. Empty: `database_url` serves both.
    database_direct_url: str = ""
    # "" (connections go straight to PostgreSQL, or through a session-mode pooler) or
    # "transaction" (PgBouncer's pool_mode=transaction in front: docs/scaling.md, Connections).
    database_pooler: str = ""
    # Streaming hot standbys of `database_url` that serve read-only RPCs (docs/scaling.md §3).
    database_replica_urls: list[str] = field(default_factory=list)
    # A replica further behind the primary than either bound is skipped until it catches up.
    replica_max_lag_bytes: int = 16 * 1024 * 1024
    replica_max_lag_s: float = 5.0
    # How long a read carrying a consistency token waits for a replica to replay that far
    # before the primary serves it.
    replica_wait_ms: int = 250
    # Message-size bound for every request and response (uploads stream in 1 MiB pieces).
    max_message_bytes: int = MAX_MESSAGE_BYTES
    # Upload size bound (PAYLOAD_TOO_LARGE above it).
    max_upload_bytes: int = 64 * 1024 * 1024
    pool_min: int = 2
    pool_max: int = 20
    grace_seconds: float = 10.0
    # SO_REUSEPORT, so several server processes on one host share the port (one per core).
    reuse_port: bool = False
    # Calls one organisation may have in flight in this process (RESOURCE_EXHAUSTED above).
    org_concurrency: int = 256
    # Unary calls one organisation may have running at once; more wait their turn, so one
    # tenant's burst leaves pooled connections to the others. 0: the pool size minus 4.
    org_running: int = 0
    # Page sources allowed despite the https/global-address rule (e.g. loopback in tests).
    allow_sources: list[str] = field(default_factory=list)
    # TLS: PEM server certificate chain and key; with a client CA, clients must present a
    # certificate it signed (mutual TLS). Unset: plaintext (loopback and trusted networks).
    tls_cert_file: str = ""
    tls_key_file: str = ""
    tls_client_ca_file: str = ""
    # How long a sync with validate_discovery waits for the client's decision.
    discovery_decision_timeout_s: float = 60.0
    # Deployment default retrieval mode name (LEGACY_FTS | HYBRID_SHADOW | HYBRID).
    retrieval_mode: str = "LEGACY_FTS"
    # The directory whose sub-directories RunGate may read, by name. Unset: RunGate is refused.
    gate_datasets: str = ""
    # "host:port" of the streamable-HTTP MCP endpoint (served at /mcp). Unset: no MCP over HTTP.
    mcp_address: str = ""
    # The web console at `/` of the HTTP listener (server/quire/server/console/).
    console: bool = True
    # `/metrics` on the HTTP listener (Prometheus text, admin keys only): off unless asked.
    metrics: bool = False
    # Embedding models loaded beside the default all-minilm-l6-v2 (`quire model list`), e.g.
    # ["bge-small-en-v1.5"]: collections may be created with them, and `quire up` runs a
    # worker for each. An unknown or unprepared one stops the start-up, naming what to run.
    models: list[str] = field(default_factory=list)

    @property
    def behind_pooler(self) -> bool:
        return self.database_pooler == POOLER_TRANSACTION

    @property
    def session_database_url(self) -> str:
        """Where session-bound work goes: PostgreSQL itself, never a transaction pooler."""
        return self.database_direct_url or self.database_url

    def check_pooler(self) -> None:
        """Refuses a pooler set-up that would break session-bound work, before anything starts."""
        if self.database_pooler not in POOLER_MODES:
            raise RuntimeError(
                f"QUIRE_DATABASE_POOLER={self.database_pooler!r} is not known: leave it unset, "
                f"or set it to {POOLER_TRANSACTION!r} when QUIRE_DATABASE_URL is a "
                "transaction-mode pooler such as PgBouncer"
            )
        if self.behind_pooler and not self.database_direct_url:
            raise RuntimeError(
                "QUIRE_DATABASE_POOLER=transaction needs QUIRE_DATABASE_DIRECT_URL: a connection "
                "straight to PostgreSQL (not through the pooler) for LISTEN, the page sync's "
                "advisory lock and migrations, which a transaction pooler cannot keep on one "
                "session"
            )

    def check_replicas(self) -> None:
        """Refuses replica bounds that cannot work, before anything starts."""
        if self.replica_max_lag_bytes < 0:
            raise RuntimeError("QUIRE_REPLICA_MAX_LAG_BYTES must be 0 or more")
        if self.replica_max_lag_s <= 0:
            raise RuntimeError("QUIRE_REPLICA_MAX_LAG_S must be more than 0")
        if not 0 <= self.replica_wait_ms <= MAX_REPLICA_WAIT_MS:
            raise RuntimeError(f"QUIRE_REPLICA_WAIT_MS must be 0–{MAX_REPLICA_WAIT_MS}")

    @property
    def org_running_limit(self) -> int:
        return self.org_running if self.org_running > 0 else max(1, self.pool_max - 4)

    @classmethod
    def from_env(cls) -> Settings:
        allow = os.environ.get("QUIRE_ALLOW_SOURCES", "")
        return cls(
            address=os.environ.get("QUIRE_ADDRESS", DEFAULT_ADDRESS),
            http_address=os.environ.get("QUIRE_HTTP_ADDRESS", DEFAULT_HTTP_ADDRESS),
            database_url=os.environ.get("QUIRE_DATABASE_URL", ""),
            database_direct_url=os.environ.get("QUIRE_DATABASE_DIRECT_URL", ""),
            database_pooler=os.environ.get("QUIRE_DATABASE_POOLER", "").strip().lower(),
            database_replica_urls=[
                u.strip()
                for u in os.environ.get("QUIRE_DATABASE_REPLICA_URLS", "").split(",")
                if u.strip()
            ],
            replica_max_lag_bytes=_env_int("QUIRE_REPLICA_MAX_LAG_BYTES", 16 * 1024 * 1024),
            replica_max_lag_s=float(os.environ.get("QUIRE_REPLICA_MAX_LAG_S") or 5.0),
            replica_wait_ms=_env_int("QUIRE_REPLICA_WAIT_MS", 250),
            max_message_bytes=_env_int("QUIRE_MAX_MESSAGE_BYTES", MAX_MESSAGE_BYTES),
            max_upload_bytes=_env_int("QUIRE_MAX_UPLOAD_BYTES", 64 * 1024 * 1024),
            pool_max=_env_int("QUIRE_POOL_MAX", 20),
            reuse_port=os.environ.get("QUIRE_REUSE_PORT", "") in ("1", "true", "yes"),
            org_concurrency=_env_int("QUIRE_ORG_CONCURRENCY", 256),
            org_running=_env_int("QUIRE_ORG_RUNNING", 0),
            allow_sources=[s for s in allow.split(",") if s],
            retrieval_mode=os.environ.get("QUIRE_RETRIEVAL_MODE", "LEGACY_FTS"),
            tls_cert_file=os.environ.get("QUIRE_TLS_CERT", ""),
            tls_key_file=os.environ.get("QUIRE_TLS_KEY", ""),
            tls_client_ca_file=os.environ.get("QUIRE_TLS_CLIENT_CA", ""),
            gate_datasets=os.environ.get("QUIRE_GATE_DATASETS", ""),
            mcp_address=os.environ.get("QUIRE_MCP_ADDRESS", ""),
            console=os.environ.get("QUIRE_CONSOLE", "on") not in ("0", "off", "false", "no"),
            metrics=os.environ.get("QUIRE_METRICS", "") in ("1", "on", "true", "yes"),
            models=[m.strip() for m in os.environ.get("QUIRE_MODELS", "").split(",") if m.strip()],
        )

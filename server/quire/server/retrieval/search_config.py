"""PageSearchConfig: validation ranges and conversion to transaction-local settings."""

from __future__ import annotations

import math

from google.protobuf import json_format

from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError, Violation
from quire.server.validation import number
from quire.v1 import errors_pb2, search_config_pb2

PLAN_CACHE_MODES = ("auto", "force_custom_plan", "force_generic_plan")
MAX_WORKERS = number(contract_bounds.PageSearchConfig.max_parallel_workers_per_gather.max)
MAX_TABLE_SCAN_BLOCKS = number(contract_bounds.PageSearchConfig.min_parallel_table_scan_size.max)

# The deployment default. Generic plans: with sequential scans off, every page-search
# statement plans to the same index paths whatever the parameters (checked with EXPLAIN on
# the FastAPI site: the same rankings to the last digit), and a custom plan of the full-text
# statement costs 1.3 ms of planning per search, 15 % of a search (docs/pages.md).
# enable_seqscan off: every page-search statement has an index path (GIN per lexeme, HNSW,
# primary keys), but the per-lexeme GIN lookup takes its lexeme from a lateral row, and on a
# namespace of a few thousand chunks the planner then prefers a sequential scan that reads
# and detoasts every tsvector once per query lexeme (35 ms instead of 6 ms per search on the
# FastAPI site). Namespaces and requests can set it back.
DEPLOYMENT_DEFAULT = search_config_pb2.PageSearchConfig(
    plan_cache_mode="force_generic_plan", enable_seqscan=False
)


def validate(config: search_config_pb2.PageSearchConfig, prefix: str = "config") -> None:
    """Raises INVALID_REQUEST naming every out-of-range field."""
    bad: list[Violation] = []
    if config.HasField("plan_cache_mode") and config.plan_cache_mode not in PLAN_CACHE_MODES:
        bad.append(Violation(f"{prefix}.plan_cache_mode", f"must be one of {PLAN_CACHE_MODES}"))
    for name in ("parallel_setup_cost", "parallel_tuple_cost"):
        if config.HasField(name):
            value = getattr(config, name)
            if not math.isfinite(value) or value < 0:
                bad.append(Violation(f"{prefix}.{name}", "must be a finite number >= 0"))
    if config.HasField("max_parallel_workers_per_gather") and not (
        0 <= config.max_parallel_workers_per_gather <= MAX_WORKERS
    ):
        bad.append(
            Violation(f"{prefix}.max_parallel_workers_per_gather", f"must be 0–{MAX_WORKERS}")
        )
    if config.HasField("min_parallel_table_scan_size") and not (
        0 <= config.min_parallel_table_scan_size <= MAX_TABLE_SCAN_BLOCKS
    ):
        bad.append(
            Violation(
                f"{prefix}.min_parallel_table_scan_size", f"must be 0–{MAX_TABLE_SCAN_BLOCKS}"
            )
        )
    if bad:
        raise QuireError(
            errors_pb2.ERROR_CODE_INVALID_REQUEST,
            "; ".join(f"{v.field}: {v.description}" for v in bad),
            violations=tuple(bad),
        )


def merged(*layers: search_config_pb2.PageSearchConfig) -> search_config_pb2.PageSearchConfig:
    """Later layers override earlier ones field by field; unset fields inherit."""
    out = search_config_pb2.PageSearchConfig()
    for layer in layers:
        out.MergeFrom(layer)
    return out


def layered_settings(
    stored_json: str | None, override: search_config_pb2.PageSearchConfig | None
) -> dict[str, str]:
    """The deployment default, then a namespace's stored config (JSON), then a per-request
    override, as set_config settings."""
    layers = [DEPLOYMENT_DEFAULT]
    if stored_json:
        layers.append(json_format.Parse(stored_json, search_config_pb2.PageSearchConfig()))
    if override is not None:
        layers.append(override)
    return to_settings(merged(*layers))


def to_settings(config: search_config_pb2.PageSearchConfig) -> dict[str, str]:
    """GUC name → value for set_config(name, value, true)."""
    out: dict[str, str] = {}
    if config.HasField("plan_cache_mode"):
        out["plan_cache_mode"] = config.plan_cache_mode
    if config.HasField("enable_seqscan"):
        out["enable_seqscan"] = "on" if config.enable_seqscan else "off"
    if config.HasField("parallel_setup_cost"):
        out["parallel_setup_cost"] = repr(config.parallel_setup_cost)
    if config.HasField("parallel_tuple_cost"):
        out["parallel_tuple_cost"] = repr(config.parallel_tuple_cost)
    if config.HasField("max_parallel_workers_per_gather"):
        out["max_parallel_workers_per_gather"] = str(config.max_parallel_workers_per_gather)
    if config.HasField("min_parallel_table_scan_size"):
        out["min_parallel_table_scan_size"] = str(config.min_parallel_table_scan_size)
    return out

"""PageSearchConfig: validation ranges and conversion to transaction-local settings."""

from __future__ import annotations

import math
from dataclasses import dataclass

import asyncpg
from google.protobuf import json_format

from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError, Violation
from quire.server.storage import setting_limits
from quire.server.storage.setting_limits import SettingLimits
from quire.server.validation import number
from quire.v1 import errors_pb2, search_config_pb2

PLAN_CACHE_MODES = ("auto", "force_custom_plan", "force_generic_plan")
MAX_WORKERS = number(contract_bounds.PageSearchConfig.max_parallel_workers_per_gather.max)
MAX_TABLE_SCAN_BLOCKS = number(contract_bounds.PageSearchConfig.min_parallel_table_scan_size.max)
# The PostgreSQL settings a PageSearchConfig sets: its fields are named after them.
SETTINGS = tuple(f.name for f in search_config_pb2.PageSearchConfig.DESCRIPTOR.fields)

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


def violations(
    config: search_config_pb2.PageSearchConfig,
    prefix: str = "config",
    limits: SettingLimits | None = None,
) -> list[Violation]:
    """Every field of `config` outside the contract's bounds and, with `limits` (the
    PostgreSQL server's own, storage/setting_limits.py), every value that server would refuse:
    `set_config` refusing one fails the whole search transaction."""
    prefix = f"{prefix}." if prefix else ""
    bad: list[Violation] = []
    if config.HasField("plan_cache_mode") and config.plan_cache_mode not in PLAN_CACHE_MODES:
        bad.append(Violation(f"{prefix}plan_cache_mode", f"must be one of {PLAN_CACHE_MODES}"))
    for name in ("parallel_setup_cost", "parallel_tuple_cost"):
        if config.HasField(name):
            value = getattr(config, name)
            if not math.isfinite(value) or value < 0:
                bad.append(Violation(f"{prefix}{name}", "must be a finite number >= 0"))
    if config.HasField("max_parallel_workers_per_gather") and not (
        0 <= config.max_parallel_workers_per_gather <= MAX_WORKERS
    ):
        bad.append(
            Violation(f"{prefix}max_parallel_workers_per_gather", f"must be 0–{MAX_WORKERS}")
        )
    if config.HasField("min_parallel_table_scan_size") and not (
        0 <= config.min_parallel_table_scan_size <= MAX_TABLE_SCAN_BLOCKS
    ):
        bad.append(
            Violation(f"{prefix}min_parallel_table_scan_size", f"must be 0–{MAX_TABLE_SCAN_BLOCKS}")
        )
    if limits is not None:
        named = {v.field for v in bad}
        for name, value in to_settings(config).items():
            field = f"{prefix}{name}"
            refusal = limits.refusal(name, value) if field not in named else None
            if refusal is not None:
                bad.append(Violation(field, refusal, limits.bound(name)))
    return bad


def validate(
    config: search_config_pb2.PageSearchConfig,
    prefix: str = "config",
    limits: SettingLimits | None = None,
) -> None:
    """Raises INVALID_REQUEST naming every out-of-range field (see `violations`)."""
    bad = violations(config, prefix, limits)
    if bad:
        raise QuireError(
            errors_pb2.ERROR_CODE_INVALID_REQUEST,
            "; ".join(f"{v.field}: {v.description}" for v in bad),
            violations=tuple(bad),
        )


async def server_limits(conn: asyncpg.Connection) -> SettingLimits:
    """PostgreSQL's own limits of every setting a PageSearchConfig sets (cached)."""
    return await setting_limits.read(conn, SETTINGS)


def merged(*layers: search_config_pb2.PageSearchConfig) -> search_config_pb2.PageSearchConfig:
    """Later layers override earlier ones field by field; unset fields inherit."""
    out = search_config_pb2.PageSearchConfig()
    for layer in layers:
        out.MergeFrom(layer)
    return out


@dataclass(frozen=True)
class Ignored:
    """A stored field left out of a search, and why."""

    field: str
    reason: str


def layered_settings(
    stored_json: str | None,
    override: search_config_pb2.PageSearchConfig | None,
    limits: SettingLimits,
) -> tuple[dict[str, str], list[Ignored]]:
    """The deployment default, then a namespace's stored config (JSON), then a per-request
    override, as set_config settings; and the stored fields left out.

    A stored configuration never fails a search: it is checked again on each read, against
    this server's limits (a replica's, a newer PostgreSQL's, or a value stored before Quire
    checked PostgreSQL's bounds), and a field that does not pass is left out (the caller logs
    it). The override is the caller's own: a bad field is INVALID_REQUEST naming it."""
    ignored: list[Ignored] = []
    layers = [DEPLOYMENT_DEFAULT]
    if stored_json:
        stored = search_config_pb2.PageSearchConfig()
        try:
            json_format.Parse(stored_json, stored, ignore_unknown_fields=True)
        except json_format.ParseError as exc:
            ignored.append(Ignored("*", f"unreadable: {str(exc)[:200]}"))
        else:
            for v in violations(stored, "", limits):
                stored.ClearField(v.field)  # type: ignore[arg-type]  # a name from violations()
                ignored.append(Ignored(v.field, v.description))
            layers.append(stored)
    if override is not None:
        validate(override, "config", limits)
        layers.append(override)
    return to_settings(merged(*layers)), ignored


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

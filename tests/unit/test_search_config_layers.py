"""PageSearchConfig layers: deployment default, then the namespace's stored JSON, then the
request's override, field by field; each checked against PostgreSQL's own limits."""

from __future__ import annotations

import math

import pytest
from google.protobuf import json_format

from quire.server.failures import QuireError
from quire.server.retrieval.search_config import layered_settings, violations
from quire.server.storage.setting_limits import SettingLimit, SettingLimits
from quire.v1 import search_config_pb2

# pg_settings of PostgreSQL 16/17 for these settings (the integration tests read the real ones).
LIMITS = SettingLimits(
    {
        "plan_cache_mode": SettingLimit(
            "plan_cache_mode", "enum", enumvals=("auto", "force_generic_plan", "force_custom_plan")
        ),
        "enable_seqscan": SettingLimit("enable_seqscan", "bool"),
        "parallel_setup_cost": SettingLimit("parallel_setup_cost", "real", "0", "1.79769e+308"),
        "parallel_tuple_cost": SettingLimit("parallel_tuple_cost", "real", "0", "1.79769e+308"),
        "max_parallel_workers_per_gather": SettingLimit(
            "max_parallel_workers_per_gather", "integer", "0", "1024"
        ),
        "min_parallel_table_scan_size": SettingLimit(
            "min_parallel_table_scan_size", "integer", "0", "715827882"
        ),
    }
)


def test_deployment_default_alone() -> None:
    assert layered_settings(None, None, LIMITS) == (
        {"plan_cache_mode": "force_generic_plan", "enable_seqscan": "off"},
        [],
    )


def test_namespace_then_request_override_field_by_field() -> None:
    stored = json_format.MessageToJson(
        search_config_pb2.PageSearchConfig(enable_seqscan=True, max_parallel_workers_per_gather=2)
    )
    assert layered_settings(stored, None, LIMITS)[0] == {
        "plan_cache_mode": "force_generic_plan",
        "enable_seqscan": "on",
        "max_parallel_workers_per_gather": "2",
    }
    override = search_config_pb2.PageSearchConfig(
        plan_cache_mode="auto", max_parallel_workers_per_gather=0
    )
    assert layered_settings(stored, override, LIMITS)[0] == {
        "plan_cache_mode": "auto",
        "enable_seqscan": "on",
        "max_parallel_workers_per_gather": "0",
    }


def test_a_stored_field_postgres_refuses_is_left_out_and_reported() -> None:
    stored = json_format.MessageToJson(
        search_config_pb2.PageSearchConfig(
            parallel_tuple_cost=5e-324,
            min_parallel_table_scan_size=2_147_483_647,
            enable_seqscan=True,
        )
    )
    settings, ignored = layered_settings(stored, None, LIMITS)
    assert settings == {"plan_cache_mode": "force_generic_plan", "enable_seqscan": "on"}
    assert sorted(i.field for i in ignored) == [
        "min_parallel_table_scan_size",
        "parallel_tuple_cost",
    ]


def test_unreadable_stored_json_is_left_out() -> None:
    settings, ignored = layered_settings('{"parallel_tuple_cost": "lots"}', None, LIMITS)
    assert settings == {"plan_cache_mode": "force_generic_plan", "enable_seqscan": "off"}
    assert [i.field for i in ignored] == ["*"]


def test_a_bad_override_is_invalid_request_naming_the_field() -> None:
    with pytest.raises(QuireError) as info:
        layered_settings(
            None, search_config_pb2.PageSearchConfig(parallel_tuple_cost=5e-324), LIMITS
        )
    assert [v.field for v in info.value.violations] == ["config.parallel_tuple_cost"]


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        (0.0, True),
        (-0.0, True),
        (1.0, True),
        (2.2250738585072014e-308, True),  # the smallest normal double
        (2.225073858507201e-308, False),  # the largest denormal
        (5e-324, False),
        (-5e-324, False),
        (1e308, True),
        (1.79769e308, False),  # pg_settings' printed bound, narrowed by its rounding
        (1.7976931348623157e308, False),
        (math.inf, False),
        (-math.inf, False),
        (math.nan, False),
        (-1e-300, False),
    ],
)
def test_real_edges(value: float, accepted: bool) -> None:
    config = search_config_pb2.PageSearchConfig(parallel_tuple_cost=value)
    assert (violations(config, limits=LIMITS) == []) == accepted


@pytest.mark.parametrize(
    ("value", "accepted"),
    [(0, True), (715_827_882, True), (715_827_883, False), (2**31 - 1, False), (-1, False)],
)
def test_integer_edges(value: int, accepted: bool) -> None:
    config = search_config_pb2.PageSearchConfig(min_parallel_table_scan_size=value)
    found = violations(config, limits=LIMITS)
    assert (found == []) == accepted
    if not accepted:
        assert [v.field for v in found] == ["config.min_parallel_table_scan_size"]


def test_a_setting_the_server_lacks_is_refused() -> None:
    config = search_config_pb2.PageSearchConfig(plan_cache_mode="auto")
    found = violations(config, limits=SettingLimits({}))
    assert [v.field for v in found] == ["config.plan_cache_mode"]

"""PageSearchConfig layers: deployment default, then the namespace's stored JSON, then the
request's override, field by field."""

from __future__ import annotations

from google.protobuf import json_format

from quire.server.retrieval.search_config import layered_settings
from quire.v1 import search_config_pb2


def test_deployment_default_alone() -> None:
    assert layered_settings(None, None) == {
        "plan_cache_mode": "force_generic_plan",
        "enable_seqscan": "off",
    }


def test_namespace_then_request_override_field_by_field() -> None:
    stored = json_format.MessageToJson(
        search_config_pb2.PageSearchConfig(enable_seqscan=True, max_parallel_workers_per_gather=2)
    )
    assert layered_settings(stored, None) == {
        "plan_cache_mode": "force_generic_plan",
        "enable_seqscan": "on",
        "max_parallel_workers_per_gather": "2",
    }
    override = search_config_pb2.PageSearchConfig(
        plan_cache_mode="auto", max_parallel_workers_per_gather=0
    )
    assert layered_settings(stored, override) == {
        "plan_cache_mode": "auto",
        "enable_seqscan": "on",
        "max_parallel_workers_per_gather": "0",
    }

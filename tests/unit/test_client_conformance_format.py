"""The conformance runner's matching, substitution and scenario loading (no server)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import runner_python as r
from tests.conformance.client_steps import HELPER_RPCS


def test_subset_match_and_defaults() -> None:
    actual = {"collection": {"name": "a", "revision": "3"}, "schemaVersion": 1}
    assert r.match({"collection": {"name": "a"}}, actual) == []
    assert r.match({"collection": {"revision": 3}}, actual) == []  # int64 as JSON string
    assert r.match({"collection": {"documentCount": 0}}, actual) == []  # absent == default
    assert r.match({"collection": {"name": "b"}}, actual)
    assert r.match({"missing": {}}, actual)  # an absent message never matches an object
    assert r.match({"flag": False, "mode": "RETRIEVAL_MODE_UNSPECIFIED"}, {}) == []
    assert r.match({"flag": True}, {})


def test_operators() -> None:
    doc = {"items": [{"id": "a", "n": 1}, {"id": "b", "n": 2}], "s": "hello world"}
    assert r.match({"items": {"$len": 2}}, doc) == []
    assert r.match({"items": {"$len": 3}}, doc)
    assert r.match({"missing": {"$len": 0}}, doc) == []
    assert r.match({"items": {"$contains": {"id": "b"}}}, doc) == []
    assert r.match({"items": {"$contains": {"id": "c"}}}, doc)
    assert r.match({"items": {"$not_contains": {"id": "c"}}}, doc) == []
    assert r.match({"items": {"$each": {"n": {"$gte": 1}}}}, doc) == []
    assert r.match({"items": {"$each": {"n": {"$gt": 1}}}}, doc)
    assert r.match({"s": {"$substring": "lo wo"}}, doc) == []
    assert r.match({"s": {"$nonempty": True}, "t": {"$absent": True}}, doc) == []
    assert r.match({"s": {"$ne": "hello world"}}, doc)
    assert r.match({"items": [{"id": "a"}, {"id": "b"}]}, doc) == []
    assert r.match({"items": [{"id": "b"}, {"id": "a"}]}, doc)
    with pytest.raises(r.ScenarioError):
        r.match({"x": {"$bogus": 1}}, doc)


def test_substitution_keeps_types_and_fails_on_unknown() -> None:
    env = {"cid": "c-1", "n": 5, "obj": {"a": 1}}
    assert r.substitute({"id": "${cid}", "name": "x-${cid}-${n}", "v": "${n}"}, env) == {
        "id": "c-1",
        "name": "x-c-1-5",
        "v": 5,
    }
    assert r.substitute(["${obj}"], env) == [{"a": 1}]
    with pytest.raises(r.ScenarioError):
        r.substitute("${nope}", env)


def test_request_value_operators() -> None:
    out = r.expand_values({"data": {"$text": "hé"}, "b": {"$repeat": {"text": "ab", "times": 3}}})
    assert base64.b64decode(out["data"]) == "hé".encode()
    assert base64.b64decode(out["b"]) == b"ababab"


def test_resolve_path() -> None:
    doc = {"a": {"b": [{"c": "x"}]}}
    assert r.resolve_path(doc, "a.b.0.c") == "x"
    assert r.resolve_path(doc, "a.b.1.c") is r._ABSENT
    assert r.resolve_path(doc, "a.z") is r._ABSENT


def test_error_expectations() -> None:
    outcome = r.Outcome(
        error={
            "grpc_code": "INVALID_ARGUMENT",
            "error_code": "ERROR_CODE_INVALID_REQUEST",
            "detail": {"fieldViolations": [{"field": "config.x"}]},
            "message": "bad",
        }
    )
    step = {
        "expect": {
            "error": {
                "grpc_code": "INVALID_ARGUMENT",
                "error_code": "ERROR_CODE_INVALID_REQUEST",
                "field_violations": ["config.x"],
            }
        }
    }
    assert r.check(step, outcome, {}) == []
    step["expect"]["error"]["field_violations"] = ["config.y"]
    assert r.check(step, outcome, {})
    assert r.check({"expect": {"ok": {}}}, outcome, {})


@pytest.mark.parametrize(("directory", "least"), [(r.SCENARIOS, 20), (r.TOOL_SCENARIOS, 4)])
def test_every_scenario_file_is_well_formed(directory: Path, least: int) -> None:
    scenarios = r.load(directory)
    assert len(scenarios) >= least
    keys = {"read", "write", "admin", "tune", "all", "none", "invalid"}
    keys |= {f"other_org_{k}" for k in ("read", "write", "admin", "tune", "all")}
    for scenario in scenarios:
        assert scenario["name"] and scenario["description"] and scenario["steps"]
        for step in scenario["steps"]:
            assert ("key" in step) != ("bearer" in step), step
            assert step.get("key", "read") in keys
            assert ("ok" in step["expect"]) != ("error" in step["expect"])
            assert ("call" in step) != ("client" in step), step
            if "client" in step:
                assert_client_step(step)
                continue
            method = r._method(step["call"])  # raises on an unknown call
            assert "args" not in step
            if method.client_streaming:
                assert "stream" in step and "request" not in step
            else:
                assert "stream" not in step
        for req in scenario["requires"]:
            r._method(req)


def canonical_json(value: object) -> str:
    """The one form scenario files are written in: two-space indent, keys in the order
    written, non-ASCII as itself, a final newline; so a file reformatted by an editor shows
    as a diff of its content only."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def test_scenario_files_are_canonical_json() -> None:
    paths = sorted([*r.SCENARIOS.glob("*.json"), *r.TOOL_SCENARIOS.glob("*.json")])
    assert paths
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert text == canonical_json(json.loads(text)), f"{path.name} is not canonical JSON"


def test_canonical_json_refuses_another_layout() -> None:
    assert canonical_json({"a": [1]}) == '{\n  "a": [\n    1\n  ]\n}\n'
    assert canonical_json({"a": [1]}) != '{"a": [1]}\n'


def test_scenario_names_are_unique_across_both_directories() -> None:
    names = [s["name"] for d in (r.SCENARIOS, r.TOOL_SCENARIOS) for s in r.load(d)]
    assert len(names) == len(set(names))


CLIENT_ARGS = {
    "wait_until_searchable": {"document_ids", "collection_id", "timeout_ms"},
    "iterate": {"list", "request", "page_size"},
    "upload_documents": {"collection_id", "documents"},
    "tool_call": {"tool", "arguments", "namespace", "agent_id"},
}
LISTS = {"collections", "documents", "agents", "namespaces", "pages"}
UPLOAD_FIELDS = {"fileName", "text", "externalKey", "metadata", "mimeType"}


def assert_client_step(step: dict[str, Any]) -> None:
    """A client step names a helper of the spec, with only the args the spec gives it."""
    assert step["client"] in CLIENT_ARGS, step
    assert "request" not in step and "stream" not in step, step
    args = step["args"]
    assert set(args) <= CLIENT_ARGS[step["client"]], step
    if step["client"] == "wait_until_searchable":
        assert ("document_ids" in args) != ("collection_id" in args), step
    elif step["client"] == "iterate":
        assert args["list"] in LISTS and isinstance(args.get("request", {}), dict), step
    elif step["client"] == "tool_call":
        assert isinstance(args["tool"], str) and isinstance(args["arguments"], dict), step
    else:
        for document in args["documents"]:
            assert "fileName" in document and set(document) <= UPLOAD_FIELDS, document


def test_client_steps_run_the_helper_and_report_unknown_ones() -> None:
    """An unknown helper is a scenario error (FAIL), never a skip; helpers map to the RPCs
    that `requires` may list."""
    runner = r.Runner("127.0.0.1:1", {"read": "qk_x"}, {})
    try:
        scenario = {
            "name": "s",
            "requires": ["KnowledgeService.UploadDocuments"],
            "steps": [{"client": "no_such_helper", "key": "read", "args": {}}],
        }
        result = r.run_scenario(runner, scenario, verbose=False)
        assert result.status == "FAIL" and "unknown client helper" in result.reason
    finally:
        runner.close()
    assert "KnowledgeService.UploadDocuments" in HELPER_RPCS["upload_documents"]
    assert "KnowledgeService.ListAgents" in HELPER_RPCS["iterate"]
    assert "PagesService.DescribeTools" in HELPER_RPCS["tool_call"]

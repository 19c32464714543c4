"""Python conformance runner: executes tests/conformance/scenarios/*.json against a server.

    python -m tests.conformance.runner_python [--scenarios DIR] [-k SUBSTRING] [-v]

Reads QUIRE_CONFORMANCE_ADDRESS, QUIRE_CONFORMANCE_KEYS (JSON) and QUIRE_CONFORMANCE_FIXTURES
(JSON, optional). Prints one line per scenario and ends with `N passed, N failed` (plus
`, N skipped`); exit code 1 when any scenario failed. The format is in README.md.

Calls go through generic gRPC stubs built from the quire.v1 descriptors (request and response
types come from the service descriptor), so this file is also a reference for other runners.
Errors are decoded with the client's `rich_status.error_detail`.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import math
import os
import queue
import re
import secrets
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message

from quire.client import QuireClient, QuireError
from quire.client.rich_status import error_detail
from quire.v1 import admin_service_pb2, knowledge_service_pb2, pages_service_pb2
from tests.conformance.client_steps import (
    HELPER_RPCS,
    BadArgs,
    error_json,
    run_helper,
    run_tool_call,
)

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
# The tool runner's scenarios (README §11), run by the runners of the clients that have one.
TOOL_SCENARIOS = Path(__file__).resolve().parent / "tool_scenarios"
CHUNK = 1024 * 1024
DEFAULT_TIMEOUT_MS = 30_000
STREAM_TIMEOUT_MS = 300_000
SERVICE_FILES = {
    "PagesService": pages_service_pb2,
    "KnowledgeService": knowledge_service_pb2,
    "AdminService": admin_service_pb2,
}
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.]*)\}")
_ABSENT: Any = object()
_DEFAULTS: tuple[Any, ...] = (False, 0, 0.0, "", "0", None)


class ScenarioError(Exception):
    """The scenario file itself is wrong (unknown variable, key, call...)."""


class StepFailed(Exception):
    pass


class Skip(Exception):
    pass


# ------------------------------------------------------------------ variables


def substitute(value: Any, env: dict[str, Any]) -> Any:
    """`${var}` in every string; a string that is exactly `${var}` keeps the value's JSON type."""
    if isinstance(value, str):
        whole = _VAR.fullmatch(value)
        if whole:
            return copy.deepcopy(lookup(env, whole.group(1)))
        return _VAR.sub(lambda m: _as_text(lookup(env, m.group(1))), value)
    if isinstance(value, list):
        return [substitute(v, env) for v in value]
    if isinstance(value, dict):
        return {substitute(k, env): substitute(v, env) for k, v in value.items()}
    return value


def lookup(env: dict[str, Any], name: str) -> Any:
    if name not in env:
        raise ScenarioError(f"unknown variable ${{{name}}}")
    return env[name]


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def expand_values(value: Any) -> Any:
    """Request value operators: {"$text": s}, {"$base64": s}, {"$repeat": {"text", "times"}}."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, arg),) = value.items()
            if key == "$text":
                return base64.b64encode(arg.encode()).decode()
            if key == "$base64":
                return arg
            if key == "$repeat":
                data = arg["text"].encode() * int(arg["times"])
                return base64.b64encode(data).decode()
        return {k: expand_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_values(v) for v in value]
    return value


def resolve_path(doc: Any, path: str) -> Any:
    """Dotted path; numeric segments index lists. Returns _ABSENT when missing."""
    current = doc
    for part in path.split("."):
        if isinstance(current, list) and part.isdigit():
            index = int(part)
            current = current[index] if index < len(current) else _ABSENT
        elif isinstance(current, dict):
            current = current.get(part, _ABSENT)
        else:
            return _ABSENT
        if current is _ABSENT:
            return _ABSENT
    return current


# ------------------------------------------------------------------ matching


def _is_default(value: Any) -> bool:
    if isinstance(value, str) and value.endswith("_UNSPECIFIED"):
        return True
    if isinstance(value, list | dict) and not value:
        return True
    return any(value == d and type(value) is type(d) for d in _DEFAULTS)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _scalar_equal(expected: Any, actual: Any) -> bool:
    if actual is _ABSENT:
        return _is_default(expected)
    if expected == actual and type(expected) is type(actual):
        return True
    if isinstance(expected, bool) or isinstance(actual, bool):
        return False
    if isinstance(expected, int | float) or isinstance(actual, int | float):
        a, b = _number(expected), _number(actual)
        return a is not None and b is not None and (a == b or (math.isnan(a) and math.isnan(b)))
    return False


def _short(value: Any) -> str:
    text = "<absent>" if value is _ABSENT else json.dumps(value)
    return text if len(text) <= 300 else text[:300] + "..."


def match(expected: Any, actual: Any, where: str = "$") -> list[str]:
    """Mismatch descriptions (empty when `actual` satisfies `expected`)."""
    if isinstance(expected, dict) and expected and all(k.startswith("$") for k in expected):
        problems: list[str] = []
        for op, arg in expected.items():
            problems += _operator(op, arg, actual, where)
        return problems
    if isinstance(expected, dict):
        if actual is _ABSENT or not isinstance(actual, dict):
            return [f"{where}: expected an object, got {_short(actual)}"]
        problems = []
        for key, want in expected.items():
            problems += match(want, actual.get(key, _ABSENT), f"{where}.{key}")
        return problems
    if isinstance(expected, list):
        items = [] if actual is _ABSENT else actual
        if not isinstance(items, list) or len(items) != len(expected):
            return [f"{where}: expected {len(expected)} items, got {_short(actual)}"]
        problems = []
        for i, (want, got) in enumerate(zip(expected, items, strict=True)):
            problems += match(want, got, f"{where}.{i}")
        return problems
    if not _scalar_equal(expected, actual):
        return [f"{where}: expected {_short(expected)}, got {_short(actual)}"]
    return []


def _operator(op: str, arg: Any, actual: Any, where: str) -> list[str]:
    items = [] if actual is _ABSENT else actual
    if op == "$len":
        if not isinstance(items, list | str) or len(items) != arg:
            return [f"{where}: expected length {arg}, got {_short(actual)}"]
        return []
    if op in ("$contains", "$not_contains", "$each"):
        if not isinstance(items, list):
            return [f"{where}: expected a list, got {_short(actual)}"]
        hits = [not match(arg, item, where) for item in items]
        if op == "$contains" and not any(hits):
            return [f"{where}: no element matches {_short(arg)} in {_short(actual)}"]
        if op == "$not_contains" and any(hits):
            return [f"{where}: an element matches {_short(arg)}"]
        if op == "$each" and not all(hits):
            return [f"{where}: not every element matches {_short(arg)}"]
        return []
    if op == "$nonempty":
        empty = actual is _ABSENT or _is_default(actual)
        return [] if empty != bool(arg) else [f"{where}: $nonempty {arg}, got {_short(actual)}"]
    if op == "$absent":
        empty = actual is _ABSENT or _is_default(actual)
        return [] if empty == bool(arg) else [f"{where}: $absent {arg}, got {_short(actual)}"]
    if op == "$ne":
        return [f"{where}: expected != {_short(arg)}"] if _scalar_equal(arg, actual) else []
    if op == "$substring":
        text = "" if actual is _ABSENT else actual
        if not isinstance(text, str) or arg not in text:
            return [f"{where}: {_short(arg)} not in {_short(actual)}"]
        return []
    if op in ("$gte", "$lte", "$gt", "$lt"):
        value = 0.0 if actual is _ABSENT else _number(actual)
        if value is None:
            return [f"{where}: expected a number, got {_short(actual)}"]
        ok = {
            "$gte": value >= arg,
            "$lte": value <= arg,
            "$gt": value > arg,
            "$lt": value < arg,
        }[op]
        return [] if ok else [f"{where}: expected {op} {arg}, got {_short(actual)}"]
    raise ScenarioError(f"unknown operator {op}")


# ------------------------------------------------------------------ calls


@dataclass
class Outcome:
    ok: Any = None  # response JSON (unary) or {"messages", "last", "count", "cancelled"}
    error: dict[str, Any] | None = None  # grpc_code, error_code, detail JSON


def _method(call: str) -> MethodDescriptor:
    try:
        service, rpc = call.split(".")
        return SERVICE_FILES[service].DESCRIPTOR.services_by_name[service].methods_by_name[rpc]
    except (KeyError, ValueError):
        raise ScenarioError(f"unknown call {call!r} (want Service.Rpc)") from None


def _message_class(descriptor: Any) -> type[Message]:
    cls: type[Message] = message_factory.GetMessageClass(descriptor)
    return cls


def _to_json(message: Message) -> Any:
    return json_format.MessageToDict(message)


def _parse(cls: type[Message], body: Any) -> Message:
    try:
        return json_format.ParseDict(expand_values(body), cls())
    except json_format.ParseError as exc:
        raise ScenarioError(f"bad request JSON for {cls.DESCRIPTOR.full_name}: {exc}") from None


def _split_data(messages: list[Message]) -> list[Message]:
    """Data messages over 1 MiB are sent as consecutive 1 MiB messages."""
    out: list[Message] = []
    for message in messages:
        data = getattr(message, "data", b"") if "data" in message.DESCRIPTOR.fields_by_name else b""
        if isinstance(data, bytes) and len(data) > CHUNK:
            cls = type(message)
            out += [cls(data=data[i : i + CHUNK]) for i in range(0, len(data), CHUNK)]
        else:
            out.append(message)
    return out


def _error(exc: grpc.RpcError) -> dict[str, Any]:
    code: grpc.StatusCode = exc.code()  # type: ignore[attr-defined]
    detail = error_detail(exc.trailing_metadata())  # type: ignore[attr-defined]
    detail_json = _to_json(detail) if detail is not None else {}
    return {
        "grpc_code": code.name,
        "error_code": detail_json.get("code", "ERROR_CODE_UNSPECIFIED"),
        "detail": detail_json,
        "message": exc.details(),  # type: ignore[attr-defined]
    }


class Runner:
    def __init__(self, address: str, keys: dict[str, str], fixtures: dict[str, Any]) -> None:
        self.address = address
        self.channel = grpc.insecure_channel(address)
        self.keys = keys
        self.fixtures = fixtures
        self.clients: dict[str, QuireClient] = {}  # bearer token → client, for client steps

    def close(self) -> None:
        self.channel.close()
        for client in self.clients.values():
            client.close()

    def token(self, step: dict[str, Any], env: dict[str, Any]) -> str:
        """The step's bearer token (`key: none` sends none)."""
        metadata = self.metadata(step, env)
        return metadata[0][1].removeprefix("Bearer ") if metadata else ""

    def client_for(self, token: str) -> QuireClient:
        """The client library, sending this credential."""
        if token not in self.clients:
            self.clients[token] = QuireClient(self.address, api_key=token)
        return self.clients[token]

    def invoke_client(self, step: dict[str, Any], env: dict[str, Any]) -> Outcome:
        """A client step: the helper's result, or its typed error."""
        token = self.token(step, env)
        args = substitute(step.get("args", {}), env)
        try:
            if step["client"] == "tool_call":
                return Outcome(ok=run_tool_call(self.address, token, args))
            return Outcome(ok=run_helper(self.client_for(token), step["client"], args))
        except BadArgs as exc:
            raise ScenarioError(str(exc)) from None
        except QuireError as exc:
            return Outcome(error=error_json(exc))

    def metadata(self, step: dict[str, Any], env: dict[str, Any]) -> tuple[tuple[str, str], ...]:
        if "bearer" in step:
            return (("authorization", f"Bearer {substitute(step['bearer'], env)}"),)
        key = step.get("key")
        if key is None:
            raise ScenarioError("step has neither key nor bearer")
        if key == "none":
            return ()
        if key not in self.keys:
            raise ScenarioError(f"unknown key {key!r}")
        return (("authorization", f"Bearer {self.keys[key]}"),)

    def invoke(self, step: dict[str, Any], env: dict[str, Any]) -> Outcome:
        method = _method(step["call"])
        path = f"/{method.containing_service.full_name}/{method.name}"
        req_cls = _message_class(method.input_type)
        resp_cls = _message_class(method.output_type)
        serialize, deserialize = req_cls.SerializeToString, resp_cls.FromString
        metadata = self.metadata(step, env)
        streaming = method.client_streaming or method.server_streaming
        default_ms = STREAM_TIMEOUT_MS if streaming else DEFAULT_TIMEOUT_MS
        timeout = step.get("timeout_ms", default_ms) / 1000
        try:
            if not streaming:
                request = _parse(req_cls, substitute(step.get("request", {}), env))
                unary = self.channel.unary_unary(path, serialize, deserialize)
                reply = unary(request, timeout=timeout, metadata=metadata)
                return Outcome(ok=_to_json(reply))
            if method.client_streaming and not method.server_streaming:
                messages = [_parse(req_cls, m) for m in substitute(step["stream"], env)]
                client_stream = self.channel.stream_unary(path, serialize, deserialize)
                reply = client_stream(
                    iter(_split_data(messages)), timeout=timeout, metadata=metadata
                )
                return Outcome(ok=_to_json(reply))
            if not method.client_streaming:
                request = _parse(req_cls, substitute(step.get("request", {}), env))
                server_stream = self.channel.unary_stream(path, serialize, deserialize)
                call = server_stream(request, timeout=timeout, metadata=metadata)
                return self._collect(call, step, None, req_cls)
            messages = [_parse(req_cls, m) for m in substitute(step["stream"], env)]
            outbox: queue.SimpleQueue[Message | None] = queue.SimpleQueue()
            for m in _split_data(messages):
                outbox.put(m)

            def requests() -> Iterator[Message]:
                while (item := outbox.get()) is not None:
                    yield item

            bidi = self.channel.stream_stream(path, serialize, deserialize)
            call = bidi(requests(), timeout=timeout, metadata=metadata)
            try:
                return self._collect(call, step, outbox, req_cls)
            finally:
                outbox.put(None)
        except grpc.RpcError as exc:
            return Outcome(error=_error(exc))

    def _collect(
        self,
        call: Any,
        step: dict[str, Any],
        outbox: queue.SimpleQueue[Message | None] | None,
        req_cls: type[Message],
    ) -> Outcome:
        """Reads a response stream; answers discovery checks; stops per `collect`/`cancel_after`."""
        collect = step.get("collect", {})
        max_messages = collect.get("max_messages")
        cancel_after = step.get("cancel_after")
        limit_ms = collect.get("timeout_ms")
        messages: list[Any] = []
        cancelled = False
        timer = None
        if limit_ms is not None:
            timer = threading.Timer(limit_ms / 1000, call.cancel)
            timer.start()
        try:
            for reply in call:
                body = _to_json(reply)
                messages.append(body)
                if "discoveryCheck" in body:
                    if "discovery_decision" not in step or outbox is None:
                        raise StepFailed("unexpected discoveryCheck (no discovery_decision)")
                    accept = bool(step["discovery_decision"])
                    outbox.put(_parse(req_cls, {"decision": {"accept": accept}}))
                if cancel_after is not None and len(messages) >= cancel_after:
                    call.cancel()
                    cancelled = True
                    break
                if max_messages is not None and len(messages) >= max_messages:
                    call.cancel()
                    cancelled = True
                    break
        except grpc.RpcError as exc:
            # A cancellation caused by the runner (collect timeout) is not an error.
            if not (timer is not None and exc.code() == grpc.StatusCode.CANCELLED):  # type: ignore[attr-defined]
                raise
            cancelled = True
        finally:
            if timer is not None:
                timer.cancel()
        return Outcome(
            ok={
                "messages": messages,
                "last": messages[-1] if messages else {},
                "count": len(messages),
                "cancelled": cancelled,
            }
        )


# ------------------------------------------------------------------ scenarios


@dataclass
class Result:
    name: str
    status: str  # PASS | FAIL | SKIP
    reason: str = ""
    seconds: float = 0.0
    steps: int = 0
    notes: list[str] = field(default_factory=list)


def check(step: dict[str, Any], outcome: Outcome, env: dict[str, Any]) -> list[str]:
    expect = substitute(step.get("expect", {"ok": {}}), env)
    if "error" in expect:
        want = expect["error"]
        if outcome.error is None:
            return [f"expected error {want}, got ok {_short(outcome.ok)}"]
        got = outcome.error
        problems: list[str] = []
        if "grpc_code" in want and want["grpc_code"] != got["grpc_code"]:
            problems.append(f"grpc_code: expected {want['grpc_code']}, got {got['grpc_code']}")
        if "error_code" in want and want["error_code"] != got["error_code"]:
            problems.append(f"error_code: expected {want['error_code']}, got {got['error_code']}")
        if "current_revision" in want:
            actual = got["detail"].get("currentRevision", _ABSENT)
            problems += match(want["current_revision"], actual, "current_revision")
        if "field_violations" in want:
            fields = sorted(v.get("field", "") for v in got["detail"].get("fieldViolations", []))
            if fields != sorted(want["field_violations"]):
                problems.append(
                    f"field_violations: expected {want['field_violations']}, got {fields}"
                )
        if "retry_after" in want:
            has = "retryAfter" in got["detail"]
            if has != bool(want["retry_after"]):
                problems.append(f"retry_after: expected set={want['retry_after']}, got {has}")
        if problems:
            problems.append(f"(message: {got.get('message')!r})")
        return problems
    want_ok = expect.get("ok", {})
    if outcome.error is not None:
        err = outcome.error
        return [f"expected ok, got {err['grpc_code']} {err['error_code']}: {err.get('message')!r}"]
    return match(want_ok, outcome.ok)


def run_scenario(runner: Runner, scenario: dict[str, Any], verbose: bool) -> Result:
    name = scenario["name"]
    result = Result(name=name, status="PASS")
    started = time.monotonic()
    requires = set(scenario.get("requires", []))
    try:
        missing = [f for f in scenario.get("fixtures", []) if f not in runner.fixtures]
        if missing:
            raise Skip(f"fixture(s) not provided: {', '.join(missing)}")
        env: dict[str, Any] = dict(runner.fixtures)
        env.update(run_id=secrets.token_hex(4), scenario=name)
        for var, value in scenario.get("vars", {}).items():
            env[var] = substitute(value, env)
        for index, step in enumerate(scenario["steps"], 1):
            label = f"step {index} ({step.get('name') or step.get('call') or step['client']})"
            result.steps = index
            until = step.get("until")
            deadline = time.monotonic() + (until["timeout_ms"] / 1000 if until else 0)
            while True:
                outcome = (
                    runner.invoke_client(step, env)
                    if "client" in step
                    else runner.invoke(step, env)
                )
                rpcs = (
                    HELPER_RPCS.get(step["client"], set()) if "client" in step else {step["call"]}
                )
                if (
                    outcome.error is not None
                    and outcome.error["grpc_code"] == "UNIMPLEMENTED"
                    and rpcs & requires
                    and substitute(step.get("expect", {}), env).get("error", {}).get("grpc_code")
                    != "UNIMPLEMENTED"
                ):
                    raise Skip(f"requires {', '.join(sorted(rpcs & requires))} (UNIMPLEMENTED)")
                problems = check(step, outcome, env)
                if not problems or until is None or time.monotonic() >= deadline:
                    break
                time.sleep(until.get("interval_ms", 250) / 1000)
            if problems:
                raise StepFailed(f"{label}: " + "; ".join(problems))
            doc: Any = outcome.ok if outcome.error is None else outcome.error["detail"]
            for var, path in step.get("save", {}).items():
                value = resolve_path(doc, path)
                if value is _ABSENT:
                    raise StepFailed(f"{label}: save {var}: path {path!r} not in response")
                env[var] = value
            if verbose:
                print(f"    ok {label}", flush=True)
    except Skip as exc:
        result.status, result.reason = "SKIP", str(exc)
    except StepFailed as exc:
        result.status, result.reason = "FAIL", str(exc)
    except ScenarioError as exc:
        result.status, result.reason = "FAIL", f"scenario error: {exc}"
    except Exception as exc:  # a runner bug must not stop the other scenarios
        result.status, result.reason = "FAIL", f"runner error: {type(exc).__name__}: {exc}"
    result.seconds = time.monotonic() - started
    return result


def load(directory: Path) -> list[dict[str, Any]]:
    """Every scenario of every file, files in name order; file-level `requires` is merged."""
    scenarios: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.json")):
        doc = json.loads(path.read_text())
        file_requires = doc.get("requires", [])
        file_fixtures = doc.get("fixtures", [])
        for scenario in doc["scenarios"]:
            merged = dict(scenario)
            merged["requires"] = [*file_requires, *scenario.get("requires", [])]
            merged["fixtures"] = [*file_fixtures, *scenario.get("fixtures", [])]
            merged["file"] = path.name
            scenarios.append(merged)
    names = [s["name"] for s in scenarios]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ScenarioError(f"duplicate scenario names: {sorted(duplicates)}")
    return scenarios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=Path, default=SCENARIOS)
    parser.add_argument("-k", dest="filter", default="", help="only names containing this")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    address = os.environ.get("QUIRE_CONFORMANCE_ADDRESS")
    if not address:
        print("QUIRE_CONFORMANCE_ADDRESS is not set (run through tests.conformance.harness)")
        return 2
    keys = json.loads(os.environ.get("QUIRE_CONFORMANCE_KEYS", "{}"))
    fixtures = json.loads(os.environ.get("QUIRE_CONFORMANCE_FIXTURES", "{}"))
    runner = Runner(address, keys, fixtures)
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    try:
        for scenario in load(args.scenarios):
            if args.filter and args.filter not in scenario["name"]:
                continue
            result = run_scenario(runner, scenario, args.verbose)
            counts[result.status] += 1
            line = f"{result.status} {result.name} ({result.seconds:.2f}s)"
            if result.reason:
                line += f": {result.reason}"
            print(line, flush=True)
    finally:
        runner.close()
    summary = f"{counts['PASS']} passed, {counts['FAIL']} failed"
    if counts["SKIP"]:
        summary += f", {counts['SKIP']} skipped"
    print(summary, flush=True)
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())

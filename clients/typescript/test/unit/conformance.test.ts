import assert from "node:assert/strict";
import { describe, test } from "node:test";

import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

import { helperRpcs } from "../../conformance/client_steps.js";
import { ABSENT, check, expandValues, load, match, resolvePath, SCENARIOS, ScenarioError, substitute, TOOL_SCENARIOS } from "../../conformance/runner.js";

describe("conformance runner semantics (same as runner_python.py)", () => {
  test("substitution keeps the JSON type of a whole ${var}", () => {
    const env = { n: 3, s: "x", o: { a: [1] }, u: "é" };
    assert.deepEqual(substitute({ a: "${n}", b: "n=${n}", c: ["${o}"], "${s}": "${s}-${o}" }, env), {
      a: 3,
      b: "n=3",
      c: [{ a: [1] }],
      x: 'x-{"a":[1]}',
    });
    assert.equal(substitute("${o}${u}", { ...env, o: { k: "é" } }), '{"k":"\\u00e9"}é');
    assert.throws(() => substitute("${missing}", env), ScenarioError);
  });

  test("request value operators", () => {
    assert.deepEqual(expandValues({ data: { $text: "hi" } }), { data: "aGk=" });
    assert.deepEqual(expandValues({ data: { $base64: "aGk=" } }), { data: "aGk=" });
    assert.deepEqual(expandValues([{ $repeat: { text: "ab", times: 2 } }]), ["YWJhYg=="]);
    assert.deepEqual(expandValues({ $text: "a", other: 1 }), { $text: "a", other: 1 });
  });

  test("paths", () => {
    const doc = { collections: [{ collectionId: "c1" }], n: 0 };
    assert.equal(resolvePath(doc, "collections.0.collectionId"), "c1");
    assert.equal(resolvePath(doc, "n"), 0);
    assert.equal(resolvePath(doc, "collections.1"), ABSENT);
    assert.equal(resolvePath(doc, "collections.x"), ABSENT);
  });

  test("absent equals default; numbers compare by value", () => {
    assert.deepEqual(match({ a: 0, b: false, c: "", d: "0", e: [], f: "MODE_UNSPECIFIED" }, {}), []);
    assert.notDeepEqual(match({ a: 1 }, {}), []);
    assert.deepEqual(match({ revision: 3 }, { revision: "3" }), []);
    assert.deepEqual(match({ x: "3" }, { x: 3 }), []);
    assert.notDeepEqual(match({ x: "3" }, { x: "3.0" }), []);
    assert.notDeepEqual(match({ x: true }, { x: 1 }), []);
    assert.notDeepEqual(match({ nested: {} }, {}), []);
    assert.deepEqual(match({ nested: { $absent: true } }, {}), []);
    assert.deepEqual(match([1, { a: 2 }], [1, { a: 2, b: 3 }]), []);
    assert.notDeepEqual(match([1], [1, 2]), []);
  });

  test("operators", () => {
    const doc: JsonValue = { hits: [{ path: "/a.md", score: 0.5 }, { path: "/b.md" }], title: "héllo", count: "12" };
    assert.deepEqual(match({ hits: { $len: 2, $contains: { path: "/b.md" }, $not_contains: { path: "/c.md" } } }, doc), []);
    assert.deepEqual(match({ hits: { $each: { path: { $substring: ".md" } } } }, doc), []);
    assert.deepEqual(match({ title: { $len: 5, $nonempty: true, $ne: "x" } }, doc), []);
    assert.deepEqual(match({ count: { $gte: 12, $lt: 13, $gt: 11.5, $lte: 12 } }, doc), []);
    assert.deepEqual(match({ missing: { $gte: 0, $len: 0, $nonempty: false, $absent: true } }, doc), []);
    assert.notDeepEqual(match({ hits: { $each: { score: { $gt: 0 } } } }, doc), []);
    assert.throws(() => match({ x: { $bogus: 1 } }, {}), ScenarioError);
  });

  test("error expectations", () => {
    const outcome = {
      error: {
        grpc_code: "INVALID_ARGUMENT",
        error_code: "ERROR_CODE_INVALID_REQUEST",
        detail: { fieldViolations: [{ field: "b" }, { field: "a" }], currentRevision: "r2" },
        message: "bad",
      },
    };
    const step = (error: JsonObject): JsonObject => ({ call: "X.Y", key: "read", expect: { error } });
    assert.deepEqual(check(step({ grpc_code: "INVALID_ARGUMENT", field_violations: ["a", "b"] }), outcome, {}), []);
    assert.deepEqual(check(step({ current_revision: { $nonempty: true, $ne: "${rev}" } }), outcome, { rev: "r1" }), []);
    assert.deepEqual(check(step({ retry_after: false }), outcome, {}), []);
    assert.notDeepEqual(check(step({ error_code: "ERROR_CODE_NOT_FOUND" }), outcome, {}), []);
    assert.notDeepEqual(check({ call: "X.Y", key: "read" }, outcome, {}), []);
    assert.deepEqual(check({ call: "X.Y", key: "read" }, { ok: {} }, {}), []);
  });

  test("every scenario file loads, names are unique", () => {
    for (const directory of [SCENARIOS, TOOL_SCENARIOS]) {
      const scenarios = load(directory);
      assert.ok(scenarios.length > 0);
      for (const s of scenarios) assert.ok(Array.isArray(s.steps) && s.steps.length > 0, s.name);
    }
  });

  test("a tool_call step stands for DescribeTools and every tool's RPC", () => {
    const rpcs = helperRpcs("tool_call", {});
    assert.ok(rpcs.includes("PagesService.DescribeTools"));
    assert.ok(rpcs.includes("PagesService.RunCommand") && rpcs.includes("KnowledgeService.ReadDocument"));
  });
});

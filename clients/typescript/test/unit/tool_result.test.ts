import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { describe, test } from "node:test";

import { create, type DescMessage } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";

import {
  CONTRACT_REGISTRY,
  DocumentSchema,
  DocumentStatus,
  SearchHitSchema,
  SearchResultSchema,
  ShadowReportSchema,
  toToolResult,
  toToolResultObject,
} from "../../src/index.js";
import { pythonFloat } from "../../src/tool_result.js";

// Expected texts were printed by the Python client's `to_tool_result` for the same messages.

function document() {
  return create(DocumentSchema, {
    documentId: "d1",
    sizeBytes: 18446744073709551615n,
    revision: 9007199254740993n,
    fileName: 'Straße 🚀\n"q"\u0001',
    status: DocumentStatus.PROCESSING,
    createdAt: timestampFromMs(1_700_000_000_123),
  });
}

describe("toToolResult", () => {
  test("a message with bigint fields serialises (plain JSON.stringify throws on it)", () => {
    assert.throws(() => JSON.stringify(document()), TypeError);
    assert.equal(
      toToolResult(document()),
      '{"attempts":0,"collection_id":"","created_at":"2023-11-14T22:13:20.123Z","detected_encoding":"",' +
        '"document_id":"d1","external_key":"","extract_error":"","file_name":"Straße 🚀\\n\\"q\\"\\u0001",' +
        '"index_state":"DOCUMENT_INDEX_STATE_UNSPECIFIED","mime_type":"",' +
        '"revision":"9007199254740993","schema_version":0,"sha256":"","size_bytes":"18446744073709551615",' +
        '"status":"DOCUMENT_STATUS_PROCESSING","text_length":"0"}',
    );
  });

  test("the object form goes through JSON.stringify with 64-bit integers as strings", () => {
    const value = JSON.parse(JSON.stringify(toToolResultObject(document())));
    assert.equal(value.size_bytes, "18446744073709551615");
    assert.equal(value.revision, "9007199254740993");
    assert.equal(value.attempts, 0);
  });

  test("doubles print as Python prints them, inside repeated messages", () => {
    const scores = [1.0, 0.1, 1e-5, 1e16, 123456.789, -0.5, 0.0001, 1e15, 2.5e-7, 1e300];
    const result = create(SearchResultSchema, {
      namespace: "docs",
      filesystemVersion: 7n,
      hits: scores.map((score, rank) => create(SearchHitSchema, { score, rank })),
    });
    const printed = ["1.0", "0.1", "1e-05", "1e+16", "123456.789", "-0.5", "0.0001", "1000000000000000.0", "2.5e-07", "1e+300"];
    const hits = printed.map(
      (score, rank) =>
        `{"chunk_id":"","content":"","heading_path":[],"path":"","rank":${rank},"revision":"","schema_version":0,` +
        `"score":${score},"title":"","url":""}`,
    );
    assert.equal(
      toToolResult(result),
      `{"filesystem_version":"7","hits":[${hits.join(",")}],"namespace":"docs","omitted_count":0,"partial":false,` +
        `"query":"","schema_version":0,"truncated":false,"warnings":[]}`,
    );
  });

  test("a list result is a JSON array", () => {
    assert.equal(
      toToolResult([create(ShadowReportSchema, { samples: 3n, meanOverlapAtK: 0.75 })]),
      '[{"hybrid_p50_ms":0.0,"hybrid_p95_ms":0.0,"legacy_p50_ms":0.0,"legacy_p95_ms":0.0,"mean_overlap_at_k":0.75,' +
        '"samples":"3","schema_version":0,"shadow_failures":"0","top1_agreement":0.0}]',
    );
  });

  test("pythonFloat matches Python's repr", () => {
    const cases: [number, string][] = [
      [5e-324, "5e-324"],
      [1.7976931348623157e308, "1.7976931348623157e+308"],
      [100, "100.0"],
      [1234567890123456.8, "1234567890123456.8"],
      [12345678901234567, "1.2345678901234568e+16"],
      [0.30000000000000004, "0.30000000000000004"],
      [-0, "-0.0"],
    ];
    for (const [value, repr] of cases) assert.equal(pythonFloat(value), repr, String(value));
  });

  test("every generated message type is in the registry", async () => {
    const dir = new URL("../../src/gen/quire/v1/", import.meta.url);
    for (const name of readdirSync(dir).filter((f) => f.endsWith("_pb.js"))) {
      const module: Record<string, unknown> = await import(new URL(name, dir).href);
      for (const value of Object.values(module)) {
        if (!isMessageDesc(value)) continue;
        assert.ok(CONTRACT_REGISTRY.getMessage(value.typeName), `${value.typeName} (${name})`);
      }
    }
  });
});

function isMessageDesc(value: unknown): value is DescMessage {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "message";
}

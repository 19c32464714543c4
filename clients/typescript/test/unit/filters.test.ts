import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { toJson } from "@bufbuild/protobuf";

import { filter, MetadataFilterSchema, type MetadataFilter } from "../../src/index.js";

const json = (f: MetadataFilter): unknown => toJson(MetadataFilterSchema, f);

describe("filter builders", () => {
  test("eq keeps each scalar's JSON type", () => {
    assert.deepEqual(json(filter.eq("customer.tier", "gold")), { field: { field: "customer.tier", equals: "gold" } });
    assert.deepEqual(json(filter.eq("version", 2)), { field: { field: "version", equals: 2 } });
    assert.deepEqual(json(filter.eq("public", false)), { field: { field: "public", equals: false } });
  });

  test("anyOf is the `in` condition", () => {
    assert.deepEqual(json(filter.anyOf("lang", ["en", "de"])), { field: { field: "lang", in: ["en", "de"] } });
  });

  test("range sets only the bounds given (0 is a bound)", () => {
    const f = filter.range("price", { gte: 0, lt: 9.5 });
    assert.deepEqual(json(f), { field: { field: "price", numberRange: { gte: 0, lt: 9.5 } } });
    const condition = f.filter.case === "field" ? f.filter.value.condition : undefined;
    assert.equal(condition?.case, "numberRange");
    if (condition?.case === "numberRange") {
      assert.equal(condition.value.gt, undefined);
      assert.equal(condition.value.gte, 0);
    }
  });

  test("timeRange takes Dates and RFC 3339 strings; a date string is its midnight UTC", () => {
    const f = filter.timeRange("published", { gte: new Date("2026-03-01T12:00:00Z"), lt: "2026-04-01" });
    assert.deepEqual(json(f), {
      field: { field: "published", timeRange: { gte: "2026-03-01T12:00:00Z", lt: "2026-04-01T00:00:00Z" } },
    });
    assert.throws(() => filter.timeRange("published", { gt: "yesterday" }), /gt is not a valid time/);
    assert.throws(() => filter.timeRange("published", { lte: new Date(Number.NaN) }), TypeError);
  });

  test("exists, and its negation", () => {
    assert.deepEqual(json(filter.exists("archived")), { field: { field: "archived", exists: true } });
    // proto3 JSON leaves out a false bool, but the oneof case says which condition it is.
    const absent = filter.exists("archived", false);
    assert.equal(absent.filter.case === "field" && absent.filter.value.condition.case, "exists");
  });

  test("all / any / not nest", () => {
    const f = filter.all(filter.eq("a", 1), filter.any(filter.eq("b", "x"), filter.not(filter.exists("c"))));
    assert.deepEqual(json(f), {
      all: {
        filters: [
          { field: { field: "a", equals: 1 } },
          {
            any: {
              filters: [{ field: { field: "b", equals: "x" } }, { not: { field: { field: "c", exists: true } } }],
            },
          },
        ],
      },
    });
  });
});

/**
 * Builders of `MetadataFilter` messages (mirrors `quire.client.filters` and the Go `quire.Eq`…):
 *
 *     filter.all(filter.eq("customer", "acme"), filter.range("version", { gte: 2 }),
 *                filter.not(filter.exists("archived")))
 *
 * The server checks every bound (values per `in`, nesting, conditions in all) and names the
 * offending member; the builders only refuse what cannot be encoded at all (an invalid Date).
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ListValueSchema, type Timestamp, timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";

import {
  type FieldConditionSchema,
  type MetadataFilter,
  MetadataFilterSchema,
  type NumberRange,
} from "./gen/quire/v1/knowledge_pb.js";

/** A value a field can be compared with: objects, lists and null are not comparable. */
export type FilterScalar = string | number | boolean;

/** Bounds of `filter.range`: at least one; not `gt` with `gte`, nor `lt` with `lte`. */
export interface NumberBounds {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

/** A moment: a `Date`, or an RFC 3339 string (`"2026-03-01T12:00:00Z"`, `"2026-03-01"` = midnight UTC). */
export type Instant = Date | string;

/** Bounds of `filter.timeRange`. */
export interface TimeBounds {
  gt?: Instant;
  gte?: Instant;
  lt?: Instant;
  lte?: Instant;
}

function scalarValue(value: FilterScalar): MessageInitShape<typeof ValueSchema> {
  if (typeof value === "string") return { kind: { case: "stringValue", value } };
  if (typeof value === "number") return { kind: { case: "numberValue", value } };
  return { kind: { case: "boolValue", value } };
}

function timestamp(bound: keyof TimeBounds, instant: Instant): Timestamp {
  const date = typeof instant === "string" ? new Date(instant) : instant;
  if (Number.isNaN(date.getTime())) throw new TypeError(`filter.timeRange: ${bound} is not a valid time: ${String(instant)}`);
  return timestampFromDate(date);
}

type Condition = MessageInitShape<typeof FieldConditionSchema>["condition"];

function onField(field: string, condition: Condition): MetadataFilter {
  return create(MetadataFilterSchema, { filter: { case: "field", value: { field, condition } } });
}

/** The field equals `value`, or is a list holding it. `field` may be a dotted path ("customer.tier"). */
function eq(field: string, value: FilterScalar): MetadataFilter {
  return onField(field, { case: "equals", value: create(ValueSchema, scalarValue(value)) });
}

/** The field equals one of `values` (1–100, all of one type), or is a list holding one (SQL `in`). */
function anyOf(field: string, values: readonly FilterScalar[]): MetadataFilter {
  const list = create(ListValueSchema, { values: values.map((v) => create(ValueSchema, scalarValue(v))) });
  return onField(field, { case: "in", value: list });
}

/** The field is a number (or a list holding one) within the bounds. */
function range(field: string, bounds: NumberBounds): MetadataFilter {
  const value: Partial<Pick<NumberRange, "gt" | "gte" | "lt" | "lte">> = {};
  for (const key of ["gt", "gte", "lt", "lte"] as const) {
    if (bounds[key] !== undefined) value[key] = bounds[key];
  }
  return onField(field, { case: "numberRange", value });
}

/** The field is an RFC 3339 timestamp string within the bounds. */
function timeRange(field: string, bounds: TimeBounds): MetadataFilter {
  const value: { gt?: Timestamp; gte?: Timestamp; lt?: Timestamp; lte?: Timestamp } = {};
  for (const key of ["gt", "gte", "lt", "lte"] as const) {
    const instant = bounds[key];
    if (instant !== undefined) value[key] = timestamp(key, instant);
  }
  return onField(field, { case: "timeRange", value });
}

/** The field is present (any value, null included); `exists(field, false)`: it is absent. */
function exists(field: string, present = true): MetadataFilter {
  return onField(field, { case: "exists", value: present });
}

/** Every filter holds (and); 1–64 filters. */
function all(...filters: MetadataFilter[]): MetadataFilter {
  return create(MetadataFilterSchema, { filter: { case: "all", value: { filters } } });
}

/** At least one filter holds (or); 1–64 filters. */
function any(...filters: MetadataFilter[]): MetadataFilter {
  return create(MetadataFilterSchema, { filter: { case: "any", value: { filters } } });
}

/** The filter does not hold. */
function not(inner: MetadataFilter): MetadataFilter {
  return create(MetadataFilterSchema, { filter: { case: "not", value: inner } });
}

/** The filter builders: `filter.eq`, `anyOf`, `range`, `timeRange`, `exists`, `all`, `any`, `not`. */
export const filter = Object.freeze({ eq, anyOf, range, timeRange, exists, all, any, not });

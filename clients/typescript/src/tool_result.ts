/**
 * Tool results: the JSON an agent tool returns for a successful call.
 *
 * Results are protobuf-es messages, and their 64-bit fields are `bigint`, which
 * `JSON.stringify` refuses ("Do not know how to serialize a BigInt"). These helpers convert
 * deliberately, with protobuf's JSON mapping (`toJson`): 64-bit integers become decimal
 * strings, enums their names, bytes base64, timestamps RFC 3339.
 *
 * `toToolResult` writes the same bytes as the Python client's `to_tool_result` (proto field
 * names, every field present, keys sorted, compact, raw UTF-8, doubles as Python prints them):
 * the encoding the server's output budgets count, so a result that fits its budget gives a tool
 * result of at most that many bytes, whichever client an agent runtime uses.
 */
import {
  createRegistry,
  type DescField,
  type DescFile,
  type DescMessage,
  type JsonValue,
  type Message,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";

import { file_quire_v1_admin_service } from "./gen/quire/v1/admin_service_pb.js";
import { file_quire_v1_errors } from "./gen/quire/v1/errors_pb.js";
import { file_quire_v1_knowledge_service } from "./gen/quire/v1/knowledge_service_pb.js";
import { file_quire_v1_pages_service } from "./gen/quire/v1/pages_service_pb.js";

/** What a client method returns: one message, or a list (`listCollections`, `describeTools`). */
export type ToolResultSource = Message | readonly Message[];

/** Files and everything they import (quire.v1 and the well-known types they use). */
function withImports(files: readonly DescFile[]): DescFile[] {
  const seen = new Set<DescFile>();
  const visit = (file: DescFile): void => {
    if (seen.has(file)) return;
    seen.add(file);
    file.dependencies.forEach(visit);
  };
  files.forEach(visit);
  return [...seen];
}

/**
 * Message types by name, so a result needs no schema argument (`$typeName` finds it): the
 * services and what they import, so a new message file is found without a change here (a new
 * service file needs a line; a unit test fails until it has one). ErrorDetail travels in
 * trailers, not in a service's messages.
 */
export const CONTRACT_REGISTRY = createRegistry(
  ...withImports([
    file_quire_v1_pages_service,
    file_quire_v1_knowledge_service,
    file_quire_v1_admin_service,
    file_quire_v1_errors,
  ]),
);

function schemaOf(message: Message): DescMessage {
  const schema = CONTRACT_REGISTRY.getMessage(message.$typeName);
  if (schema === undefined) throw new TypeError(`toToolResult: ${message.$typeName} is not a quire.v1 message`);
  return schema;
}

const JSON_OPTIONS = { alwaysEmitImplicit: true, useProtoFieldName: true, registry: CONTRACT_REGISTRY };

function messageJson(message: Message): JsonValue {
  return toJson(schemaOf(message), message, JSON_OPTIONS);
}

function messageText(message: Message): string {
  const schema = schemaOf(message);
  return write(toJson(schema, message, JSON_OPTIONS), messageShape(schema));
}

/**
 * The result as a plain JSON value (int64 as strings, proto field names, every field present):
 * `JSON.stringify` accepts it, e.g. for a runtime that wants an object (structured content).
 */
export function toToolResultObject(result: ToolResultSource): JsonValue {
  return isMessageList(result) ? result.map(messageJson) : messageJson(result);
}

/** The result as canonical JSON text, byte for byte what the Python client's `to_tool_result` gives. */
export function toToolResult(result: ToolResultSource): string {
  return isMessageList(result) ? `[${result.map(messageText).join(",")}]` : messageText(result);
}

function isMessageList(result: ToolResultSource): result is readonly Message[] {
  return Array.isArray(result);
}

/**
 * How the numbers inside a JSON value print. The JSON value alone cannot tell a double 1.0
 * (Python prints `1.0`) from an int32 1 (`1`), so the writer walks the schema beside it.
 */
type Shape =
  | { readonly kind: "message"; readonly desc: DescMessage }
  | { readonly kind: "map"; readonly value: Shape }
  | { readonly kind: "double" | "float" | "plain" };

const PLAIN: Shape = { kind: "plain" };
const DOUBLE: Shape = { kind: "double" };
const FLOAT: Shape = { kind: "float" };

function messageShape(desc: DescMessage): Shape {
  switch (desc.typeName) {
    // Struct, Value and ListValue hold their numbers as doubles, at any depth.
    case "google.protobuf.Struct":
    case "google.protobuf.Value":
    case "google.protobuf.ListValue":
    case "google.protobuf.DoubleValue":
      return DOUBLE;
    case "google.protobuf.FloatValue":
      return FLOAT;
    default:
      // Other well-known types print as strings, booleans or integers.
      return desc.typeName.startsWith("google.protobuf.") ? PLAIN : { kind: "message", desc };
  }
}

function scalarShape(scalar: ScalarType): Shape {
  if (scalar === ScalarType.DOUBLE) return DOUBLE;
  return scalar === ScalarType.FLOAT ? FLOAT : PLAIN;
}

function fieldShape(field: DescField): Shape {
  switch (field.fieldKind) {
    case "scalar":
      return scalarShape(field.scalar);
    case "message":
      return messageShape(field.message);
    case "enum":
      return PLAIN;
    case "list":
      if (field.listKind === "message") return messageShape(field.message);
      return field.listKind === "scalar" ? scalarShape(field.scalar) : PLAIN;
    case "map": {
      if (field.mapKind === "message") return { kind: "map", value: messageShape(field.message) };
      return { kind: "map", value: field.mapKind === "scalar" ? scalarShape(field.scalar) : PLAIN };
    }
  }
}

/** The shape of one key of a JSON object of the given shape. */
function memberShape(shape: Shape, key: string): Shape {
  if (shape.kind === "map") return shape.value;
  if (shape.kind !== "message") return shape; // Struct members stay doubles
  const field = shape.desc.fields.find((f) => f.name === key);
  return field === undefined ? PLAIN : fieldShape(field);
}

/** Python sorts keys by code point; JavaScript's default sort compares UTF-16 units. */
function byCodePoint(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = (left[i].codePointAt(0) ?? 0) - (right[i].codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

function write(value: JsonValue, shape: Shape): string {
  if (Array.isArray(value)) return `[${value.map((item) => write(item, shape)).join(",")}]`;
  if (typeof value === "number") {
    if (shape.kind === "double") return pythonFloat(value);
    return shape.kind === "float" ? pythonFloat(shortestFloat32(value)) : String(value);
  }
  if (value !== null && typeof value === "object") {
    const members = Object.keys(value)
      .sort(byCodePoint)
      .map((key) => `${JSON.stringify(key)}:${write(value[key], memberShape(shape, key))}`);
    return `{${members.join(",")}}`;
  }
  // Strings escape as Python's json.dumps(ensure_ascii=False) does: quote, backslash, controls.
  return JSON.stringify(value);
}

/**
 * A float as Python's `repr` writes it (what `json.dumps` uses): the shortest digits that read
 * back to the same double (as JavaScript finds them), fixed notation with at least one decimal
 * (`1.0`) for decimal exponents -4 < e ≤ 16, otherwise `1e-05` / `1.5e+16`.
 */
export function pythonFloat(value: number): string {
  if (!Number.isFinite(value)) return String(value); // the JSON mapping writes these as strings
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const [mantissa, exponent] = Math.abs(value).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const point = Number(exponent) + 1; // digits before the decimal point
  let text: string;
  if (point > -4 && point <= 16) {
    if (point <= 0) text = `0.${"0".repeat(-point)}${digits}`;
    else if (point >= digits.length) text = `${digits}${"0".repeat(point - digits.length)}.0`;
    else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  } else {
    const e = point - 1;
    const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    text = `${head}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  return value < 0 ? `-${text}` : text;
}

/**
 * A 32-bit float field as Python's protobuf prints it: the fewest significant digits (from 6)
 * that read back to the same float32, instead of the double's 17 digits (0.1 → 0.1, not
 * 0.10000000149011612).
 */
function shortestFloat32(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  for (let precision = 6; precision <= 17; precision++) {
    const rounded = Number(value.toPrecision(precision));
    if (Math.fround(rounded) === value) return rounded;
  }
  return value;
}

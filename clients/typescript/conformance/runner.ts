/**
 * TypeScript conformance runner: executes tests/conformance/scenarios/*.json against a server,
 * exactly as tests/conformance/runner_python.py does (format: tests/conformance/README.md).
 * Client steps (`"client": "<helper>"`) run the client library's helpers: client_steps.ts.
 *
 *     node dist/conformance/runner.js [--scenarios DIR] [-k SUBSTRING] [-v]
 *
 * (`--scenarios tests/conformance/tool_scenarios` runs the ToolRunner's scenarios.)
 *
 * Reads QUIRE_CONFORMANCE_ADDRESS, QUIRE_CONFORMANCE_KEYS (JSON) and QUIRE_CONFORMANCE_FIXTURES
 * (JSON, optional). With QUIRE_CONFORMANCE_PROTOCOL=connect the calls go over the Connect
 * protocol (JSON bodies, h2c) to QUIRE_CONFORMANCE_HTTP_ADDRESS instead of gRPC. Prints one line per scenario and ends with `N passed, N failed` (plus
 * `, N skipped`); exit code 1 when any scenario failed.
 *
 * Calls go through the Connect transport with the generated service descriptors (request and
 * response types come from the descriptor), so there is no per-RPC code. Errors are decoded
 * with `ConnectError.findDetails(ErrorDetailSchema)`.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import {
  create,
  type DescMessage,
  type DescMethod,
  type DescMethodStreaming,
  type DescMethodUnary,
  type DescService,
  fromJson,
  type JsonValue,
  type Message,
  toJson,
} from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import type { Http2SessionManager } from "@connectrpc/connect-node";

import { QuireClient } from "../src/client.js";
import { codeName, grpcStatusName, QuireError } from "../src/errors.js";
import { AdminService } from "../src/gen/quire/v1/admin_service_pb.js";
import { ErrorDetailSchema } from "../src/gen/quire/v1/errors_pb.js";
import { KnowledgeService } from "../src/gen/quire/v1/knowledge_service_pb.js";
import { PagesService } from "../src/gen/quire/v1/pages_service_pb.js";
import { AsyncQueue } from "../src/queue.js";
import { openTransport, type WireProtocol } from "../src/transport.js";
import { abortable } from "../src/streams.js";
import { ClientStepError, helperRpcs, runClientStep } from "./client_steps.js";

const HERE = dirname(fileURLToPath(import.meta.url));
// dist/conformance/runner.js → <repo>/tests/conformance/scenarios
export const SCENARIOS = resolve(HERE, "../../../../tests/conformance/scenarios");
// The tool runner's scenarios (`--scenarios` with this directory; README §11).
export const TOOL_SCENARIOS = resolve(HERE, "../../../../tests/conformance/tool_scenarios");
const CHUNK = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const STREAM_TIMEOUT_MS = 300_000;
const SERVICES: Record<string, DescService> = { PagesService, KnowledgeService, AdminService };
const VAR = /\$\{([A-Za-z_][A-Za-z0-9_.]*)\}/g;
const VAR_WHOLE = /^\$\{([A-Za-z_][A-Za-z0-9_.]*)\}$/;

/** Marks a missing value (Python's `_ABSENT`). */
export const ABSENT: unique symbol = Symbol("absent");
type Json = JsonValue;
type Value = Json | typeof ABSENT;
type Obj = { [key: string]: Json };
type Env = Record<string, Json>;

/** The scenario file itself is wrong (unknown variable, key, call...). */
export class ScenarioError extends Error {}
export class StepFailed extends Error {}
export class Skip extends Error {}

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ------------------------------------------------------------------ variables

function lookup(env: Env, name: string): Json {
  if (!Object.prototype.hasOwnProperty.call(env, name)) throw new ScenarioError(`unknown variable \${${name}}`);
  return env[name] as Json;
}

/** Python's `json.dumps(value, separators=(",", ":"))` (ensure_ascii included). */
export function compactJson(value: Json): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

function asText(value: Json): string {
  return typeof value === "string" ? value : compactJson(value);
}

/** `${var}` in every string; a string that is exactly `${var}` keeps the value's JSON type. */
export function substitute(value: Json, env: Env): Json {
  if (typeof value === "string") {
    const whole = VAR_WHOLE.exec(value);
    if (whole) return structuredClone(lookup(env, whole[1] as string));
    return value.replace(VAR, (_m, name: string) => asText(lookup(env, name)));
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, env));
  if (isObject(value)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) out[substitute(k, env) as string] = substitute(v, env);
    return out;
  }
  return value;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}

/** Request value operators: {"$text": s}, {"$base64": s}, {"$repeat": {"text", "times"}}. */
export function expandValues(value: Json): Json {
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const key = keys[0] as string;
      const arg = value[key] as Json;
      if (key === "$text") return base64(Buffer.from(String(arg), "utf8"));
      if (key === "$base64") return arg;
      if (key === "$repeat") {
        const spec = arg as Obj;
        const times = Math.trunc(Number(spec["times"]));
        return base64(Buffer.from(String(spec["text"]).repeat(Math.max(0, times)), "utf8"));
      }
    }
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandValues(v);
    return out;
  }
  if (Array.isArray(value)) return value.map(expandValues);
  return value;
}

/** Dotted path; numeric segments index lists. Returns ABSENT when missing. */
export function resolvePath(doc: Value, path: string): Value {
  let current: Value = doc;
  for (const part of path.split(".")) {
    if (Array.isArray(current) && /^[0-9]+$/.test(part)) {
      const index = Number(part);
      current = index < current.length ? (current[index] as Json) : ABSENT;
    } else if (isObject(current)) {
      current = Object.prototype.hasOwnProperty.call(current, part) ? (current[part] as Json) : ABSENT;
    } else {
      return ABSENT;
    }
    if (current === ABSENT) return ABSENT;
  }
  return current;
}

// ------------------------------------------------------------------ matching

function isDefault(value: Value): boolean {
  if (typeof value === "string" && value.endsWith("_UNSPECIFIED")) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return value === false || value === 0 || value === "" || value === "0" || value === null;
}

/** Python's float(): numbers and numeric strings (incl. NaN/Infinity), never booleans. */
function toNumber(value: Value): number | null {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const text = value.trim().toLowerCase().replace(/_/g, "");
    if (text === "") return null;
    const special: Record<string, number> = {
      nan: NaN, "+nan": NaN, "-nan": NaN,
      inf: Infinity, "+inf": Infinity, infinity: Infinity, "+infinity": Infinity,
      "-inf": -Infinity, "-infinity": -Infinity,
    };
    if (text in special) return special[text] as number;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(text)) return null;
    return Number(text);
  }
  return null;
}

function deepEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i] as Json));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k] as Json, b[k] as Json));
  }
  return false;
}

function scalarEqual(expected: Value, actual: Value): boolean {
  if (actual === ABSENT) return isDefault(expected);
  if (typeof expected === typeof actual && deepEqual(expected, actual)) return true;
  if (typeof expected === "boolean" || typeof actual === "boolean") return false;
  if (typeof expected === "number" || typeof actual === "number") {
    const a = toNumber(expected);
    const b = toNumber(actual);
    return a !== null && b !== null && (a === b || (Number.isNaN(a) && Number.isNaN(b)));
  }
  return false;
}

function short(value: Value): string {
  const text = value === ABSENT ? "<absent>" : JSON.stringify(value);
  return text.length <= 300 ? text : text.slice(0, 300) + "...";
}

function length(value: Value): number | null {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "string") return [...value].length;
  return null;
}

/** Mismatch descriptions (empty when `actual` satisfies `expected`). */
export function match(expected: Json, actual: Value, where = "$"): string[] {
  if (isObject(expected) && Object.keys(expected).length > 0 && Object.keys(expected).every((k) => k.startsWith("$"))) {
    const problems: string[] = [];
    for (const [op, arg] of Object.entries(expected)) problems.push(...operator(op, arg, actual, where));
    return problems;
  }
  if (isObject(expected)) {
    if (actual === ABSENT || !isObject(actual)) return [`${where}: expected an object, got ${short(actual)}`];
    const problems: string[] = [];
    for (const [key, want] of Object.entries(expected)) {
      const got = Object.prototype.hasOwnProperty.call(actual, key) ? (actual[key] as Json) : ABSENT;
      problems.push(...match(want, got, `${where}.${key}`));
    }
    return problems;
  }
  if (Array.isArray(expected)) {
    const items = actual === ABSENT ? [] : actual;
    if (!Array.isArray(items) || items.length !== expected.length) {
      return [`${where}: expected ${expected.length} items, got ${short(actual)}`];
    }
    const problems: string[] = [];
    expected.forEach((want, i) => problems.push(...match(want, items[i] as Json, `${where}.${i}`)));
    return problems;
  }
  if (!scalarEqual(expected, actual)) return [`${where}: expected ${short(expected)}, got ${short(actual)}`];
  return [];
}

function operator(op: string, arg: Json, actual: Value, where: string): string[] {
  const items: Value = actual === ABSENT ? [] : actual;
  switch (op) {
    case "$len": {
      const n = length(items);
      if (n === null || n !== arg) return [`${where}: expected length ${short(arg)}, got ${short(actual)}`];
      return [];
    }
    case "$contains":
    case "$not_contains":
    case "$each": {
      if (!Array.isArray(items)) return [`${where}: expected a list, got ${short(actual)}`];
      const hits = items.map((item) => match(arg, item, where).length === 0);
      if (op === "$contains" && !hits.some(Boolean)) return [`${where}: no element matches ${short(arg)} in ${short(actual)}`];
      if (op === "$not_contains" && hits.some(Boolean)) return [`${where}: an element matches ${short(arg)}`];
      if (op === "$each" && !hits.every(Boolean)) return [`${where}: not every element matches ${short(arg)}`];
      return [];
    }
    case "$nonempty": {
      const empty = actual === ABSENT || isDefault(actual);
      return empty !== truthy(arg) ? [] : [`${where}: $nonempty ${short(arg)}, got ${short(actual)}`];
    }
    case "$absent": {
      const empty = actual === ABSENT || isDefault(actual);
      return empty === truthy(arg) ? [] : [`${where}: $absent ${short(arg)}, got ${short(actual)}`];
    }
    case "$ne":
      return scalarEqual(arg, actual) ? [`${where}: expected != ${short(arg)}`] : [];
    case "$substring": {
      const text = actual === ABSENT ? "" : actual;
      if (typeof text !== "string" || !text.includes(String(arg))) return [`${where}: ${short(arg)} not in ${short(actual)}`];
      return [];
    }
    case "$gte":
    case "$lte":
    case "$gt":
    case "$lt": {
      const value = actual === ABSENT ? 0 : typeof actual === "boolean" ? null : toNumber(actual);
      if (value === null) return [`${where}: expected a number, got ${short(actual)}`];
      const bound = Number(arg);
      const ok = op === "$gte" ? value >= bound : op === "$lte" ? value <= bound : op === "$gt" ? value > bound : value < bound;
      return ok ? [] : [`${where}: expected ${op} ${short(arg)}, got ${short(actual)}`];
    }
    default:
      throw new ScenarioError(`unknown operator ${op}`);
  }
}

/** Python's bool() of a JSON value. */
function truthy(value: Json): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

// ------------------------------------------------------------------ calls

export interface ErrorOutcome {
  grpc_code: string;
  error_code: string;
  detail: Obj;
  message: string;
}

export interface Outcome {
  ok?: Json;
  error?: ErrorOutcome;
}

function method(call: string): DescMethod {
  const parts = call.split(".");
  const service = parts.length === 2 ? SERVICES[parts[0] as string] : undefined;
  const found = service?.methods.find((m) => m.name === parts[1]);
  if (!found) throw new ScenarioError(`unknown call ${JSON.stringify(call)} (want Service.Rpc)`);
  return found;
}

function toJsonValue(schema: DescMessage, message: Message): Json {
  return toJson(schema, message);
}

function parse(schema: DescMessage, body: Json): Message {
  try {
    return fromJson(schema, expandValues(body));
  } catch (err) {
    throw new ScenarioError(`bad request JSON for ${schema.typeName}: ${(err as Error).message}`);
  }
}

/** Data messages over 1 MiB are sent as consecutive 1 MiB messages. */
function splitData(schema: DescMessage, messages: Message[]): Message[] {
  const out: Message[] = [];
  const dataField = schema.fields.find((f) => f.name === "data");
  for (const message of messages) {
    const oneof = dataField?.oneof;
    let data: unknown;
    if (dataField && oneof) {
      const value = (message as unknown as Record<string, { case?: string; value?: unknown }>)[oneof.localName];
      data = value?.case === dataField.localName ? value.value : undefined;
    } else if (dataField) {
      data = (message as unknown as Record<string, unknown>)[dataField.localName];
    }
    if (data instanceof Uint8Array && data.length > CHUNK) {
      for (let i = 0; i < data.length; i += CHUNK) {
        const piece = data.subarray(i, i + CHUNK);
        const init = oneof
          ? { [oneof.localName]: { case: dataField!.localName, value: piece } }
          : { [dataField!.localName]: piece };
        out.push(create(schema, init as never));
      }
    } else {
      out.push(message);
    }
  }
  return out;
}

/** A helper's typed error as an outcome: from its call's status when it came from one. */
function helperErrorOutcome(err: QuireError): ErrorOutcome {
  if (err.cause instanceof ConnectError) return errorOutcome(err.cause);
  return {
    grpc_code: grpcStatusName(err.grpcCode),
    error_code: `ERROR_CODE_${codeName(err.code)}`,
    detail: toJson(ErrorDetailSchema, err.detail) as Obj,
    message: err.message,
  };
}

function errorOutcome(err: unknown): ErrorOutcome {
  const connect = ConnectError.from(err);
  const detail = connect.findDetails(ErrorDetailSchema)[0];
  const detailJson = detail ? (toJson(ErrorDetailSchema, detail) as Obj) : {};
  const code = detailJson["code"];
  return {
    grpc_code: grpcStatusName(connect.code),
    error_code: typeof code === "string" ? code : "ERROR_CODE_UNSPECIFIED",
    detail: detailJson,
    message: connect.rawMessage,
  };
}

export type Step = Obj;

/** The RPCs a step calls: its `call`, or the RPCs of its client helper. */
export function stepRpcs(step: Step): string[] {
  if ("client" in step) return helperRpcs(String(step["client"]), (isObject(step["args"]) ? step["args"] : {}) as Obj);
  return [String(step["call"])];
}
export type Scenario = Obj & { name: string; steps: Step[]; requires: string[]; fixtures: string[] };

export class Runner {
  private readonly sessionManager: Http2SessionManager | undefined;
  private readonly transport: Transport;
  private readonly client: QuireClient;

  constructor(
    address: string,
    readonly keys: Record<string, string>,
    readonly fixtures: Env,
    protocol: WireProtocol = "grpc",
  ) {
    const baseUrl = address.includes("://") ? address : `http://${address}`;
    ({ transport: this.transport, sessionManager: this.sessionManager } = openTransport({ baseUrl, protocol }));
    // Client steps use the library on the same connection; credentials go per call.
    this.client = new QuireClient({ transport: this.transport });
  }

  close(): void {
    this.sessionManager?.abort();
  }

  headers(step: Step, env: Env): Record<string, string> {
    if ("bearer" in step) return { authorization: `Bearer ${asText(substitute(step["bearer"] as Json, env))}` };
    const key = step["key"];
    if (key === undefined || key === null) throw new ScenarioError("step has neither key nor bearer");
    if (key === "none") return {};
    if (typeof key !== "string" || !Object.prototype.hasOwnProperty.call(this.keys, key)) {
      throw new ScenarioError(`unknown key ${JSON.stringify(key)}`);
    }
    return { authorization: `Bearer ${this.keys[key]}` };
  }

  /** A client step: the library's helper with `args`; its typed error is the outcome. */
  private async invokeClient(step: Step, env: Env): Promise<Outcome> {
    const args = substitute((step["args"] ?? {}) as Json, env);
    if (!isObject(args)) throw new ScenarioError("client step args must be an object");
    const call = { headers: this.headers(step, env), ...(step["timeout_ms"] !== undefined ? { timeoutMs: Number(step["timeout_ms"]) } : {}) };
    try {
      return { ok: await runClientStep(this.client, String(step["client"]), args, call) };
    } catch (err) {
      if (err instanceof ClientStepError) throw new ScenarioError(err.message);
      if (err instanceof QuireError) return { error: helperErrorOutcome(err) };
      if (err instanceof ConnectError) return { error: errorOutcome(err) };
      throw err;
    }
  }

  async invoke(step: Step, env: Env): Promise<Outcome> {
    if ("client" in step) return this.invokeClient(step, env);
    const m = method(String(step["call"]));
    const headers = this.headers(step, env);
    const streaming = m.methodKind !== "unary";
    const timeoutMs = Number(step["timeout_ms"] ?? (streaming ? STREAM_TIMEOUT_MS : DEFAULT_TIMEOUT_MS));
    try {
      if (m.methodKind === "unary") {
        const request = parse(m.input, substitute((step["request"] ?? {}) as Json, env));
        const reply = await this.transport.unary(m as DescMethodUnary, undefined, timeoutMs, headers, request);
        return { ok: toJsonValue(m.output, reply.message) };
      }
      if (m.methodKind === "client_streaming") {
        const messages = (substitute(step["stream"] as Json, env) as Json[]).map((x) => parse(m.input, x));
        const parts = splitData(m.input, messages);
        async function* input(): AsyncGenerator<Message> {
          yield* parts;
        }
        const reply = await this.transport.stream(m as DescMethodStreaming, undefined, timeoutMs, headers, input());
        let last: Message | undefined;
        for await (const message of reply.message) last = message;
        if (last === undefined) throw new ConnectError("client stream ended without a response", Code.Internal);
        return { ok: toJsonValue(m.output, last) };
      }
      if (m.methodKind === "server_streaming") {
        const request = parse(m.input, substitute((step["request"] ?? {}) as Json, env));
        async function* input(): AsyncGenerator<Message> {
          yield request;
        }
        return await this.collect(m, step, headers, timeoutMs, input(), undefined);
      }
      const messages = (substitute(step["stream"] as Json, env) as Json[]).map((x) => parse(m.input, x));
      const outbox = new AsyncQueue<Message>();
      for (const message of splitData(m.input, messages)) outbox.push(message);
      try {
        return await this.collect(m, step, headers, timeoutMs, outbox, outbox);
      } finally {
        outbox.close();
      }
    } catch (err) {
      // Only call failures are outcomes; anything else is a scenario or runner error.
      if (!(err instanceof ConnectError)) throw err;
      return { error: errorOutcome(err) };
    }
  }

  /** Reads a response stream; answers discovery checks; stops per `collect`/`cancel_after`. */
  private async collect(
    m: DescMethod,
    step: Step,
    headers: Record<string, string>,
    timeoutMs: number,
    input: AsyncIterable<Message>,
    outbox: AsyncQueue<Message> | undefined,
  ): Promise<Outcome> {
    const collect = (step["collect"] ?? {}) as Obj;
    const maxMessages = collect["max_messages"] as number | undefined;
    const cancelAfter = step["cancel_after"] as number | undefined;
    const limitMs = collect["timeout_ms"] as number | undefined;
    const controller = new AbortController();
    const messages: Json[] = [];
    let cancelled = false;
    let timer: NodeJS.Timeout | undefined;
    if (limitMs !== undefined && limitMs !== null) timer = setTimeout(() => controller.abort(), limitMs);
    try {
      const response = await this.transport.stream(m as DescMethodStreaming, controller.signal, timeoutMs, headers, input);
      for await (const reply of abortable(response.message, controller)) {
        const body = toJsonValue(m.output, reply) as Obj;
        messages.push(body);
        if ("discoveryCheck" in body) {
          if (!("discovery_decision" in step) || outbox === undefined) {
            throw new StepFailed("unexpected discoveryCheck (no discovery_decision)");
          }
          const accept = truthy(step["discovery_decision"] as Json);
          outbox.push(parse(m.input, { decision: { accept } }));
        }
        if (
          (cancelAfter !== undefined && cancelAfter !== null && messages.length >= cancelAfter) ||
          (maxMessages !== undefined && maxMessages !== null && messages.length >= maxMessages)
        ) {
          controller.abort();
          cancelled = true;
          break;
        }
      }
    } catch (err) {
      // A cancellation caused by the runner (collect timeout) is not an error.
      if (err instanceof StepFailed) {
        controller.abort();
        throw err;
      }
      if (!(timer !== undefined && ConnectError.from(err).code === Code.Canceled)) throw err;
      cancelled = true;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
    return {
      ok: { messages, last: messages.length ? (messages[messages.length - 1] as Json) : {}, count: messages.length, cancelled },
    };
  }
}

// ------------------------------------------------------------------ scenarios

export interface Result {
  name: string;
  status: "PASS" | "FAIL" | "SKIP";
  reason: string;
  seconds: number;
  steps: number;
}

export function check(step: Step, outcome: Outcome, env: Env): string[] {
  const expect = substitute((step["expect"] ?? { ok: {} }) as Json, env) as Obj;
  if ("error" in expect) {
    const want = expect["error"] as Obj;
    if (outcome.error === undefined) return [`expected error ${short(want)}, got ok ${short(outcome.ok ?? null)}`];
    const got = outcome.error;
    const problems: string[] = [];
    if ("grpc_code" in want && want["grpc_code"] !== got.grpc_code) {
      problems.push(`grpc_code: expected ${String(want["grpc_code"])}, got ${got.grpc_code}`);
    }
    if ("error_code" in want && want["error_code"] !== got.error_code) {
      problems.push(`error_code: expected ${String(want["error_code"])}, got ${got.error_code}`);
    }
    if ("current_revision" in want) {
      const actual: Value = "currentRevision" in got.detail ? (got.detail["currentRevision"] as Json) : ABSENT;
      problems.push(...match(want["current_revision"] as Json, actual, "current_revision"));
    }
    if ("field_violations" in want) {
      const violations = (got.detail["fieldViolations"] ?? []) as Obj[];
      const fields = violations.map((v) => String(v["field"] ?? "")).sort();
      const expected = [...(want["field_violations"] as string[])].sort();
      if (!deepEqual(fields, expected)) {
        problems.push(`field_violations: expected ${short(want["field_violations"] as Json)}, got ${short(fields)}`);
      }
    }
    if ("retry_after" in want) {
      const has = "retryAfter" in got.detail;
      if (has !== truthy(want["retry_after"] as Json)) {
        problems.push(`retry_after: expected set=${short(want["retry_after"] as Json)}, got ${has}`);
      }
    }
    if (problems.length) problems.push(`(message: ${JSON.stringify(got.message)})`);
    return problems;
  }
  const wantOk = (expect["ok"] ?? {}) as Json;
  if (outcome.error !== undefined) {
    const err = outcome.error;
    return [`expected ok, got ${err.grpc_code} ${err.error_code}: ${JSON.stringify(err.message)}`];
  }
  return match(wantOk, outcome.ok ?? null);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runScenario(runner: Runner, scenario: Scenario, verbose: boolean): Promise<Result> {
  const name = scenario.name;
  const result: Result = { name, status: "PASS", reason: "", seconds: 0, steps: 0 };
  const started = performance.now();
  const requires = new Set(scenario.requires);
  try {
    const missing = scenario.fixtures.filter((f) => !Object.prototype.hasOwnProperty.call(runner.fixtures, f));
    if (missing.length) throw new Skip(`fixture(s) not provided: ${missing.join(", ")}`);
    const env: Env = { ...runner.fixtures, run_id: randomBytes(4).toString("hex"), scenario: name };
    for (const [variable, value] of Object.entries((scenario["vars"] ?? {}) as Obj)) env[variable] = substitute(value, env);
    let index = 0;
    for (const step of scenario.steps) {
      index += 1;
      const label = `step ${index} (${String(step["name"] || step["call"] || step["client"])})`;
      const rpcs = stepRpcs(step);
      result.steps = index;
      const until = step["until"] as Obj | undefined;
      const deadline = performance.now() + (until ? Number(until["timeout_ms"]) : 0);
      let outcome: Outcome;
      let problems: string[];
      for (;;) {
        outcome = await runner.invoke(step, env);
        const required = rpcs.filter((rpc) => requires.has(rpc));
        if (
          outcome.error !== undefined &&
          outcome.error.grpc_code === "UNIMPLEMENTED" &&
          required.length > 0 &&
          ((substitute((step["expect"] ?? {}) as Json, env) as Obj)["error"] as Obj | undefined)?.["grpc_code"] !==
            "UNIMPLEMENTED"
        ) {
          throw new Skip(`requires ${required.join(", ")} (UNIMPLEMENTED)`);
        }
        problems = check(step, outcome, env);
        if (!problems.length || until === undefined || performance.now() >= deadline) break;
        await sleep(Number(until["interval_ms"] ?? 250));
      }
      if (problems.length) throw new StepFailed(`${label}: ${problems.join("; ")}`);
      const doc: Value = outcome.error === undefined ? (outcome.ok ?? null) : outcome.error.detail;
      for (const [variable, path] of Object.entries((step["save"] ?? {}) as Obj)) {
        const value = resolvePath(doc, String(path));
        if (value === ABSENT) throw new StepFailed(`${label}: save ${variable}: path ${JSON.stringify(path)} not in response`);
        env[variable] = value;
      }
      if (verbose) console.log(`    ok ${label}`);
    }
  } catch (err) {
    if (err instanceof Skip) {
      result.status = "SKIP";
      result.reason = err.message;
    } else if (err instanceof StepFailed) {
      result.status = "FAIL";
      result.reason = err.message;
    } else if (err instanceof ScenarioError) {
      result.status = "FAIL";
      result.reason = `scenario error: ${err.message}`;
    } else {
      // A runner bug must not stop the other scenarios.
      result.status = "FAIL";
      result.reason = `runner error: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`;
    }
  }
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

/** Every scenario of every file, files in name order; file-level requires/fixtures merged. */
export function load(directory: string): Scenario[] {
  const scenarios: Scenario[] = [];
  const files = readdirSync(directory)
    .filter((f) => f.endsWith(".json"))
    .sort();
  for (const file of files) {
    const doc = JSON.parse(readFileSync(join(directory, file), "utf8")) as Obj;
    const fileRequires = (doc["requires"] ?? []) as string[];
    const fileFixtures = (doc["fixtures"] ?? []) as string[];
    for (const scenario of doc["scenarios"] as Obj[]) {
      scenarios.push({
        ...scenario,
        name: String(scenario["name"]),
        steps: scenario["steps"] as Step[],
        requires: [...fileRequires, ...((scenario["requires"] ?? []) as string[])],
        fixtures: [...fileFixtures, ...((scenario["fixtures"] ?? []) as string[])],
        file,
      });
    }
  }
  const names = scenarios.map((s) => s.name);
  const duplicates = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))].sort();
  if (duplicates.length) throw new ScenarioError(`duplicate scenario names: ${JSON.stringify(duplicates)}`);
  return scenarios;
}

interface Args {
  scenarios: string;
  filter: string;
  verbose: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { scenarios: SCENARIOS, filter: "", verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--scenarios") args.scenarios = resolve(argv[++i] ?? "");
    else if (arg.startsWith("--scenarios=")) args.scenarios = resolve(arg.slice("--scenarios=".length));
    else if (arg === "-k") args.filter = argv[++i] ?? "";
    else if (arg === "-v" || arg === "--verbose") args.verbose = true;
    else if (arg === "-h" || arg === "--help") {
      console.log("usage: runner.js [--scenarios DIR] [-k SUBSTRING] [-v]");
      process.exit(0);
    } else {
      console.error(`unknown argument: ${arg}`);
      process.exit(2);
    }
  }
  return args;
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const args = parseArgs(argv);
  const protocol: WireProtocol = process.env["QUIRE_CONFORMANCE_PROTOCOL"] === "connect" ? "connect" : "grpc";
  const variable = protocol === "connect" ? "QUIRE_CONFORMANCE_HTTP_ADDRESS" : "QUIRE_CONFORMANCE_ADDRESS";
  const address = process.env[variable];
  if (!address) {
    console.log(`${variable} is not set (run through tests.conformance.harness)`);
    return 2;
  }
  const keys = JSON.parse(process.env["QUIRE_CONFORMANCE_KEYS"] || "{}") as Record<string, string>;
  const fixtures = JSON.parse(process.env["QUIRE_CONFORMANCE_FIXTURES"] || "{}") as Env;
  const runner = new Runner(address, keys, fixtures, protocol);
  const counts = { PASS: 0, FAIL: 0, SKIP: 0 };
  try {
    for (const scenario of load(args.scenarios)) {
      if (args.filter && !scenario.name.includes(args.filter)) continue;
      const result = await runScenario(runner, scenario, args.verbose);
      counts[result.status] += 1;
      let line = `${result.status} ${result.name} (${result.seconds.toFixed(2)}s)`;
      if (result.reason) line += `: ${result.reason}`;
      console.log(line);
    }
  } finally {
    runner.close();
  }
  let summary = `${counts.PASS} passed, ${counts.FAIL} failed`;
  if (counts.SKIP) summary += `, ${counts.SKIP} skipped`;
  console.log(summary);
  return counts.FAIL ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 2;
    },
  );
}

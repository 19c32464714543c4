/**
 * Quire's agent tools for a model: the definitions to register and the runner of its calls.
 *
 * `new ToolRunner(client, { namespace, agentId })` asks DescribeTools once for the tools bound
 * to that namespace and agent (so the model never chooses them) and runs a model's tool call by
 * name: the arguments are checked against the tool's schema, the call goes to the tool's RPC
 * (`TOOLS`, generated from the contract's `(quire.v1.tool)` options) through the client, and
 * the answer is text for the model: `toToolResult` JSON, or `tool_error` JSON with `field` and
 * `bound` when an argument was at fault. The Python client's `ToolRunner` does the same, with
 * the same refusals, byte for byte (tests/conformance/tool_scenarios).
 */
import type { DescService, JsonObject, JsonValue } from "@bufbuild/protobuf";

import type { CallOptions, QuireClient } from "./client.js";
import { TOOLS, type ToolContract, type ToolName } from "./contract.gen.js";
import { errorDetail, errors, QuireError, toToolError } from "./errors.js";
import { ErrorCode } from "./gen/quire/v1/errors_pb.js";
import { KnowledgeService } from "./gen/quire/v1/knowledge_service_pb.js";
import type { ToolDefinition } from "./gen/quire/v1/pages_pb.js";
import { PagesService } from "./gen/quire/v1/pages_service_pb.js";
import { toToolResult, type ToolResultSource } from "./tool_result.js";

export { TOOLS, type ToolContract, type ToolName };

/** What a tool call gives the model: result JSON, or tool_error JSON when `isError`. */
export interface ToolOutcome {
  readonly text: string;
  readonly isError: boolean;
}

/** The ready-made shapes of a ToolDefinition: MCP, OpenAI strict-mode function, Anthropic tool. */
export type ToolShape = "mcpTool" | "openaiTool" | "anthropicTool";

/** The client methods the runner calls (a `QuireClient` has them all). */
export type ToolClient = Pick<
  QuireClient,
  | "describeTools"
  | "searchPages"
  | "readPage"
  | "listPages"
  | "grepPages"
  | "runCommand"
  | "searchKnowledge"
  | "readDocument"
>;

export interface ToolRunnerOptions {
  /** Binds the pages tools to this namespace: their schemas leave `namespace` out. */
  namespace?: string;
  /** Binds the knowledge tools to this agent: their schemas leave `agent_id` out. */
  agentId?: string;
}

/**
 * A model's arguments: the JSON text (OpenAI's `function.arguments`) or the object (Anthropic's
 * `input`). Their values are checked against the tool's schema, so any object will do.
 */
export type ToolArguments = string | Readonly<Record<string, unknown>> | null | undefined;

type Arguments = Record<string, JsonValue>;
type Request<K extends keyof ToolClient> = Parameters<ToolClient[K]>[0];
type Call = (client: ToolClient, request: Arguments, options?: CallOptions) => Promise<ToolResultSource>;

// Tool name -> client method (the request's field names in camelCase, as every method takes
// them). A tool added to the contract fails to compile here until it has its method.
const CALLS: Readonly<Record<ToolName, Call>> = {
  search_pages: (c, r, o) => c.searchPages(r as unknown as Request<"searchPages">, o),
  read_page: (c, r, o) => c.readPage(r as unknown as Request<"readPage">, o),
  list_pages: (c, r, o) => c.listPages(r as unknown as Request<"listPages">, o),
  grep_pages: (c, r, o) => c.grepPages(r as unknown as Request<"grepPages">, o),
  query_pages: (c, r, o) => c.runCommand(r as unknown as Request<"runCommand">, o),
  search_knowledge: (c, r, o) => c.searchKnowledge(r as unknown as Request<"searchKnowledge">, o),
  read_document: (c, r, o) => c.readDocument(r as unknown as Request<"readDocument">, o),
};

const SERVICES: Readonly<Record<string, DescService>> = { PagesService, KnowledgeService };
// The arguments a binding pins, as the server's DescribeTools names them.
const NAMESPACE_ARGUMENT = "namespace";
const AGENT_ARGUMENT = "agent_id";

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string as Python's `repr` writes it, so the refusal of an unknown tool reads as the Python client's. */
function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = [...text]
    .map((ch) => {
      if (ch === "\\" || ch === quote) return `\\${ch}`;
      if (ch === "\n") return "\\n";
      if (ch === "\r") return "\\r";
      if (ch === "\t") return "\\t";
      const code = ch.codePointAt(0) ?? 0;
      return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : ch;
    })
    .join("");
  return `${quote}${escaped}${quote}`;
}

/** The INVALID_REQUEST the server would send, for a call refused before it is sent. */
export function argumentError(field: string, description: string, bound: string): QuireError {
  const message = `${field}: ${description}`;
  const detail = errorDetail({
    code: ErrorCode.INVALID_REQUEST,
    message,
    fieldViolations: [{ field, description, bound }],
  });
  return new errors.InvalidRequest(message, { detail });
}

function isType(value: unknown, kind: string): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "integer":
      // JSON Schema counts a number without a fraction (5.0) as an integer.
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    default:
      return true;
  }
}

/**
 * The refusal of an integer outside the schema's minimum–maximum, worded as the server words its
 * own. 0 is the request field's unset value, which the server reads as the default, so it passes
 * where the schema gives one. Checked here because a value outside the request field's type (a
 * negative or a 2**40 limit) cannot even be sent.
 */
function rangeError(name: string, value: number, schema: JsonObject): QuireError | undefined {
  const low = schema["minimum"];
  const high = schema["maximum"];
  if (typeof low !== "number" || typeof high !== "number" || (low <= value && value <= high)) return undefined;
  const fallback = schema["default"];
  const zeroIsDefault = fallback !== undefined && fallback !== null && low > 0;
  if (value === 0 && zeroIsDefault) return undefined;
  const description = `must be ${low}–${high}` + (zeroIsDefault ? ` (0 means ${String(fallback)})` : "");
  return argumentError(name, description, `${low}–${high}`);
}

/**
 * The call's arguments, checked for names, presence, JSON types and the integers' minimum and
 * maximum against a tool's input schema (the server checks every bound again). A null is "not
 * given", as OpenAI's strict mode sends optional arguments. Throws `errors.InvalidRequest`
 * naming the first argument at fault, in the Python client's order and words.
 */
export function checkedArguments(schema: JsonObject, args: Readonly<Record<string, unknown>>): Arguments {
  const given: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value !== null && value !== undefined) given[name] = value;
  }
  const properties = isObject(schema["properties"]) ? schema["properties"] : {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(properties, name)) {
      throw argumentError(name, "not an argument of this tool", `one of: ${Object.keys(properties).join(", ")}`);
    }
  }
  const required = Array.isArray(schema["required"]) ? schema["required"] : [];
  for (const name of required) {
    if (typeof name === "string" && !Object.hasOwn(given, name)) throw argumentError(name, "is required", "required");
  }
  for (const [name, value] of Object.entries(given)) {
    const property = properties[name];
    const spec = isObject(property) ? property : {};
    const kind = typeof spec["type"] === "string" ? spec["type"] : "";
    if (!isType(value, kind)) throw argumentError(name, `must be a JSON ${kind}`, kind);
    if (kind === "integer") {
      const refused = rangeError(name, value as number, spec);
      if (refused !== undefined) throw refused;
    }
    const items = isObject(spec["items"]) ? spec["items"]["type"] : undefined;
    if (kind === "array" && typeof items === "string" && items && !(value as unknown[]).every((v) => isType(v, items))) {
      throw argumentError(name, `every item must be a JSON ${items}`, `array of ${items}`);
    }
  }
  return given as Arguments;
}

/** A model's arguments as an object: JSON text is parsed, nothing is `{}`. */
function argumentObject(args: ToolArguments): Readonly<Record<string, unknown>> {
  if (args === null || args === undefined || (typeof args === "string" && args.trim() === "")) return {};
  let value: unknown = args;
  if (typeof args === "string") {
    try {
      value = JSON.parse(args);
    } catch {
      value = undefined;
    }
  }
  if (!isObject(value)) throw argumentError("arguments", "must be a JSON object", "object");
  return value;
}

/** `value` with every `properties` object that holds exactly the arguments in `order`, in that order. */
function inOrder(value: JsonValue, order: readonly string[]): JsonValue {
  if (Array.isArray(value)) return value.map((v) => inOrder(v, order));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) out[key] = inOrder(member, order);
  const properties = out["properties"];
  if (isObject(properties)) {
    const keys = Object.keys(properties);
    if (keys.length === order.length && order.every((name) => Object.hasOwn(properties, name))) {
      const sorted: JsonObject = {};
      for (const name of order) sorted[name] = properties[name];
      out["properties"] = sorted;
    }
  }
  return out;
}

/** Request field names by proto name → the camelCase names the client's methods take. */
function requestNames(tool: ToolContract): ReadonlyMap<string, string> {
  const method = SERVICES[tool.service]?.methods.find((m) => m.name === tool.rpc);
  return new Map((method?.input.fields ?? []).map((f) => [f.name, f.localName]));
}

/** Runs Quire's tools for a model, bound to one namespace and one agent when given. */
export class ToolRunner {
  readonly namespace: string;
  readonly agentId: string;
  private listed: Promise<Map<string, ToolDefinition>> | undefined;
  private readonly schemas = new Map<string, JsonObject>();

  constructor(
    readonly client: ToolClient,
    options: ToolRunnerOptions = {},
  ) {
    this.namespace = options.namespace ?? "";
    this.agentId = options.agentId ?? "";
  }

  private byName(options?: CallOptions): Promise<Map<string, ToolDefinition>> {
    if (this.listed === undefined) {
      const binding = { namespace: this.namespace, agentId: this.agentId };
      this.listed = this.client.describeTools(options, binding).then(
        (tools) => new Map(tools.map((t) => [t.name, t])),
        (err: unknown) => {
          this.listed = undefined; // a failure is not remembered: the next call asks again
          throw err;
        },
      );
    }
    return this.listed;
  }

  /** The tools as DescribeTools gives them for this key and these bindings (asked once). */
  async definitions(options?: CallOptions): Promise<ToolDefinition[]> {
    return [...(await this.byName(options)).values()];
  }

  /**
   * Every tool in one ready-made shape (`"openaiTool"`, `"anthropicTool"` or `"mcpTool"`: what
   * the model API's `tools` takes), its arguments in the schema's order (a Struct arrives with
   * its keys sorted; a model reads the arguments in the order they are listed).
   */
  async shapes(shape: ToolShape, options?: CallOptions): Promise<JsonObject[]> {
    return (await this.definitions(options)).map((d) => {
      const order = Object.keys(this.schema(d)["properties"] as JsonObject);
      return inOrder(d[shape] ?? {}, order) as JsonObject;
    });
  }

  private schema(definition: ToolDefinition): JsonObject {
    let schema = this.schemas.get(definition.name);
    if (schema === undefined) {
      // The JSON text keeps the schema's order (a refusal lists the arguments as the model saw them).
      schema = JSON.parse(definition.inputSchemaJson) as JsonObject;
      this.schemas.set(definition.name, schema);
    }
    return schema;
  }

  /** The arguments a binding pins; the bound schemas leave them out, so a model that passes one is refused. */
  private bindings(tool: ToolContract): Arguments {
    const properties = tool.inputSchema["properties"] as JsonObject;
    const pinned: Arguments = {};
    if (this.namespace && Object.hasOwn(properties, NAMESPACE_ARGUMENT)) pinned[NAMESPACE_ARGUMENT] = this.namespace;
    if (this.agentId && Object.hasOwn(properties, AGENT_ARGUMENT)) pinned[AGENT_ARGUMENT] = this.agentId;
    return pinned;
  }

  /**
   * Runs one tool call: `name` and the model's arguments (JSON text or an object). Never throws
   * for a failed call: the outcome is the result JSON, or the tool_error JSON with `isError`.
   * Aborting `options.signal` is not a failed call: it rejects, as the call it cancels does.
   */
  async call(name: string, args?: ToolArguments, options?: CallOptions): Promise<ToolOutcome> {
    try {
      const definitions = await this.byName(options);
      const definition = definitions.get(name);
      if (definition === undefined || !Object.hasOwn(CALLS, name)) {
        throw argumentError("name", `no tool ${pythonRepr(name)}`, `one of: ${[...definitions.keys()].join(", ")}`);
      }
      const tool = TOOLS[name as ToolName];
      const checked = { ...checkedArguments(this.schema(definition), argumentObject(args)), ...this.bindings(tool) };
      const names = requestNames(tool);
      const request: Arguments = {};
      for (const [argument, value] of Object.entries(checked)) request[names.get(argument) ?? argument] = value;
      const result = await CALLS[name as ToolName](this.client, request, options);
      return { text: toToolResult(result), isError: false };
    } catch (err) {
      if (options?.signal?.aborted) throw err;
      // A typed QuireError, or anything else as `internal`.
      return { text: toToolError(err), isError: true };
    }
  }
}

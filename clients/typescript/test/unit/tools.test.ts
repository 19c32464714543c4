import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { create, type JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport, type HandlerContext } from "@connectrpc/connect";

import {
  argumentError,
  checkedArguments,
  ErrorCode,
  ErrorDetailSchema,
  KnowledgeService,
  PagesService,
  PageReadSchema,
  QuireClient,
  SearchResultSchema,
  ToolDefinitionSchema,
  ToolRunner,
  TOOLS,
  type ToolName,
} from "../../src/index.js";

// The expected texts are what the Python client's ToolRunner answers for the same calls.

const SEARCH_LIMIT = 8; // the default policy's bound of search_knowledge's limit

/**
 * What the server's DescribeTools gives (server/quire/server/pages/tools.py): the contract's
 * schema with the caller's bound and the bound arguments left out; the shapes' Structs arrive
 * with their keys sorted.
 */
function describe_(namespace: string, agentId: string) {
  return Object.entries(TOOLS).map(([name, tool]) => {
    const schema = structuredClone(tool.inputSchema) as { properties: JsonObject; required: string[] };
    if (namespace) delete schema.properties["namespace"];
    if (agentId) delete schema.properties["agent_id"];
    schema.required = schema.required.filter((a) => a in schema.properties);
    if (name === "search_knowledge") {
      schema.properties["limit"] = { ...(schema.properties["limit"] as JsonObject), maximum: SEARCH_LIMIT, default: 8 };
    }
    const inputSchema = { $schema: "https://json-schema.org/draft/2020-12/schema", ...schema, additionalProperties: false };
    const sorted = Object.fromEntries(Object.entries(schema.properties).sort(([a], [b]) => (a < b ? -1 : 1)));
    return create(ToolDefinitionSchema, {
      name,
      description: tool.description,
      inputSchemaJson: JSON.stringify(inputSchema),
      inputSchema,
      anthropicTool: { name, description: tool.description, input_schema: { ...schema, properties: sorted } },
    });
  });
}

interface Seen {
  describes: number;
  requests: { rpc: string; request: unknown }[];
}

const waitForAbort = (ctx: HandlerContext): Promise<never> =>
  new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));

function fakeServer(seen: Seen, options: { denyDescribe?: number } = {}) {
  return createRouterTransport(({ service }) => {
    service(PagesService, {
      describeTools(req) {
        seen.describes += 1;
        if (seen.describes <= (options.denyDescribe ?? 0)) {
          throw new ConnectError("no scope read", Code.PermissionDenied, undefined, [
            { desc: ErrorDetailSchema, value: { code: ErrorCode.PERMISSION_DENIED, message: "The key lacks scope read" } },
          ]);
        }
        return { tools: describe_(req.namespace, req.agentId) };
      },
      searchPages(req) {
        seen.requests.push({ rpc: "SearchPages", request: req });
        return { result: create(SearchResultSchema, { namespace: req.namespace, query: req.query }) };
      },
      readPage(req) {
        seen.requests.push({ rpc: "ReadPage", request: req });
        if (req.revision === "stale") {
          throw new ConnectError("The page changed since that revision", Code.FailedPrecondition, undefined, [
            {
              desc: ErrorDetailSchema,
              value: { code: ErrorCode.PAGE_CHANGED, message: "The page changed since that revision", currentRevision: "r2" },
            },
          ]);
        }
        return { pageRead: create(PageReadSchema, { content: "# Install", nextOffset: 9n }) };
      },
      async grepPages(_req, ctx) {
        return waitForAbort(ctx);
      },
      runCommand() {
        throw new TypeError("a bug that is not Quire's");
      },
    });
    service(KnowledgeService, {
      readDocument(req) {
        seen.requests.push({ rpc: "ReadDocument", request: req });
        return { slice: { documentId: req.documentId } };
      },
    });
  });
}

function runner(options: { namespace?: string; agentId?: string } = {}, server: { denyDescribe?: number } = {}) {
  const seen: Seen = { describes: 0, requests: [] };
  const client = new QuireClient({ transport: fakeServer(seen, server), retry: { maxAttempts: 1 } });
  return { seen, runner: new ToolRunner(client, options) };
}

const SEARCH_SCHEMA = TOOLS.search_pages.inputSchema;

function refusal(run: () => unknown): JsonObject {
  try {
    run();
  } catch (err) {
    return (err as { toToolError(): JsonObject }).toToolError();
  }
  assert.fail("the arguments were accepted");
}

describe("TOOLS (generated from the contract)", () => {
  test("lists the seven tools in DescribeTools' order, each with its RPC", () => {
    assert.deepEqual(Object.keys(TOOLS), [
      "search_pages",
      "read_page",
      "list_pages",
      "grep_pages",
      "query_pages",
      "search_knowledge",
      "read_document",
    ]);
    assert.equal(TOOLS.query_pages.rpc, "RunCommand");
    assert.equal(TOOLS.read_document.service, "KnowledgeService");
    const limit = (TOOLS.search_pages.inputSchema["properties"] as JsonObject)["limit"];
    assert.deepEqual({ ...(limit as JsonObject), description: undefined }, {
      type: "integer",
      minimum: 1,
      maximum: 20,
      default: 10,
      description: undefined,
    });
  });
});

describe("checkedArguments", () => {
  const cases: [string, JsonObject, string, string | RegExp][] = [
    ["a missing required argument", { namespace: "d" }, "query", "required"],
    ["a misspelt argument", { namespace: "d", qurey: "q" }, "qurey", "one of: namespace, query, alternatives, limit"],
    ["an unknown argument", { namespace: "d", query: "q", size: 3 }, "size", /^one of: /],
    ["a number for a string", { namespace: "d", query: 3 }, "query", "string"],
    ["a boolean for an integer", { namespace: "d", query: "q", limit: true }, "limit", "integer"],
    ["a string for an integer", { namespace: "d", query: "q", limit: "3" }, "limit", "integer"],
    ["a fraction for an integer", { namespace: "d", query: "q", limit: 2.5 }, "limit", "integer"],
    ["a string for an array", { namespace: "d", query: "q", alternatives: "x" }, "alternatives", "array"],
    ["a number in a string array", { namespace: "d", query: "q", alternatives: [1] }, "alternatives", "array of string"],
    ["a negative integer", { namespace: "d", query: "q", limit: -1 }, "limit", "1–20"],
    ["an integer past the maximum", { namespace: "d", query: "q", limit: 2 ** 40 }, "limit", "1–20"],
  ];
  for (const [what, args, field, bound] of cases) {
    test(`refuses ${what}, naming the argument and its bound`, () => {
      const error = refusal(() => checkedArguments(SEARCH_SCHEMA, args));
      assert.equal(error["error"], "invalid_request");
      assert.equal(error["field"], field);
      assert.match(String(error["message"]), new RegExp(`^${field}: `));
      if (typeof bound === "string") assert.equal(error["bound"], bound);
      else assert.match(String(error["bound"]), bound);
    });
  }

  test("words a range as the server does: 0 is the default where one exists", () => {
    const error = refusal(() => checkedArguments(SEARCH_SCHEMA, { namespace: "d", query: "q", limit: 21 }));
    assert.equal(error["message"], "limit: must be 1–20 (0 means 10)");
    assert.deepEqual(checkedArguments(SEARCH_SCHEMA, { namespace: "d", query: "q", limit: 0 }), {
      namespace: "d",
      query: "q",
      limit: 0,
    });
    const offset = refusal(() => checkedArguments(TOOLS.read_page.inputSchema, { namespace: "d", path: "/", offset: -1 }));
    assert.equal(offset["message"], "offset: must be 0–2147483647");
  });

  test("treats null as not given (OpenAI's strict mode) and 5.0 as an integer", () => {
    const given = { namespace: "d", query: "q", limit: null, alternatives: null };
    assert.deepEqual(checkedArguments(SEARCH_SCHEMA, given), { namespace: "d", query: "q" });
    assert.deepEqual(checkedArguments(SEARCH_SCHEMA, JSON.parse('{"namespace":"d","query":"q","limit":5.0}')), {
      namespace: "d",
      query: "q",
      limit: 5,
    });
  });

  test("argumentError is the server's INVALID_REQUEST", () => {
    const error = argumentError("limit", "must be 1–8", "1–8");
    assert.equal(error.code, ErrorCode.INVALID_REQUEST);
    assert.equal(error.grpcCode, Code.InvalidArgument);
    assert.deepEqual(
      error.fieldViolations.map((v) => [v.field, v.description, v.bound]),
      [["limit", "must be 1–8", "1–8"]],
    );
  });
});

describe("ToolRunner", () => {
  test("dispatches a call to its RPC with the arguments as request fields, answering toToolResult JSON", async () => {
    const { seen, runner: tools } = runner();
    const found = await tools.call("search_pages", '{"namespace":"docs","query":"install","alternatives":["setup"],"limit":3}');
    assert.deepEqual(found, {
      text:
        '{"filesystem_version":"0","hits":[],"namespace":"docs","omitted_count":0,"partial":false,' +
        '"query":"install","schema_version":0,"truncated":false,"warnings":[]}',
      isError: false,
    });
    const read = await tools.call("read_page", { namespace: "docs", path: "/install.md", max_chars: 400, offset: 0 });
    assert.equal(read.isError, false);
    assert.match(read.text, /"content":"# Install"/);
    assert.match(read.text, /"next_offset":"9"/);
    const [search, page] = seen.requests as { rpc: string; request: Record<string, unknown> }[];
    assert.equal(search?.rpc, "SearchPages");
    assert.deepEqual([search?.request["namespace"], search?.request["query"], search?.request["limit"]], ["docs", "install", 3]);
    assert.deepEqual(search?.request["alternatives"], ["setup"]);
    assert.deepEqual([page?.request["path"], page?.request["maxChars"]], ["/install.md", 400]);
    assert.equal(seen.describes, 1, "DescribeTools is asked once");
  });

  test("refuses a misspelt argument instead of dropping it, sending nothing", async () => {
    const { seen, runner: tools } = runner();
    const outcome = await tools.call("search_pages", { namespace: "docs", qurey: "install" });
    assert.deepEqual(outcome, {
      text:
        '{"schema_version":1,"error":"invalid_request","message":"qurey: not an argument of this tool",' +
        '"field":"qurey","bound":"one of: namespace, query, alternatives, limit"}',
      isError: true,
    });
    assert.deepEqual(seen.requests, []);
  });

  test("holds search_knowledge's limit to the caller's bound from DescribeTools", async () => {
    const { runner: tools } = runner({ agentId: "bot" });
    const outcome = await tools.call("search_knowledge", { query: "x", limit: 20 });
    assert.equal(
      outcome.text,
      '{"schema_version":1,"error":"invalid_request","message":"limit: must be 1–8 (0 means 8)","field":"limit","bound":"1–8"}',
    );
  });

  test("answers an unknown tool, and malformed arguments, with a tool_error", async () => {
    const { runner: tools } = runner();
    const unknown = await tools.call("drop_database", {});
    assert.equal(
      unknown.text,
      '{"schema_version":1,"error":"invalid_request","message":"name: no tool \'drop_database\'","field":"name",' +
        '"bound":"one of: search_pages, read_page, list_pages, grep_pages, query_pages, search_knowledge, read_document"}',
    );
    for (const bad of ["{not json", "[1]", "3"]) {
      const outcome = await tools.call("search_pages", bad);
      assert.deepEqual(JSON.parse(outcome.text), {
        schema_version: 1,
        error: "invalid_request",
        message: "arguments: must be a JSON object",
        field: "arguments",
        bound: "object",
      });
    }
  });

  test("pins the bound arguments; a model that passes one is refused", async () => {
    const { seen, runner: tools } = runner({ namespace: "docs", agentId: "bot" });
    const named = await tools.call("search_pages", { namespace: "other", query: "x" });
    assert.equal(JSON.parse(named.text)["field"], "namespace");
    assert.equal((await tools.call("search_pages", { query: "x" })).isError, false);
    assert.equal((await tools.call("read_document", { document_id: "d1" })).isError, false);
    const [search, read] = seen.requests as { request: Record<string, unknown> }[];
    assert.equal(search?.request["namespace"], "docs");
    assert.deepEqual([read?.request["agentId"], read?.request["documentId"]], ["bot", "d1"]);
  });

  test("turns the server's refusal into tool_error JSON, and anything else into internal", async () => {
    const { runner: tools } = runner();
    const stale = await tools.call("read_page", { namespace: "docs", path: "/a.md", revision: "stale" });
    assert.deepEqual(stale, {
      text:
        '{"schema_version":1,"error":"page_changed","message":"The page changed since that revision",' +
        '"current_revision":"r2"}',
      isError: true,
    });
    const broken = await tools.call("query_pages", { namespace: "docs", command: "ls" });
    assert.equal(broken.isError, true);
    assert.equal(JSON.parse(broken.text)["message"], undefined);
  });

  test("a failed DescribeTools is a tool_error and is asked again at the next call", async () => {
    const { seen, runner: tools } = runner({}, { denyDescribe: 1 });
    const denied = await tools.call("search_pages", { namespace: "docs", query: "x" });
    assert.deepEqual(JSON.parse(denied.text), {
      schema_version: 1,
      error: "permission_denied",
      message: "The key lacks scope read",
    });
    assert.equal((await tools.call("search_pages", { namespace: "docs", query: "x" })).isError, false);
    assert.equal(seen.describes, 2);
  });

  test("a call its caller aborts rejects instead of answering", async () => {
    const { runner: tools } = runner();
    const controller = new AbortController();
    const pending = tools.call("grep_pages", { namespace: "docs", query: "x" }, { signal: controller.signal });
    setImmediate(() => controller.abort());
    await assert.rejects(pending);
  });

  test("shapes list the arguments in the schema's order", async () => {
    const { runner: tools } = runner();
    const shapes = await tools.shapes("anthropicTool");
    const search = shapes.find((s) => s["name"] === "search_pages") as { input_schema: { properties: JsonObject } };
    assert.deepEqual(Object.keys(search.input_schema.properties), ["namespace", "query", "alternatives", "limit"]);
    const names = (await tools.definitions()).map((d) => d.name as ToolName);
    assert.deepEqual(names, Object.keys(TOOLS));
  });
});

/**
 * Conformance "client steps": a step with `"client": "<helper>"` and `"args"` runs a helper of
 * the client library (not a raw call) and turns its result into the JSON the scenarios match
 * (tests/conformance/README.md, "Client steps"). Same helpers and JSON in every runner.
 */
import { create, fromJson, type DescMessage, type JsonObject, type JsonValue, type Message, toJson } from "@bufbuild/protobuf";

import { type CallOptions, QuireClient } from "../src/client.js";
import { AgentSchema, CollectionSchema, DocumentSchema } from "../src/gen/quire/v1/knowledge_pb.js";
import {
  ListAgentsRequestSchema,
  ListDocumentsRequestSchema,
  UploadDocumentsResponseSchema,
} from "../src/gen/quire/v1/knowledge_service_pb.js";
import { NamespaceSchema, PageSchema } from "../src/gen/quire/v1/pages_pb.js";
import { ListPagesRequestSchema } from "../src/gen/quire/v1/pages_service_pb.js";
import type { UploadItem } from "../src/batches.js";
import { ToolRunner, TOOLS } from "../src/tools.js";
import type { WaitTarget } from "../src/waiting.js";

type Obj = JsonObject;

/** The scenario itself is wrong (unknown helper, bad args). */
export class ClientStepError extends Error {}

const LIST_RPCS: Record<string, string> = {
  collections: "KnowledgeService.ListCollections",
  documents: "KnowledgeService.ListDocuments",
  agents: "KnowledgeService.ListAgents",
  namespaces: "PagesService.ListNamespaces",
  pages: "PagesService.ListPages",
};

/** The RPCs a helper calls: an UNIMPLEMENTED one listed in `requires` skips the scenario. */
export function helperRpcs(helper: string, args: Obj): string[] {
  switch (helper) {
    case "wait_until_searchable":
      return ["KnowledgeService.GetDocument", "KnowledgeService.ListDocuments", "KnowledgeService.WatchDocuments"];
    case "upload_documents":
      return ["KnowledgeService.UploadDocuments"];
    case "iterate": {
      const rpc = LIST_RPCS[String(args["list"])];
      return rpc ? [rpc] : [];
    }
    case "tool_call":
      return ["PagesService.DescribeTools", ...Object.values(TOOLS).map((t) => `${t.service}.${t.rpc}`)];
    default:
      return [];
  }
}

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parse<T extends DescMessage>(schema: T, body: JsonValue | undefined): ReturnType<typeof fromJson<T>> {
  try {
    return fromJson(schema, body ?? {});
  } catch (err) {
    throw new ClientStepError(`bad request JSON for ${schema.typeName}: ${(err as Error).message}`);
  }
}

function optionalString(args: Obj, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new ClientStepError(`args.${name} must be a string`);
  return value;
}

function pageSize(args: Obj): number | undefined {
  const value = args["page_size"];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number") throw new ClientStepError("args.page_size must be a number");
  return value;
}

async function collect<T extends Message>(schema: DescMessage, items: AsyncIterable<T>): Promise<JsonValue> {
  const out: JsonValue[] = [];
  for await (const item of items) out.push(toJson(schema, item));
  return { items: out, count: out.length };
}

async function iterate(client: QuireClient, args: Obj, call: CallOptions): Promise<JsonValue> {
  const list = String(args["list"]);
  const request = args["request"];
  const size = pageSize(args);
  switch (list) {
    case "collections":
      return collect(CollectionSchema, client.iterCollections(call));
    case "namespaces":
      return collect(NamespaceSchema, client.iterNamespaces(call));
    case "documents": {
      const parsed = parse(ListDocumentsRequestSchema, request);
      return collect(
        DocumentSchema,
        client.iterDocuments(
          { collectionId: parsed.collectionId, ...(parsed.filter ? { filter: parsed.filter } : {}), ...(size ? { pageSize: size } : {}) },
          call,
        ),
      );
    }
    case "agents":
      parse(ListAgentsRequestSchema, request);
      return collect(AgentSchema, client.iterAgents(size ? { pageSize: size } : {}, call));
    case "pages": {
      const parsed = parse(ListPagesRequestSchema, request);
      return collect(
        PageSchema,
        client.iterPages(
          { namespace: parsed.namespace, ...(parsed.prefix ? { prefix: parsed.prefix } : {}), ...(size ? { pageSize: size } : {}) },
          call,
        ),
      );
    }
    default:
      throw new ClientStepError(`iterate: unknown list ${JSON.stringify(list)} (want ${Object.keys(LIST_RPCS).join(", ")})`);
  }
}

async function waitStep(client: QuireClient, args: Obj, call: CallOptions): Promise<JsonValue> {
  let target: WaitTarget;
  const ids = args["document_ids"];
  const collectionId = optionalString(args, "collection_id");
  if (Array.isArray(ids) && collectionId === undefined) {
    target = { documentIds: ids.map(String) };
  } else if (collectionId !== undefined && ids === undefined) {
    target = { collectionId };
  } else {
    throw new ClientStepError("wait_until_searchable: give exactly one of args.document_ids, args.collection_id");
  }
  const timeout = args["timeout_ms"];
  const result = await client.waitUntilSearchable(target, {
    ...(typeof timeout === "number" ? { timeoutMs: timeout } : {}),
    ...(call.headers !== undefined ? { headers: call.headers } : {}),
  });
  return {
    outcomes: result.outcomes.map((o) => ({ documentId: o.documentId, outcome: o.outcome, reason: o.reason })),
    complete: result.complete,
  };
}

async function uploadStep(client: QuireClient, args: Obj, call: CallOptions): Promise<JsonValue> {
  const collectionId = optionalString(args, "collection_id") ?? "";
  const documents = args["documents"];
  if (!Array.isArray(documents)) throw new ClientStepError("upload_documents: args.documents must be a list");
  const encoder = new TextEncoder();
  const items = documents.map((doc, i): UploadItem => {
    if (!isObject(doc)) throw new ClientStepError(`upload_documents: args.documents[${i}] must be an object`);
    const metadata = doc["metadata"];
    if (metadata !== undefined && !isObject(metadata)) {
      throw new ClientStepError(`upload_documents: args.documents[${i}].metadata must be an object`);
    }
    const externalKey = optionalString(doc, "externalKey");
    const mimeType = optionalString(doc, "mimeType");
    return {
      fileName: optionalString(doc, "fileName") ?? "",
      data: encoder.encode(optionalString(doc, "text") ?? ""),
      ...(externalKey !== undefined ? { externalKey } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
      ...(mimeType !== undefined ? { mimeType } : {}),
    };
  });
  const results = await client.uploadDocuments(collectionId, items, call);
  return toJson(UploadDocumentsResponseSchema, create(UploadDocumentsResponseSchema, { results }));
}

/** The client's ToolRunner, bound as the step says, runs one tool call; it never throws for a failed call. */
async function toolCall(client: QuireClient, args: Obj, call: CallOptions): Promise<JsonValue> {
  const tool = args["tool"];
  const given = args["arguments"] ?? {};
  if (typeof tool !== "string" || !isObject(given)) {
    throw new ClientStepError("tool_call wants args.tool (a string) and args.arguments (an object)");
  }
  const runner = new ToolRunner(client, {
    namespace: optionalString(args, "namespace") ?? "",
    agentId: optionalString(args, "agent_id") ?? "",
  });
  const outcome = await runner.call(tool, given, call);
  return { isError: outcome.isError, text: outcome.text, json: JSON.parse(outcome.text) as JsonValue };
}

/** Runs one client step's helper; its typed errors propagate (the runner matches them). */
export async function runClientStep(client: QuireClient, helper: string, args: Obj, call: CallOptions): Promise<JsonValue> {
  switch (helper) {
    case "wait_until_searchable":
      return waitStep(client, args, call);
    case "iterate":
      return iterate(client, args, call);
    case "upload_documents":
      return uploadStep(client, args, call);
    case "tool_call":
      return toolCall(client, args, call);
    default:
      throw new ClientStepError(`unknown client helper ${JSON.stringify(helper)}`);
  }
}

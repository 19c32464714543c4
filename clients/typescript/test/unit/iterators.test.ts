import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { create, toJson } from "@bufbuild/protobuf";
import { createRouterTransport } from "@connectrpc/connect";

import {
  AgentSchema,
  CollectionSchema,
  DocumentSchema,
  errors,
  filter,
  KnowledgeService,
  MetadataFilterSchema,
  NamespaceSchema,
  PageSchema,
  PagesService,
  QuireClient,
} from "../../src/index.js";
import { helperRpcs, runClientStep } from "../../conformance/client_steps.js";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Pages of `items` by an index cursor, recording each request. */
function pageOf<T>(items: T[], cursor: string, limit: number): { page: T[]; next: string } {
  const start = cursor ? Number(cursor) : 0;
  const end = start + (limit || 100);
  return { page: items.slice(start, end), next: end < items.length ? String(end) : "" };
}

function fakeLists(requests: string[], restartAt?: string) {
  const agents = ["a1", "a2", "a3", "a4", "a5"].map((agentId) => create(AgentSchema, { agentId }));
  const pages = ["/a.md", "/b.md", "/c.md"].map((path) => create(PageSchema, { path }));
  const docs = ["d1", "d2", "d3"].map((documentId) => create(DocumentSchema, { documentId }));
  return createRouterTransport(({ service }) => {
    service(KnowledgeService, {
      listAgents(req) {
        requests.push(`agents:${req.cursor}:${req.limit}`);
        const { page, next } = pageOf(agents, req.cursor, req.limit);
        return { agents: page, nextCursor: next };
      },
      listDocuments(req) {
        requests.push(`documents:${req.collectionId}:${req.cursor}:${req.limit}:${JSON.stringify(req.filter ? toJson(MetadataFilterSchema, req.filter) : null)}`);
        const { page, next } = pageOf(docs, req.cursor, req.limit);
        return { documents: page, nextCursor: next };
      },
      listCollections() {
        requests.push("collections");
        return { collections: [create(CollectionSchema, { name: "x" }), create(CollectionSchema, { name: "y" })] };
      },
    });
    service(PagesService, {
      listPages(req) {
        requests.push(`pages:${req.namespace}:${req.prefix}:${req.cursor}:${req.limit}`);
        if (req.cursor !== "" && req.cursor === restartAt) return { pageList: { restartRequired: true } };
        const { page, next } = pageOf(pages, req.cursor, req.limit);
        return { pageList: { pages: page, nextCursor: next } };
      },
      listNamespaces() {
        requests.push("namespaces");
        return { namespaces: [create(NamespaceSchema, { name: "docs" })] };
      },
    });
  });
}

describe("iterators", () => {
  test("paged lists follow nextCursor lazily", async () => {
    const requests: string[] = [];
    const client = new QuireClient({ transport: fakeLists(requests) });
    const it = client.iterAgents({ pageSize: 2 });
    assert.equal((await it.next()).value?.agentId, "a1");
    assert.deepEqual(requests, ["agents::2"]); // one page fetched so far
    const rest = await collect(it);
    assert.deepEqual(rest.map((a) => a.agentId), ["a2", "a3", "a4", "a5"]);
    assert.deepEqual(requests, ["agents::2", "agents:2:2", "agents:4:2"]);
  });

  test("documents carry the filter on every page; pages carry the prefix", async () => {
    const requests: string[] = [];
    const client = new QuireClient({ transport: fakeLists(requests) });
    const docs = await collect(client.iterDocuments({ collectionId: "c1", pageSize: 2, filter: filter.eq("team", "a") }));
    assert.deepEqual(docs.map((d) => d.documentId), ["d1", "d2", "d3"]);
    const f = JSON.stringify({ field: { field: "team", equals: "a" } });
    assert.deepEqual(requests, [`documents:c1::2:${f}`, `documents:c1:2:2:${f}`]);
    requests.length = 0;
    const pages = await collect(client.iterPages({ namespace: "docs", prefix: "/guide/", pageSize: 2 }));
    assert.deepEqual(pages.map((p) => p.path), ["/a.md", "/b.md", "/c.md"]);
    assert.deepEqual(requests, ["pages:docs:/guide/::2", "pages:docs:/guide/:2:2"]);
  });

  test("unpaged lists yield their one response", async () => {
    const requests: string[] = [];
    const client = new QuireClient({ transport: fakeLists(requests) });
    assert.deepEqual((await collect(client.iterCollections())).map((c) => c.name), ["x", "y"]);
    assert.deepEqual((await collect(client.iterNamespaces())).map((n) => n.name), ["docs"]);
    assert.deepEqual(requests, ["collections", "namespaces"]);
  });

  test("a namespace changing mid-listing throws PageChanged", async () => {
    const client = new QuireClient({ transport: fakeLists([], "2") });
    await assert.rejects(collect(client.iterPages({ namespace: "docs", pageSize: 2 })), errors.PageChanged);
  });
});

describe("conformance client steps", () => {
  test("iterate gives items as proto3 JSON and their count", async () => {
    const requests: string[] = [];
    const client = new QuireClient({ transport: fakeLists(requests) });
    const out = await runClientStep(
      client,
      "iterate",
      { list: "documents", request: { collectionId: "c1", filter: { field: { field: "k", exists: true } } }, page_size: 2 },
      {},
    );
    assert.deepEqual(out, { items: [{ documentId: "d1" }, { documentId: "d2" }, { documentId: "d3" }], count: 3 });
    assert.equal(requests.length, 2);
  });

  test("helpers name the RPCs they call; unknown helpers and lists are scenario errors", async () => {
    assert.deepEqual(helperRpcs("iterate", { list: "agents" }), ["KnowledgeService.ListAgents"]);
    assert.deepEqual(helperRpcs("upload_documents", {}), ["KnowledgeService.UploadDocuments"]);
    assert.ok(helperRpcs("wait_until_searchable", {}).includes("KnowledgeService.WatchDocuments"));
    const client = new QuireClient({ transport: fakeLists([]) });
    await assert.rejects(runClientStep(client, "bogus", {}, {}), /unknown client helper "bogus"/);
    await assert.rejects(runClientStep(client, "iterate", { list: "things" }, {}), /unknown list "things"/);
    await assert.rejects(
      runClientStep(client, "wait_until_searchable", { document_ids: ["a"], collection_id: "c" }, {}),
      /exactly one of/,
    );
  });
});

/**
 * Integration tests against a live server. The address and keys come from the environment the
 * conformance harness provides:
 *
 *     cd <repo> && .venv/bin/python -m tests.conformance.harness -- \
 *         npm --prefix clients/typescript run test:integration
 *
 * Without QUIRE_CONFORMANCE_ADDRESS every test is skipped (with that reason).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";

import {
  ErrorCode,
  errors,
  filter,
  isQuireError,
  isSyncReport,
  QuireClient,
  RetrievalMode,
  Scope,
  SyncStatus,
  toToolError,
  UploadOutcome,
} from "../../src/index.js";

const ADDRESS = process.env["QUIRE_CONFORMANCE_ADDRESS"];
const KEYS = JSON.parse(process.env["QUIRE_CONFORMANCE_KEYS"] || "{}") as Record<string, string>;
const FIXTURES = JSON.parse(process.env["QUIRE_CONFORMANCE_FIXTURES"] || "{}") as Record<string, string>;
const SKIP = ADDRESS
  ? false
  : "QUIRE_CONFORMANCE_ADDRESS is not set: run under `python -m tests.conformance.harness -- ...` to test against a live server";

const runId = randomBytes(4).toString("hex");
const clients: QuireClient[] = [];

function client(key: string | undefined): QuireClient {
  const c = new QuireClient({ address: ADDRESS ?? "127.0.0.1:1", ...(key === undefined ? {} : { apiKey: key }) });
  clients.push(c);
  return c;
}

describe("QuireClient against a live server", { skip: SKIP }, () => {
  after(() => {
    for (const c of clients) c.close();
  });

  test("collections: create, get, list, delete", async () => {
    const writer = client(KEYS["write"]);
    const name = `ts-crud-${runId}`;
    const created = await writer.createCollection({ name });
    assert.equal(created.name, name);
    assert.equal(created.schemaVersion, 1);
    const got = await writer.getCollection({ collectionId: created.collectionId });
    assert.equal(got.collectionId, created.collectionId);
    const listed = await writer.listCollections();
    assert.ok(listed.some((c) => c.collectionId === created.collectionId));
    await writer.deleteCollection({ collectionId: created.collectionId });
    await assert.rejects(writer.getCollection({ collectionId: created.collectionId }), errors.CollectionNotFound);
  });

  test("typed errors decode ErrorDetail; toToolError", async () => {
    const reader = client(KEYS["read"]);
    const missing = "00000000-0000-0000-0000-000000000000";
    await assert.rejects(reader.getCollection({ collectionId: missing }), (err: unknown) => {
      assert.ok(err instanceof errors.CollectionNotFound);
      assert.equal(err.code, ErrorCode.COLLECTION_NOT_FOUND);
      assert.equal(err.detail.code, ErrorCode.COLLECTION_NOT_FOUND);
      assert.equal(
        toToolError(err),
        '{"schema_version":1,"error":"collection_not_found","message":"Collection not found"}',
      );
      return true;
    });
    await assert.rejects(client(KEYS["invalid"]).listCollections(), errors.Unauthenticated);
    await assert.rejects(client(undefined).listCollections(), errors.Unauthenticated);
    await assert.rejects(reader.createCollection({ name: `ts-denied-${runId}` }), errors.PermissionDenied);
    await assert.rejects(reader.createCollection({ name: "" }), (err: unknown) =>
      err instanceof errors.PermissionDenied || err instanceof errors.InvalidRequest,
    );
  });

  test("field violations name the field", async () => {
    const admin = client(KEYS["admin"]);
    await assert.rejects(
      admin.setNamespaceSearchConfig({ namespace: `ts-ns-${runId}`, config: { maxParallelWorkersPerGather: 5000 } }),
      (err: unknown) => {
        assert.ok(err instanceof errors.InvalidRequest);
        assert.deepEqual(
          err.fieldViolations.map((v) => v.field),
          ["config.max_parallel_workers_per_gather"],
        );
        return true;
      },
    );
  });

  test("admin: retrieval policy and API keys", async () => {
    const admin = client(KEYS["admin"]);
    const policy = await admin.getRetrievalPolicy();
    assert.equal(policy.schemaVersion, 1);
    const set = await admin.setRetrievalPolicy({ maxSearchLimit: 12 });
    assert.equal(set.maxSearchLimit, 12);
    const key = await admin.createApiKey({ scopes: ["read"] });
    assert.ok(key.secret);
    assert.deepEqual(key.scopes, [Scope.READ]);
    const fresh = client(key.secret);
    assert.ok(Array.isArray(await fresh.listCollections()));
    await admin.revokeApiKey({ keyId: key.keyId });
    await assert.rejects(fresh.listCollections(), errors.Unauthenticated);
    assert.ok([RetrievalMode.UNSPECIFIED, RetrievalMode.LEGACY_FTS, RetrievalMode.HYBRID_SHADOW, RetrievalMode.HYBRID].includes(policy.effectiveMode));
  });

  test("listNamespaces and describeTools", async (t) => {
    const reader = client(KEYS["read"]);
    assert.ok(Array.isArray(await reader.listNamespaces()));
    const tools = await reader.describeTools();
    assert.ok(tools.some((tool) => tool.name === "search_pages"));
  });

  test("syncPages: a rejected discovery check fails with DiscoveryRejected", async (t) => {
    const siteUrl = FIXTURES["site_url"];
    if (!siteUrl) return t.skip("fixture site_url not provided");
    const writer = client(KEYS["write"]);
    const checks: number[] = [];
    const stages: number[] = [];
    try {
      for await (const item of writer.syncPages(
        { namespace: `ts-abort-${runId}`, url: `${siteUrl}/llms.txt`, publicUrl: "https://docs.example.test" },
        {
          validateDiscovery: (check) => {
            checks.push(check.discovered);
            return false;
          },
        },
      )) {
        if (!isSyncReport(item)) stages.push(item.stage);
      }
      assert.fail("expected DiscoveryRejected");
    } catch (err) {
      if (isQuireError(err, ErrorCode.SEARCH_UNAVAILABLE)) return t.skip(`server cannot sync: ${(err as Error).message}`);
      assert.ok(err instanceof errors.DiscoveryRejected, String(err));
      assert.deepEqual(checks, [4]);
    }
  });

  test("pages: sync, search, read (PAGE_CHANGED), list, grep, run", async (t) => {
    const siteUrl = FIXTURES["site_url"];
    if (!siteUrl) return t.skip("fixture site_url not provided");
    const writer = client(KEYS["write"]);
    const namespace = `ts-pages-${runId}`;
    const items = [];
    try {
      for await (const item of writer.syncPages(
        { namespace, url: `${siteUrl}/llms.txt`, publicUrl: "https://docs.example.test" },
        { validateDiscovery: (check) => check.discovered === 4 },
      )) {
        items.push(item);
      }
    } catch (err) {
      if (isQuireError(err, ErrorCode.SEARCH_UNAVAILABLE)) {
        return t.skip(`server cannot sync: ${(err as Error).message}`);
      }
      throw err;
    }
    const report = items[items.length - 1];
    assert.ok(report && isSyncReport(report));
    assert.equal(report.status, SyncStatus.COMPLETED, report.errors.join("; "));
    assert.equal(report.updated, 4);
    assert.equal(items.filter(isSyncReport).length, 1);

    const result = await writer.searchPages({ namespace, query: "marmalade" });
    const hit = result.hits.find((h) => h.path === "/guide/intro.md");
    assert.ok(hit, JSON.stringify(result.hits.map((h) => h.path)));
    assert.ok(hit.url.startsWith("https://docs.example.test"));

    const read = await writer.readPage({ namespace, path: hit.path, revision: hit.revision, maxChars: 10 });
    assert.equal(read.content.length, 10);
    assert.equal(read.offset, 0n);
    assert.equal(read.nextOffset, 10n);
    await assert.rejects(writer.readPage({ namespace, path: hit.path, revision: "0".repeat(64) }), (err: unknown) => {
      assert.ok(err instanceof errors.PageChanged);
      assert.equal(err.currentRevision, hit.revision);
      assert.equal(
        toToolError(err),
        JSON.stringify({
          schema_version: 1,
          error: "page_changed",
          message: "The page changed since that revision",
          current_revision: hit.revision,
        }),
      );
      return true;
    });
    await assert.rejects(writer.readPage({ namespace, path: "/nope.md" }), errors.PageNotFound);

    const listing = await writer.listPages({ namespace, limit: 2 });
    assert.equal(listing.pages.length, 2);
    assert.ok(listing.nextCursor);
    const grep = await writer.grepPages({ namespace, query: "MARMALADE", ignoreCase: true });
    assert.ok(grep.matches.some((m) => m.path === "/guide/intro.md" && m.lineNumber > 0));
    const ls = await writer.runCommand({ namespace, command: "ls /guide" });
    assert.equal(ls.exitCode, 0);
    assert.ok(ls.output.includes("intro.md"));
    const stored = await writer.getSyncReport({ namespace });
    assert.equal(stored.status, SyncStatus.COMPLETED);
    assert.ok((await writer.listNamespaces()).some((n) => n.name === namespace));
  });

  test("syncPages: needs a write key", async () => {
    const reader = client(KEYS["read"]);
    const run = async (): Promise<void> => {
      for await (const _ of reader.syncPages({ namespace: `ts-ro-${runId}`, url: "https://example.com/llms.txt" })) {
        // nothing
      }
    };
    await assert.rejects(run(), errors.PermissionDenied);
  });

  test("uploadDocument streams 1 MiB chunks", async (t) => {
    const writer = client(KEYS["write"]);
    const collection = await writer.createCollection({ name: `ts-upload-${runId}` });
    const data = new TextEncoder().encode("marmalade ".repeat(150_000)); // 1.5 MB: two chunks
    const doc = await writer.uploadDocument({ collectionId: collection.collectionId, fileName: "notes.txt" }, data);
    assert.equal(Number(doc.sizeBytes), data.length);
    assert.equal(doc.fileName, "notes.txt");
  });

  test("uploadFolder keys files by path: a second run changes nothing; then wait, iterate, delete by keys", async (t) => {
    const writer = client(KEYS["write"]);
    const cid = (await writer.createCollection({ name: `ts-folder-${runId}` })).collectionId;
    const dir = mkdtempSync(join(tmpdir(), "quire-ts-folder-"));
    try {
      mkdirSync(join(dir, "guide"));
      writeFileSync(join(dir, "guide", "intro.txt"), "marmalade recipes for beginners");
      writeFileSync(join(dir, "faq.txt"), "apricot questions and answers");
      writeFileSync(join(dir, "empty.xyz"), "not a supported type");
      const first = await writer.uploadFolder(cid, dir, { concurrency: 2, metadata: (path) => ({ top: path.split("/")[0] ?? "" }) });
      assert.deepEqual(
        first.map((r) => [r.path, UploadOutcome[r.outcome], r.error?.name]),
        [
          ["empty.xyz", "UNSPECIFIED", "UnsupportedMediaType"],
          ["faq.txt", "CREATED", undefined],
          ["guide/intro.txt", "CREATED", undefined],
        ],
      );
      assert.equal(first[2]?.document?.externalKey, "guide/intro.txt");
      const again = await writer.uploadFolder(cid, dir, { metadata: (path) => ({ top: path.split("/")[0] ?? "" }) });
      assert.deepEqual(again.slice(1).map((r) => UploadOutcome[r.outcome]), ["UNCHANGED", "UNCHANGED"]);

      const wait = await writer.waitUntilSearchable({ collectionId: cid }, { timeoutMs: 60_000 });
      assert.equal(wait.complete, true, JSON.stringify(wait.outcomes.map((o) => [o.documentId, o.outcome])));
      assert.deepEqual(wait.outcomes.map((o) => o.outcome), ["INDEXED", "INDEXED"]);

      const listed = [];
      for await (const d of writer.iterDocuments({ collectionId: cid, pageSize: 1, filter: filter.eq("top", "guide") })) listed.push(d.externalKey);
      assert.deepEqual(listed, ["guide/intro.txt"]);

      const gone = await writer.deleteDocuments({ collectionId: cid, externalKeys: ["faq.txt", "nope.txt"] });
      assert.equal(gone.deletedCount, 1);
      assert.deepEqual(gone.missingKeys, ["nope.txt"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("keys and metadata: upload outcomes, get and update by key, filtered search with metadata", async (t) => {
    const writer = client(KEYS["write"]);
    const cid = (await writer.createCollection({ name: `ts-keys-${runId}` })).collectionId;
    const text = new TextEncoder().encode("quince jam keeps for a year");
    const upload = (metadata: { customer: string; version: number }) =>
      writer.uploadDocumentWithOutcome({ collectionId: cid, fileName: "jam.txt", externalKey: "jam", metadata }, text);
    const created = await upload({ customer: "acme", version: 1 });
    assert.equal(created.outcome, UploadOutcome.CREATED);
    const same = await upload({ customer: "acme", version: 1 });
    assert.equal(same.outcome, UploadOutcome.UNCHANGED);
    assert.equal(same.document?.revision, created.document?.revision);
    assert.equal((await upload({ customer: "acme", version: 2 })).outcome, UploadOutcome.METADATA_UPDATED);

    const byKey = await writer.getDocument({ collectionId: cid, externalKey: "jam" });
    assert.equal(byKey.documentId, created.document?.documentId);
    assert.deepEqual(byKey.metadata, { customer: "acme", version: 2 });
    const patched = await writer.updateDocumentMetadata({ collectionId: cid, externalKey: "jam", patch: { version: null, tier: "gold" } });
    assert.deepEqual(patched.metadata, { customer: "acme", tier: "gold" });
    await assert.rejects(writer.getDocument({ collectionId: cid, externalKey: "nope" }), errors.DocumentNotFound);
    await assert.rejects(
      writer.uploadDocument({ collectionId: cid, fileName: "x.txt", externalKey: "" }, text),
      (err: unknown) => err instanceof errors.InvalidRequest && err.fieldViolations.some((v) => v.field === "metadata.external_key"),
    );

    await writer.waitUntilSearchable({ documentIds: [byKey.documentId] }, { timeoutMs: 60_000 });
    const hits = await writer.searchKnowledge({
      collectionIds: [cid],
      query: "quince jam",
      filter: filter.all(filter.eq("tier", "gold"), filter.not(filter.exists("version"))),
      includeMetadata: true,
    });
    assert.equal(hits.hits[0]?.externalKey, "jam");
    assert.deepEqual(hits.hits[0]?.metadata, { customer: "acme", tier: "gold" });
    const none = await writer.searchKnowledge({ collectionIds: [cid], query: "quince jam", filter: filter.eq("tier", "silver") });
    assert.equal(none.hits.length, 0);
  });

  test("iterators: agents by id over pages", async (t) => {
    const writer = client(KEYS["write"]);
    for (const n of [1, 2, 3]) await writer.upsertAgent({ agentId: `ts-it-${runId}-${n}` });
    const ids: string[] = [];
    for await (const a of writer.iterAgents({ pageSize: 2 })) if (a.agentId.startsWith(`ts-it-${runId}`)) ids.push(a.agentId);
    assert.deepEqual(ids, [1, 2, 3].map((n) => `ts-it-${runId}-${n}`));
  });
});

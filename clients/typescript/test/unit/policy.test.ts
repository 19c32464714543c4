import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";

import {
  AdminService,
  authInterceptor,
  backoffDelayMs,
  CollectionSchema,
  DEFAULT_RETRY,
  ErrorCode,
  ErrorDetailSchema,
  errors,
  isIdempotent,
  isRetryable,
  KnowledgeService,
  normaliseBaseUrl,
  PagesService,
  QuireClient,
  resolveTimeoutMs,
  RetrievalMode,
  retrievalMode,
  RPC_KINDS,
  Scope,
  scopeValues,
} from "../../src/index.js";

describe("call kinds", () => {
  test("RPC_KINDS covers exactly the RPCs of the generated services", () => {
    const names = [PagesService, KnowledgeService, AdminService].flatMap((s) => s.methods.map((m) => m.name));
    assert.deepEqual([...names].sort(), Object.keys(RPC_KINDS).sort());
    for (const service of [PagesService, KnowledgeService, AdminService]) {
      for (const m of service.methods) {
        if (m.methodKind !== "unary") assert.ok(!isIdempotent(m.name), `${m.name} streams: never retried`);
      }
    }
  });

  test("only idempotent reads are retried", () => {
    const retried = Object.keys(RPC_KINDS).filter(isIdempotent).sort();
    assert.deepEqual(retried, [
      "DescribeTools", "GetAgent", "GetCollection", "GetDocument", "GetGateStatus", "GetIndexStatus",
      "GetRetrievalPolicy", "GetShadowReport", "GetSyncReport", "GrepPages", "ListAgents", "ListApiKeys",
      "ListCollections", "ListDocuments", "ListModels", "ListNamespaces", "ListPages", "ReadDocument", "ReadPage", "RunCommand",
      "SearchKnowledge", "SearchPages", "WhoAmI",
    ]);
    assert.ok(!isIdempotent("CreateCollection"));
    assert.ok(!isIdempotent("UploadDocument"));
    assert.ok(!isIdempotent("UploadDocuments"));
    assert.ok(!isIdempotent("DeleteDocuments"));
    assert.ok(!isIdempotent("UpdateDocumentMetadata"));
    assert.ok(!isIdempotent("SyncPages"));
  });

  test("only UNAVAILABLE is retryable", () => {
    assert.ok(isRetryable({ grpcCode: Code.Unavailable }));
    for (const code of [Code.DeadlineExceeded, Code.Internal, Code.ResourceExhausted, Code.Canceled, Code.NotFound]) {
      assert.ok(!isRetryable({ grpcCode: code }), Code[code]);
    }
  });

  test("backoff: exponential ceiling with full jitter, at least retry_after", () => {
    assert.equal(backoffDelayMs(DEFAULT_RETRY, 1, undefined, () => 1), 200);
    assert.equal(backoffDelayMs(DEFAULT_RETRY, 2, undefined, () => 1), 400);
    assert.equal(backoffDelayMs(DEFAULT_RETRY, 10, undefined, () => 1), 2000);
    assert.equal(backoffDelayMs(DEFAULT_RETRY, 1, undefined, () => 0), 0);
    assert.equal(backoffDelayMs(DEFAULT_RETRY, 1, 1500, () => 0.5), 1500);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelayMs(DEFAULT_RETRY, 2);
      assert.ok(d >= 0 && d <= 400);
    }
  });

  test("default deadlines per kind", () => {
    const defaults = { read: 10_000, search: 15_000, write: 30_000, sync: 1_800_000, upload: 600_000 };
    for (const [kind, ms] of Object.entries(defaults)) {
      assert.equal(resolveTimeoutMs(undefined, kind as "read", defaults), ms);
    }
    assert.equal(resolveTimeoutMs(500, "read", defaults), 500);
    assert.equal(resolveTimeoutMs(Infinity, "read", defaults), undefined);
    assert.equal(resolveTimeoutMs(undefined, "watch", {}), undefined);
  });

  test("argument conversions", () => {
    assert.equal(normaliseBaseUrl("127.0.0.1:50051"), "http://127.0.0.1:50051");
    assert.equal(normaliseBaseUrl("https://quire.example.com/"), "https://quire.example.com");
    assert.equal(retrievalMode("hybrid"), RetrievalMode.HYBRID);
    assert.equal(retrievalMode("RETRIEVAL_MODE_LEGACY_FTS"), RetrievalMode.LEGACY_FTS);
    assert.equal(retrievalMode(undefined), RetrievalMode.UNSPECIFIED);
    assert.deepEqual(scopeValues(["read", "SCOPE_WRITE", Scope.ADMIN]), [Scope.READ, Scope.WRITE, Scope.ADMIN]);
    assert.throws(() => scopeValues(["nope"]), TypeError);
  });
});

const unavailable = (): ConnectError =>
  new ConnectError("database down", Code.Unavailable, undefined, [
    { desc: ErrorDetailSchema, value: { code: ErrorCode.UNAVAILABLE, message: "database down" } },
  ]);

describe("QuireClient retries (in-memory transport)", () => {
  test("an idempotent read is retried on UNAVAILABLE, at most 3 attempts", async () => {
    let calls = 0;
    const transport = createRouterTransport(({ service }) => {
      service(KnowledgeService, {
        listCollections() {
          calls += 1;
          if (calls < 3) throw unavailable();
          return { collections: [create(CollectionSchema, { name: "a" })] };
        },
      });
    });
    const client = new QuireClient({ transport, retry: { initialBackoffMs: 1, maxBackoffMs: 2 } });
    const collections = await client.listCollections();
    assert.equal(calls, 3);
    assert.deepEqual(collections.map((c) => c.name), ["a"]);

    calls = -10; // always failing now
    await assert.rejects(client.listCollections(), errors.Unavailable);
    assert.equal(calls, -7);
  });

  test("writes are never retried; other codes are not retried", async () => {
    let creates = 0;
    let gets = 0;
    const transport = createRouterTransport(({ service }) => {
      service(KnowledgeService, {
        createCollection() {
          creates += 1;
          throw unavailable();
        },
        getCollection() {
          gets += 1;
          throw new ConnectError("Collection not found", Code.NotFound, undefined, [
            { desc: ErrorDetailSchema, value: { code: ErrorCode.COLLECTION_NOT_FOUND } },
          ]);
        },
      });
    });
    const client = new QuireClient({ transport, retry: { initialBackoffMs: 1 } });
    await assert.rejects(client.createCollection({ name: "x" }), errors.Unavailable);
    assert.equal(creates, 1);
    await assert.rejects(client.getCollection({ collectionId: "x" }), (err: unknown) => {
      assert.ok(err instanceof errors.CollectionNotFound);
      assert.equal(err.message, "Collection not found");
      return true;
    });
    assert.equal(gets, 1);
  });

  test("the deadline covers all attempts", async () => {
    let calls = 0;
    const transport = createRouterTransport(({ service }) => {
      service(KnowledgeService, {
        listCollections() {
          calls += 1;
          throw unavailable();
        },
      });
    });
    const client = new QuireClient({ transport, retry: { initialBackoffMs: 10_000, maxBackoffMs: 10_000 } });
    const started = Date.now();
    await assert.rejects(
      client.listCollections({ timeoutMs: 50 }),
      errors.Unavailable,
    );
    assert.ok(Date.now() - started < 1_000);
    assert.ok(calls >= 1);
  });

  test("the bearer interceptor sets authorization", async () => {
    let seen: string | null = null;
    const transport = createRouterTransport(
      ({ service }) => {
        service(KnowledgeService, {
          listCollections(_req, ctx) {
            seen = ctx.requestHeader.get("authorization");
            return {};
          },
        });
      },
      { transport: { interceptors: [authInterceptor("qk_test")] } },
    );
    await new QuireClient({ transport }).listCollections();
    assert.equal(seen, "Bearer qk_test");
  });
});

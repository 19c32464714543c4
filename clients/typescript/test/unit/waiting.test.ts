import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport, type HandlerContext } from "@connectrpc/connect";

import {
  type Document,
  DocumentIndexState,
  DocumentSchema,
  DocumentStatus,
  ErrorCode,
  ErrorDetailSchema,
  errors,
  KnowledgeService,
  QuireClient,
} from "../../src/index.js";

type DocInit = MessageInitShape<typeof DocumentSchema>;

const doc = (documentId: string, init: DocInit = {}): Document =>
  create(DocumentSchema, { documentId, collectionId: "c1", status: DocumentStatus.READY, ...init });
const pending = (id: string): Document => doc(id, { status: DocumentStatus.PROCESSING, indexState: DocumentIndexState.PENDING });
const indexed = (id: string): Document => doc(id, { indexState: DocumentIndexState.INDEXED });

function quireError(code: Code, errorCode: ErrorCode, message: string): ConnectError {
  return new ConnectError(message, code, undefined, [{ desc: ErrorDetailSchema, value: { code: errorCode, message } }]);
}

const waitForAbort = (ctx: HandlerContext): Promise<void> =>
  new Promise((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener("abort", () => resolve(), { once: true });
  });

interface Fake {
  known: Map<string, Document>;
  /** Each watch call's script: the documents to send, then "drop" (UNAVAILABLE), "end" or "hang". */
  watches: { send: Document[]; then: "drop" | "end" | "hang" | "deny" }[];
  watched: string[][];
  listed: string[];
}

function fakeServer(fake: Fake) {
  return createRouterTransport(({ service }) => {
    service(KnowledgeService, {
      getDocument(req) {
        const found = fake.known.get(req.documentId);
        if (!found) throw quireError(Code.NotFound, ErrorCode.DOCUMENT_NOT_FOUND, "no such document");
        return { document: found };
      },
      listDocuments(req) {
        fake.listed.push(req.cursor);
        if (req.collectionId !== "c1") throw quireError(Code.NotFound, ErrorCode.COLLECTION_NOT_FOUND, "no such collection");
        const all = [...fake.known.values()];
        // Two pages, to show the listing follows the cursor.
        if (req.cursor === "") return { documents: all.slice(0, 1), nextCursor: all.length > 1 ? "p2" : "" };
        return { documents: all.slice(1), nextCursor: "" };
      },
      async *watchDocuments(req, ctx) {
        fake.watched.push([...req.documentIds]);
        const script = fake.watches.shift() ?? { send: [], then: "hang" as const };
        for (const d of script.send) yield { document: d };
        if (script.then === "drop") throw new ConnectError("connection dropped", Code.Unavailable);
        if (script.then === "deny") throw quireError(Code.PermissionDenied, ErrorCode.PERMISSION_DENIED, "key revoked");
        if (script.then === "hang") await waitForAbort(ctx);
      },
    });
  });
}

const newFake = (docs: Document[], watches: Fake["watches"] = []): Fake => ({
  known: new Map(docs.map((d) => [d.documentId, d])),
  watches,
  watched: [],
  listed: [],
});

describe("waitUntilSearchable", () => {
  test("outcomes in the order of the ids; settled ones are not watched", async () => {
    const fake = newFake(
      [indexed("d1"), pending("d2"), pending("d4"), pending("d5")],
      [
        {
          send: [
            pending("d2"),
            doc("d4", { status: DocumentStatus.FAILED, extractError: "encrypted PDF", indexState: DocumentIndexState.FAILED }),
            indexed("d2"),
            doc("d5", { indexState: DocumentIndexState.NO_TEXT }),
          ],
          then: "hang",
        },
      ],
    );
    const client = new QuireClient({ transport: fakeServer(fake) });
    const result = await client.waitUntilSearchable({ documentIds: ["d5", "d1", "missing", "d2", "d4"] }, { timeoutMs: 5000 });
    assert.deepEqual(
      result.outcomes.map((o) => [o.documentId, o.outcome, o.reason]),
      [
        ["d5", "NO_TEXT", ""],
        ["d1", "INDEXED", ""],
        ["missing", "DELETED", ""],
        ["d2", "INDEXED", ""],
        ["d4", "FAILED", "encrypted PDF"],
      ],
    );
    assert.equal(result.complete, true);
    assert.equal(fake.watched.length, 1);
    assert.deepEqual([...(fake.watched[0] ?? [])].sort(), ["d2", "d4", "d5"]);
  });

  test("a dropped watch is opened again for the documents still waiting", async () => {
    const fake = newFake(
      [pending("a"), pending("b")],
      [
        { send: [indexed("a")], then: "drop" },
        { send: [], then: "end" },
        { send: [doc("b", { status: DocumentStatus.DELETED })], then: "hang" },
      ],
    );
    const client = new QuireClient({ transport: fakeServer(fake) });
    const result = await client.waitUntilSearchable({ documentIds: ["a", "b"] }, { timeoutMs: 10_000 });
    assert.deepEqual(result.outcomes.map((o) => o.outcome), ["INDEXED", "DELETED"]);
    assert.deepEqual(fake.watched, [["a", "b"], ["b"], ["b"]]);
  });

  test("the timeout does not throw: what still waits is TIMED_OUT", async () => {
    const fake = newFake([pending("a"), indexed("b")], [{ send: [pending("a")], then: "hang" }]);
    const client = new QuireClient({ transport: fakeServer(fake) });
    const started = performance.now();
    const result = await client.waitUntilSearchable({ documentIds: ["a", "b"] }, { timeoutMs: 300 });
    const elapsed = performance.now() - started;
    assert.deepEqual(result.outcomes.map((o) => o.outcome), ["TIMED_OUT", "INDEXED"]);
    assert.equal(result.complete, false);
    assert.ok(elapsed >= 250 && elapsed < 3000, `took ${elapsed} ms`);
  });

  test("a tiny timeout still reports what the first look found settled", async () => {
    const fake = newFake([indexed("done"), pending("busy")]);
    const client = new QuireClient({ transport: fakeServer(fake) });
    const result = await client.waitUntilSearchable({ documentIds: ["done", "busy", "gone"] }, { timeoutMs: 1 });
    assert.deepEqual(result.outcomes.map((o) => o.outcome), ["INDEXED", "TIMED_OUT", "DELETED"]);
    assert.equal(result.complete, false);
  });

  test("a collection's live documents, by ascending id; an empty target is complete", async () => {
    const fake = newFake([pending("z"), indexed("m"), pending("a")], [{ send: [indexed("z"), indexed("a")], then: "hang" }]);
    const client = new QuireClient({ transport: fakeServer(fake) });
    const result = await client.waitUntilSearchable({ collectionId: "c1" }, { timeoutMs: 5000 });
    assert.deepEqual(result.outcomes.map((o) => [o.documentId, o.outcome]), [["a", "INDEXED"], ["m", "INDEXED"], ["z", "INDEXED"]]);
    assert.deepEqual(fake.listed, ["", "p2"]);
    assert.deepEqual(await client.waitUntilSearchable({ documentIds: [] }), { outcomes: [], complete: true });
  });

  test("Documents already held are not looked up", async () => {
    const fake = newFake([], [{ send: [indexed("x")], then: "hang" }]);
    const client = new QuireClient({ transport: fakeServer(fake) });
    const result = await client.waitUntilSearchable({ documents: [pending("x")] }, { timeoutMs: 5000 });
    assert.deepEqual(result.outcomes.map((o) => o.outcome), ["INDEXED"]);
    assert.equal(result.outcomes[0]?.document?.indexState, DocumentIndexState.INDEXED);
  });

  test("bad input and auth throw their typed errors", async () => {
    const client = new QuireClient({ transport: fakeServer(newFake([])) });
    await assert.rejects(client.waitUntilSearchable({ collectionId: "nope" }, { timeoutMs: 5000 }), errors.CollectionNotFound);
    const denied = createRouterTransport(({ service }) => {
      service(KnowledgeService, {
        getDocument() {
          throw quireError(Code.PermissionDenied, ErrorCode.PERMISSION_DENIED, "key lacks scope read");
        },
      });
    });
    await assert.rejects(
      new QuireClient({ transport: denied }).waitUntilSearchable({ documentIds: ["a"] }, { timeoutMs: 5000 }),
      errors.PermissionDenied,
    );
  });

  test("a watch failing for good stops the others and throws at once", async () => {
    const other = doc("o", { collectionId: "c2", status: DocumentStatus.PENDING });
    const fake = newFake([], [{ send: [], then: "hang" }, { send: [], then: "deny" }]);
    const client = new QuireClient({ transport: fakeServer(fake) });
    const started = performance.now();
    await assert.rejects(
      client.waitUntilSearchable({ documents: [pending("a"), other] }, { timeoutMs: 10_000 }),
      errors.PermissionDenied,
    );
    assert.ok(performance.now() - started < 2000);
    assert.equal(fake.watched.length, 2);
  });

  test("the caller's abort rejects with its reason", async () => {
    const fake = newFake([pending("a")], [{ send: [], then: "hang" }]);
    const client = new QuireClient({ transport: fakeServer(fake) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop waiting")), 100);
    await assert.rejects(
      client.waitUntilSearchable({ documentIds: ["a"] }, { timeoutMs: 10_000, signal: controller.signal }),
      /stop waiting/,
    );
  });
});

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";

import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";

import {
  CHUNK_SIZE,
  DocumentSchema,
  ErrorCode,
  ErrorDetailSchema,
  errors,
  isSyncReport,
  KnowledgeService,
  PagesService,
  QuireClient,
  rechunk,
  SyncStatus,
  uploadChunks,
} from "../../src/index.js";
import { create } from "@bufbuild/protobuf";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const sizes = (chunks: Uint8Array[]): number[] => chunks.map((c) => c.length);

describe("upload chunking", () => {
  test("bytes are cut into 1 MiB chunks", async () => {
    const data = new Uint8Array(2 * CHUNK_SIZE + 5).map((_, i) => i % 251);
    const chunks = await collect(uploadChunks(data));
    assert.deepEqual(sizes(chunks), [CHUNK_SIZE, CHUNK_SIZE, 5]);
    assert.deepEqual(Buffer.concat(chunks), Buffer.from(data));
    assert.deepEqual(await collect(uploadChunks(new Uint8Array(0))), []);
  });

  test("pieces of any size are re-cut", async () => {
    const pieces = [new Uint8Array(3), new Uint8Array(10), new Uint8Array(1), new Uint8Array(7)];
    assert.deepEqual(sizes(await collect(rechunk(pieces, 4))), [4, 4, 4, 4, 4, 1]);
    async function* gen(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(CHUNK_SIZE - 1);
      yield new Uint8Array(CHUNK_SIZE + 2);
    }
    assert.deepEqual(sizes(await collect(uploadChunks(gen()))), [CHUNK_SIZE, CHUNK_SIZE, 1]);
  });

  test("a string is a file path, streamed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "quire-ts-"));
    try {
      const path = join(dir, "f.bin");
      writeFileSync(path, Buffer.alloc(CHUNK_SIZE + 10, 7));
      assert.deepEqual(sizes(await collect(uploadChunks(path))), [CHUNK_SIZE, 10]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("uploadDocument sends metadata first, then ≤ 1 MiB data messages", async () => {
    const seen: string[] = [];
    const transport = createRouterTransport(({ service }) => {
      service(KnowledgeService, {
        async uploadDocument(requests) {
          let name = "";
          for await (const req of requests) {
            if (req.message.case === "metadata") {
              name = req.message.value.fileName;
              seen.push(`metadata:${req.message.value.collectionId}:${name}:${req.message.value.mimeType}`);
            } else if (req.message.case === "data") {
              seen.push(`data:${req.message.value.length}`);
            }
          }
          return { document: create(DocumentSchema, { documentId: "d1", fileName: name }) };
        },
      });
    });
    const client = new QuireClient({ transport });
    const doc = await client.uploadDocument(
      { collectionId: "c1", fileName: "notes", mimeType: "text/plain" },
      new Uint8Array(CHUNK_SIZE * 2 + 1),
    );
    assert.equal(doc.documentId, "d1");
    assert.deepEqual(seen, ["metadata:c1:notes:text/plain", `data:${CHUNK_SIZE}`, `data:${CHUNK_SIZE}`, "data:1"]);
  });
});

test("a failure reading the source is rethrown unchanged", async () => {
  const transport = createRouterTransport(({ service }) => {
    service(KnowledgeService, {
      async uploadDocument(requests) {
        for await (const _ of requests) {
          // drain
        }
        return {};
      },
    });
  });
  const client = new QuireClient({ transport });
  await assert.rejects(
    client.uploadDocument({ collectionId: "c", fileName: "x.txt" }, "/nonexistent/quire/file.txt"),
    (err: unknown) => (err as NodeJS.ErrnoException).code === "ENOENT",
  );
});

describe("syncPages (bidirectional)", () => {
  function fakeSync(onDecision: (accept: boolean) => void) {
    return createRouterTransport(({ service }) => {
      service(PagesService, {
        async *syncPages(requests) {
          const it = requests[Symbol.asyncIterator]();
          const first = await it.next();
          assert.equal(first.value?.message.case, "start");
          const start = first.value.message.value;
          yield { message: { case: "progress", value: { stage: 2, discovered: 4 } } };
          if (start.validateDiscovery) {
            yield { message: { case: "discoveryCheck", value: { discovered: 4, published: 0 } } };
            const decision = await it.next();
            assert.equal(decision.value?.message.case, "decision");
            const accept = decision.value.message.value.accept;
            onDecision(accept);
            if (!accept) {
              throw new ConnectError("aborted at the discovery check", Code.Aborted, undefined, [
                { desc: ErrorDetailSchema, value: { code: ErrorCode.DISCOVERY_REJECTED } },
              ]);
            }
          }
          yield { message: { case: "report", value: { namespace: start.namespace, status: SyncStatus.COMPLETED, updated: 4 } } };
        },
      });
    });
  }

  test("sends the decision and ends with the report", async () => {
    const decisions: boolean[] = [];
    const client = new QuireClient({ transport: fakeSync((a) => decisions.push(a)) });
    const checks: number[] = [];
    const items = await collect(
      client.syncPages(
        { namespace: "docs", url: "https://docs.example.com/llms.txt" },
        {
          validateDiscovery: async (check) => {
            checks.push(check.discovered);
            return check.discovered < 10;
          },
        },
      ),
    );
    assert.deepEqual(checks, [4]);
    assert.deepEqual(decisions, [true]);
    const last = items[items.length - 1];
    assert.ok(last && isSyncReport(last));
    assert.equal(last.status, SyncStatus.COMPLETED);
    assert.equal(items.filter(isSyncReport).length, 1);
  });

  test("a false decision fails with DiscoveryRejected", async () => {
    const decisions: boolean[] = [];
    const client = new QuireClient({ transport: fakeSync((a) => decisions.push(a)) });
    await assert.rejects(
      collect(client.syncPages({ namespace: "docs", url: "u" }, { validateDiscovery: () => false })),
      errors.DiscoveryRejected,
    );
    assert.deepEqual(decisions, [false]);
  });

  test("a throwing validator aborts and its error propagates", async () => {
    const decisions: boolean[] = [];
    const client = new QuireClient({ transport: fakeSync((a) => decisions.push(a)) });
    const boom = new Error("validator failed");
    await assert.rejects(
      collect(
        client.syncPages(
          { namespace: "docs", url: "u" },
          {
            validateDiscovery: () => {
              throw boom;
            },
          },
        ),
      ),
      (err: unknown) => err === boom,
    );
  });
});

describe("server streams", () => {
  test("leaving the loop early cancels the call (and leaks no deadline timer)", async () => {
    let cancelled = false;
    const transport = createRouterTransport(({ service }) => {
      service(KnowledgeService, {
        async *watchDocuments(req, ctx) {
          ctx.signal.addEventListener("abort", () => {
            cancelled = true;
          });
          for (let i = 0; !ctx.signal.aborted; i++) {
            yield { document: create(DocumentSchema, { documentId: `d${i}`, collectionId: req.collectionId }) };
            await new Promise((r) => setTimeout(r, 5));
          }
        },
      });
    });
    const client = new QuireClient({ transport });
    const seen: string[] = [];
    for await (const doc of client.watchDocuments({ collectionId: "c" }, { timeoutMs: 600_000 })) {
      seen.push(doc.documentId);
      if (seen.length === 2) break;
    }
    assert.deepEqual(seen, ["d0", "d1"]);
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(cancelled);
  });
});

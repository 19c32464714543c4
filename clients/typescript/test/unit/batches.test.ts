import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";

import {
  CHUNK_SIZE,
  DocumentSchema,
  ErrorCode,
  ErrorDetailSchema,
  errors,
  KnowledgeService,
  MAX_BATCH_DOCUMENTS,
  QuireClient,
  splitBatches,
  type UploadItem,
  UploadOutcome,
  type UploadResult,
} from "../../src/index.js";
import { smallBatchSize, walkFolder } from "../../src/folder.js";

const lengths = <T>(batches: T[][]): number[] => batches.map((b) => b.length);

describe("splitBatches", () => {
  test("1,000 documents are one call, 1,001 are two", () => {
    const one = (): number => 1;
    assert.deepEqual(lengths(splitBatches(new Array(MAX_BATCH_DOCUMENTS).fill(0), one)), [1000]);
    assert.deepEqual(lengths(splitBatches(new Array(MAX_BATCH_DOCUMENTS + 1).fill(0), one)), [1000, 1]);
    assert.deepEqual(lengths(splitBatches(new Array(2500).fill(0), one)), [1000, 1000, 500]);
    // A smaller document bound is honoured; a larger one is capped at the server's 1,000.
    assert.deepEqual(lengths(splitBatches(new Array(5).fill(0), one, { maxDocuments: 2 })), [2, 2, 1]);
    assert.deepEqual(lengths(splitBatches(new Array(1001).fill(0), one, { maxDocuments: 5000 })), [1000, 1]);
  });

  test("bytes at the bound fit one call, one byte more starts the next", () => {
    const sizes = [40, 60, 1];
    assert.deepEqual(splitBatches(sizes, (n) => n, { maxBytes: 100 }), [[40, 60], [1]]);
    assert.deepEqual(splitBatches([40, 61], (n) => n, { maxBytes: 100 }), [[40], [61]]);
  });

  test("an item over the byte bound gets a call of its own; order is kept", () => {
    assert.deepEqual(splitBatches([5, 500, 5, 5], (n) => n, { maxBytes: 10 }), [[5], [500], [5, 5]]);
    assert.deepEqual(splitBatches([], (n: number) => n), []);
  });

  test("bad bounds are refused", () => {
    assert.throws(() => splitBatches([1], (n) => n, { maxDocuments: 0 }), RangeError);
    assert.throws(() => splitBatches([1], (n) => n, { maxBytes: 0 }), RangeError);
  });

  test("small-file batches keep every worker busy", () => {
    assert.equal(smallBatchSize(100, 4), 25);
    assert.equal(smallBatchSize(3, 8), 1);
    assert.equal(smallBatchSize(10_000, 2), 1000);
    assert.equal(smallBatchSize(0, 4), 1);
  });
});

/** A fake UploadDocuments: records each call's documents; refuses a file named "bad.xyz". */
function fakeBatchServer(calls: { fileName: string; key: string | undefined; bytes: number; meta: unknown }[][]) {
  return createRouterTransport(({ service }) => {
    service(KnowledgeService, {
      async uploadDocuments(requests) {
        const docs: { fileName: string; key: string | undefined; bytes: number; meta: unknown }[] = [];
        for await (const req of requests) {
          if (req.message.case === "metadata") {
            const m = req.message.value;
            docs.push({ fileName: m.fileName, key: m.externalKey, bytes: 0, meta: m.metadata });
          } else if (req.message.case === "data") {
            assert.ok(req.message.value.length <= CHUNK_SIZE);
            (docs[docs.length - 1] as { bytes: number }).bytes += req.message.value.length;
          }
        }
        calls.push(docs);
        const results = docs.map((d, index) =>
          d.fileName === "bad.xyz"
            ? { index, error: { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message: "unsupported type .xyz" } }
            : {
                index,
                outcome: UploadOutcome.CREATED,
                document: create(DocumentSchema, { documentId: `id-${d.fileName}`, fileName: d.fileName, externalKey: d.key ?? "" }),
              },
        );
        return { results };
      },
      async uploadDocument(requests) {
        let name = "";
        let bytes = 0;
        for await (const req of requests) {
          if (req.message.case === "metadata") name = req.message.value.fileName;
          else if (req.message.case === "data") bytes += req.message.value.length;
        }
        calls.push([{ fileName: name, key: "(single)", bytes, meta: undefined }]);
        return { outcome: UploadOutcome.REPLACED, document: create(DocumentSchema, { documentId: `id-${name}` }) };
      },
    });
  });
}

describe("uploadDocuments", () => {
  test("splits at 1,000 documents and renumbers results to input positions", async () => {
    const calls: Parameters<typeof fakeBatchServer>[0] = [];
    const client = new QuireClient({ transport: fakeBatchServer(calls) });
    const items: UploadItem[] = Array.from({ length: 1001 }, (_, i) => ({
      fileName: i === 1000 ? "bad.xyz" : `f${i}.txt`,
      data: new TextEncoder().encode(`text ${i}`),
      externalKey: `k${i}`,
      ...(i === 0 ? { metadata: { team: "a", n: 1 } } : {}),
    }));
    const results = await client.uploadDocuments("c1", items);
    assert.deepEqual(lengths(calls), [1000, 1]);
    assert.deepEqual(calls[0]?.[0], { fileName: "f0.txt", key: "k0", bytes: 6, meta: { team: "a", n: 1 } });
    assert.equal(calls[0]?.[1]?.meta, undefined); // metadata left out stays unset
    assert.deepEqual(results.map((r: UploadResult) => r.index), items.map((_, i) => i));
    assert.equal(results[999]?.document?.externalKey, "k999");
    const last = results[1000];
    assert.equal(last?.outcome, UploadOutcome.UNSPECIFIED);
    assert.equal(last?.error?.code, ErrorCode.UNSUPPORTED_MEDIA_TYPE);
  });

  test("an empty external key is sent as set (the server refuses it), not dropped", async () => {
    const calls: Parameters<typeof fakeBatchServer>[0] = [];
    const client = new QuireClient({ transport: fakeBatchServer(calls) });
    await client.uploadDocuments("c1", [{ fileName: "a.txt", data: new Uint8Array(1), externalKey: "" }]);
    assert.equal(calls[0]?.[0]?.key, "");
  });

  test("splits at the byte bound; data goes in 1 MiB messages", async () => {
    const calls: Parameters<typeof fakeBatchServer>[0] = [];
    const client = new QuireClient({ transport: fakeBatchServer(calls) });
    const big = { fileName: "big.txt", data: new Uint8Array(CHUNK_SIZE * 2 + 3) };
    const small = { fileName: "s.txt", data: new Uint8Array(10) };
    await client.uploadDocuments("c1", [small, big, small], { maxBytes: CHUNK_SIZE * 2 + 13 });
    assert.deepEqual(
      calls.map((c) => c.map((d) => d.bytes)),
      [[10, CHUNK_SIZE * 2 + 3], [10]],
    );
  });

  test("a failed call throws its typed error", async () => {
    const transport = createRouterTransport(({ service }) => {
      service(KnowledgeService, {
        async uploadDocuments(requests) {
          for await (const _ of requests) {
            // drain
          }
          throw new ConnectError("over the upload limit", Code.ResourceExhausted, undefined, [
            { desc: ErrorDetailSchema, value: { code: ErrorCode.PAYLOAD_TOO_LARGE, message: "over the upload limit" } },
          ]);
        },
      });
    });
    const client = new QuireClient({ transport });
    await assert.rejects(client.uploadDocuments("c1", [{ fileName: "a.txt", data: new Uint8Array(1) }]), errors.PayloadTooLarge);
  });
});

describe("uploadFolder", () => {
  test("keys by relative path, skips hidden files, streams large files, reports every file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "quire-folder-"));
    try {
      mkdirSync(join(dir, "guide"));
      mkdirSync(join(dir, ".git"));
      writeFileSync(join(dir, "a.txt"), "alpha");
      writeFileSync(join(dir, "guide", "b.md"), "# beta");
      writeFileSync(join(dir, "guide", "bad.xyz"), "???");
      writeFileSync(join(dir, ".DS_Store"), "x");
      writeFileSync(join(dir, ".git", "HEAD"), "ref");
      writeFileSync(join(dir, "large.txt"), Buffer.alloc(CHUNK_SIZE + 1, 97));
      writeFileSync(join(dir, "edge.txt"), Buffer.alloc(CHUNK_SIZE, 97)); // exactly 1 MiB: batched

      const files = await walkFolder(dir);
      assert.deepEqual(
        files.map((f) => f.relativePath),
        ["a.txt", "edge.txt", "guide/b.md", "guide/bad.xyz", "large.txt"],
      );

      const calls: Parameters<typeof fakeBatchServer>[0] = [];
      const client = new QuireClient({ transport: fakeBatchServer(calls) });
      const results = await client.uploadFolder("c1", dir, {
        concurrency: 2,
        metadata: (path) => ({ folder: path.includes("/") ? path.split("/")[0] ?? "" : "." }),
      });
      assert.deepEqual(
        results.map((r) => [r.path, r.externalKey, UploadOutcome[r.outcome], r.error?.name]),
        [
          ["a.txt", "a.txt", "CREATED", undefined],
          ["edge.txt", "edge.txt", "CREATED", undefined],
          ["guide/b.md", "guide/b.md", "CREATED", undefined],
          ["guide/bad.xyz", "guide/bad.xyz", "UNSPECIFIED", "UnsupportedMediaType"],
          ["large.txt", "large.txt", "REPLACED", undefined],
        ],
      );
      assert.ok(results[3]?.error instanceof errors.UnsupportedMediaType);
      // 4 small files over 2 workers: two batch calls of 2; the large file alone.
      const batched = calls.filter((c) => c[0]?.key !== "(single)");
      assert.deepEqual(lengths(batched), [2, 2]);
      assert.deepEqual(calls.find((c) => c[0]?.key === "(single)")?.[0]?.bytes, CHUNK_SIZE + 1);
      const b = batched.flat().find((d) => d.fileName === "b.md");
      assert.deepEqual(b?.meta, { folder: "guide" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a batch call that fails marks its files and the others still upload", async () => {
    const dir = mkdtempSync(join(tmpdir(), "quire-folder-"));
    try {
      for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(dir, name), name);
      let call = 0;
      const transport = createRouterTransport(({ service }) => {
        service(KnowledgeService, {
          async uploadDocuments(requests) {
            const names: string[] = [];
            for await (const req of requests) if (req.message.case === "metadata") names.push(req.message.value.fileName);
            call += 1;
            if (names.includes("b.txt")) throw new ConnectError("down", Code.Unavailable);
            return { results: names.map((_, index) => ({ index, outcome: UploadOutcome.UNCHANGED })) };
          },
        });
      });
      const client = new QuireClient({ transport });
      const results = await client.uploadFolder("c1", dir, { concurrency: 3, key: () => undefined });
      assert.equal(call, 3);
      assert.deepEqual(
        results.map((r) => [r.path, r.externalKey, UploadOutcome[r.outcome], r.error?.name]),
        [
          ["a.txt", undefined, "UNCHANGED", undefined],
          ["b.txt", undefined, "UNSPECIFIED", "Unavailable"],
          ["c.txt", undefined, "UNCHANGED", undefined],
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

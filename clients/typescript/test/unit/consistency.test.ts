import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { createRouterTransport, type HandlerContext } from "@connectrpc/connect";

import {
  AgentSchema,
  CONSISTENCY_TOKEN_HEADER,
  ConsistencyTokens,
  DocumentSchema,
  KnowledgeService,
  QuireClient,
  tokenPosition,
} from "../../src/index.js";

describe("consistency tokens", () => {
  test("the highest token wins, compared as a WAL position", () => {
    const tokens = new ConsistencyTokens();
    assert.equal(tokens.current, undefined);
    tokens.advance("0/16B3748");
    tokens.advance("0/16B0000"); // older: ignored
    assert.equal(tokens.current, "0/16B3748");
    tokens.advance("1/0"); // past 0/FFFFFFFF
    assert.equal(tokens.current, "1/0");
    assert.equal(tokenPosition("FFFFFFFF/FFFFFFFF"), 2n ** 64n - 1n);
  });

  test("a malformed token is refused when handed over, ignored in a response", () => {
    for (const bad of ["", "16B3748", "0/", "x/1", "0/123456789"]) {
      assert.throws(() => new ConsistencyTokens().advance(bad), /not a Quire consistency token/);
    }
    const tokens = new ConsistencyTokens();
    tokens.observe(new Headers({ [CONSISTENCY_TOKEN_HEADER]: "garbage" }));
    assert.equal(tokens.current, undefined);
  });
});

/** A server that answers writes with `token` in the trailers and records what reads sent. */
function server(token: string) {
  const sent: (string | null)[] = [];
  let version = 0n;
  const transport = createRouterTransport(({ service }) => {
    service(KnowledgeService, {
      upsertAgent(req, ctx: HandlerContext) {
        version += 1n;
        ctx.responseTrailer.set(CONSISTENCY_TOKEN_HEADER, token);
        return { agent: create(AgentSchema, { agentId: req.agentId, configVersion: version }) };
      },
      getAgent(req, ctx: HandlerContext) {
        sent.push(ctx.requestHeader.get(CONSISTENCY_TOKEN_HEADER));
        return { agent: create(AgentSchema, { agentId: req.agentId, configVersion: version }) };
      },
      async uploadDocument(requests, ctx: HandlerContext) {
        for await (const _ of requests) {
          // drained
        }
        ctx.responseTrailer.set(CONSISTENCY_TOKEN_HEADER, "0/FFF");
        return {};
      },
      async *watchDocuments(req) {
        // A server without replicas sends no token; one with replicas, the state's position.
        yield { document: create(DocumentSchema, { documentId: "d1", collectionId: req.collectionId }) };
        yield {
          document: create(DocumentSchema, { documentId: "d1", collectionId: req.collectionId }),
          consistencyToken: "0/ABC0",
        };
      },
    });
  });
  return { transport, sent };
}

describe("session consistency", () => {
  test("a write's token is sent with the next read, by default", async () => {
    const { transport, sent } = server("0/3000060");
    const client = new QuireClient({ transport });
    await client.getAgent({ agentId: "bot" });
    await client.upsertAgent({ agentId: "bot" });
    assert.equal(client.consistency.current, "0/3000060");
    await client.getAgent({ agentId: "bot" });
    assert.deepEqual(sent, [null, "0/3000060"]);
  });

  test("an upload (a client stream) hands its token over when it ends", async () => {
    const { transport } = server("0/1");
    const client = new QuireClient({ transport });
    await client.uploadDocument({ collectionId: "c", fileName: "a.txt" }, new TextEncoder().encode("hi"));
    assert.equal(client.consistency.current, "0/FFF");
  });

  test("a watch message's token is kept and sent with the next read", async () => {
    const { transport, sent } = server("0/1");
    const client = new QuireClient({ transport });
    const seen: string[] = [];
    for await (const doc of client.watchDocuments({ collectionId: "c" })) {
      seen.push(doc.documentId);
      if (seen.length === 1) assert.equal(client.consistency.current, undefined);
    }
    assert.deepEqual(seen, ["d1", "d1"]);
    assert.equal(client.consistency.current, "0/ABC0");
    await client.getAgent({ agentId: "bot" });
    assert.deepEqual(sent, ["0/ABC0"]);
  });

  test("a token from another process is taken over and sent", async () => {
    const { transport, sent } = server("0/1");
    const client = new QuireClient({ transport });
    client.consistency.advance("5/0");
    await client.upsertAgent({ agentId: "bot" }); // 0/1 is older: kept 5/0
    await client.getAgent({ agentId: "bot" });
    assert.deepEqual(sent, ["5/0"]);
  });

  test("sessionConsistency: false sends and keeps nothing", async () => {
    const { transport, sent } = server("0/9");
    const client = new QuireClient({ transport, sessionConsistency: false });
    await client.upsertAgent({ agentId: "bot" });
    await client.getAgent({ agentId: "bot" });
    assert.equal(client.consistency.current, undefined);
    assert.deepEqual(sent, [null]);
  });
});

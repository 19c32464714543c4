// A user's program against the packed @quire/client, installed from its tarball into a scratch
// project (tests/packaging/test_typescript_package.py). Prints `label<TAB>json` lines that
// tool_results.py prints too, for the same calls and messages; the test compares them.
//
//   QUIRE_ADDRESS=host:port QUIRE_API_KEY=qk_... QUIRE_DOCUMENT_ID=... node tool_results.mjs < messages.jsonl
//
// stdin: one {"type": "quire.v1.X", "binary": "<base64>"} per line, messages built in Python.
import { readFileSync } from "node:fs";

import { fromBinary } from "@bufbuild/protobuf"; // resolves from the user's project
import { CONTRACT_REGISTRY, QuireClient, toToolError, toToolResult, toToolResultObject } from "@quire/client";

const MISSING_DOCUMENT = "00000000-0000-4000-8000-000000000000";

const client = new QuireClient({ address: process.env.QUIRE_ADDRESS, apiKey: process.env.QUIRE_API_KEY });
try {
  const document = await client.getDocument({ documentId: process.env.QUIRE_DOCUMENT_ID });
  // The documented tool pattern: plain JSON.stringify of the converted result.
  console.log(`stringify\t${JSON.stringify(toToolResultObject(document))}`);
  console.log(`get_document\t${toToolResult(document)}`);
  console.log(`list_collections\t${toToolResult(await client.listCollections())}`);
  try {
    await client.getDocument({ documentId: MISSING_DOCUMENT });
    console.log("missing_document\tfound");
  } catch (err) {
    console.log(`missing_document\t${toToolError(err)}`);
  }
} finally {
  client.close();
}

const lines = readFileSync(0, "utf8").split("\n").filter((line) => line.trim() !== "");
lines.forEach((line, index) => {
  const { type, binary } = JSON.parse(line);
  const message = fromBinary(CONTRACT_REGISTRY.getMessage(type), Buffer.from(binary, "base64"));
  console.log(`message_${index}\t${toToolResult(message)}`);
});

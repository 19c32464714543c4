/**
 * First call with the TypeScript client: list collections, then search a namespace.
 *
 *     cd clients/typescript && npm ci && npm run build
 *     cd ../../examples/typescript && npm ci && npm run build
 *     QUIRE_API_KEY=qk_... node dist/first_call.js [http://127.0.0.1:50051] [namespace] [query]
 */
import { errors, QuireClient, toToolError, toToolResult } from "@quire/client";

const [baseUrl = "http://127.0.0.1:50051", namespace = "docs", query = "getting started"] = process.argv.slice(2);

// The API key comes from $QUIRE_API_KEY (or pass `apiKey`).
const client = new QuireClient({ baseUrl });
try {
  const collections = await client.listCollections();
  console.log(`${collections.length} collection(s)`);
  for (const c of collections) console.log(`  ${c.collectionId}  ${c.name}  (${c.documentCount} documents)`);
  // What an agent tool would return for them: JSON text with the 64-bit fields (`revision`,
  // `serving_generation`) as strings. JSON.stringify(collections) would throw on those bigints.
  console.log(toToolResult(collections));

  try {
    const result = await client.searchPages({ namespace, query, limit: 5 });
    for (const hit of result.hits) console.log(`${hit.rank}. ${hit.title} — ${hit.url} (rev ${hit.revision})`);
    if (result.truncated) console.log(`(${result.omittedCount} more hits did not fit the output budget)`);
  } catch (err) {
    if (err instanceof errors.NotFound || err instanceof errors.Unimplemented) {
      console.log(`search skipped: ${(err as Error).message}`);
    } else {
      throw err;
    }
  }
} catch (err) {
  // What an agent tool would return instead of throwing:
  console.error(toToolError(err));
  process.exitCode = 1;
} finally {
  client.close();
}

// Bundles the console's TypeScript into the Python package (server/quire/server/console/
// assets/console.js), where the server serves it with no Node at run time; index.html and
// console.css live there as they are, with nothing to build. `--check` builds into memory and
// fails if the committed bundle differs, so a stale bundle cannot be committed unnoticed.
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "server", "quire", "server", "console", "assets");
const check = process.argv.includes("--check");

const bundle = await build({
  entryPoints: [join(here, "src", "main.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "none",
  write: false,
});
const files = { "console.js": bundle.outputFiles[0].text };

let stale = [];
for (const [name, text] of Object.entries(files)) {
  const path = join(out, name);
  if (check) {
    let committed = null;
    try { committed = readFileSync(path, "utf8"); } catch { /* missing counts as stale */ }
    if (committed !== text) stale.push(name);
  } else {
    writeFileSync(path, text);
  }
}
if (stale.length) {
  console.error(`the committed console bundle is stale (${stale.join(", ")}): run \`make console\``);
  process.exit(1);
}
console.log(check ? "console bundle is current" : `console built into ${out}`);

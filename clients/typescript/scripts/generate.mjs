#!/usr/bin/env node
// Generates src/gen from the repository's proto/ with buf + the pinned protoc-gen-es.
//
//   node scripts/generate.mjs           regenerate src/gen
//   node scripts/generate.mjs --check   regenerate into a temporary directory and fail when it
//                                       differs from the committed src/gen (stale output)
//
// buf is found in $BUF, then <repo>/.venv/bin/buf (the `buf-bin` PyPI package installed by
// `make install`), then `buf` on PATH. No network access is needed (no remote plugins or deps).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(pkg, "../..");
const committed = join(pkg, "src/gen");

function findBuf() {
  if (process.env.BUF) return process.env.BUF;
  const venv = join(repo, ".venv/bin/buf");
  if (existsSync(venv)) return venv;
  return "buf";
}

function generate(outDir) {
  const plugin = join(pkg, "node_modules/.bin/protoc-gen-es");
  if (!existsSync(plugin)) {
    console.error("protoc-gen-es is missing: run `npm ci` in clients/typescript first");
    process.exit(2);
  }
  // `buf generate <repo>` reads the workspace buf.yaml (module `proto`); --output is the base
  // directory for the template's `out: src/gen`.
  const args = ["generate", repo, "--template", join(pkg, "buf.gen.yaml"), "--output", outDir];
  const run = spawnSync(findBuf(), args, { cwd: pkg, stdio: "inherit" });
  if (run.error) {
    console.error(`cannot run buf (${run.error.message}); set $BUF or run \`make install\``);
    process.exit(2);
  }
  if (run.status !== 0) process.exit(run.status ?? 1);
}

function files(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(relative(dir, join(entry.parentPath ?? entry.path, entry.name)));
  }
  return out.sort();
}

if (process.argv.includes("--check")) {
  const tmp = mkdtempSync(join(tmpdir(), "quire-ts-gen-"));
  try {
    generate(tmp);
    const fresh = join(tmp, "src/gen");
    const want = files(fresh);
    const have = files(committed);
    const problems = [];
    for (const f of new Set([...want, ...have])) {
      if (!want.includes(f)) problems.push(`extra (no longer generated): src/gen/${f}`);
      else if (!have.includes(f)) problems.push(`missing: src/gen/${f}`);
      else if (!readFileSync(join(fresh, f)).equals(readFileSync(join(committed, f))))
        problems.push(`stale: src/gen/${f}`);
    }
    if (problems.length) {
      console.error(problems.join("\n"));
      console.error("generated TypeScript is stale: run `npm run generate` in clients/typescript");
      process.exit(1);
    }
    console.log(`src/gen is up to date (${want.length} files)`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  generate(pkg);
  console.log(`generated ${files(committed).length} files into src/gen`);
}

// Entry point named in tests/conformance/README.md. The runner is written in TypeScript
// (conformance/runner.ts) and compiled to dist/ by `npm run build`.
import { main } from "../dist/conformance/runner.js";

process.exitCode = await main(process.argv.slice(2));

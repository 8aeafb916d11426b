#!/usr/bin/env node
/**
 * Build step (package.json `build` and prepack, after tsc): bundle the CLI into dist/cli/, the
 * package's `bin`. Start-up is a user's latency (issue 30: `hook` runs on every harness event), and
 * Node 20's ES module loader pays per file (resolve, stat, read, compile): the entry point and each
 * command become one file each (`import()` of a command stays lazy: esbuild splits at it), with the
 * code they share in dist/cli/chunks/. Measured on the `hook` path (npm run bench -- cli): about
 * 20% less CPU than the 61 files tsc writes. Packages stay external (ajv's runtime helper, the
 * native fs-native-extensions), resolved from the installed package as before; dist/runtime/ is
 * still the library and what the test suites run.
 * esbuild comes with the devDependencies (through tsx). Exit 1 with esbuild's message on failure.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "cli");
let esbuild;
try {
  esbuild = await import("esbuild");
} catch (error) {
  console.error(
    `lifeloop-callback: cannot bundle the CLI: esbuild is not installed (${error.message}).\nRun \`npm ci\` in ${root} first.`,
  );
  process.exit(1);
}
// A stale chunk of an earlier build must not ship.
rmSync(outdir, { recursive: true, force: true });
try {
  await esbuild.build({
    entryPoints: { main: join(root, "dist", "runtime", "cli", "main.js") },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning",
  });
} catch (error) {
  console.error(`lifeloop-callback: bundling the CLI failed: ${error.message}`);
  process.exit(1);
}

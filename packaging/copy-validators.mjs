#!/usr/bin/env node
/**
 * Build step (package.json `build` and packaging/prepare.mjs, after tsc): copy the per-type
 * validator modules, generated/ts/validators/<Type>.cjs (codegen/targets/ts/validators.ts), to
 * dist/generated/ts/validators/, beside the compiled index that loads them on first use
 * (dist/generated/ts/validators.js). tsc compiles TypeScript only; these are CommonJS files as ajv
 * writes them; likewise generated/ts/versions/<version>/validators/ of an accepted wire version
 * with its own schemas. Stale copies of an earlier build are removed first.
 * Exit 1 with the folder when generated/ts/validators/ is missing (run npm run generate).
 */
import { cpSync, existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "generated", "ts", "validators");
const to = join(root, "dist", "generated", "ts", "validators");
if (!existsSync(from)) {
  console.error(`lifeloop-callback: no validator modules in ${from}: run npm run generate`);
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true, filter: (path) => path === from || path.endsWith(".cjs") });
// An accepted wire version with schemas of its own has its validators under
// generated/ts/versions/<version>/validators/ (codegen/targets/ts/window.ts).
const versions = join(root, "generated", "ts", "versions");
const built = join(root, "dist", "generated", "ts", "versions");
// Only the copied validators/ folders (tsc writes each version's compiled index beside them).
if (existsSync(built))
  for (const version of readdirSync(built))
    rmSync(join(built, version, "validators"), { recursive: true, force: true });
if (existsSync(versions)) {
  for (const version of readdirSync(versions)) {
    const own = join(versions, version, "validators");
    if (!existsSync(own)) continue;
    const into = join(root, "dist", "generated", "ts", "versions", version, "validators");
    cpSync(own, into, { recursive: true, filter: (path) => path === own || path.endsWith(".cjs") });
  }
}

#!/usr/bin/env node
/**
 * `npm pack` / `npm publish` step (package.json `prepack`): build dist/ with the TypeScript compiler
 * from this clone's devDependencies, bundle the CLI (dist/cli, packaging/bundle-cli.mjs), and create the pack destination (.npmrc `pack-destination`,
 * an ignored folder) so the tarball never lands untracked in the repository root.
 * Exit 1 with what to run when the clone has no devDependencies installed yet.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
if (!existsSync(tsc)) {
  console.error(`lifeloop-callback: cannot build the package: ${root} has no node_modules yet.\nRun \`npm ci\` in ${root} first, then \`npm pack\` again.`);
  process.exit(1);
}
const built = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.json")], { stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);
// The CLI the package's `bin` names: the bundle of dist/runtime/cli (packaging/bundle-cli.mjs).
const bundled = spawnSync(process.execPath, [join(root, "packaging", "bundle-cli.mjs")], { stdio: "inherit" });
if (bundled.status !== 0) process.exit(bundled.status ?? 1);
mkdirSync(join(root, ".cache", "pack"), { recursive: true });

#!/usr/bin/env node
/**
 * `npm pack` / `npm publish` step (package.json `prepack`):
 * - build dist/ (packaging/prepare.mjs: tsc, the validator modules, the CLI bundle, mark-bin), which
 *   needs the clone's devDependencies: exit 1 with what to run when `npm ci` has not been run yet;
 * - create the pack destination (.npmrc `pack-destination`, an ignored folder) so the tarball
 *   never lands untracked in the repository root;
 * - leave `prepare` out of the packed package.json: the tarball ships dist/, and npm (11) warns
 *   about a `prepare` script when a tarball is installed (`install-scripts ... not yet covered by
 *   allowScripts`). npm packs package.json as it is on disk after this step, so the file is written
 *   without it and the original is kept in .cache/pack/package.json.orig; `postpack`
 *   (packaging/postpack.mjs) puts it back. A backup left by a pack that died is restored first.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = join(root, "package.json");
const backup = join(root, ".cache", "pack", "package.json.orig");
if (existsSync(backup)) renameSync(backup, manifest);
if (!existsSync(join(root, "node_modules", "typescript", "bin", "tsc"))) {
  console.error(
    `lifeloop-callback: cannot build the package: ${root} has no node_modules yet.\nRun \`npm ci\` in ${root} first, then \`npm pack\` again.`,
  );
  process.exit(1);
}
const built = spawnSync(process.execPath, [join(root, "packaging", "prepare.mjs")], { stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);
// The CLI the package's `bin` names: the bundle of dist/runtime/cli (packaging/bundle-cli.mjs).
const bundled = spawnSync(process.execPath, [join(root, "packaging", "bundle-cli.mjs")], { stdio: "inherit" });
if (bundled.status !== 0) process.exit(bundled.status ?? 1);
mkdirSync(join(root, ".cache", "pack"), { recursive: true });

const text = readFileSync(manifest, "utf8");
const pkg = JSON.parse(text);
// Only a file in npm's own layout (2 spaces, final newline) is rewritten, so the packed file differs
// from the committed one by the removed line alone.
if (pkg.scripts?.prepare !== undefined && `${JSON.stringify(pkg, null, 2)}\n` === text) {
  copyFileSync(manifest, backup);
  delete pkg.scripts.prepare;
  writeFileSync(`${manifest}.tmp`, `${JSON.stringify(pkg, null, 2)}\n`);
  renameSync(`${manifest}.tmp`, manifest);
}
